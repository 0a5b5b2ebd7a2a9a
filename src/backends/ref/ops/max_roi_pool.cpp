// MaxRoiPool (ai.onnx 1+), Caffe semantics: each ROI [batch, x1, y1, x2, y2] is scaled by
// spatial_scale and rounded, split into pooled_shape bins (floor / ceil bin edges, clipped to the
// input), and each bin takes its maximum; an empty bin gives 0.
#include <cmath>

#include "backends/ref/nn_util.h"

namespace ig {
namespace {

Status max_roi_pool(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& rois = ctx.input(1);
  if (x.rank() != 4) return ctx.fail("input X {} must be [N, C, H, W]", x.describe());
  if (rois.rank() != 2 || rois.dim(1) != 5 || rois.dtype() != x.dtype()) {
    return ctx.fail("rois {} must be [num_rois, 5] of X's type", rois.describe());
  }
  const Shape pooled = ctx.node.attr_ints("pooled_shape");
  if (pooled.size() != 2 || pooled[0] <= 0 || pooled[1] <= 0) {
    return ctx.fail("pooled_shape must be two positive values, got {}", shape_to_string(pooled));
  }
  const float spatial_scale = ctx.node.attr_float("spatial_scale", 1.0f);
  const int64_t c = x.dim(1), h = x.dim(2), w = x.dim(3), ph = pooled[0], pw = pooled[1];
  return dispatch_float(x.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* py = ctx.output(0, x.dtype(), {rois.dim(0), c, ph, pw}).template data<T>();
    for (int64_t r = 0; r < rois.dim(0); ++r) {
      const auto batch = static_cast<int64_t>(rois.as_double(r * 5));
      if (batch < 0 || batch >= x.dim(0)) {
        return ctx.fail("roi {} names batch {} but X has {}", r, batch, x.dim(0));
      }
      auto scaled = [&](int k) {
        return static_cast<int64_t>(std::round(rois.as_double(r * 5 + k) * spatial_scale));
      };
      const int64_t x1 = scaled(1), y1 = scaled(2), x2 = scaled(3), y2 = scaled(4);
      const C bin_h = static_cast<C>(std::max<int64_t>(y2 - y1 + 1, 1)) / static_cast<C>(ph);
      const C bin_w = static_cast<C>(std::max<int64_t>(x2 - x1 + 1, 1)) / static_cast<C>(pw);
      auto edge = [](int64_t i, C bin, int64_t start, int64_t limit, bool ceil_edge) {
        const C e =
            ceil_edge ? std::ceil(static_cast<C>(i) * bin) : std::floor(static_cast<C>(i) * bin);
        return std::clamp<int64_t>(static_cast<int64_t>(e) + start, 0, limit);
      };
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* plane = px + (batch * c + ch) * h * w;
        for (int64_t i = 0; i < ph; ++i) {
          const int64_t hs = edge(i, bin_h, y1, h, false), he = edge(i + 1, bin_h, y1, h, true);
          for (int64_t j = 0; j < pw; ++j) {
            const int64_t ws = edge(j, bin_w, x1, w, false), we = edge(j + 1, bin_w, x1, w, true);
            C best{0};
            bool any = false;
            for (int64_t yy = hs; yy < he; ++yy) {
              for (int64_t xx = ws; xx < we; ++xx) {
                const C v = to_compute(plane[yy * w + xx]);
                if (!any || v > best || std::isnan(v)) best = v;
                any = true;
              }
            }
            py[((r * c + ch) * ph + i) * pw + j] = from_compute<T>(best);
          }
        }
      }
    }
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("", "MaxRoiPool", 1, kMaxOpset, max_roi_pool);

}  // namespace
}  // namespace ig
