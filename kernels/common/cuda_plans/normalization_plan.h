#pragma once
// Launch plans of the CUDA pooling, upsampling and normalization kernels
// (kernels/cuda/{pooling,upsample,normalization}_kernels.cu): grid sizes and
// how a reduction is split. Plain C++, built in every configuration and
// checked on the CPU (tests/cuda_nn_plan_test.cpp).
#include <cstdint>

#include "ember/kernels/common/macros.h"

namespace ember::cuda {

constexpr int kNnThreads = 256;                // threads per block of the per-element kernels
constexpr int64_t kNnMaxBlocks = 65535;        // a grid-stride loop covers the rest
constexpr int kReduceThreads = 512;            // threads per block of the reductions
constexpr int64_t kReduceTargetBlocks = 2048;  // enough blocks to fill an H200 (132 SMs) ~8 deep
constexpr int64_t kMaxChunks = 1024;           // blocks per channel (or per column block), at most

// Blocks of kNnThreads for a grid-stride loop over n items (at least 1).
int64_t grid_for_items(int64_t n);

// Per-channel sums of batch norm over x: (N, C, S), each channel's N * S
// values. Two levels: grid (channel, chunk), each block sums `chunk_size`
// consecutive values of its channel (flat index j = i * S + s) into a partial
// (kept in double), then one thread per channel adds its `chunks` partials.
// Many channels: one chunk per channel (a block per channel); few channels
// with many values: several chunks each, so that the grid fills the device.
struct ChannelReducePlan {
  int64_t channels = 0, per_channel = 0;
  int64_t chunks = 1, chunk_size = 0;  // chunks * chunk_size >= per_channel, no empty chunk
  int64_t channel_blocks = 0;          // grid.x (a grid-stride loop over channels beyond it)
};
ChannelReducePlan plan_channel_reduce(int64_t n, int64_t c, int64_t s);
// The values [begin, end) of its channel that a chunk sums (j = i * S + s).
struct IndexRange {
  int64_t begin, end;
};
EMBER_HOST_DEVICE IndexRange chunk_range(const ChannelReducePlan& p, int64_t chunk) {
  const int64_t begin = chunk * p.chunk_size, end = begin + p.chunk_size;
  return {begin, end < p.per_channel ? end : p.per_channel};
}
// The offset in x (N, C, S) of value j = i * S + s of channel c.
EMBER_HOST_DEVICE int64_t channel_value_offset(int64_t j, int64_t c, int64_t channels,
                                               int64_t s) {
  const int64_t i = j / s;
  return (i * channels + c) * s + (j - i * s);
}
// Doubles of scratch: the forward's partials (s1, s2) of every (channel,
// chunk); the backward's, then 3 coefficients per channel for dx.
int64_t batch_norm_forward_scratch(const ChannelReducePlan& p);
int64_t batch_norm_backward_scratch(const ChannelReducePlan& p);

// Layer norm: a block of `threads` per row of K values (grid-stride over rows
// beyond `blocks`); threads: the power of two nearest K / 4 in [32, 512], so a
// short row does not leave most of a block idle.
struct RowReducePlan {
  int threads = 32;
  int64_t blocks = 0;
};
RowReducePlan plan_row_reduce(int64_t rows, int64_t k);

// Layer norm's dweight / dbias: sums over M rows of each of K columns. Grid
// (column_blocks, row_chunks): each thread of a column block owns one column
// (neighbouring threads read neighbouring columns), each row chunk covers
// rows_per_chunk rows into a partial; one thread per column adds the partials.
struct ColumnReducePlan {
  int64_t column_blocks = 0;
  int64_t row_chunks = 1, rows_per_chunk = 0;
};
ColumnReducePlan plan_column_reduce(int64_t rows, int64_t k);
// The rows [begin, end) a row chunk sums.
EMBER_HOST_DEVICE IndexRange row_chunk_range(const ColumnReducePlan& p, int64_t chunk,
                                             int64_t rows) {
  const int64_t begin = chunk * p.rows_per_chunk, end = begin + p.rows_per_chunk;
  return {begin, end < rows ? end : rows};
}
// Doubles of scratch: the partials (dweight, dbias) of every (row chunk, column).
int64_t layer_norm_backward_scratch(const ColumnReducePlan& p, int64_t k);

}  // namespace ember::cuda
