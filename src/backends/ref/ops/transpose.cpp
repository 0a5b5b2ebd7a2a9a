// Transpose (ai.onnx 1+), DepthToSpace (1+; mode DCR/CRD from 11) and SpaceToDepth (1+): all are
// a reshape plus a permutation of dims.
#include <algorithm>

#include "backends/ref/shape_util.h"

namespace ig {
namespace {

Status transpose(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> perm = ctx.node.attr_ints("perm");
  if (!ctx.node.has_attr("perm")) {
    for (int d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
  }
  if (static_cast<int>(perm.size()) != x.rank())
    return ctx.fail("perm has {} entries but the input has rank {}", perm.size(), x.rank());
  std::vector<int> p;
  std::vector<bool> seen(perm.size(), false);
  for (int64_t v : perm) {
    IG_ASSIGN_OR_RETURN(int a, normalize_axis(ctx, v, x.rank()));
    if (seen[static_cast<size_t>(a)]) return ctx.fail("perm repeats axis {}", a);
    seen[static_cast<size_t>(a)] = true;
    p.push_back(a);
  }
  ctx.set_output(0, transpose_tensor(x, p));
  return Status::Ok();
}

Expected<int64_t> blocksize(const KernelContext& ctx, const Tensor& x) {
  if (x.rank() != 4) return ctx.fail("expected a 4-D input, got {}", x.describe());
  const int64_t b = ctx.node.attr_int("blocksize", 0);
  if (b <= 0) return ctx.fail("blocksize must be positive, got {}", b);
  return b;
}

Status depth_to_space(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(int64_t b, blocksize(ctx, x));
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  if (c % (b * b) != 0) return ctx.fail("channels {} not divisible by blocksize^2", c);
  const std::string mode = ctx.opset >= 11 ? ctx.node.attr_string("mode", "DCR") : "DCR";
  Tensor t;
  if (mode == "DCR") {
    t = transpose_tensor(x.reshaped({n, b, b, c / (b * b), h, w}), {0, 3, 4, 1, 5, 2});
  } else if (mode == "CRD") {
    t = transpose_tensor(x.reshaped({n, c / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3});
  } else {
    return ctx.fail("unknown mode '{}'", mode);
  }
  ctx.set_output(0, t.reshaped({n, c / (b * b), h * b, w * b}));
  return Status::Ok();
}

Status space_to_depth(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(int64_t b, blocksize(ctx, x));
  // Opset 28 names the order of the blocks; DCR is opset 1's.
  if (const std::string mode = ctx.node.attr_string("mode", "DCR"); mode != "DCR")
    return ctx.unsupported_here("mode {}", mode);
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  if (h % b != 0 || w % b != 0)
    return ctx.fail("spatial dims {}x{} not divisible by blocksize {}", h, w, b);
  Tensor t = transpose_tensor(x.reshaped({n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  ctx.set_output(0, t.reshaped({n, c * b * b, h / b, w / b}));
  return Status::Ok();
}

IG_REGISTER_KERNEL("", "Transpose", 1, kMaxOpset, transpose);
IG_REGISTER_KERNEL("", "DepthToSpace", 1, kMaxOpset, depth_to_space);
IG_REGISTER_KERNEL("", "SpaceToDepth", 1, kMaxOpset, space_to_depth);

}  // namespace
}  // namespace ig
