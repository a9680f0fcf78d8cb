// The CUDA row sort. Rows of up to kBitonicMaxRow elements: one block per row
// runs a bitonic sort of (value, position) pairs in shared memory under
// kernels/common/sort_functors.h's order, so ties keep their input order.
// Longer rows: cub::DeviceSegmentedRadixSort (a stable radix sort) of keys made
// radix-ready (one NaN bit pattern, -0.0 as +0.0) with their positions as values.
#include <cub/device/device_segmented_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <type_traits>

#include "ember/core/ops/creation/factory.h"
#include "ember/kernels/common/sort_functors.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/grid_stride.cuh"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/sort.h"

namespace ember::cuda::detail {
namespace {

// Rows up to this long sort in shared memory and need no workspace; longer
// rows go through cub's radix sort, whose keys, positions and temp storage
// live in a workspace from the caching allocator.
constexpr int64_t kBitonicMaxRow = 2048;

// ---- short rows: bitonic sort in shared memory ----

// Whether slot p comes before slot q. Slots past the row's end (position >= n)
// pad the row to a power of two and come after every element.
template <typename T>
__device__ __forceinline__ bool slot_before(const T* vals, const int* pos, int p, int q, int n,
                                            bool descending) {
  const int a = pos[p], b = pos[q];
  if ((a >= n) != (b >= n)) return b >= n;
  if (a >= n) return a < b;
  return functors::sort_before(vals[p], a, vals[q], b, descending);
}

// x, out: (rows, n); padded: n rounded up to a power of two (>= 2).
template <typename T>
__global__ void bitonic_sort_rows(const T* x, int64_t* out, int64_t rows, int n, int padded,
                                  bool descending) {
  extern __shared__ __align__(16) unsigned char smem[];
  int* pos = reinterpret_cast<int*>(smem);
  T* vals = reinterpret_cast<T*>(smem + padded * sizeof(int));  // padded is even: 8-byte aligned
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    for (int i = threadIdx.x; i < padded; i += blockDim.x) {
      pos[i] = i;
      if (i < n) vals[i] = x[row * n + i];
    }
    __syncthreads();
    for (int k = 2; k <= padded; k <<= 1)
      for (int j = k >> 1; j > 0; j >>= 1) {
        for (int t = threadIdx.x; t < padded / 2; t += blockDim.x) {
          const int lo = 2 * t - (t & (j - 1)), hi = lo + j;  // lo has bit j clear
          // Ascending runs where bit k of lo is clear, descending ones elsewhere.
          const bool swap = (lo & k) == 0 ? slot_before(vals, pos, hi, lo, n, descending)
                                          : slot_before(vals, pos, lo, hi, n, descending);
          if (swap) {
            const T v = vals[lo];
            vals[lo] = vals[hi];
            vals[hi] = v;
            const int p = pos[lo];
            pos[lo] = pos[hi];
            pos[hi] = p;
          }
        }
        __syncthreads();
      }
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[row * n + i] = pos[i];
    __syncthreads();  // the next row overwrites the shared arrays
  }
}

template <typename T>
void launch_bitonic(const T* x, int64_t* out, int64_t rows, int n, bool descending) {
  int padded = 2;
  while (padded < n) padded <<= 1;
  const int threads = std::max(32, std::min(1024, padded / 2));
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(rows, int64_t(1) << 20));
  const size_t smem = padded * (sizeof(int) + sizeof(T));
  bitonic_sort_rows<T><<<blocks, threads, smem, 0>>>(x, out, rows, n, padded, descending);
  EMBER_CUDA_CHECK_LAUNCH();
}

// ---- long rows: cub's segmented radix sort ----

// cub sorts bool as its byte.
template <typename T>
using RadixKey = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

// cub orders floats by their bits: -0.0 before +0.0 and negative NaNs first.
// One NaN pattern (positive, above +inf) and +0.0 give sort_functors.h's order.
template <typename T>
__device__ __forceinline__ RadixKey<T> radix_key(T v) {
  if constexpr (std::is_same_v<T, float>)
    return v != v ? __int_as_float(0x7fc00000) : (v == 0.0f ? 0.0f : v);
  else if constexpr (std::is_same_v<T, double>)
    return v != v ? __longlong_as_double(0x7ff8000000000000LL) : (v == 0.0 ? 0.0 : v);
  else
    return static_cast<RadixKey<T>>(v);
}

template <typename T>
__global__ void make_radix_input(const T* x, RadixKey<T>* keys, int64_t* pos, int64_t count,
                                 int64_t n) {
  for (int64_t i = first_index(); i < count; i += grid_step()) {
    keys[i] = radix_key(x[i]);
    pos[i] = i % n;
  }
}

