// The CUDA backend's kernels, one line per entry point of each family's table
// (Note [Kernel tables]). Built only with the CUDA backend.
#include "ember/kernels/common/kernel_registry.h"
#include "ember/kernels/common/through_compute_dtype.h"
#include "ember/kernels/cuda/bucketing.h"
#include "ember/kernels/cuda/cross_entropy.h"
#include "ember/kernels/cuda/copy.h"
#include "ember/kernels/cuda/blas.h"
#include "ember/kernels/cuda/cudnn_batch_norm.h"
#include "ember/kernels/cuda/cudnn_conv.h"
#include "ember/kernels/cuda/elementwise.h"
#include "ember/kernels/cuda/factory.h"
#include "ember/kernels/cuda/indexing.h"
#include "ember/kernels/cuda/linalg_solve.h"
#include "ember/kernels/cuda/normalization.h"
#include "ember/kernels/cuda/optim.h"
#include "ember/kernels/cuda/pad.h"
#include "ember/kernels/cuda/pooling.h"
#include "ember/kernels/cuda/random.h"
#include "ember/kernels/cuda/reduce.h"
#include "ember/kernels/common/cuda_plans/reduce_plan.h"
#include "ember/kernels/cuda/scan.h"
#include "ember/kernels/cuda/softmax.h"
#include "ember/kernels/cuda/sort.h"
#include "ember/kernels/cuda/upsample.h"

