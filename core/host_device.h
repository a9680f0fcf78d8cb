#pragma once
// EMBER_HOST_DEVICE marks code shared by the CPU and CUDA backends: compiled
// by nvcc it runs on both, compiled by the host compiler it is plain C++.
#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define EMBER_HOST_DEVICE inline
#endif