// Offsets of segment r within a chunk of rows (chunks keep them below INT_MAX).
struct RowStart {
  int n;
  __host__ __device__ int operator()(int r) const { return r * n; }
};

constexpr size_t kAlign = 256;
size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// The workspace: keys in, keys out, positions, cub's temp storage, for one
// chunk of rows at a time (cub counts items in int).
struct RadixLayout {
  int64_t chunk_rows = 0;
  size_t keys = 0, pos = 0, temp = 0;
  size_t total() const { return 2 * keys + pos + temp; }
};

template <typename K>
cudaError_t radix_sort(void* temp, size_t& temp_bytes, const K* keys_in, K* keys_out,
                       const int64_t* pos_in, int64_t* pos_out, int rows, int n, bool descending) {
  const auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator(0), RowStart{n});
  const auto end = thrust::make_transform_iterator(thrust::make_counting_iterator(1), RowStart{n});
  if (descending)
    return cub::DeviceSegmentedRadixSort::SortPairsDescending(
        temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, rows * n, rows, begin, end, 0,
        int(sizeof(K) * 8), cudaStream_t(0));
  return cub::DeviceSegmentedRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, pos_in,
                                                  pos_out, rows * n, rows, begin, end, 0,
                                                  int(sizeof(K) * 8), cudaStream_t(0));
}

template <typename T>
RadixLayout radix_layout(int64_t rows, int64_t n, bool descending) {
  using K = RadixKey<T>;
  RadixLayout l;
  l.chunk_rows = std::min<int64_t>(rows, INT_MAX / n);
  l.keys = aligned(l.chunk_rows * n * sizeof(K));
  l.pos = aligned(l.chunk_rows * n * sizeof(int64_t));
  // The temp size of the full chunk and of the last, shorter one (no launch, no sync).
  for (int64_t chunk : {l.chunk_rows, rows % l.chunk_rows}) {
    if (chunk == 0) continue;
    size_t bytes = 0;
    EMBER_CUDA_CHECK(radix_sort<K>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, int(chunk),
                                   int(n), descending));
    l.temp = std::max(l.temp, aligned(bytes));
  }
  return l;
}

template <typename T>
void launch_radix(const T* x, int64_t* out, int64_t rows, int64_t n, bool descending,
                  void* workspace, size_t workspace_bytes) {
  using K = RadixKey<T>;
  const RadixLayout l = radix_layout<T>(rows, n, descending);
  EMBER_INTERNAL_ASSERT(workspace_bytes >= l.total(), "sort: workspace too small");
  unsigned char* w = static_cast<unsigned char*>(workspace);
  K* keys_in = reinterpret_cast<K*>(w);
  K* keys_out = reinterpret_cast<K*>(w + l.keys);
  int64_t* pos_in = reinterpret_cast<int64_t*>(w + 2 * l.keys);
  void* temp = w + 2 * l.keys + l.pos;
  for (int64_t first = 0; first < rows; first += l.chunk_rows) {
    const int64_t chunk = std::min(l.chunk_rows, rows - first), count = chunk * n;
    make_radix_input<T><<<blocks_for(count), 256, 0, 0>>>(x + first * n, keys_in, pos_in, count, n);
    EMBER_CUDA_CHECK_LAUNCH();
    size_t temp_bytes = l.temp;
    EMBER_CUDA_CHECK(radix_sort<K>(temp, temp_bytes, keys_in, keys_out, pos_in, out + first * n,
                                   int(chunk), int(n), descending));
  }
}

// ---- one position of each sorted row (kthvalue, median) ----

template <typename T>
__global__ void pick_sorted(const T* x, const int64_t* order, int64_t* out, int64_t rows,
                            int64_t n, int64_t pos, bool nan_wins) {
  for (int64_t row = first_index(); row < rows; row += grid_step()) {
    const T* v = x + row * n;
    const int64_t* o = order + row * n;
    int64_t p = pos;
    if (nan_wins && v[o[n - 1]] != v[o[n - 1]]) {
      // The NaNs end the ascending row: the first of them, by bisection.
      int64_t lo = 0, hi = n - 1;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (v[o[mid]] != v[o[mid]]) hi = mid;
        else lo = mid + 1;
      }
      p = lo;
    }
    out[row] = o[p];
  }
}

// Bytes of workspace launch_sort needs for (rows, n) of dtype t (0 for short rows).
size_t sort_workspace_bytes(ScalarType t, int64_t rows, int64_t n, bool descending, int device) {
  if (n <= kBitonicMaxRow || rows == 0) return 0;
  DeviceGuard guard(device);
  return dispatch_all(t, "sort", [&]<typename T>() {
    return radix_layout<T>(rows, n, descending).total();
  });
}

