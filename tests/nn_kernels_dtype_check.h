#pragma once
// Runs each entry point of the nn kernel families' tables (one check_<family>
// each) through the registered kernel of one device for each dtype, and
// checks that the kernel takes exactly the dtypes its family's header names:
// no Error for those, the dispatch's Error naming the op and the dtype for
// the others. Shared by the CPU tests and the CUDA tests, so both backends
// are held to the same sets.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::nn_kernels_dtype_check {

using dtype_check::expect;
using dtype_check::kEveryDtype;

// Every pooling kernel takes the floating dtypes only. max_pool2d_backward
// is checked where the device has it (CUDA).
inline void check_pooling(Device device) {
  const PoolingKernels& k = kernels().pooling;
  const TensorOptions opts = TensorOptions().device(device);
  const functors::PoolWindow w{2, 2, 2, 2, 0, 0};
  for (ScalarType t : kEveryDtype) {
    const bool takes = is_floating_point(t);
    const Tensor x = ones({1, 4, 4}, opts.dtype(t)), out = empty({1, 2, 2}, opts.dtype(t));
    const Tensor grad_out = ones({1, 2, 2}, opts.dtype(t));
    const Tensor grad_in = empty({1, 4, 4}, opts.dtype(t));
    const Tensor indices = zeros({1, 2, 2}, opts.dtype(kLong));
    expect("max_pool2d", t, takes,
           [&] { k.max_pool2d.on(device, "max_pool2d")(x, out, indices, w); });
    if (k.max_pool2d_backward.has(device.type()))
      expect("max_pool2d_backward", t, takes, [&] {
        k.max_pool2d_backward.on(device, "max_pool2d_backward")(grad_out, indices, grad_in, w);
      });
    expect("avg_pool2d", t, takes, [&] { k.avg_pool2d.on(device, "avg_pool2d")(x, out, w, true); });
    expect("avg_pool2d_backward", t, takes, [&] {
      k.avg_pool2d_backward.on(device, "avg_pool2d_backward")(grad_out, grad_in, w, true);
    });
    expect("adaptive_avg_pool2d", t, takes,
           [&] { k.adaptive_avg_pool2d.on(device, "adaptive_avg_pool2d")(x, out); });
    expect("adaptive_avg_pool2d_backward", t, takes, [&] {
      k.adaptive_avg_pool2d_backward.on(device, "adaptive_avg_pool2d_backward")(grad_out, grad_in);
    });
    expect("adaptive_max_pool2d", t, takes, [&] {
      k.adaptive_max_pool2d.on(device, "adaptive_max_pool2d")(x, out, indices);
    });
  }
}

// Every upsampling kernel takes the floating dtypes only.
inline void check_upsample(Device device) {
  const UpsampleKernels& k = kernels().upsample;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : kEveryDtype) {
    const bool takes = is_floating_point(t);
    const Tensor x = ones({1, 2, 2}, opts.dtype(t)), out = empty({1, 4, 4}, opts.dtype(t));
    const Tensor grad_out = ones({1, 4, 4}, opts.dtype(t));
    const Tensor grad_in = zeros({1, 2, 2}, opts.dtype(t));
    expect("upsample_nearest2d", t, takes,
           [&] { k.nearest2d.on(device, "upsample_nearest2d")(x, out); });
    expect("upsample_nearest2d_backward", t, takes, [&] {
      k.nearest2d_backward.on(device, "upsample_nearest2d_backward")(grad_out, grad_in);
    });
    expect("upsample_bilinear2d", t, takes,
           [&] { k.bilinear2d.on(device, "upsample_bilinear2d")(x, out, false); });
    expect("upsample_bilinear2d_backward", t, takes, [&] {
      k.bilinear2d_backward.on(device, "upsample_bilinear2d_backward")(grad_out, grad_in, false);
    });
  }
}

// Both padding kernels take the floating dtypes only.
inline void check_pad(Device device) {
  const PadKernels& k = kernels().pad;
  const TensorOptions opts = TensorOptions().device(device);
  const functors::PadAxis a{3, 5, 1, PadMode::Reflect};  // in, out, before, mode
  for (ScalarType t : kEveryDtype) {
    const bool takes = is_floating_point(t);
    const Tensor x = ones({2, 3}, opts.dtype(t)), out = empty({2, 5}, opts.dtype(t));
    const Tensor grad_out = ones({2, 5}, opts.dtype(t)), grad_in = empty({2, 3}, opts.dtype(t));
    expect("pad", t, takes, [&] { k.axis.on(device, "pad")(x, a, 1, 0.0, out); });
    expect("pad_backward", t, takes,
           [&] { k.axis_backward.on(device, "pad_backward")(grad_out, a, 1, grad_in); });
  }
}

