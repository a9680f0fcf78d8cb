// The device-independent half of the CUDA pooling, upsampling and
// normalization kernels, checked on the CPU: the launch plans
// (kernels/common/cuda_plans/normalization_plan.h) and the index maths the gather-form
// backward kernels walk (kernels/common/pooling_functors.h), each run here as
// the kernel runs it and compared with a direct loop. With a device,
// tests/cuda/{pooling,upsample,normalization}_test.cpp check the kernels.
#include <catch2/catch.hpp>

#include <ember/kernels/common/pooling_functors.h>
#include <ember/kernels/common/cuda_plans/cudnn_batch_norm_plan.h>
#include <ember/kernels/common/cuda_plans/normalization_plan.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

using namespace ember;
using namespace ember::cuda;

namespace {

// Every value of every channel is in exactly one chunk, and no chunk is empty.
void require_chunks_cover(const ChannelReducePlan& p) {
  REQUIRE(p.chunks >= 1);
  REQUIRE(p.chunks <= kMaxChunks);
  if (p.per_channel == 0) return;
  int64_t next = 0;
  for (int64_t chunk = 0; chunk < p.chunks; ++chunk) {
    const IndexRange r = chunk_range(p, chunk);
    REQUIRE(r.begin == next);
    REQUIRE(r.end > r.begin);
    next = r.end;
  }
  REQUIRE(next == p.per_channel);
}

}  // namespace

TEST_CASE("cuda nn plan: grid_for_items covers n with kNnThreads per block, capped at 65535",
          "[cuda_nn]") {
  CHECK(grid_for_items(0) == 1);
  CHECK(grid_for_items(1) == 1);
  CHECK(grid_for_items(kNnThreads) == 1);
  CHECK(grid_for_items(kNnThreads + 1) == 2);
  CHECK(grid_for_items(int64_t(1) << 40) == kNnMaxBlocks);
}

TEST_CASE("cuda nn plan: many channels reduce one block per channel, few large channels split "
          "into chunks that fill the device",
          "[cuda_nn]") {
  const ChannelReducePlan many = plan_channel_reduce(8, 4096, 49);
  CHECK(many.chunks == 1);
  CHECK(many.chunk_size == 8 * 49);
  CHECK(many.channel_blocks == 4096);
  require_chunks_cover(many);

  const ChannelReducePlan few = plan_channel_reduce(64, 3, 224 * 224);  // N*S > 65535
  CHECK(few.chunks > 1);
  CHECK(few.chunks * few.channels >= kReduceTargetBlocks / 2);
  CHECK(few.chunk_size >= 8 * kReduceThreads);
  require_chunks_cover(few);

  const ChannelReducePlan huge_c = plan_channel_reduce(2, 100000, 3);
  CHECK(huge_c.channel_blocks == kNnMaxBlocks);  // a grid-stride loop over channels
  require_chunks_cover(huge_c);
}

TEST_CASE("cuda nn plan: channel chunks cover every value once for odd sizes", "[cuda_nn]") {
  for (int64_t n : {1, 2, 7, 31})
    for (int64_t c : {1, 3, 64})
      for (int64_t s : {1, 7, 31, 961, 70001}) {
        INFO("n " << n << " c " << c << " s " << s);
        require_chunks_cover(plan_channel_reduce(n, c, s));
      }
}

TEST_CASE("cuda nn plan: the two-level channel sums, run as the kernel indexes them, equal "
          "direct per-channel sums (N*S > 65535)",
          "[cuda_nn]") {
  const int64_t n = 3, c = 5, s = 30001;
  std::vector<double> x(static_cast<size_t>(n * c * s));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>((i * 7919) % 1000);
  const ChannelReducePlan p = plan_channel_reduce(n, c, s);
  REQUIRE(p.chunks > 1);
  std::vector<double> partials(static_cast<size_t>(batch_norm_forward_scratch(p)), -1.0);
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t chunk = 0; chunk < p.chunks; ++chunk) {
      double sum = 0;
      const IndexRange r = chunk_range(p, chunk);
      for (int64_t j = r.begin; j < r.end; ++j) sum += x[channel_value_offset(j, ch, c, s)];
      partials[(ch * p.chunks + chunk) * 2] = sum;
    }
  for (int64_t ch = 0; ch < c; ++ch) {
    double total = 0, want = 0;
    for (int64_t chunk = 0; chunk < p.chunks; ++chunk) total += partials[(ch * p.chunks + chunk) * 2];
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < s; ++k) want += x[(i * c + ch) * s + k];
    CHECK(total == want);
  }
  CHECK(batch_norm_backward_scratch(p) == batch_norm_forward_scratch(p) + 3 * c);
}

