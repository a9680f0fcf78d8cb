#include "ember/kernels/common/cuda_plans/normalization_plan.h"

#include <algorithm>

namespace ember::cuda {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Splits `total` items into at most `wanted` chunks of one size, none empty.
void split(int64_t total, int64_t wanted, int64_t& chunks, int64_t& chunk_size) {
  chunks = std::clamp<int64_t>(wanted, 1, kMaxChunks);
  chunk_size = std::max<int64_t>(1, ceil_div(total, chunks));
  chunks = std::max<int64_t>(1, ceil_div(total, chunk_size));
}

}  // namespace

int64_t grid_for_items(int64_t n) {
  return std::clamp<int64_t>(ceil_div(n, kNnThreads), 1, kNnMaxBlocks);
}

ChannelReducePlan plan_channel_reduce(int64_t n, int64_t c, int64_t s) {
  ChannelReducePlan p;
  p.channels = c;
  p.per_channel = n * s;
  // A chunk gives each thread at least 8 values; the chunks of all channels
  // together aim at kReduceTargetBlocks.
  const int64_t by_size = ceil_div(p.per_channel, 8 * kReduceThreads);
  const int64_t by_device = ceil_div(kReduceTargetBlocks, std::max<int64_t>(1, c));
  split(p.per_channel, std::min(by_size, by_device), p.chunks, p.chunk_size);
  p.channel_blocks = std::clamp<int64_t>(c, 1, kNnMaxBlocks);
  return p;
}

RowReducePlan plan_row_reduce(int64_t rows, int64_t k) {
  RowReducePlan p;
  while (p.threads < 512 && p.threads * 4 < k) p.threads *= 2;
  p.blocks = std::clamp<int64_t>(rows, 1, kNnMaxBlocks);
  return p;
}

ColumnReducePlan plan_column_reduce(int64_t rows, int64_t k) {
  ColumnReducePlan p;
  p.column_blocks = std::max<int64_t>(1, ceil_div(k, kNnThreads));
  // At least 32 rows per chunk; the grid aims at kReduceTargetBlocks.
  const int64_t by_size = ceil_div(rows, 32);
  const int64_t by_device = ceil_div(kReduceTargetBlocks, p.column_blocks);
  split(rows, std::min(by_size, by_device), p.row_chunks, p.rows_per_chunk);
  return p;
}

int64_t batch_norm_forward_scratch(const ChannelReducePlan& p) {
  return p.channels * p.chunks * 2;
}

int64_t batch_norm_backward_scratch(const ChannelReducePlan& p) {
  return batch_norm_forward_scratch(p) + p.channels * 3;
}

int64_t layer_norm_backward_scratch(const ColumnReducePlan& p, int64_t k) {
  return p.row_chunks * k * 2;
}

}  // namespace ember::cuda
