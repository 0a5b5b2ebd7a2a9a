// AffineGrid (ai.onnx 20): the sampling grid of an affine transform, for GridSample. theta is
// [N, 2, 3] (size [N, C, H, W]) or [N, 3, 4] (size [N, C, D, H, W]); the grid is [N, H, W, 2] or
// [N, D, H, W, 3], each point theta times (x, y[, z], 1) with x over W, y over H, z over D in
// [-1, 1]: the pixel centres (align_corners=0), or the corner pixels' centres at -1 and 1
// (align_corners=1; a single pixel sits at -1). The coordinates and the product are computed in
// double and rounded once, as the definition's numpy does.
#include "backends/ref/nn_util.h"

namespace ig {
namespace {

// The coordinate of index i of n along one axis.
double base_coordinate(int64_t i, int64_t n, bool align_corners) {
  if (align_corners) return n == 1 ? -1.0 : -1.0 + static_cast<double>(i) * (2.0 / (n - 1));
  const double step = 2.0 / static_cast<double>(n);
  return (-1.0 + step / 2) + static_cast<double>(i) * step;
}

template <typename T>
Status affine_grid_typed(KernelContext& ctx, const std::vector<int64_t>& spatial) {
  const Tensor& theta = ctx.input(0);
  const bool align = ctx.node.attr_int("align_corners", 0) != 0;
  const int64_t n = theta.dim(0), dims = static_cast<int64_t>(spatial.size());
  Shape out = {n};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(dims);
  T* grid = ctx.output(0, theta.dtype(), out).template data<T>();
  const T* th = theta.data<T>();
  int64_t points = 1;
  for (int64_t s : spatial) points *= s;
  std::vector<double> p(static_cast<size_t>(dims + 1));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t at = 0; at < points; ++at) {
      // (x, y[, z], 1): x runs over the last axis.
      int64_t rest = at;
      for (int64_t a = dims - 1; a >= 0; --a) {
        const int64_t len = spatial[static_cast<size_t>(a)];
        p[static_cast<size_t>(dims - 1 - a)] = base_coordinate(rest % len, len, align);
        rest /= len;
      }
      p[static_cast<size_t>(dims)] = 1.0;
      for (int64_t r = 0; r < dims; ++r) {
        double v = 0;
        for (int64_t k = 0; k <= dims; ++k)
          v += static_cast<double>(to_compute(th[(b * dims + r) * (dims + 1) + k])) *
               p[static_cast<size_t>(k)];
        grid[(b * points + at) * dims + r] = from_compute<T>(static_cast<compute_t<T>>(v));
      }
    }
  }
  return Status::Ok();
}

Status affine_grid(KernelContext& ctx) {
  const Tensor& theta = ctx.input(0);
  const Tensor& size = ctx.input(1);
  if (size.rank() != 1 || (size.numel() != 4 && size.numel() != 5))
    return ctx.fail("size {} must hold 4 (N, C, H, W) or 5 (N, C, D, H, W) values",
                    size.describe());
  const int64_t dims = size.numel() - 2;
  if (theta.rank() != 3 || theta.dim(1) != dims || theta.dim(2) != dims + 1)
    return ctx.fail("theta {} must be [N, {}, {}] for a {}-D size", theta.describe(), dims,
                    dims + 1, dims);
  if (size.as_int64(0) != theta.dim(0))
    return ctx.fail("size's N {} differs from theta's {}", size.as_int64(0), theta.dim(0));
  std::vector<int64_t> spatial;
  int64_t points = 1;
  for (int64_t i = 2; i < size.numel(); ++i) {
    const int64_t s = size.as_int64(i);
    if (s < 0 || s > (int64_t{1} << 24)) return ctx.fail("size[{}] = {} is not a grid size", i, s);
    spatial.push_back(s);
    points *= s;
    if (points > (int64_t{1} << 28))
      return ctx.fail("size {} asks for more than 2^28 grid points", size.describe());
  }
  return dispatch_float(theta.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return affine_grid_typed<T>(ctx, spatial);
  });
}

IG_REGISTER_KERNEL("", "AffineGrid", 20, kMaxOpset, affine_grid);

}  // namespace
}  // namespace ig