TEST_CASE("cuda nn plan: layer norm blocks have the power of two near K / 4 threads in [32, "
          "512] and grid-stride over rows beyond 65535",
          "[cuda_nn]") {
  CHECK(plan_row_reduce(1, 1).threads == 32);
  CHECK(plan_row_reduce(1, 128).threads == 32);
  CHECK(plan_row_reduce(1, 129).threads == 64);
  CHECK(plan_row_reduce(1, 1024).threads == 256);
  CHECK(plan_row_reduce(1, 1 << 20).threads == 512);
  CHECK(plan_row_reduce(7, 31).blocks == 7);
  CHECK(plan_row_reduce(100000, 31).blocks == kNnMaxBlocks);
}

TEST_CASE("cuda nn plan: layer norm column sums split the rows into chunks covering each row "
          "once",
          "[cuda_nn]") {
  for (int64_t rows : {0, 1, 31, 1025, 100000})
    for (int64_t k : {1, 7, 300, 5000}) {
      INFO("rows " << rows << " k " << k);
      const ColumnReducePlan p = plan_column_reduce(rows, k);
      CHECK(p.column_blocks * kNnThreads >= k);
      REQUIRE(p.row_chunks >= 1);
      REQUIRE(p.row_chunks <= kMaxChunks);
      int64_t next = 0;
      for (int64_t chunk = 0; chunk < p.row_chunks; ++chunk) {
        const IndexRange r = row_chunk_range(p, chunk, rows);
        REQUIRE(r.begin == next);
        REQUIRE((r.end > r.begin || rows == 0));
        next = r.end;
      }
      CHECK(next == rows);
      CHECK(layer_norm_backward_scratch(p, k) == p.row_chunks * k * 2);
    }
  CHECK(plan_column_reduce(100000, 10).row_chunks > 1);
}

TEST_CASE("cuda nn plan: pool_output_reading finds exactly the (output, kernel offset) pairs "
          "whose window reads an input, with padding, dilation and ceil-mode outputs",
          "[cuda_nn]") {
  struct Case {
    int64_t in, kernel, stride, pad, dilation, out;
  };
  // out: as pooled_size gives, the last two with ceil_mode's extra output.
  for (const Case& c : {Case{7, 3, 2, 1, 1, 4}, Case{31, 3, 3, 0, 2, 9}, Case{1, 1, 1, 0, 1, 1},
                        Case{8, 2, 3, 1, 1, 4}, Case{7, 2, 2, 0, 1, 4}}) {
    for (int64_t i = 0; i < c.in; ++i) {
      std::vector<std::pair<int64_t, int64_t>> found, want;
      for (int64_t k = 0; k < c.kernel; ++k) {
        int64_t o;
        if (functors::pool_output_reading(i, k, c.stride, c.pad, c.dilation, c.out, o))
          found.emplace_back(o, k);
      }
      for (int64_t o = 0; o < c.out; ++o)
        for (int64_t k = 0; k < c.kernel; ++k)
          if (o * c.stride - c.pad + k * c.dilation == i) want.emplace_back(o, k);
      std::sort(found.begin(), found.end());
      INFO("input " << i << " of " << c.in);
      CHECK(found == want);
    }
  }
}

TEST_CASE("cuda nn plan: the adaptive span with sizes swapped is the set of outputs whose "
          "windows hold an input",
          "[cuda_nn]") {
  for (int64_t in : {1, 5, 7, 31})
    for (int64_t out : {1, 3, 7, 10, 31}) {
      for (int64_t i = 0; i < in; ++i) {
        const functors::PoolSpan inverse = functors::adaptive_span(i, out, in);
        for (int64_t o = 0; o < out; ++o) {
          const functors::PoolSpan w = functors::adaptive_span(o, in, out);
          INFO("in " << in << " out " << out << " input " << i << " output " << o);
          CHECK((w.begin <= i && i < w.end) == (inverse.begin <= o && o < inverse.end));
        }
      }
    }
}

TEST_CASE("cuda nn plan: nearest_outputs is the run of outputs whose nearest source is the "
          "input, upsampling and downsampling",
          "[cuda_nn]") {
  for (int64_t in : {1, 3, 7, 31})
    for (int64_t out : {1, 2, 5, 7, 14, 31, 62, 100}) {
      for (int64_t i = 0; i < in; ++i) {
        const functors::PoolSpan run = functors::nearest_outputs(i, in, out);
        for (int64_t o = 0; o < out; ++o) {
          INFO("in " << in << " out " << out << " input " << i << " output " << o);
          CHECK((functors::nearest_source(o, in, out) == i) == (run.begin <= o && o < run.end));
        }
      }
    }
}

