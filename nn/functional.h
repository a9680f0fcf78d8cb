#pragma once
// nn::functional, as torch::nn::functional: namespace F = ember::nn::functional;
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/fold.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/functional/pixelshuffle.h"
#include "ember/nn/functional/pooling.h"
#include "ember/nn/functional/upsampling.h"