namespace ember::cuda {

void register_kernels(KernelRegistry& r) {
  r.elementwise.binary.set(kCUDA, &binary_kernel);
  r.elementwise.unary.set(kCUDA, &unary_kernel);
  r.elementwise.compare.set(kCUDA, &compare_kernel);
  r.elementwise.ternary.set(kCUDA, &ternary_kernel);
  r.elementwise.where.set(kCUDA, &where_kernel);
  r.elementwise.loss.set(kCUDA, &loss_kernel);

  r.optimizer.sgd.set(kCUDA, &sgd_update);
  r.optimizer.adam.set(kCUDA, &adam_update);
  r.optimizer.rmsprop.set(kCUDA, &rmsprop_update);
  r.optimizer.adagrad.set(kCUDA, &adagrad_update);
  r.optimizer.count_step.set(kCUDA, &count_step);

  r.pooling.max_pool2d.set(kCUDA, &ThroughFloat32<&max_pool2d, 1>::call);
  r.pooling.max_pool2d_backward.set(kCUDA, &ThroughFloat32<&max_pool2d_backward, 2>::call);
  r.pooling.avg_pool2d.set(kCUDA, &ThroughFloat32<&avg_pool2d, 1>::call);
  r.pooling.avg_pool2d_backward.set(kCUDA, &ThroughFloat32<&avg_pool2d_backward, 1>::call);
  r.pooling.adaptive_avg_pool2d.set(kCUDA, &ThroughFloat32<&adaptive_avg_pool2d, 1>::call);
  r.pooling.adaptive_avg_pool2d_backward.set(kCUDA, &ThroughFloat32<&adaptive_avg_pool2d_backward, 1>::call);
  r.pooling.adaptive_max_pool2d.set(kCUDA, &ThroughFloat32<&adaptive_max_pool2d, 1>::call);

  r.upsample.nearest2d.set(kCUDA, &ThroughFloat32<&upsample_nearest2d, 1>::call);
  r.upsample.nearest2d_backward.set(kCUDA, &ThroughFloat32<&upsample_nearest2d_backward, 1>::call);
  r.upsample.bilinear2d.set(kCUDA, &ThroughFloat32<&upsample_bilinear2d, 1>::call);
  r.upsample.bilinear2d_backward.set(kCUDA, &ThroughFloat32<&upsample_bilinear2d_backward, 1>::call);

  r.pad.axis.set(kCUDA, &ThroughFloat32<&pad_axis, 4>::call);
  r.pad.axis_backward.set(kCUDA, &ThroughFloat32<&pad_axis_backward, 3>::call);

  r.normalization.batch_norm_train_forward.set(kCUDA, &ThroughFloat32<&batch_norm_train_forward, 4, 5, 6, 7>::call);
  r.normalization.batch_norm_apply.set(kCUDA, &ThroughFloat32<&batch_norm_apply, 5>::call);
  r.normalization.batch_norm_backward.set(kCUDA, &ThroughFloat32<&batch_norm_backward, 6, 7, 8>::call);
  r.normalization.cudnn_batch_norm_applies.set(kCUDA, &cudnn_batch_norm_applies);
  r.normalization.cudnn_batch_norm_train_forward.set(kCUDA, &cudnn_batch_norm_train_forward);
  r.normalization.cudnn_batch_norm_backward.set(kCUDA, &cudnn_batch_norm_backward);
  r.normalization.layer_norm_forward.set(kCUDA, &ThroughFloat32<&layer_norm_forward, 4, 5, 6>::call);
  r.normalization.layer_norm_backward.set(kCUDA, &ThroughFloat32<&layer_norm_backward, 5, 6, 7>::call);

  r.softmax.by_columns.set(kCUDA, &softmax_by_columns);
  r.softmax.columns.set(kCUDA, &softmax_columns_kernel);
  r.softmax.rows.set(kCUDA, &softmax_kernel);
  r.softmax.logsumexp.set(kCUDA, &logsumexp_kernel);

  r.reduce.reduce.set(kCUDA, &reduce_kernel);
  r.reduce.arg_reduce.set(kCUDA, &ThroughComputeDtype<&arg_reduce_kernel, 2>::call);
  r.reduce.abs_pow_sum.set(kCUDA, &ThroughFloat32<&abs_pow_sum_kernel>::call);

  r.scan.scan.set(kCUDA, &ThroughComputeDtype<&scan_kernel, 2>::call);
  r.scan.logcumsumexp.set(kCUDA, &ThroughFloat32<&logcumsumexp_kernel, 0>::call);
  r.scan.cum_extreme.set(kCUDA, &ThroughComputeDtype<&cum_extreme_kernel, 2>::call);

  r.sort.sort.set(kCUDA, &ThroughComputeDtype<&sort_kernel>::call);
  r.sort.topk.set(kCUDA, &ThroughComputeDtype<&topk_kernel>::call);
  r.sort.kth.set(kCUDA, &ThroughComputeDtype<&kth_kernel>::call);

  r.indexing.find_out_of_range.set(kCUDA, &find_out_of_range);
  r.indexing.gather.set(kCUDA, &gather);
  r.indexing.index_select.set(kCUDA, &index_select);
  r.indexing.scatter_add.set(kCUDA, &scatter_add);
  r.indexing.scatter.set(kCUDA, &scatter);
  r.indexing.scatter_reduce.set(kCUDA, &scatter_reduce);
  r.indexing.one_hot.set(kCUDA, &one_hot);

  r.cross_entropy.by_columns.set(kCUDA, &cross_entropy_by_columns);
  r.cross_entropy.forward.set(kCUDA, &ThroughFloat32<&cross_entropy_forward, 2, 3>::call);
  r.cross_entropy.backward.set(kCUDA, &ThroughFloat32<&cross_entropy_backward, 6>::call);
  r.cross_entropy.check_targets.set(kCUDA, &check_class_targets);

  r.bucketing.searchsorted.set(kCUDA, &ThroughComputeDtype<&searchsorted>::call);
  r.bucketing.bincount.set(kCUDA, &bincount);
  r.bucketing.histc.set(kCUDA, &ThroughFloat32<&histc, 0>::call);

  r.copy.copy.set(kCUDA, &copy_kernel);
  r.copy.fill.set(kCUDA, &fill_kernel);
  r.copy.to_device.set(kCUDA, &transfer_to_device);
  r.copy.to_host.set(kCUDA, &transfer_to_host);
  r.copy.between_devices.set(kCUDA, &transfer_between_devices);

  r.factory.arange.set(kCUDA, &fill_arange);
  r.factory.linspace.set(kCUDA, &fill_linspace);

  r.random.uniform.set(kCUDA, &fill_uniform);
  r.random.normal.set(kCUDA, &fill_normal);
  r.random.randint.set(kCUDA, &fill_randint);
  r.random.dropout_mask.set(kCUDA, &fill_dropout_mask);

  // cuDNN convolves bfloat16 and float16 itself (tensor-op math, float32 accumulation).
  r.conv.forward.set(kCUDA, &cudnn_conv_forward);
  r.conv.backward_data.set(kCUDA, &cudnn_conv_backward_data);
  r.conv.backward_weight.set(kCUDA, &cudnn_conv_backward_weight);

  r.matmul.gemm.set(kCUDA, &gemm);
  r.matmul.gemm_dtypes.set(kCUDA, &gemm_dtypes);

  r.linalg.lu_factor.set(kCUDA, &lu_factor);
  r.linalg.lu_solve.set(kCUDA, &lu_solve);
  r.linalg.cholesky.set(kCUDA, &cholesky);
  r.linalg.triangular_solve.set(kCUDA, &triangular_solve);
}

}  // namespace ember::cuda
