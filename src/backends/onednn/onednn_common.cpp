#include "backends/onednn/onednn_common.h"

#include <cstring>

#include "core/process_memory.h"

namespace ig::onednn {

using dnnl::memory;

dims to_dims(const Shape& shape) {
  if (shape.empty()) return {1};
  return dims(shape.begin(), shape.end());
}

dims minus_one(const std::vector<int64_t>& v) {
  dims d;
  for (int64_t x : v) d.push_back(x - 1);
  return d;
}

memory::data_type dnnl_type(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return memory::data_type::f32;
    case DType::kBFloat16:
      return memory::data_type::bf16;
    case DType::kUInt8:
      return memory::data_type::u8;
    case DType::kInt8:
      return memory::data_type::s8;
    case DType::kInt32:
      return memory::data_type::s32;
    default:
      return memory::data_type::undef;
  }
}

DType from_dnnl_type(memory::data_type dt) {
  switch (dt) {
    case memory::data_type::f32:
      return DType::kFloat32;
    case memory::data_type::bf16:
      return DType::kBFloat16;
    case memory::data_type::u8:
      return DType::kUInt8;
    case memory::data_type::s8:
      return DType::kInt8;
    case memory::data_type::s32:
      return DType::kInt32;
    default:
      return DType::kUndefined;
  }
}

