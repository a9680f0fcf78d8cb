// The CPU backend's kernels, one line per entry point of each family's table
// (Note [Kernel tables]).
#include "ember/kernels/common/kernel_registry.h"
#include "ember/kernels/common/through_compute_dtype.h"
#include "ember/kernels/cpu/bucketing.h"
#include "ember/kernels/cpu/cross_entropy.h"
#include "ember/kernels/cpu/copy.h"
#include "ember/kernels/cpu/conv.h"
#include "ember/kernels/cpu/elementwise.h"
#include "ember/kernels/cpu/factory.h"
#include "ember/kernels/cpu/indexing.h"
#include "ember/kernels/cpu/linalg_solve.h"
#include "ember/kernels/cpu/linalg_spectral.h"
#include "ember/kernels/cpu/matmul.h"
#include "ember/kernels/cpu/normalization.h"
#include "ember/kernels/cpu/optim_kernels.h"
#include "ember/kernels/cpu/pad.h"
#include "ember/kernels/cpu/pooling.h"
#include "ember/kernels/cpu/random.h"
#include "ember/kernels/cpu/reduce.h"
#include "ember/kernels/cpu/scan.h"
#include "ember/kernels/cpu/softmax.h"
#include "ember/kernels/cpu/sort.h"
#include "ember/kernels/cpu/upsample.h"