// The fused batch and layer norm kernels take the floating dtypes only (the
// cuDNN entries are CUDA's and are asked first whether they apply).
inline void check_normalization(Device device) {
  const NormalizationKernels& k = kernels().normalization;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : kEveryDtype) {
    const bool takes = is_floating_point(t);
    const TensorOptions o = opts.dtype(t);
    // Batch norm over (N, C, S) = (2, 3, 4); no affine parameters.
    const Tensor x = ones({2, 3, 4}, o), y = empty({2, 3, 4}, o), dx = empty({2, 3, 4}, o);
    const Tensor mean = zeros({3}, o), var = empty({3}, o), invstd = ones({3}, o);
    const Tensor dw = empty({3}, o), db = empty({3}, o);
    expect("batch_norm", t, takes, [&] {
      k.batch_norm_train_forward.on(device, "batch_norm")(x, {}, {}, 1e-5, y, mean, var, invstd);
    });
    expect("batch_norm", t, takes, [&] {
      k.batch_norm_apply.on(device, "batch_norm")(x, mean, invstd, {}, {}, y);
    });
    expect("batch_norm_backward", t, takes, [&] {
      k.batch_norm_backward.on(device, "batch_norm_backward")(x, x, mean, invstd, {}, true, dx,
                                                              dw, db);
    });
    // Layer norm: 6 rows of 4.
    const Tensor rows_mean = zeros({6}, o), rstd = ones({6}, o);
    const Tensor kw = empty({4}, o), kb = empty({4}, o);
    expect("layer_norm", t, takes, [&] {
      k.layer_norm_forward.on(device, "layer_norm")(x, {}, {}, 1e-5, y, rows_mean, rstd);
    });
    expect("layer_norm_backward", t, takes, [&] {
      k.layer_norm_backward.on(device, "layer_norm_backward")(x, x, rows_mean, rstd, {}, dx, kw,
                                                              kb);
    });
  }
}

// The softmax kernels take the floating dtypes only; `rows` is checked where
// the device has it (CUDA).
inline void check_softmax(Device device) {
  const SoftmaxKernels& k = kernels().softmax;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : kEveryDtype) {
    const bool takes = is_floating_point(t);
    const Tensor x = ones({2, 3, 4}, opts.dtype(t)), y = empty({2, 3, 4}, opts.dtype(t));
    const Tensor lse = empty({6}, opts.dtype(t));
    for (bool log : {false, true}) {
      const char* op = log ? "log_softmax" : "softmax";
      expect(op, t, takes, [&] { k.columns.on(device, op)(op, log, y, x, 2, 3, 4); });
      if (k.rows.has(device.type()))
        expect(op, t, takes, [&] { k.rows.on(device, op)(op, log, y, x, 6, 4); });
    }
    expect("logsumexp", t, takes, [&] { k.logsumexp.on(device, "logsumexp")(lse, x, 6, 4); });
  }
}

// The cross-entropy forward and backward take the floating dtypes only (named
// cross_entropy), over 2 lines of 3 classes: (2, 3, 1), a layout every
// device takes; check_targets takes the int64 target.
inline void check_cross_entropy(Device device) {
  const CrossEntropyKernels& k = kernels().cross_entropy;
  const TensorOptions opts = TensorOptions().device(device);
  const char* op = "cross_entropy";
  CrossEntropyArgs args;
  args.outer = 2;
  args.classes = 3;
  args.inner = 1;
  args.target = zeros({2}, opts.dtype(kLong));
  for (ScalarType t : kEveryDtype) {
    const bool takes = is_floating_point(t);
    const Tensor x = ones({2, 3}, opts.dtype(t)), dx = empty({2, 3}, opts.dtype(t));
    const Tensor lse = empty({2}, opts.dtype(t)), loss = empty({2}, opts.dtype(t));
    const Tensor line_weight = empty({2}, opts.dtype(t)), grad = ones({2}, opts.dtype(t));
    expect(op, t, takes, [&] { k.forward.on(device, op)(x, args, lse, loss, line_weight); });
    expect(op, t, takes, [&] { k.backward.on(device, op)(x, args, lse, grad, 1, Tensor(), dx); });
  }
  CHECK_NOTHROW(k.check_targets.on(device, "nll_loss")("nll_loss", args.target, 3, -100));
}

// Every conv pass takes the floating dtypes only (a 1x1 conv of one 3x3
// image); backward-data is named after conv_transpose2d, its forward.
inline void check_conv(Device device) {
  const ConvKernels& k = kernels().conv;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : kEveryDtype) {
    const bool takes = is_floating_point(t);
    ConvParams p;
    p.n = 1, p.c = 1, p.h = 3, p.w = 3, p.k = 1, p.r = 1, p.s = 1;
    p.dtype = t;
    const Tensor x = ones({1, 1, 3, 3}, opts.dtype(t)), w = ones({1, 1, 1, 1}, opts.dtype(t));
    const Tensor y = empty({1, 1, 3, 3}, opts.dtype(t)), gw = empty({1, 1, 1, 1}, opts.dtype(t));
    expect("conv2d", t, takes, [&] { k.forward.on(device, "conv2d")(x, w, {}, y, p); });
    expect("conv_transpose2d", t, takes,
           [&] { k.backward_data.on(device, "conv_transpose2d")(y, w, {}, x, p); });
    expect("conv2d", t, takes,
           [&] { k.backward_weight.on(device, "conv2d")(x, y, gw, p); });
  }
}

}  // namespace ember::nn_kernels_dtype_check