memory::desc plain_md(const Shape& shape, memory::data_type dt) {
  const dims d = to_dims(shape);
  dims strides(d.size(), 1);
  for (size_t i = d.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * d[i];
  return memory::desc(d, dt, strides);
}

memory::desc plain_md(const Tensor& t) { return plain_md(t.shape(), dnnl_type(t.dtype())); }

Shape pad_left(const Shape& shape, size_t rank) {
  Shape out(rank > shape.size() ? rank - shape.size() : 0, 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

memory wrap(Ctx& c, const Tensor& t, const memory::desc& md) {
  return memory(md, c.eng, const_cast<std::byte*>(t.raw()));
}

memory wrap(Ctx& c, const Tensor& t) { return wrap(c, t, plain_md(t)); }

memory to_layout(Ctx& c, const memory& m, const memory::desc& want) {
  if (m.get_desc() == want) return m;
  memory out(want, c.eng);
  dnnl::reorder(m, out).execute(c.strm, const_cast<memory&>(m), out);
  return out;
}

namespace {

// A destination the primitive or reorder writes whole: not zero-filled first (zeroing every
// output cost MobileNetV2 an eighth of its run).
Tensor destination(DType dtype, const Shape& shape) {
  auto t = Tensor::create_for_overwrite(dtype, shape);
  if (!t.ok()) throw StatusError(t.status());
  return std::move(t).value();
}

}  // namespace

Tensor to_tensor(Ctx& c, const memory& m, const Shape& shape) {
  Tensor t = destination(from_dnnl_type(m.get_desc().data_type()), shape);
  memory user = wrap(c, t);
  if (m.get_desc() == user.get_desc()) {
    c.strm.wait();
    std::memcpy(t.raw(), m.get_data_handle(), t.nbytes());
    return t;
  }
  dnnl::reorder(m, user).execute(c.strm, const_cast<memory&>(m), user);
  c.strm.wait();
  return t;
}

memory::desc layout_of(const Ctx& c, const Tensor& t) {
  if (c.opt.blocked) {
    if (auto n = c.native_in.find(&t); n != c.native_in.end()) return n->second.get_desc();
    if (auto p = t.raw() ? c.produced.find(t.raw()) : c.produced.end(); p != c.produced.end())
      return p->second.mem.get_desc();
  }
  return plain_md(t);
}

namespace {

dnnl::primitive_attr attr_with(const Options& opt, const std::vector<PostOp>& post, size_t out_rank,
                               const Shape* any_shape) {
  dnnl::post_ops ops;
  for (const auto& p : post) {
    if (p.sum) {
      ops.append_sum(1.0f);
    } else if (p.binary) {
      const Shape shape = pad_left(p.other.shape(), out_rank);
      const memory::data_type dt = dnnl_type(p.other.dtype());
      ops.append_binary(p.alg, any_shape && shape == *any_shape
                                   ? memory::desc(to_dims(shape), dt, memory::format_tag::any)
                                   : plain_md(shape, dt));
    } else {
      ops.append_eltwise(1.0f, p.alg, p.alpha, p.beta);
    }
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_fpmath_mode(opt.fpmath);
  return attr;
}

}  // namespace

dnnl::primitive_attr make_attr(const Options& opt, const std::vector<PostOp>& post,
                               size_t out_rank) {
  return attr_with(opt, post, out_rank, nullptr);
}

dnnl::primitive_attr make_attr_any(const Options& opt, const std::vector<PostOp>& post,
                                   const Shape& out) {
  return attr_with(opt, post, out.size(), &out);
}

std::vector<PostOp> sums_where_shapes_match(Ctx& c, const std::vector<PostOp>& post,
                                            const Shape& out) {
  std::vector<PostOp> copy = post;
  for (size_t i = 0; i < copy.size(); ++i) {
    PostOp& p = copy[i];
    if (p.sum && (p.other.shape() != out || p.other.dtype() != DType::kFloat32)) p.sum = false;
    if (auto n = c.native_in.find(&post[i].other); n != c.native_in.end())
      c.native_in[&p.other] = n->second;
  }
  return copy;
}

Status check_post_ops_fit(const std::vector<PostOp>& post, const Shape& out_shape) {
  for (const auto& p : post) {
    if (p.sum && p.other.shape() != out_shape)
      return internal_error("sum post-op operand {} is not of the output's shape {}",
                            p.other.describe(), shape_to_string(out_shape));
    if (!p.binary) continue;
    const Shape& other = p.other.shape();
    bool fits = other.size() <= out_shape.size();
    for (size_t i = 0; fits && i < other.size(); ++i) {
      const int64_t o = other[other.size() - 1 - i];
      fits = o == 1 || o == out_shape[out_shape.size() - 1 - i];
    }
    if (!fits) {
      return unsupported("binary post-op operand {} does not broadcast into the fused output {}",
                         p.other.describe(), shape_to_string(out_shape));
    }
  }
  return Status::Ok();
}

std::vector<Arg> with_post_op_args(const std::vector<Arg>& srcs, const std::vector<PostOp>& post,
                                   size_t out_rank) {
  std::vector<Arg> all = srcs;
  for (size_t i = 0; i < post.size(); ++i) {
    if (!post[i].binary) continue;
    if (post[i].sum) {  // what the destination holds before the primitive adds to it
      all.push_back({DNNL_ARG_DST, &post[i].other, plain_md(post[i].other)});
      continue;
    }
    all.push_back(
        {DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1, &post[i].other,
         plain_md(pad_left(post[i].other.shape(), out_rank), dnnl_type(post[i].other.dtype()))});
  }
  return all;
}

Prepared* cached(Ctx& c) {
  if (c.cache.key.empty()) return nullptr;
  auto it = c.cache.entries.find(c.cache.key);
  return it == c.cache.entries.end() ? nullptr : &it->second;
}

Prepared* prepare(Ctx& c, const dnnl::primitive_desc_base& pd, dnnl::primitive prim,
                  const std::vector<Arg>& srcs, Prepared& scratch_entry) {
  Prepared p;
  p.prim = std::move(prim);
  p.impl = pd.impl_info_str();
  for (const auto& a : srcs) p.src_mds[a.id] = pd.query_md(dnnl::query::exec_arg_md, a.id);
  p.dst_md = pd.dst_desc();
  const memory::desc scratch_md = pd.scratchpad_desc();
  if (scratch_md.get_size() > 0) p.scratch = memory(scratch_md, c.eng);
  if (c.cache.key.empty()) {
    scratch_entry = std::move(p);
    return &scratch_entry;
  }
  return &(c.cache.entries[c.cache.key] = std::move(p));
}

namespace {

// Reordered weights are a second copy of the model's: kept for the next run only within half the
// worker's trace budget (the other half is the trace's), reordered again each run past it.
bool may_keep_reordered(Ctx& c, const memory& m) {
  const uint64_t budget = trace_budget_bytes();
  const uint64_t bytes = m.get_desc().get_size();
  if (budget != 0 && c.cache.reordered_constant_bytes + bytes > budget / 2) return false;
  c.cache.reordered_constant_bytes += bytes;
  return true;
}

}  // namespace

namespace {

// `m` reordered into layout `want`, in a buffer from the tensor allocator (reused blocks, where
// oneDNN's own allocation would be mapped and faulted in anew on every run), kept alive in `keep`
// for the primitive's run. Reorders between float layouts copy values.
memory reordered(Ctx& c, const memory& m, const memory::desc& want, std::vector<Tensor>& keep) {
  keep.push_back(destination(DType::kUInt8, {static_cast<int64_t>(want.get_size())}));
  memory out(want, c.eng, keep.back().raw());
  dnnl::reorder(m, out).execute(c.strm, const_cast<memory&>(m), out);
  return out;
}

// Memory in layout `want` holding the values of `m` (oneDNN memory standing for `t`, whose plain
// layout is `user_md`).
memory from_native(Ctx& c, const memory& m, const Tensor& t, const memory::desc& user_md,
                   const memory::desc& want, std::vector<Tensor>& keep) {
  if (m.get_desc() == want) return m;
  memory from = m;
  if (m.get_desc().dims() != want.dims()) {
    // The primitive reads the source with other dims (a binary operand padded to the output's
    // rank): through a plain copy, which both views share.
    keep.push_back(to_tensor(c, m, t.shape()));
    from = wrap(c, keep.back(), user_md);
    if (from.get_desc() == want) return from;
  }
  return reordered(c, from, want, keep);
}

}  // namespace

OpResult run_prepared(Ctx& c, Prepared& p, const std::vector<Arg>& srcs, const Shape& out_shape) {
  const bool caching = !c.cache.key.empty();
  std::unordered_map<int, memory> args;
  std::vector<Tensor> keep;  // buffers of reordered sources
  keep.reserve(2 * srcs.size());
  const Arg* sum = nullptr;
  for (const auto& a : srcs) {
    if (a.id == DNNL_ARG_DST) {
      sum = &a;
      continue;
    }
    const memory::desc& want = p.src_mds.at(a.id);
    if (auto n = c.native_in.find(a.tensor); n != c.native_in.end()) {
      args[a.id] = from_native(c, n->second, *a.tensor, a.user_md, want, keep);
      continue;
    }
    // An initializer's reorder is reused only while the source still is that initializer.
    const bool constant = caching && c.cache.constants.count(a.tensor->raw()) > 0;
    if (auto it = p.constants.find(a.id); constant && it != p.constants.end()) {
      args[a.id] = it->second;
      continue;
    }
    if (auto it = c.produced.find(a.tensor->raw()); it != c.produced.end() &&
                                                    it->second.mem.get_desc() == want &&
                                                    a.user_md == plain_md(*a.tensor)) {
      args[a.id] = it->second.mem;
      continue;
    }
    const memory user = wrap(c, *a.tensor, a.user_md);
    if (!constant || user.get_desc() == want) {  // this run's alone
      args[a.id] = user.get_desc() == want ? user : reordered(c, user, want, keep);
      continue;
    }
    memory m = to_layout(c, user, want);  // owns its buffer: it may be kept for the next runs
    if (may_keep_reordered(c, m)) p.constants[a.id] = m;
    args[a.id] = m;
  }
  if (p.scratch) args[DNNL_ARG_SCRATCHPAD] = p.scratch;
  // A sum post-op adds to what the destination holds: its operand, copied in (a reorder into the
  // destination's layout; values are copied, never changed).
  auto fill = [&](memory& dst) {
    if (!sum) return;
    auto n = c.native_in.find(sum->tensor);
    memory from = n != c.native_in.end() ? n->second : wrap(c, *sum->tensor, sum->user_md);
    dnnl::reorder(from, dst).execute(c.strm, from, dst);
  };
  // A plain destination is written straight into the returned tensor.
  const memory::data_type dst_type = p.dst_md.data_type();
  const DType out_type = from_dnnl_type(dst_type);
  if (p.dst_md == plain_md(out_shape, dst_type)) {
    Tensor out = destination(out_type, out_shape);
    args[DNNL_ARG_DST] = wrap(c, out);
    fill(args[DNNL_ARG_DST]);
    p.prim.execute(c.strm, args);
    c.strm.wait();
    return {std::move(out), p.impl, {}};
  }
  // Kept by a cached node for its next runs; a node not cached gets a fresh one each time.
  if (!p.dst) p.dst = memory(p.dst_md, c.eng);
  args[DNNL_ARG_DST] = p.dst;
  fill(args[DNNL_ARG_DST]);
  p.prim.execute(c.strm, args);
  c.strm.wait();
  if (c.keep_native) {
    auto shape_only = Tensor::shape_only(out_type, out_shape);
    if (!shape_only.ok()) throw StatusError(shape_only.status());
    return {std::move(shape_only).value(), p.impl, p.dst};
  }
  Tensor out = to_tensor(c, p.dst, out_shape);
  c.produced[out.raw()] = {out, p.dst};
  return {std::move(out), p.impl, {}};
}

}  // namespace ig::onednn
