#pragma once
// The three cuDNN conv passes behind one shape, so that cudnn_conv.cu
// chooses and runs an algorithm the same way for each: the heuristic list
// (cudnnGet*Algorithm_v7), the workspace an algorithm needs, Find*Ex and the
// run. kAlgoCount is the number of algorithm ids; a heuristic or Find list
// can be longer (an id may appear once per math type): max_count gives its
// length. Every pass sees the conv's input x, weight w and output y (descriptors
// and buffers) and writes one of them: forward y, backward-data x,
// backward-filter w. CUDA builds only.
#include <cudnn.h>

#include "ember/kernels/common/conv_params.h"
#include "ember/kernels/cuda/cudnn_descriptors.h"

namespace ember::cuda {

struct ConvBuffers {
  void* x = nullptr;  // (N, C, H, W)
  void* w = nullptr;  // (K, C/groups, R, S)
  void* y = nullptr;  // (N, K, OH, OW)
};

struct CudnnForwardPass {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr ConvPass kPass = ConvPass::kForward;

  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionForwardAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const ConvDescriptors& d, int count, int* n,
                                 Perf* out) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.get(), d.w.get(), d.conv.get(),
                                                  d.y.get(), count, n, out);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const ConvDescriptors& d, int algo,
                                 size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, d.x.get(), d.w.get(), d.conv.get(),
                                                   d.y.get(),
                                                   static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                                   bytes);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const ConvDescriptors& d, const ConvBuffers& b,
                            int count, int* n, Perf* out, void* ws, size_t ws_bytes) {
    return cudnnFindConvolutionForwardAlgorithmEx(h, d.x.get(), b.x, d.w.get(), b.w,
                                                  d.conv.get(), d.y.get(), b.y, count, n, out, ws,
                                                  ws_bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const ConvDescriptors& d, const ConvBuffers& b,
                           int algo, void* ws, size_t ws_bytes, const void* one,
                           const void* zero) {
    return cudnnConvolutionForward(h, one, d.x.get(), b.x, d.w.get(), b.w, d.conv.get(),
                                   static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, ws_bytes,
                                   zero, d.y.get(), b.y);
  }
};

struct CudnnBackwardDataPass {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr ConvPass kPass = ConvPass::kBackwardData;

  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const ConvDescriptors& d, int count, int* n,
                                 Perf* out) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.get(), d.y.get(), d.conv.get(),
                                                       d.x.get(), count, n, out);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const ConvDescriptors& d, int algo,
                                 size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(
        h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(),
        static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), bytes);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const ConvDescriptors& d, const ConvBuffers& b,
                            int count, int* n, Perf* out, void* ws, size_t ws_bytes) {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(h, d.w.get(), b.w, d.y.get(), b.y,
                                                       d.conv.get(), d.x.get(), b.x, count, n,
                                                       out, ws, ws_bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const ConvDescriptors& d, const ConvBuffers& b,
                           int algo, void* ws, size_t ws_bytes, const void* one,
                           const void* zero) {
    return cudnnConvolutionBackwardData(h, one, d.w.get(), b.w, d.y.get(), b.y, d.conv.get(),
                                        static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws,
                                        ws_bytes, zero, d.x.get(), b.x);
  }
};

struct CudnnBackwardFilterPass {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr ConvPass kPass = ConvPass::kBackwardWeight;

  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const ConvDescriptors& d, int count, int* n,
                                 Perf* out) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x.get(), d.y.get(), d.conv.get(),
                                                         d.w.get(), count, n, out);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const ConvDescriptors& d, int algo,
                                 size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(
        h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(),
        static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), bytes);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const ConvDescriptors& d, const ConvBuffers& b,
                            int count, int* n, Perf* out, void* ws, size_t ws_bytes) {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, d.x.get(), b.x, d.y.get(), b.y,
                                                         d.conv.get(), d.w.get(), b.w, count, n,
                                                         out, ws, ws_bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const ConvDescriptors& d, const ConvBuffers& b,
                           int algo, void* ws, size_t ws_bytes, const void* one,
                           const void* zero) {
    return cudnnConvolutionBackwardFilter(h, one, d.x.get(), b.x, d.y.get(), b.y, d.conv.get(),
                                          static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws,
                                          ws_bytes, zero, d.w.get(), b.w);
  }
};

}  // namespace ember::cuda
