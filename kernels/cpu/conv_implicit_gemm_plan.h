#pragma once
// What the implicit-GEMM forwards share whatever their vector width (conv_implicit_gemm.cpp
// with AVX-512, conv_implicit_gemm_avx2.cpp with AVX2): a problem's phase planes, columns and
// k blocks, the offset of each reduction row in the planes, building the planes of a chunk of
// images, and the walk of a thread's panels chunk by chunk. Note [Phase planes] in
// conv_implicit_gemm.cpp says what the planes are.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/kernels/common/conv_params.h"
#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/gemm.h"
#include "ember/kernels/cpu/gemm_blocking.h"

namespace ember::cpu::implicit_gemm {

using conv_detail::ConvShape;

// Phase planes of a chunk of images, in floats: the chunk's planes stay in L2 (next to the
// packed weights) while its panels are filled.
constexpr int64_t kChunkFloats = int64_t(1) << 16;

// A problem's phase planes, columns and blocks, for vectors of `lanes` pixels (an image's
// columns are its OH*OW pixels rounded up to whole vectors: its span), panels of `nr`
// columns and k blocks of at most `max_kc` reduction rows (near-equal blocks).
struct Sizes {
  ConvShape g;
  int64_t hq, wq, plane, channel, image;  // phase planes: channel = sh*sw planes, image = Cg
  int64_t nr, span, columns, panels, kc_blocks, chunk_images;

  Sizes(const ConvShape& shape, int64_t lanes, int64_t panel_columns, int64_t max_kc)
      : g(shape), hq((g.h + 2 * g.ph + g.sh - 1) / g.sh), wq((g.w + 2 * g.pw + g.sw - 1) / g.sw),
        plane(hq * wq), channel(g.sh * g.sw * plane), image(g.cg * channel), nr(panel_columns),
        span((g.ohw + lanes - 1) / lanes * lanes), columns(g.n * span),
        panels((columns + nr - 1) / nr), kc_blocks((g.crs_g + max_kc - 1) / max_kc),
        chunk_images(std::max<int64_t>(1, kChunkFloats / image)) {}

  // Where output pixel q reads, in an image's planes, relative to its taps' offsets.
  int64_t pixel_offset(int64_t q) const { return q / g.ow * wq + q % g.ow; }
  // The first reduction row of k block b.
  int64_t block_start(int64_t b) const { return g.crs_g * b / kc_blocks; }
  // Floats of a thread's scratch: the group's w packed block by block (block b from
  // kg * block_start(b)), then a chunk's planes; its first and last images may be shared with
  // the neighbouring chunks (whose planes are then built twice), hence chunk_images + 1, and
  // `slack` floats for the reads of the last vector past the last plane.
  int64_t part_scratch_floats(int64_t slack) const {
    return g.kg * g.crs_g + (chunk_images + 1) * image + slack;
  }
};

// rows[i]: the offset of reduction row i = (c, r, s) of a group in an image's planes.
inline void row_offsets(const Sizes& z, std::vector<int64_t>& rows) {
  const ConvShape& g = z.g;
  rows.clear();
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t r = 0; r < g.r; ++r)
      for (int64_t s = 0; s < g.s; ++s)
        rows.push_back(c * z.channel + (r * g.dh % g.sh * g.sw + s * g.dw % g.sw) * z.plane +
                       r * g.dh / g.sh * z.wq + s * g.dw / g.sw);
}

// The phase planes of `images` images of one group (x: the group's first channel of the
// first image) into dst (images * z.image floats). split_row(src, out), when short_rows,
// splits one input row into its sw column phases (phase b's wq floats at out + b * z.plane);
// otherwise each phase is a strided copy between zeros.
template <typename SplitRow>
void build_planes(const Sizes& z, const float* x, int64_t images, float* dst, bool short_rows,
                  const SplitRow& split_row) {
  // Locals, not z's fields: split_row's vector stores may alias anything, so the compiler
  // would reload every field after each store.
  const int64_t h = z.g.h, w = z.g.w, hw = z.g.hw, c_in = z.g.c, cg = z.g.cg;
  const int64_t sh = z.g.sh, sw = z.g.sw, ph = z.g.ph, pw = z.g.pw;
  const int64_t wq = z.wq, hq = z.hq, plane = z.plane, channel = z.channel;
  for (int64_t img = 0; img < images; ++img) {
    for (int64_t c = 0; c < cg; ++c) {
      const float* in = x + (img * c_in + c) * hw;
      float* out_channel = dst + (img * cg + c) * channel;
      // The rows of each phase that no input row fills: the padding above and below.
      for (int64_t a = 0; a < sh; ++a) {
        const auto [first, last] = conv_detail::valid_range(hq, h, sh, a - ph);
        for (int64_t b = 0; b < sw; ++b) {
          float* phase = out_channel + (a * sw + b) * plane;
          std::fill(phase, phase + first * wq, 0.0f);
          std::fill(phase + last * wq, phase + plane, 0.0f);
        }
      }
      int64_t a = ph % sh, row = ph / sh;  // padded row ih + ph: phase a, row `row`
      for (int64_t ih = 0; ih < h; ++ih) {
        const float* src = in + ih * w;
        float* out = out_channel + a * sw * plane + row * wq;
        if (++a == sh) a = 0, ++row;
        if (short_rows) {
          split_row(src, out);
          continue;
        }
        for (int64_t b = 0; b < sw; ++b) {
          const auto [lo, hi] = conv_detail::valid_range(wq, w, sw, b - pw);
          float* o = out + b * plane;
          std::fill(o, o + lo, 0.0f);
          conv_detail::copy_strided(o + lo, src + lo * sw + b - pw, hi - lo, sw);
          std::fill(o + hi, o + wq, 0.0f);
        }
      }
    }
  }
}