namespace ember::cpu {

void register_kernels(KernelRegistry& r) {
  r.elementwise.binary.set(kCPU, &binary_kernel);
  r.elementwise.unary.set(kCPU, &unary_kernel);
  r.elementwise.compare.set(kCPU, &compare_kernel);
  r.elementwise.ternary.set(kCPU, &ternary_kernel);
  r.elementwise.where.set(kCPU, &where_kernel);
  r.elementwise.loss.set(kCPU, &loss_kernel);

  r.optimizer.sgd.set(kCPU, &sgd_update);
  r.optimizer.adam.set(kCPU, &adam_update);
  r.optimizer.rmsprop.set(kCPU, &rmsprop_update);
  r.optimizer.adagrad.set(kCPU, &adagrad_update);
  r.optimizer.count_step.set(kCPU, &count_step);

  r.pooling.max_pool2d.set(kCPU, &ThroughFloat32<&max_pool2d, 1>::call);
  r.pooling.avg_pool2d.set(kCPU, &ThroughFloat32<&avg_pool2d, 1>::call);
  r.pooling.avg_pool2d_backward.set(kCPU, &ThroughFloat32<&avg_pool2d_backward, 1>::call);
  r.pooling.adaptive_avg_pool2d.set(kCPU, &ThroughFloat32<&adaptive_avg_pool2d, 1>::call);
  r.pooling.adaptive_avg_pool2d_backward.set(kCPU, &ThroughFloat32<&adaptive_avg_pool2d_backward, 1>::call);
  r.pooling.adaptive_max_pool2d.set(kCPU, &ThroughFloat32<&adaptive_max_pool2d, 1>::call);

  r.upsample.nearest2d.set(kCPU, &ThroughFloat32<&upsample_nearest2d, 1>::call);
  r.upsample.nearest2d_backward.set(kCPU, &ThroughFloat32<&upsample_nearest2d_backward, 1>::call);
  r.upsample.bilinear2d.set(kCPU, &ThroughFloat32<&upsample_bilinear2d, 1>::call);
  r.upsample.bilinear2d_backward.set(kCPU, &ThroughFloat32<&upsample_bilinear2d_backward, 1>::call);

  r.pad.axis.set(kCPU, &ThroughFloat32<&pad_axis, 4>::call);
  r.pad.axis_backward.set(kCPU, &ThroughFloat32<&pad_axis_backward, 3>::call);

  r.normalization.batch_norm_train_forward.set(kCPU, &batch_norm_train_forward);
  r.normalization.batch_norm_apply.set(kCPU, &batch_norm_apply);
  r.normalization.batch_norm_backward.set(kCPU, &batch_norm_backward);
  r.normalization.batch_norm_relu_train_forward.set(kCPU, &batch_norm_relu_train_forward);
  r.normalization.batch_norm_relu_backward.set(kCPU, &batch_norm_relu_backward);
  r.normalization.layer_norm_forward.set(kCPU, &ThroughFloat32<&layer_norm_forward, 4, 5, 6>::call);
  r.normalization.layer_norm_backward.set(kCPU, &ThroughFloat32<&layer_norm_backward, 5, 6, 7>::call);

  r.softmax.by_columns.set(kCPU, &softmax_by_columns);
  r.softmax.columns.set(kCPU, &ThroughFloat32<&softmax_columns_kernel, 2>::call);
  r.softmax.logsumexp.set(kCPU, &ThroughFloat32<&logsumexp_kernel, 0>::call);

  r.reduce.reduce.set(kCPU, &reduce_kernel);
  r.reduce.arg_reduce.set(kCPU, &ThroughComputeDtype<&arg_reduce_kernel, 2>::call);
  r.reduce.abs_pow_sum.set(kCPU, &ThroughFloat32<&abs_pow_sum_kernel>::call);

  r.scan.scan.set(kCPU, &ThroughComputeDtype<&scan_kernel, 2>::call);
  r.scan.logcumsumexp.set(kCPU, &ThroughFloat32<&logcumsumexp_kernel, 0>::call);
  r.scan.cum_extreme.set(kCPU, &ThroughComputeDtype<&cum_extreme_kernel, 2>::call);

  r.sort.sort.set(kCPU, &ThroughComputeDtype<&sort_indices>::call);
  r.sort.topk.set(kCPU, &ThroughComputeDtype<&topk_indices>::call);
  r.sort.kth.set(kCPU, &ThroughComputeDtype<&kth_indices>::call);

  r.indexing.find_out_of_range.set(kCPU, &find_out_of_range);
  r.indexing.gather.set(kCPU, &gather);
  r.indexing.index_select.set(kCPU, &index_select);
  r.indexing.scatter_add.set(kCPU, &scatter_add);
  r.indexing.scatter.set(kCPU, &scatter);
  r.indexing.scatter_reduce.set(kCPU, &scatter_reduce);
  r.indexing.one_hot.set(kCPU, &one_hot);

  r.cross_entropy.by_columns.set(kCPU, &cross_entropy_by_columns);
  // The entry points, not the templates of the same name (kernels/cpu/cross_entropy.h).
  using ForwardFn = decltype(r.cross_entropy.forward)::Fn;
  using BackwardFn = decltype(r.cross_entropy.backward)::Fn;
  r.cross_entropy.forward.set(
      kCPU, &ThroughFloat32<static_cast<ForwardFn>(&cross_entropy_forward), 2, 3>::call);
  r.cross_entropy.backward.set(
      kCPU, &ThroughFloat32<static_cast<BackwardFn>(&cross_entropy_backward), 6>::call);
  r.cross_entropy.check_targets.set(kCPU, &check_class_targets);

  r.bucketing.searchsorted.set(kCPU, &ThroughComputeDtype<&searchsorted>::call);
  r.bucketing.bincount.set(kCPU, &bincount);
  r.bucketing.histc.set(kCPU, &ThroughFloat32<&histc, 0>::call);

  r.copy.copy.set(kCPU, &copy_kernel);
  r.copy.fill.set(kCPU, &fill_kernel);

  r.factory.arange.set(kCPU, &arange_kernel);
  r.factory.linspace.set(kCPU, &linspace_kernel);

  r.random.uniform.set(kCPU, &uniform_kernel);
  r.random.normal.set(kCPU, &normal_kernel);
  r.random.randint.set(kCPU, &randint_kernel);
  r.random.dropout_mask.set(kCPU, &dropout_mask_kernel);

  // 16-bit dtypes: Note [16-bit convolutions on the CPU] (conv.cpp).
  r.conv.forward.set(kCPU, &conv_forward_kernel);
  r.conv.backward_data.set(kCPU, &conv_backward_data_kernel);
  r.conv.backward_weight.set(kCPU, &conv_backward_weight_kernel);

  r.matmul.gemm.set(kCPU, &gemm_kernel);
  r.matmul.gemm_dtypes.set(kCPU, &gemm_dtypes);
  r.matmul.dot.set(kCPU, &ThroughFloat32<&dot_kernel, 0>::call);

  r.linalg.lu_factor.set(kCPU, &lu_factor);
  r.linalg.lu_solve.set(kCPU, &lu_solve);
  r.linalg.cholesky.set(kCPU, &cholesky);
  r.linalg.triangular_solve.set(kCPU, &triangular_solve);
  r.linalg.eigh.set(kCPU, &eigh);
  r.linalg.svd.set(kCPU, &svd);
  r.linalg.qr.set(kCPU, &qr);
  r.linalg.upper_triangular_inverse.set(kCPU, &upper_triangular_inverse);
}

}  // namespace ember::cpu
