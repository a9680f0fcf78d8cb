#pragma once
// The data pipeline in one include: datasets (MNIST, Fashion-MNIST, CIFAR-10,
// TensorDataset), image transforms, the DataLoader and the DistributedSampler
// (namespace ember::data).
#include "ember/nn/data/cifar10.h"
#include "ember/nn/data/data_loader.h"
#include "ember/nn/data/dataset.h"
#include "ember/nn/data/distributed_sampler.h"
#include "ember/nn/data/example.h"
#include "ember/nn/data/example_rng.h"
#include "ember/nn/data/file_bytes.h"
#include "ember/nn/data/image_dataset.h"
#include "ember/nn/data/mnist.h"
#include "ember/nn/data/transforms.h"
