#pragma once
// RAII owners of the cuDNN legacy descriptors one convolution needs: tensor
// (NCHW with explicit strides), filter (KCRS) and convolution (geometry,
// groups, math type). CUDA builds only; sizes must fit cuDNN's int (the
// caller checks).
#include <cudnn.h>

#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/kernels/common/conv_params.h"
#include "ember/kernels/cuda/cudnn_check.h"
#include "ember/kernels/common/cuda_plans/cudnn_conv_plan.h"

namespace ember::cuda {

struct TensorDescriptorDeleter {
  void operator()(cudnnTensorDescriptor_t d) const { cudnnDestroyTensorDescriptor(d); }
};
struct FilterDescriptorDeleter {
  void operator()(cudnnFilterDescriptor_t d) const { cudnnDestroyFilterDescriptor(d); }
};
struct ConvolutionDescriptorDeleter {
  void operator()(cudnnConvolutionDescriptor_t d) const { cudnnDestroyConvolutionDescriptor(d); }
};
using TensorDescriptor =
    std::unique_ptr<std::remove_pointer_t<cudnnTensorDescriptor_t>, TensorDescriptorDeleter>;
using FilterDescriptor =
    std::unique_ptr<std::remove_pointer_t<cudnnFilterDescriptor_t>, FilterDescriptorDeleter>;
using ConvolutionDescriptor =
    std::unique_ptr<std::remove_pointer_t<cudnnConvolutionDescriptor_t>,
                    ConvolutionDescriptorDeleter>;

// The data type of tensors of dtype t (the op has checked it is floating).
inline cudnnDataType_t cudnn_data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Double: return CUDNN_DATA_DOUBLE;
    case ScalarType::Half: return CUDNN_DATA_HALF;
    case ScalarType::BFloat16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

// The type a convolution of dtype t computes in: float32 for the 16-bit
// floats (cuDNN's "pseudo-half" configuration), else t's own.
inline cudnnDataType_t cudnn_compute_type(ScalarType t) {
  return is_reduced_floating_point(t) ? CUDNN_DATA_FLOAT : cudnn_data_type(t);
}

// sizes, strides: (N, C, H, W).
inline TensorDescriptor make_tensor_descriptor(cudnnDataType_t type,
                                               const std::array<int64_t, 4>& sizes,
                                               const std::array<int64_t, 4>& strides) {
  cudnnTensorDescriptor_t raw = nullptr;
  EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&raw));
  TensorDescriptor d(raw);
  EMBER_CUDNN_CHECK(cudnnSetTensor4dDescriptorEx(
      raw, type, static_cast<int>(sizes[0]), static_cast<int>(sizes[1]),
      static_cast<int>(sizes[2]), static_cast<int>(sizes[3]), static_cast<int>(strides[0]),
      static_cast<int>(strides[1]), static_cast<int>(strides[2]), static_cast<int>(strides[3])));
  return d;
}

// sizes: (K, C/groups, R, S), contiguous.
inline FilterDescriptor make_filter_descriptor(cudnnDataType_t type,
                                               const std::array<int64_t, 4>& sizes) {
  cudnnFilterDescriptor_t raw = nullptr;
  EMBER_CUDNN_CHECK(cudnnCreateFilterDescriptor(&raw));
  FilterDescriptor d(raw);
  EMBER_CUDNN_CHECK(cudnnSetFilter4dDescriptor(
      raw, type, CUDNN_TENSOR_NCHW, static_cast<int>(sizes[0]), static_cast<int>(sizes[1]),
      static_cast<int>(sizes[2]), static_cast<int>(sizes[3])));
  return d;
}

inline void set_math_type(cudnnConvolutionDescriptor_t d, CudnnMath math) {
  EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(d, static_cast<cudnnMathType_t>(math)));
}

// Cross-correlation (what deep learning calls convolution), computed in `type`.
inline ConvolutionDescriptor make_convolution_descriptor(cudnnDataType_t type,
                                                         const ConvParams& p,
                                                         CudnnMath math) {
  cudnnConvolutionDescriptor_t raw = nullptr;
  EMBER_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&raw));
  ConvolutionDescriptor d(raw);
  EMBER_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
      raw, static_cast<int>(p.padding[0]), static_cast<int>(p.padding[1]),
      static_cast<int>(p.stride[0]), static_cast<int>(p.stride[1]),
      static_cast<int>(p.dilation[0]), static_cast<int>(p.dilation[1]), CUDNN_CROSS_CORRELATION,
      type));
  EMBER_CUDNN_CHECK(cudnnSetConvolutionGroupCount(raw, static_cast<int>(p.groups)));
  set_math_type(raw, math);
  return d;
}

// The descriptors of problem p: input x (N, C, H, W), weight w (K, C/groups,
// R, S), output y (N, K, OH, OW), all contiguous, and the convolution.
struct ConvDescriptors {
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
};

inline ConvDescriptors make_conv_descriptors(const ConvParams& p, CudnnMath math) {
  const cudnnDataType_t type = cudnn_data_type(p.dtype);
  const std::array<int64_t, 4> x{p.n, p.c, p.h, p.w}, y{p.n, p.k, p.out_h(), p.out_w()};
  return {make_tensor_descriptor(type, x, cudnn_contiguous_strides(x)),
          make_tensor_descriptor(type, y, cudnn_contiguous_strides(y)),
          make_filter_descriptor(type, {p.k, p.c / p.groups, p.r, p.s}),
          make_convolution_descriptor(cudnn_compute_type(p.dtype), p, math)};
}

}  // namespace ember::cuda
