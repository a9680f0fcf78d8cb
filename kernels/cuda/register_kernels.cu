// The CUDA backend's kernels, one line per entry point of each family's table
// (Note [Kernel tables]). Built only with the CUDA backend.
#include "ember/kernels/common/kernel_registry.h"
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

  r.pooling.max_pool2d.set(kCUDA, &max_pool2d);
  r.pooling.max_pool2d_backward.set(kCUDA, &max_pool2d_backward);
  r.pooling.avg_pool2d.set(kCUDA, &avg_pool2d);
  r.pooling.avg_pool2d_backward.set(kCUDA, &avg_pool2d_backward);
  r.pooling.adaptive_avg_pool2d.set(kCUDA, &adaptive_avg_pool2d);
  r.pooling.adaptive_avg_pool2d_backward.set(kCUDA, &adaptive_avg_pool2d_backward);
  r.pooling.adaptive_max_pool2d.set(kCUDA, &adaptive_max_pool2d);

  r.upsample.nearest2d.set(kCUDA, &upsample_nearest2d);
  r.upsample.nearest2d_backward.set(kCUDA, &upsample_nearest2d_backward);
  r.upsample.bilinear2d.set(kCUDA, &upsample_bilinear2d);
  r.upsample.bilinear2d_backward.set(kCUDA, &upsample_bilinear2d_backward);

  r.pad.axis.set(kCUDA, &pad_axis);
  r.pad.axis_backward.set(kCUDA, &pad_axis_backward);

  r.normalization.batch_norm_train_forward.set(kCUDA, &batch_norm_train_forward);
  r.normalization.batch_norm_apply.set(kCUDA, &batch_norm_apply);
  r.normalization.batch_norm_backward.set(kCUDA, &batch_norm_backward);
  r.normalization.cudnn_batch_norm_applies.set(kCUDA, &cudnn_batch_norm_applies);
  r.normalization.cudnn_batch_norm_train_forward.set(kCUDA, &cudnn_batch_norm_train_forward);
  r.normalization.cudnn_batch_norm_backward.set(kCUDA, &cudnn_batch_norm_backward);
  r.normalization.layer_norm_forward.set(kCUDA, &layer_norm_forward);
  r.normalization.layer_norm_backward.set(kCUDA, &layer_norm_backward);

  r.softmax.by_columns.set(kCUDA, &softmax_by_columns);
  r.softmax.columns.set(kCUDA, &softmax_columns_kernel);
  r.softmax.rows.set(kCUDA, &softmax_kernel);
  r.softmax.logsumexp.set(kCUDA, &logsumexp_kernel);

  r.reduce.reduce.set(kCUDA, &reduce_kernel);
  r.reduce.arg_reduce.set(kCUDA, &arg_reduce_kernel);
  r.reduce.abs_pow_sum.set(kCUDA, &abs_pow_sum_kernel);

  r.scan.scan.set(kCUDA, &scan_kernel);
  r.scan.logcumsumexp.set(kCUDA, &logcumsumexp_kernel);
  r.scan.cum_extreme.set(kCUDA, &cum_extreme_kernel);

  r.sort.sort.set(kCUDA, &sort_kernel);
  r.sort.topk.set(kCUDA, &topk_kernel);
  r.sort.kth.set(kCUDA, &kth_kernel);

  r.indexing.find_out_of_range.set(kCUDA, &find_out_of_range);
  r.indexing.gather.set(kCUDA, &gather);
  r.indexing.index_select.set(kCUDA, &index_select);
  r.indexing.scatter_add.set(kCUDA, &scatter_add);
  r.indexing.scatter.set(kCUDA, &scatter);
  r.indexing.scatter_reduce.set(kCUDA, &scatter_reduce);
  r.indexing.one_hot.set(kCUDA, &one_hot);

  r.cross_entropy.by_columns.set(kCUDA, &cross_entropy_by_columns);
  r.cross_entropy.forward.set(kCUDA, &cross_entropy_forward);
  r.cross_entropy.backward.set(kCUDA, &cross_entropy_backward);
  r.cross_entropy.check_targets.set(kCUDA, &check_class_targets);

  r.bucketing.searchsorted.set(kCUDA, &searchsorted);
  r.bucketing.bincount.set(kCUDA, &bincount);
  r.bucketing.histc.set(kCUDA, &histc);

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
