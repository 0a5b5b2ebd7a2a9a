// GridSample (opset 16, 4-D): samples X at the normalised grid locations, following PyTorch's
// grid_sampler (which produced the ONNX test data): border/reflection padding fold the source
// coordinate before bilinear/nearest sampling; bicubic folds each tap (A = -0.75); nearest rounds
// half to even.
#include <cmath>

#include "backends/ref/kernel_util.h"

namespace ig {
namespace {

enum class Pad { kZeros, kBorder, kReflection };

template <typename C>
C reflect(C v, C twice_low, C twice_high) {
  if (twice_low == twice_high) return C(0);
  const C lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  v = std::abs(v - lo);
  const C extra = std::fmod(v, span);
  const auto flips = static_cast<int64_t>(std::floor(v / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

// Applies border/reflection padding to a source coordinate along an axis of `size` pixels.
template <typename C>
C fold(C v, int64_t size, Pad pad, bool align) {
  const C hi = static_cast<C>(size - 1);
  if (pad == Pad::kReflection) {
    v = align ? reflect(v, C(0), 2 * hi) : reflect(v, C(-1), static_cast<C>(2 * size - 1));
  }
  if (pad != Pad::kZeros) v = std::clamp(v, C(0), hi);
  return v;
}

// Integer pixel index of an already-integral coordinate; -1 (outside) for NaN or huge values.
template <typename C>
int64_t to_index(C v) {
  return std::isfinite(v) && std::abs(v) < C(1e15) ? static_cast<int64_t>(v) : -1;
}

template <typename C>
void cubic_weights(C t, C w[4]) {
  const C A = C(-0.75);
  auto near = [&](C d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };
  auto far = [&](C d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

template <typename T>
Status gridsample_typed(KernelContext& ctx, int mode, Pad pad, bool align) {
  using C = compute_t<T>;
  const Tensor& x = ctx.input(0);
  const Tensor& grid = ctx.input(1);
  if (x.rank() != 4) return ctx.unsupported_here("only 4-D X is supported, got {}", x.describe());
  const int64_t N = x.dim(0), Ch = x.dim(1), H = x.dim(2), W = x.dim(3);
  if (grid.rank() != 4 || grid.dim(0) != N || grid.dim(3) != 2)
    return ctx.fail("grid must be [{}, H_out, W_out, 2], got {}", N, grid.describe());
  if (grid.dtype() != x.dtype()) return ctx.unsupported_here("grid type must equal X's type");
  const int64_t Ho = grid.dim(1), Wo = grid.dim(2);
  Tensor& y = ctx.output(0, x.dtype(), {N, Ch, Ho, Wo});
  const T* px = x.data<T>();
  const T* pg = grid.data<T>();
  T* py = y.data<T>();
  auto unnorm = [&](C g, int64_t size) {
    return align ? (g + 1) / 2 * static_cast<C>(size - 1)
                 : ((g + 1) * static_cast<C>(size) - 1) / 2;
  };
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < Ch; ++c) {
      const T* img = px + (n * Ch + c) * H * W;
      auto pixel = [&](int64_t yy, int64_t xx) -> C {  // zero outside (after any folding)
        if (yy < 0 || yy >= H || xx < 0 || xx >= W) return C(0);
        return to_compute(img[yy * W + xx]);
      };
      for (int64_t i = 0; i < Ho * Wo; ++i) {
        const C gx = to_compute(pg[(n * Ho * Wo + i) * 2]);
        const C gy = to_compute(pg[(n * Ho * Wo + i) * 2 + 1]);
        C sx = unnorm(gx, W), sy = unnorm(gy, H);
        C v = 0;
        if (mode == 2) {  // bicubic: fold each tap's integer coordinate
          const C fx = std::floor(sx), fy = std::floor(sy);
          C wx[4], wy[4];
          cubic_weights(sx - fx, wx);
          cubic_weights(sy - fy, wy);
          for (int a = 0; a < 4; ++a) {
            C row = 0;
            const auto ty = to_index(fold(fy - 1 + static_cast<C>(a), H, pad, align));
            for (int b = 0; b < 4; ++b) {
              const auto tx = to_index(fold(fx - 1 + static_cast<C>(b), W, pad, align));
              row += wx[b] * pixel(ty, tx);
            }
            v += wy[a] * row;
          }
        } else {
          sx = fold(sx, W, pad, align);
          sy = fold(sy, H, pad, align);
          if (mode == 1) {
            v = pixel(to_index(std::nearbyint(sy)), to_index(std::nearbyint(sx)));
          } else {
            const C fx = std::floor(sx), fy = std::floor(sy);
            const C lx = sx - fx, ly = sy - fy;
            const int64_t x0 = to_index(fx), y0 = to_index(fy);
            v = (1 - ly) * ((1 - lx) * pixel(y0, x0) + lx * pixel(y0, x0 + 1)) +
                ly * ((1 - lx) * pixel(y0 + 1, x0) + lx * pixel(y0 + 1, x0 + 1));
          }
        }
        py[(n * Ch + c) * Ho * Wo + i] = from_compute<T>(v);
      }
    }
  }
  return Status::Ok();
}

Status gridsample(KernelContext& ctx) {
  // Opset 20 names the modes by their family (linear, cubic: bi- for a 2-D image) and admits N-D
  // inputs, which gridsample_typed refuses; a 4-D input computes as in opset 16.
  const bool family_names = ctx.opset >= 20;
  const std::string m = ctx.node.attr_string("mode", family_names ? "linear" : "bilinear");
  const std::string p = ctx.node.attr_string("padding_mode", "zeros");
  const std::string linear = family_names ? "linear" : "bilinear";
  const std::string cubic = family_names ? "cubic" : "bicubic";
  const int mode = m == linear ? 0 : m == "nearest" ? 1 : m == cubic ? 2 : -1;
  if (mode < 0) return ctx.fail("mode '{}' is not {}, nearest or {}", m, linear, cubic);
  Pad pad;
  if (p == "zeros")
    pad = Pad::kZeros;
  else if (p == "border")
    pad = Pad::kBorder;
  else if (p == "reflection")
    pad = Pad::kReflection;
  else
    return ctx.fail("padding_mode '{}' is not zeros, border or reflection", p);
  const bool align = ctx.node.attr_int("align_corners", 0) != 0;
  return dispatch_float(ctx.input(0).dtype(), [&](auto tag) {
    return gridsample_typed<typename decltype(tag)::type>(ctx, mode, pad, align);
  });
}

IG_REGISTER_KERNEL("", "GridSample", 16, kMaxOpset, gridsample);

}  // namespace
}  // namespace ig
