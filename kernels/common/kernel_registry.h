#pragma once
// Every kernel family's table (Note [Kernel tables]), filled on first use by
// the CPU backend and, in a CUDA build, the CUDA backend.
#include "ember/kernels/common/bucketing_kernels.h"
#include "ember/kernels/common/cross_entropy_kernels.h"
#include "ember/kernels/common/copy_kernels.h"
#include "ember/kernels/common/conv_kernels.h"
#include "ember/kernels/common/elementwise_kernels.h"
#include "ember/kernels/common/factory_kernels.h"
#include "ember/kernels/common/indexing_kernels.h"
#include "ember/kernels/common/linalg_kernels.h"
#include "ember/kernels/common/matmul_kernels.h"
#include "ember/kernels/common/normalization_kernels.h"
#include "ember/kernels/common/optimizer_kernels.h"
#include "ember/kernels/common/pad_kernels.h"
#include "ember/kernels/common/pooling_kernels.h"
#include "ember/kernels/common/random_kernels.h"
#include "ember/kernels/common/reduce_kernels.h"
#include "ember/kernels/common/scan_kernels.h"
#include "ember/kernels/common/softmax_kernels.h"
#include "ember/kernels/common/sort_kernels.h"
#include "ember/kernels/common/upsample_kernels.h"

namespace ember {

struct KernelRegistry {
  ElementwiseKernels elementwise;
  OptimizerKernels optimizer;
  PoolingKernels pooling;
  UpsampleKernels upsample;
  PadKernels pad;
  NormalizationKernels normalization;
  SoftmaxKernels softmax;
  ReduceKernels reduce;
  ScanKernels scan;
  SortKernels sort;
  IndexingKernels indexing;
  CrossEntropyKernels cross_entropy;
  BucketingKernels bucketing;
  CopyKernels copy;
  FactoryKernels factory;
  RandomKernels random;
  ConvKernels conv;
  MatmulKernels matmul;
  LinalgKernels linalg;
};

const KernelRegistry& kernels();

// Each backend's registration: one line per family in
// kernels/cpu/register_kernels.cpp and kernels/cuda/register_kernels.cu.
namespace cpu {
void register_kernels(KernelRegistry& registry);
}
namespace cuda {
void register_kernels(KernelRegistry& registry);
}

}  // namespace ember
