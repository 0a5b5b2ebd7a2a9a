// Shared pieces of the oneDNN backend: options, the engine/stream, plain (row-major) memory around
// our tensors, reorders in and out of the layouts primitives choose, and fused post-ops.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backends/library/window.h"
#include "core/status.h"
#include "model/graph.h"
#include "tensor/tensor.h"

namespace ig::onednn {

struct Options {
  std::string isa = "all";
  int threads = 1;
  std::string conv = "auto";  // direct, winograd, auto
  bool fuse = true;           // post-ops (compiled) versus one primitive per node (eager)
  bool fallback_ref = false;  // run unsupported nodes on the reference backend
  // oneDNN's fpmath mode: strict keeps f32 primitives in f32; bf16, f16 or any let them convert
  // inside (on CPUs with those instructions), the reduced precision accelerators use.
  dnnl::fpmath_mode fpmath = dnnl::fpmath_mode::strict;
  // dtype=bf16: Conv, Gemm and MatMul read their fp32 sources and weights as bf16 (oneDNN's
  // reorder rounds to nearest even) and run its bf16 kernels, accumulating and writing fp32,
  // the mixed precision of autocast.
  dnnl::memory::data_type compute = dnnl::memory::data_type::f32;
  // layout=blocked: BatchNormalization, eltwise, pooling and same-shape binary ops read their
  // source in the layout its producer left (a convolution's nChw16c) and write that layout;
  // layout=plain: they run on plain (row-major) tensors, other kernels (ncsp) with other bits.
  bool blocked = true;
  // bn=weights (with fuse): a BatchNormalization right after a Conv is folded into the
  // convolution's weights and bias, W * f and (b - mean) * f + B with f = scale / sqrt(var + eps),
  // each in fp32, the fold graph optimizers (ONNX Runtime's, PyTorch's) make before a run (its
  // three per-channel binary post-ops took half of MobileNetV2's run); bn=postops: it runs as
  // those post-ops, (x - mean) * f + B each step rounded; bn=primitive: oneDNN's batch-norm kernel,
  // whose JIT form on a blocked layout fuses the final multiply-add.
  bool bn_post_ops = true;    // weights or postops: the BatchNormalization joins the Conv's group
  bool bn_in_weights = true;  // weights (fp32 ones: a bf16 model's batch norm stays post-ops)
  // residual=sum (with fuse): a residual Add of a same-shape operand after a Conv runs as oneDNN's
  // sum post-op (the operand is copied into the destination, the convolution adds to it), as
  // frameworks map it, so the convolution keeps the kernels it picks without one (brgconv);
  // residual=binary: a binary add post-op, for which oneDNN 2.6 picks other kernels (jit_1x1).
  bool residual_sum = true;
};

// A node fused into the primitive of the node before it.
struct PostOp {
  dnnl::algorithm alg;
  bool binary = false;  // binary post-op with `other`; else eltwise with alpha/beta
  // With binary (an add): oneDNN's sum post-op instead, `other` written into the destination
  // before the primitive runs (the same single rounding of one fp32 add). Only where `other` has
  // the output's shape (sums_where_shapes_match).
  bool sum = false;
  float alpha = 0, beta = 0;
  Tensor other;
};

// What one node's primitive keeps across runs of the same model file: oneDNN's choice of
// implementation and layouts, its buffers, and its constant sources (initializers) already
// reordered into the layouts it chose. Reusing them skips primitive-descriptor creation, weight
// reorders and allocations; the computation is the same primitive on the same bits.
struct Prepared {
  dnnl::primitive prim;
  std::string impl;
  std::unordered_map<int, dnnl::memory::desc> src_mds;  // layout each source must be in
  dnnl::memory::desc dst_md;
  dnnl::memory dst;      // reused destination when its layout is not plain
  dnnl::memory scratch;  // user scratchpad (make_attr asks for one)
  std::unordered_map<int, dnnl::memory> constants;  // reordered initializers, by argument id
};

// Per-model cache of prepared primitives, keyed by node (index, input shapes, post-ops). The
// backend clears it when another model file, or another version of it, runs (ModelVersion).
struct PrimitiveCache {
  bool enabled = false;  // false for a model without a file
  std::unordered_map<std::string, Prepared> entries;
  // Storage of this run's initializers (those no feed overrides): sources that may be cached.
  std::unordered_set<const std::byte*> constants;
  uint64_t reordered_constant_bytes = 0;  // held in entries' `constants`
  // bn=postops: a batch norm's post-ops by node index, when its parameters are constants.
  std::unordered_map<size_t, std::vector<PostOp>> bn_post_ops;
  // bn=weights: a convolution's weights and bias with the batch norm after it folded in, by the
  // convolution's node index, when the convolution's and the batch norm's parameters are
  // constants (their storage is added to `constants` each run, so their reorders are kept).
  std::unordered_map<size_t, std::array<Tensor, 2>> bn_folded;
  std::string key;  // the node now running; "" caches nothing
};

// This run's activations as a primitive left them, when not plain: a consumer that wants the
// same layout takes them as they are instead of reordering the plain copy back. Keyed by the
// plain copy's storage, which the entry holds so that the address cannot be reused. The bits
// are those of the plain copy (reorders between f32 layouts copy values).
struct Produced {
  Tensor plain;
  dnnl::memory mem;
};

struct Ctx {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  Options opt;
  PrimitiveCache cache;
  std::unordered_map<const std::byte*, Produced> produced;  // cleared per run
  // The node now running: sources that are still oneDNN memory, keyed by the shape-only tensor
  // standing for each (no plain copy was made), and whether its output may stay such memory.
  std::unordered_map<const Tensor*, dnnl::memory> native_in;
  bool keep_native = false;
};

struct OpResult {
  Tensor out;             // shape-only when `native` holds the values
  std::string impl;       // oneDNN's implementation name, e.g. "brgconv:avx512_core"
  dnnl::memory native{};  // the output in the primitive's layout, when no plain copy was made
};

using dims = dnnl::memory::dims;
// "Let the primitive choose the layout".
inline constexpr auto kAnyLayout = dnnl::memory::format_tag::any;
dims to_dims(const Shape& shape);
// Each value less one: ONNX dilations (1 = dense) to oneDNN's (0 = dense).
dims minus_one(const std::vector<int64_t>& v);
// oneDNN's data type for f32, bf16, u8, s8 and s32 tensors; undef for any other.
dnnl::memory::data_type dnnl_type(DType dtype);
DType from_dnnl_type(dnnl::memory::data_type dt);
// Row-major descriptor; rank 0 becomes {1}.
dnnl::memory::desc plain_md(const Shape& shape,
                            dnnl::memory::data_type dt = dnnl::memory::data_type::f32);
dnnl::memory::desc plain_md(const Tensor& t);  // of the tensor's own dtype
// Shape left-padded with 1s to `rank` (numpy broadcasting).
Shape pad_left(const Shape& shape, size_t rank);
// Memory over a tensor's own storage (oneDNN does not write to sources).
dnnl::memory wrap(Ctx& c, const Tensor& t, const dnnl::memory::desc& md);
dnnl::memory wrap(Ctx& c, const Tensor& t);
// `m` in layout `want`, reordering when it differs.
dnnl::memory to_layout(Ctx& c, const dnnl::memory& m, const dnnl::memory::desc& want);
// Plain tensor of `shape` (of the memory's data type) from memory in any layout.
Tensor to_tensor(Ctx& c, const dnnl::memory& m, const Shape& shape);
// The layout `t`'s values are in for a primitive that takes its source as it comes: the layout
// a primitive left them in (layout=blocked), else plain.
dnnl::memory::desc layout_of(const Ctx& c, const Tensor& t);

// Post-ops as an attribute, binary operands in plain layout, with the options' fpmath mode.
dnnl::primitive_attr make_attr(const Options& opt, const std::vector<PostOp>& post,
                               size_t out_rank);
// The same, but a binary operand of the destination's full shape is declared `any`: the
// primitive gives it its destination's layout. A plain operand next to a blocked destination
// leaves some primitives (convolutions) only their plain-layout kernels (gemm:jit).
dnnl::primitive_attr make_attr_any(const Options& opt, const std::vector<PostOp>& post,
                                   const Shape& out);

// Runs a primitive whose sources are plain tensors: sources are reordered into the layouts the
// primitive chose, the destination is returned as a plain tensor of `out_shape` (of the
// destination's data type: f32, or u8/s8 for int8 primitives). `make_pd`
// creates the primitive descriptor; it is called only when the node is not cached yet.
struct Arg {
  int id;
  const Tensor* tensor;
  dnnl::memory::desc user_md;  // how `tensor` is laid out
};
// The cached entry for the node now running, or nullptr.
Prepared* cached(Ctx& c);
// Builds the entry from a descriptor and stores it when caching is on; returns it. `srcs`
// include the binary post-ops' operands (with_post_op_args).
Prepared* prepare(Ctx& c, const dnnl::primitive_desc_base& pd, dnnl::primitive prim,
                  const std::vector<Arg>& srcs, Prepared& scratch_entry);
OpResult run_prepared(Ctx& c, Prepared& p, const std::vector<Arg>& srcs, const Shape& out_shape);
// `srcs` followed by the binary post-ops' operands, as plain tensors padded to the output's rank.
std::vector<Arg> with_post_op_args(const std::vector<Arg>& srcs, const std::vector<PostOp>& post,
                                   size_t out_rank);

// Unsupported when a binary post-op's operand does not broadcast into the destination: a post-op
// computes only the anchor's output elements, so a node that widens the shape (x[1,C,H,W] times a
// gate[1,C,1,1] fused onto the gate's convolution) would be silently cut to the anchor's shape.
Status check_post_ops_fit(const std::vector<PostOp>& post, const Shape& out_shape);
// `post` with each sum kept only where its operand has the output's shape (else a binary add); an
// operand in oneDNN's memory (Ctx::native_in) is known under the copy too.
std::vector<PostOp> sums_where_shapes_match(Ctx& c, const std::vector<PostOp>& post,
                                            const Shape& out);

template <typename Primitive, typename MakePD>
Expected<OpResult> execute(Ctx& c, MakePD&& make_pd, const std::vector<Arg>& srcs,
                           const Shape& out_shape, const std::vector<PostOp>& post = {}) {
  IG_RETURN_IF_ERROR(check_post_ops_fit(post, out_shape));
  const std::vector<Arg> all = with_post_op_args(srcs, post, out_shape.size());
  Prepared uncached;
  Prepared* p = cached(c);
  if (!p) {
    auto pd = make_pd();
    p = prepare(c, pd, Primitive(pd), all, uncached);
  }
  return run_prepared(c, *p, all, out_shape);
}

// Appends `suffix` to the cache key while alive (one node tried with several algorithms).
class KeySuffix {
 public:
  KeySuffix(Ctx& c, const std::string& suffix) : c_(c), saved_(c.cache.key) {
    if (!saved_.empty()) c.cache.key += suffix;
  }
  ~KeySuffix() { c_.cache.key = saved_; }
  KeySuffix(const KeySuffix&) = delete;
  KeySuffix& operator=(const KeySuffix&) = delete;

 private:
  Ctx& c_;
  std::string saved_;
};

}  // namespace ig::onednn