// The group's weights (kg x crs_g, row-major at w) packed for the micro-kernel block by block
// into dst (k block b from kg * block_start(b)) by pack_a(matrix, i0, rows, p0, kc, dst).
template <typename PackA>
void pack_weights(const Sizes& z, const float* w, float* dst, const PackA& pack_a) {
  const MatrixRef<float> m{w, z.g.crs_g, false};
  for (int64_t b = 0; b < z.kc_blocks; ++b)
    pack_a(m, 0, z.g.kg, z.block_start(b), z.block_start(b + 1) - z.block_start(b),
           dst + z.g.kg * z.block_start(b));
}

// This thread's panel (the deepest k block's rows x nr floats): small and aligned, so a
// per-thread buffer kept for later calls.
inline float* panel_buffer(const Sizes& z) {
  thread_local gemm_blocking::Scratch buffer;
  const int64_t kc_max = (z.g.crs_g + z.kc_blocks - 1) / z.kc_blocks;
  return buffer.get(static_cast<size_t>(z.nr * kc_max));
}

// What a panel's product reads: the group's packed weights, the chunk's phase planes (image
// img0's first), and this thread's panel buffer.
struct PanelInputs {
  const float* weights;
  const float* planes;
  int64_t img0;
  float* panel;
};

// Panels [first, last) of group grp on the calling thread, with `scratch`
// (part_scratch_floats(slack)) to itself: the group's weights (w: its first output
// channel's) packed by pack_a, then a chunk of panels at a time, the chunk's images' planes
// built (split_row for short rows: build_planes) with `slack` zeros after them, and
// panel(j, inputs) run for the first column j of each of the chunk's panels.
template <typename PackA, typename SplitRow, typename Panel>
void run_group(const Sizes& z, const float* x, const float* w, int64_t grp, int64_t first,
               int64_t last, float* scratch, int64_t slack, bool short_rows, const PackA& pack_a,
               const SplitRow& split_row, const Panel& panel) {
  const ConvShape& g = z.g;
  float* weights = scratch;
  float* planes = scratch + g.kg * g.crs_g;
  pack_weights(z, w, weights, pack_a);
  PanelInputs inputs{weights, planes, 0, panel_buffer(z)};
  const int64_t chunk_panels = std::max<int64_t>(1, z.chunk_images * z.span / z.nr);
  for (int64_t c0 = first; c0 < last; c0 += chunk_panels) {
    const int64_t c1 = std::min(last, c0 + chunk_panels);
    const int64_t img0 = c0 * z.nr / z.span,
                  img1 = std::min(g.n, (std::min(c1 * z.nr, z.columns) - 1) / z.span + 1);
    build_planes(z, x + (img0 * g.c + grp * g.cg) * g.hw, img1 - img0, planes, short_rows,
                 split_row);
    std::fill(planes + (img1 - img0) * z.image, planes + (img1 - img0) * z.image + slack, 0.0f);
    inputs.img0 = img0;
    for (int64_t j = c0 * z.nr; j < c1 * z.nr; j += z.nr) panel(j, inputs);
  }
}

// One panel's product: per k block, fill(p0, kc, panel) fills the panel, then each MR-row
// tile of the group's kg output channels (in.weights) runs through
// kernels[mr - 1] into `out`, whose vector v of row i0 is at vec_out[v] + i0 * OH*OW. The
// first k block writes the tile and adds the bias (or none); later ones add to it.
template <int MR, int NV, typename TileOut, typename Kernels, typename Fill>
void panel_product(const Sizes& z, const PanelInputs& in, const float* bias,
                   float* const (&vec_out)[NV], TileOut& out, const Kernels& kernels,
                   const Fill& fill) {
  const float* weights = in.weights;
  float* panel = in.panel;
  const ConvShape& g = z.g;
  for (int64_t b = 0; b < z.kc_blocks; ++b) {
    const int64_t p0 = z.block_start(b), kc = z.block_start(b + 1) - p0;
    fill(p0, kc, panel);
    for (int64_t i0 = 0; i0 < g.kg; i0 += MR) {
      const int64_t mr = std::min<int64_t>(MR, g.kg - i0);
      for (int v = 0; v < NV; ++v) out.col[v] = vec_out[v] + i0 * g.ohw;
      out.row_add = bias && b == 0 ? bias + i0 : nullptr;
      kernels[mr - 1](kc, weights + g.kg * p0 + i0 * kc, panel, out, 1.0f, b == 0 ? 0.0f : 1.0f);
    }
  }
}

// The forward over every group: the panels split into one contiguous run per thread (about a
// million multiply-adds per thread before another thread pays for waking up), each with
// `scratch_floats` of scratch; run_panels(grp, first, last, scratch) does a run's part.
template <typename RunPanels>
void run_parts(const Sizes& z, int64_t scratch_floats, const RunPanels& run_panels) {
  const ConvShape& g = z.g;
  const int64_t macs = g.n * g.k * g.ohw * g.crs_g;
  int64_t parts =
      std::min<int64_t>({get_num_threads(), z.panels, std::max<int64_t>(1, macs >> 20)});
  if (ember::detail::in_parallel_region()) parts = 1;
  // From the caching allocator, so large problems do not leave large buffers behind.
  const Tensor scratch = conv_detail::scratch<float>(parts * scratch_floats);
  const auto run_part = [&](int64_t part) {
    const int64_t first = z.panels * part / parts, last = z.panels * (part + 1) / parts;
    float* own = scratch.data_ptr<float>() + part * scratch_floats;
    for (int64_t grp = 0; grp < g.groups; ++grp) run_panels(grp, first, last, own);
  };
  if (parts == 1) return run_part(0);
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) run_part(part);
  });
}

}  // namespace ember::cpu::implicit_gemm
