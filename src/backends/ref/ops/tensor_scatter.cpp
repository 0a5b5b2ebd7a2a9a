// TensorScatter (ai.onnx 24): a KV cache updated by position. The output is past_cache with, for
// batch b, the update's positions 0..seq written at write_indices[b] + 0..seq along `axis`
// (default -2; write_indices default 0), wrapping around the cache in mode "circular"; in mode
// "linear" a write past the cache is an error here, as in the definition's numpy. Bytes are
// moved, not values: every type gives its own bits back.
#include <cstring>

#include "backends/ref/kernel_util.h"
#include "backends/ref/nn_util.h"

namespace ig {
namespace {

Status tensor_scatter(KernelContext& ctx) {
  const Tensor& past = ctx.input(0);
  const Tensor& update = ctx.input(1);
  const std::string mode = ctx.node.attr_string("mode", "linear");
  if (mode != "linear" && mode != "circular")
    return ctx.fail("mode '{}' is not linear or circular", mode);
  if (past.dtype() != update.dtype() || past.dtype() == DType::kString)
    return ctx.fail("past_cache {} and update {} must have one non-string type", past.describe(),
                    update.describe());
  if (past.rank() < 2 || update.rank() != past.rank())
    return ctx.fail("past_cache {} and update {} must have one rank of at least 2", past.describe(),
                    update.describe());
  IG_ASSIGN_OR_RETURN(int axis, normalize_axis(ctx, ctx.node.attr_int("axis", -2), past.rank()));
  if (axis == 0) return ctx.fail("axis 0 is the batch axis, not a sequence axis");
  for (int d = 0; d < past.rank(); ++d)
    if (d == axis ? update.dim(d) > past.dim(d) : update.dim(d) != past.dim(d))
      return ctx.fail("update {} does not fit past_cache {} along axis {}", update.describe(),
                      past.describe(), d);
  const int64_t batch = past.dim(0), max_len = past.dim(axis), len = update.dim(axis);
  std::vector<int64_t> starts(static_cast<size_t>(batch), 0);
  if (ctx.has_input(2)) {
    const Tensor& w = ctx.input(2);
    if (w.dtype() != DType::kInt64 || w.rank() != 1 || w.dim(0) != batch)
      return ctx.fail("write_indices {} must be int64[{}]", w.describe(), batch);
    starts.assign(w.data<int64_t>(), w.data<int64_t>() + batch);
  }
  // Rows: every index before the axis; a row's positions each hold `inner` elements.
  int64_t rows = 1, inner = 1;
  for (int d = 0; d < axis; ++d) rows *= past.dim(d);
  for (int d = axis + 1; d < past.rank(); ++d) inner *= past.dim(d);
  const int64_t rows_per_batch = rows / std::max<int64_t>(batch, 1);
  const size_t block = static_cast<size_t>(inner) * dtype_size(past.dtype());
  Tensor out = past.clone();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t b = r / rows_per_batch;
    for (int64_t s = 0; s < len; ++s) {
      int64_t at = starts[static_cast<size_t>(b)] + s;
      if (mode == "circular") at = ((at % max_len) + max_len) % max_len;  // Python's modulo
      if (at < 0 || at >= max_len)
        return ctx.fail("batch {} writes position {} of a cache of {} (mode linear)", b, at,
                        max_len);
      std::memcpy(out.raw() + static_cast<size_t>(r * max_len + at) * block,
                  update.raw() + static_cast<size_t>(r * len + s) * block, block);
    }
  }
  ctx.set_output(0, std::move(out));
  return Status::Ok();
}

IG_REGISTER_KERNEL("", "TensorScatter", 24, kMaxOpset, tensor_scatter);

}  // namespace
}  // namespace ig