void launch_sort(ScalarType t, const void* x, int64_t* indices, int64_t rows, int64_t n,
                 bool descending, void* workspace, size_t workspace_bytes, int device) {
  if (rows == 0 || n == 0) return;
  DeviceGuard guard(device);
  dispatch_all(t, "sort", [&]<typename T>() {
    const T* in = static_cast<const T*>(x);
    if (n <= kBitonicMaxRow)
      launch_bitonic<T>(in, indices, rows, static_cast<int>(n), descending);
    else
      launch_radix<T>(in, indices, rows, n, descending, workspace, workspace_bytes);
  });
}

// out[row] = order[row, pos] for each of the rows of x and order (contiguous
// (rows, n), order ascending); with nan_wins, a row holding NaN gives its
// first NaN instead (median's rule; NaNs sort last).
void launch_pick_sorted(ScalarType t, const void* x, const int64_t* order, int64_t* out,
                        int64_t rows, int64_t n, int64_t pos, bool nan_wins, int device) {
  if (rows == 0 || n == 0) return;
  DeviceGuard guard(device);
  dispatch_all(t, "kthvalue", [&]<typename T>() {
    pick_sorted<T><<<blocks_for(rows), 256, 0, 0>>>(static_cast<const T*>(x), order, out, rows,
                                                    n, pos, nan_wins);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace
}  // namespace ember::cuda::detail

// ---- the entry points (kernels/cuda/sort.h): rows laid out contiguously,
// the row length checked, the long-row workspace from the caching allocator ----

namespace ember::cuda {

namespace {

// x's rows as a contiguous (outer * inner, n): x itself when inner == 1,
// otherwise a copy with the dim moved last.
Tensor as_rows(const Tensor& x, SortRows r) {
  if (r.inner == 1) return x;
  return x.view({r.outer, r.n, r.inner}).permute({0, 2, 1}).contiguous();
}

// order (int64, contiguous (outer * inner, n)) = the positions of each row of
// `rows` (contiguous (outer * inner, n)) in sorted order.
void sort_rows(const Tensor& order, const Tensor& rows, SortRows r, bool descending) {
  EMBER_CHECK(r.n <= std::numeric_limits<int>::max(), "sort: rows of ", r.n,
              " elements are too long for the CUDA sort (at most 2^31 - 1; tensor of shape ",
              rows.sizes(), ")");
  const int64_t count = r.outer * r.inner;
  if (count == 0 || r.n == 0) return;
  const int device = detail::device_of(rows);
  const size_t bytes =
      detail::sort_workspace_bytes(rows.scalar_type(), count, r.n, descending, device);
  // An ember tensor of bytes, so that the workspace comes from the caching allocator.
  const Tensor workspace =
      bytes == 0 ? Tensor()
                 : empty({static_cast<int64_t>(bytes)},
                         TensorOptions().dtype(kBool).device(rows.device()));
  detail::launch_sort(rows.scalar_type(), rows.data_ptr(), order.data_ptr<int64_t>(), count,
                      r.n, descending, detail::data_or_null(workspace), bytes, device);
}

// A (outer * inner, n) int64 buffer for the sorted positions.
Tensor order_for(const Tensor& x, SortRows r) {
  return empty({r.outer * r.inner, r.n}, TensorOptions().dtype(kLong).device(x.device()));
}

}  // namespace

void sort_kernel(const Tensor& indices, const Tensor& x, SortRows r, bool descending) {
  if (r.inner == 1) return sort_rows(indices, x, r, descending);
  const Tensor order = order_for(x, r);
  sort_rows(order, as_rows(x, r), r, descending);
  indices.view({r.outer, r.n, r.inner}).copy_(order.view({r.outer, r.inner, r.n}).permute({0, 2, 1}));
}

// The full sort, then the first k positions of each row.
void topk_kernel(const Tensor& indices, const Tensor& x, SortRows r, int64_t k, bool largest,
                 bool) {
  const Tensor order = order_for(x, r);
  sort_rows(order, as_rows(x, r), r, largest);
  indices.view({r.outer, k, r.inner})
      .copy_(order.view({r.outer, r.inner, r.n}).narrow(2, 0, k).permute({0, 2, 1}));
}

// The full ascending sort, then one position of each row.
void kth_kernel(const Tensor& indices, const Tensor& x, SortRows r, int64_t pos, bool nan_wins) {
  const Tensor rows = as_rows(x, r), order = order_for(x, r);
  sort_rows(order, rows, r, /*descending=*/false);
  detail::launch_pick_sorted(rows.scalar_type(), rows.data_ptr(), order.data_ptr<int64_t>(),
                             indices.data_ptr<int64_t>(), r.outer * r.inner, r.n, pos,
                             nan_wins && x.is_floating_point(), detail::device_of(x));
}

}  // namespace ember::cuda