TEST_CASE("cuda nn plan: max_pool_span walks exactly the window positions inside the input, "
          "and avg_pool_span's factor is PyTorch's divisor",
          "[cuda_nn]") {
  for (int64_t in : {1, 5, 8})
    for (int64_t kernel : {1, 2, 3, 5})
      for (int64_t stride : {1, 2, 3})
        for (int64_t dilation : {1, 2})
          for (int64_t pad = 0; pad <= kernel / 2; ++pad)
            for (int64_t o = 0; o < 6; ++o) {
              INFO("in " << in << " k " << kernel << " s " << stride << " d " << dilation
                         << " p " << pad << " output " << o);
              std::vector<int64_t> want, got;
              for (int64_t k = 0; k < kernel; ++k) {
                const int64_t i = o * stride - pad + k * dilation;
                if (i >= 0 && i < in) want.push_back(i);
              }
              const functors::PoolSpan m =
                  functors::max_pool_span(o, in, kernel, stride, pad, dilation);
              for (int64_t i = m.begin; i < m.end; i += dilation) got.push_back(i);
              CHECK(got == want);
              // Outputs that pooled_size makes start before the end of the input.
              if (dilation != 1 || o * stride - pad >= in) continue;
              // PyTorch: hend = min(hstart + k, in + pad); pool_size = hend - hstart
              // (count_include_pad), else the part of it inside the input.
              const int64_t start = o * stride - pad;
              const int64_t padded_end = std::min(start + kernel, in + pad);
              const int64_t inside =
                  std::max<int64_t>(0, std::min(padded_end, in) - std::max<int64_t>(start, 0));
              CHECK(functors::avg_pool_span(o, in, kernel, stride, pad, true).factor ==
                    padded_end - start);
              CHECK(functors::avg_pool_span(o, in, kernel, stride, pad, false).factor == inside);
            }
}

// Note in kernels/cuda/cudnn_batch_norm.h: cuDNN would give NaN where var + eps
// is 0 (or flushed to 0 in float32); ember's kernels take those.
TEST_CASE("cuda nn plan: batch norm goes to cuDNN only for an eps no constant channel turns "
          "into NaN, float dtypes and int-sized shapes",
          "[cuda_nn]") {
  const double flt_min = std::numeric_limits<float>::min();
  CHECK(kCudnnBatchNormMinEps == flt_min);
  for (ScalarType t : {kFloat, kDouble}) {
    CHECK(cudnn_batch_norm_takes(t, {4, 3, 5, 5}, 1e-5));
    CHECK(cudnn_batch_norm_takes(t, {4, 3, 5, 5}, flt_min));
    CHECK(cudnn_batch_norm_takes(t, {2, 3}, 1.0));
    CHECK_FALSE(cudnn_batch_norm_takes(t, {4, 3, 5, 5}, 0.0));
    CHECK_FALSE(cudnn_batch_norm_takes(t, {4, 3, 5, 5}, flt_min / 2));  // a float32 denormal
    CHECK_FALSE(cudnn_batch_norm_takes(t, {4, 3, 5, 5}, 1e-300));       // 0 in float32
    CHECK_FALSE(cudnn_batch_norm_takes(t, {4, 3, 5, 5}, -1e-5));
    CHECK_FALSE(cudnn_batch_norm_takes(t, {4, 3, 5, 5}, std::nan("")));
    CHECK_FALSE(cudnn_batch_norm_takes(t, {0, 3, 5}, 1e-5));  // empty
  }
  CHECK_FALSE(cudnn_batch_norm_takes(kLong, {4, 3, 5}, 1e-5));
  CHECK_FALSE(cudnn_batch_norm_takes(kBool, {4, 3, 5}, 1e-5));
  // cuDNN's legacy calls take int sizes.
  CHECK(cudnn_batch_norm_takes(kFloat, {1, 1, INT_MAX}, 1e-5));
  CHECK_FALSE(cudnn_batch_norm_takes(kFloat, {1, 1, int64_t{INT_MAX} + 1}, 1e-5));
  CHECK_FALSE(cudnn_batch_norm_takes(kFloat, {int64_t{INT_MAX} + 1, 1}, 1e-5));
  CHECK_FALSE(cudnn_batch_norm_takes(kFloat, {2, 2, int64_t{1} << 30}, 1e-5));  // numel 2^32
}
