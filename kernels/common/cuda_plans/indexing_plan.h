#pragma once
// The plain-data description of one CUDA indexing launch (gather, index_select,
// scatter_add, one_hot), built on the host by cuda_plans/index_launch.cpp and
// read by the kernels in kernels/cuda/indexing_kernels.cu. Plain C++ (built in every
// configuration), so the geometry and index math are tested on the CPU
// (tests/cuda_index_plan_test.cpp).
//
// Every indexing kernel walks the positions p of an iteration shape and touches
// three operands: the dense side (gather's out, scatter_add's src), the int64
// index, and the indexed side (gather's self, scatter_add's self), whose element
// is at offset(p with p[dim] = 0) + index[p] * indexed_stride. The indexed
// side's geometry therefore has stride 0 at dim; its stride along dim is kept
// apart.
#include <cstdint>

#include "ember/core/dim_vector.h"
#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/cuda_plans/elementwise_geometry.h"

namespace ember::cuda {

// Operand roles in IndexLaunch::geometry.
constexpr int kDenseOperand = 0, kIndexOperand = 1, kIndexedOperand = 2;

struct IndexLaunch {
  ElementwiseGeometry geometry;  // over the iteration shape, merged
  int64_t numel = 0;             // positions to walk
  int64_t indexed_stride = 0;    // the indexed side's stride along dim
  int64_t indexed_size = 0;      // valid index values are [0, indexed_size)
  int64_t dim = 0;               // for the out-of-range report
};

// The launch over `iter_sizes` with each operand's strides over that shape
// (dims align; the index's may be 0 where it is broadcast). `indexed_strides`
// is the indexed tensor's full strides: the plan zeroes its dim. Error naming
// `op` when more than kMaxCopyDims dims remain after merging.
IndexLaunch make_index_launch(const char* op, IntArrayRef iter_sizes, IntArrayRef dense_strides,
                              IntArrayRef index_strides, IntArrayRef indexed_strides, int64_t dim,
                              int64_t indexed_size);

// The offsets of position i: dense side, index, and the indexed side at index 0 along dim.
EMBER_HOST_DEVICE void index_launch_offsets(const IndexLaunch& l, int64_t i, int64_t (&off)[3]) {
  operand_offsets(l.geometry, i, off);
}

// Where a kernel writes the first bad index its device meets (see
// kernels/cuda/indexing.h for what the user sees; Note [Index error report]
// in indexing.cpp for who writes it when). One per device, in host memory
// mapped into the devices' address space, so the host reads it without a sync.
// Written by the indexing kernels and the cross-entropy forward (a class
// target outside [0, C) that is not ignore_index).
enum IndexErrorKind : uint32_t {
  kBadIndex = 0,        // size: the indexed dim's size; dim: that dim
  kBadClassTarget = 1,  // size: the class count C; ignore_index: the op's (dim unused)
};
struct IndexErrorReport {
  int64_t value;
  int64_t size;
  int64_t dim;
  int64_t ignore_index;
  uint64_t op;      // the address of the launching op's name (a string literal)
  uint32_t kind;    // an IndexErrorKind
  uint32_t status;  // 0: nothing to report; 1: the fields above are complete
};

// The device addresses a reporting kernel takes: its device's report, and
// that device's claim word (device memory; the first bad thread takes it).
struct IndexErrorSink {
  IndexErrorReport* report = nullptr;
  unsigned int* claim = nullptr;
};

}  // namespace ember::cuda
