#include "backends/onednn/onednn_backend.h"

#include <array>
#include <deque>

#include "backends/library/qoperator_group.h"
#include "backends/onednn/fusion_plan.h"
#include "backends/onednn/onednn_int8.h"
#include "backends/onednn/onednn_ops.h"

namespace ig {

namespace {

using onednn::OpResult;
using onednn::PostOp;

Status from_dnnl(const Node& node, const dnnl::error& e) {
  if (e.status == dnnl_unimplemented) {
    return unsupported("{}: oneDNN has no implementation for this configuration ({})", node.label(),
                       e.what());
  }
  return internal_error("{}: oneDNN: {}", node.label(), e.what());
}

// One run: nodes (or fused groups) as primitives, reusing the cache of prepared primitives.
class OnednnRun : public LibraryRun {
 public:
  OnednnRun(onednn::Ctx& ctx, const OnednnBackend& backend, const Model& model)
      : ctx_(ctx), backend_(backend), model_(model) {
    auto native = [&](const Node& n) { return backend.native_support(n, model).ok(); };
    if (ctx_.opt.fuse)
      plan_ = onednn::plan_fusion(model, native, ctx_.opt.bn_post_ops, ctx_.opt.residual_sum);
    ctx_.produced.clear();
  }

  const NodeGroups& groups() const override { return plan_.groups; }

  Expected<NativeOutputs> run_node(const Node& node, RunValues& values) override {
    if (is_qoperator_head(node)) {
      const TensorLookup lookup = host_or_initializer(values, initializers());
      IG_ASSIGN_OR_RETURN(QoperatorGroup q, qoperator_group(node, model_, lookup));
      // The cache tells QOperator nodes apart by their own index: the group's is its own.
      return run_int8(q.model, q.group, q.lookup(lookup), fmt::format("qop|{}|", node.index));
    }
    IG_ASSIGN_OR_RETURN(OpResult r, run_native(node, values, {}));
    return outputs(node, std::move(r));
  }

  Expected<NativeOutputs> run_group(const NodeGroup& group, RunValues& values) override {
    if (auto it = plan_.qdq.find(group.nodes.back()); it != plan_.qdq.end())
      return run_int8(model_, it->second, host_or_initializer(values, initializers()), "");
    const Graph& g = model_.graph;
    std::vector<PostOp> post;
    // A binary operand still in oneDNN's memory (a residual branch) is read from there, by post
    // position (empty for every other post-op); its PostOp holds a shape-only tensor.
    std::vector<dnnl::memory> post_native;
    // bn=weights: the convolution's weights and bias with the batch norm folded in.
    const std::array<Tensor, 2>* folded = nullptr;
    for (size_t k = 1; k < group.nodes.size(); ++k) {
      const Node& n = g.nodes[group.nodes[k]];
      if (n.op_type == "BatchNormalization" && ctx_.opt.bn_in_weights &&
          fp32_weights(g.nodes[group.nodes[0]], values)) {
        IG_ASSIGN_OR_RETURN(folded, bn_folded(g.nodes[group.nodes[0]], n, values));
        continue;
      }
      if (n.op_type == "BatchNormalization") {
        IG_ASSIGN_OR_RETURN(std::vector<PostOp> bn,
                            bn_post_ops(g.nodes[group.nodes[0]], n, values));
        for (auto& p : bn) post.push_back(std::move(p));
        continue;
      }
      if (auto elt = onednn::eltwise_post_op(n, model_)) {
        post.push_back(*elt);
        continue;
      }
      const std::string& prev = g.nodes[group.nodes[k - 1]].outputs[0];
      const std::string& other = n.inputs[0] == prev ? n.inputs[1] : n.inputs[0];
      const dnnl::algorithm alg = *onednn::binary_alg(n);
      // A convolution's residual add as a sum post-op (where the operand has its output's shape).
      const bool sum = alg == dnnl::algorithm::binary_add && plan_.sums.count(n.index);
      if (auto kept = native_.find(other);
          kept != native_.end() && kept->second.out.dtype() == DType::kFloat32) {
        post.push_back(PostOp{alg, true, sum, 0, 0, kept->second.out});
        post_native.resize(post.size());
        post_native.back() = kept->second.native;
        continue;
      }
      IG_ASSIGN_OR_RETURN(const Tensor* t, host_float(n, other, values));
      post.push_back(PostOp{alg, true, sum, 0, 0, *t});
    }
    post_native.resize(post.size());
    IG_ASSIGN_OR_RETURN(OpResult r, run_native(g.nodes[group.nodes.front()], values, post,
                                               &g.nodes[group.nodes.back()], &post_native, folded));
    return outputs(g.nodes[group.nodes.back()], std::move(r));
  }

  // A plain copy of a value a primitive left in its own layout, made when something reads it on
  // the host (the trace, a reference node, a graph output). The value stays in native_: oneDNN
  // consumers still read the primitive's memory, and the copy goes when the host is done with it.
  Expected<Value> to_host(const std::string& name) override {
    auto it = native_.find(name);
    if (it == native_.end()) return internal_error("oneDNN holds no value '{}'", name);
    try {
      return Value::of(onednn::to_tensor(ctx_, it->second.native, it->second.out.shape()));
    } catch (const dnnl::error& e) {
      return internal_error("'{}': oneDNN reorder to a plain tensor: {}", name, e.what());
    }
  }

  void ran_on_reference(const Node& node) override {
    for (const auto& out : node.outputs) native_.erase(out);
  }

  // Values still in native_ stay: the graph's outputs are read after this.
  Status finish(Status st) override {
    ctx_.produced.clear();
    return st;
  }

 private:
  // A tensor on the host a post-op reads (a binary operand, batch norm's parameters, the
  // convolution's weights), or unsupported, naming it: the group then runs node by node.
  static Expected<const Tensor*> host_tensor(const Node& n, const std::string& name,
                                             RunValues& values) {
    auto v = values.host(name);
    if (!v.ok() || !*v || !(*v)->is_tensor())
      return unsupported("{}: post-op operand '{}' is not a tensor", n.label(), name);
    return &(*v)->tensor;
  }
  static Expected<const Tensor*> host_float(const Node& n, const std::string& name,
                                            RunValues& values) {
    IG_ASSIGN_OR_RETURN(const Tensor* t, host_tensor(n, name, values));
    if (t->dtype() != DType::kFloat32)
      return unsupported("{}: post-op operand '{}' is not an fp32 tensor", n.label(), name);
    return t;
  }

  // The batch norm after `conv` as its post-ops: the convolution's output has its weights' rank
  // and their first dimension's channels. Kept across runs while its parameters are the model's
  // initializers: a run that feeds one computes its own.
  Expected<std::vector<PostOp>> bn_post_ops(const Node& conv, const Node& bn, RunValues& values) {
    onednn::PrimitiveCache& cache = ctx_.cache;
    bool constant = cache.enabled;
    IG_ASSIGN_OR_RETURN(const auto params, bn_params(bn, values, &constant));
    IG_ASSIGN_OR_RETURN(const Tensor* w, host_tensor(conv, conv.inputs[1], values));
    const Tensor& weights = *w;  // [M, C/group, k...]: M output channels
    constant = constant && is_constant(weights);
    if (weights.rank() < 1) return unsupported("{}: weights have no output channels", conv.label());
    if (auto it = cache.bn_post_ops.find(bn.index); constant && it != cache.bn_post_ops.end())
      return it->second;
    IG_ASSIGN_OR_RETURN(std::vector<PostOp> post,
                        onednn::bn_post_ops(bn, params, weights.rank(), weights.dim(0)));
    if (constant) cache.bn_post_ops[bn.index] = post;
    return post;
  }

  // Batch norm's scale, B, mean and var on the host; *constant stays true only while each is one
  // of this run's initializers (what is made from them may then be kept across runs).
  Expected<std::array<const Tensor*, 4>> bn_params(const Node& bn, RunValues& values,
                                                   bool* constant) const {
    std::array<const Tensor*, 4> params{};
    for (size_t i = 0; i < params.size(); ++i) {
      IG_ASSIGN_OR_RETURN(params[i], host_tensor(bn, bn.inputs[i + 1], values));
      *constant = *constant && is_constant(*params[i]);
    }
    return params;
  }
  bool is_constant(const Tensor& t) const { return ctx_.cache.constants.count(t.raw()) != 0; }

  // bn=weights folds into fp32 weights and bias; a bf16 model's batch norm stays post-ops.
  static bool fp32_weights(const Node& conv, RunValues& values) {
    for (size_t i = 1; i < conv.inputs.size() && i < 3; ++i) {
      if (conv.inputs[i].empty()) continue;
      auto t = host_tensor(conv, conv.inputs[i], values);
      if (!t.ok() || (*t)->dtype() != DType::kFloat32) return false;
    }
    return true;
  }

  // The convolution's weights and bias with the batch norm after it folded in. Kept across runs
  // while both nodes' parameters are the model's initializers, and then constants of this run
  // (their reorders are kept too); a run that feeds one folds its own.
  Expected<const std::array<Tensor, 2>*> bn_folded(const Node& conv, const Node& bn,
                                                   RunValues& values) {
    onednn::PrimitiveCache& cache = ctx_.cache;
    bool constant = cache.enabled;
    IG_ASSIGN_OR_RETURN(const auto params, bn_params(bn, values, &constant));
    IG_ASSIGN_OR_RETURN(const Tensor* weights, host_tensor(conv, conv.inputs[1], values));
    constant = constant && is_constant(*weights);
    const Tensor* bias = nullptr;
    if (conv.inputs.size() > 2 && !conv.inputs[2].empty()) {
      IG_ASSIGN_OR_RETURN(bias, host_tensor(conv, conv.inputs[2], values));
      constant = constant && is_constant(*bias);
    }
    auto it = cache.bn_folded.find(conv.index);
    if (!constant || it == cache.bn_folded.end()) {
      IG_ASSIGN_OR_RETURN(auto made, onednn::bn_into_weights(bn, params, *weights, bias));
      if (!constant) {
        folded_this_run_.push_back(std::move(made));
        return &folded_this_run_.back();
      }
      it = cache.bn_folded.insert_or_assign(conv.index, std::move(made)).first;
    }
    for (const Tensor& t : it->second) cache.constants.insert(t.raw());
    return &it->second;
  }

  const TensorLookup& initializers() {
    if (!init_) init_ = initializers_of(model_);
    return init_;
  }

  // The node's result: kept in oneDNN's memory when the primitive left it there (no plain copy
  // until something reads it on the host), else on the host. `last` is the node whose output it
  // is (a fused group's last).
  NativeOutputs outputs(const Node& last, OpResult r) {
    if (!r.native) return NativeOutputs{{Value::of(std::move(r.out))}, r.impl};
    const OpResult& kept = native_[last.outputs[0]] = std::move(r);
    return NativeOutputs{{}, kept.impl};
  }

  // Only the first output named: the result is the one value a kept output stands for.
  static bool single_output(const Node& n) {
    for (size_t i = 1; i < n.outputs.size(); ++i)
      if (!n.outputs[i].empty()) return false;
    return !n.outputs.empty() && !n.outputs[0].empty();
  }

  // `folded`: weights and bias read in place of the node's inputs 1 and 2 (bn=weights).
  Expected<OpResult> run_native(const Node& node, RunValues& values,
                                const std::vector<PostOp>& post, const Node* last = nullptr,
                                const std::vector<dnnl::memory>* post_native = nullptr,
                                const std::array<Tensor, 2>* folded = nullptr) {
    IG_ASSIGN_OR_RETURN(const onednn::OpDef* def,
                        backend_.table_entry(onednn::ops(), node, model_));
    onednn::OpInputs x{node, model_.opset_for(node.domain), {}};
    // Sources still in oneDNN's memory stand as shape-only tensors: the op reads them through
    // `execute`, which takes the memory (Ctx::native_in), and never touches their elements.
    std::vector<Tensor> shells;
    shells.reserve(node.inputs.size());
    ctx_.native_in.clear();
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& name = node.inputs[i];
      if (name.empty()) {
        x.in.push_back(nullptr);
        continue;
      }
      auto n = native_.find(name);
      if (n == native_.end() || static_cast<int>(i) >= def->run.native_sources) {
        IG_ASSIGN_OR_RETURN(const Tensor* t, values.input(node, name));
        x.in.push_back(t);
        continue;
      }
      shells.push_back(n->second.out);
      x.in.push_back(&shells.back());
      ctx_.native_in[&shells.back()] = n->second.native;
    }
    if (folded) {
      x.in.resize(std::max<size_t>(x.in.size(), 3), nullptr);
      x.in[1] = &(*folded)[0];
      x.in[2] = &(*folded)[1];
    }
    for (size_t i = 0; post_native && i < post_native->size(); ++i)
      if ((*post_native)[i]) ctx_.native_in[&post[i].other] = (*post_native)[i];
    ctx_.cache.key = ctx_.cache.enabled ? cache_key(x, post) : "";
    ctx_.keep_native = def->run.native_sources > 0 && single_output(last ? *last : node);
    const NodeScope scope(ctx_);
    try {
      return def->run.fn(ctx_, x, post);
    } catch (const dnnl::error& e) {
      return from_dnnl(node, e);
    }
  }

  // Ends what run_native set up for one node, however the node ends (an exception included): the
  // next primitive, an int8 group's too, must not see this node's sources or keep its output.
  class NodeScope {
   public:
    explicit NodeScope(onednn::Ctx& c) : c_(c) {}
    ~NodeScope() {
      c_.cache.key.clear();
      c_.native_in.clear();
      c_.keep_native = false;
    }
    NodeScope(const NodeScope&) = delete;
    NodeScope& operator=(const NodeScope&) = delete;

   private:
    onednn::Ctx& c_;
  };

  Expected<NativeOutputs> run_int8(const Model& model, const QdqGroup& grp,
                                   const TensorLookup& lookup, const std::string& key_prefix) {
    ctx_.cache.key =
        ctx_.cache.enabled ? key_prefix + onednn::qdq_cache_key(model, grp, lookup) : "";
    try {
      auto r = onednn::run_qdq_group(ctx_, model, grp, lookup);
      ctx_.cache.key.clear();
      if (!r.ok()) return r.status();
      return NativeOutputs{{Value::of(std::move(r->out))}, r->impl};
    } catch (const dnnl::error& e) {
      ctx_.cache.key.clear();
      return from_dnnl(model.graph.nodes[grp.head], e);
    }
  }

  // Everything a node's primitive depends on beyond the model file: input shapes and post-ops.
  static std::string cache_key(const onednn::OpInputs& x, const std::vector<PostOp>& post) {
    std::string key = std::to_string(x.node.index);
    for (const Tensor* t : x.in) key += t ? "|" + t->describe() : "|-";
    for (const auto& p : post) {
      key +=
          fmt::format("|{}:{}:{}:{}:{}", static_cast<int>(p.alg), p.binary, p.sum, p.alpha, p.beta);
      if (p.binary) key += p.other.describe();
    }
    return key;
  }

  onednn::Ctx& ctx_;
  const OnednnBackend& backend_;
  const Model& model_;
  TensorLookup init_;  // initializers_of(model_), made when an int8 group first needs it
  onednn::FusionPlan plan_;
  // bn=weights folds of this run's own parameters (a fed one), alive until the run ends.
  std::deque<std::array<Tensor, 2>> folded_this_run_;
  // Values a primitive left in its own layout, by name, until the host needs them (to_host).
  std::unordered_map<std::string, OpResult> native_;
};

}  // namespace

// layout=blocked runs other kernels of the same library (batch norm's JIT one), bn=postops and
// residual=sum other post-ops (and so other convolution kernels): said in the version, so that a
// record or store made with another mapping is not read as this one's nondeterminism (hosts record
// compares bits only between equal versions).
LibraryVersion OnednnBackend::library() const {
  const dnnl_version_t* v = dnnl_version();
  const onednn::Options& o = ctx_.opt;
  return {"oneDNN", fmt::format("{}.{}.{}{}{}{}", v->major, v->minor, v->patch,
                                o.blocked ? ", blocked layouts" : "",
                                !o.fuse || !o.bn_post_ops ? ""
                                : o.bn_in_weights         ? ", batch norm in the weights"
                                                          : ", batch norm as post-ops",
                                o.fuse && o.residual_sum ? ", residual sums" : "")};
}

Status OnednnBackend::check_native(const Node& node, const Model& model) const {
  if (is_qoperator_head(node)) {
    Status st = check_qoperator_group(node, model, onednn::check_qdq_group);
    if (st.ok()) return st;
    return unsupported("{}: not a oneDNN int8 primitive: {}", node.label(), st.message());
  }
  IG_RETURN_IF_ERROR(check_in_table(onednn::ops(), node, model));
  // With fusion, a Conv/Gemm/MatMul reading DequantizeLinear outputs is an int8 kernel or
  // nothing: running it in fp32 would hide that oneDNN cannot take the quantized group. Eager
  // (fuse=off) runs the group node by node: reorders around an fp32 primitive.
  const bool main =
      node.index < model.graph.nodes.size() && &model.graph.nodes[node.index] == &node;
  // The initializers' lookup only for a head that reads dequantized values: building it for
  // every node of an fp32 model cost more than some of its primitives.
  if (!ctx_.opt.fuse || !main || !may_head_qdq_group(model.graph, node.index)) return Status::Ok();
  auto grp = onednn::qdq_group_at(model, node.index, initializers_of(model));
  if (!grp.ok()) {
    return unsupported("{}: QDQ group is not a oneDNN int8 primitive: {}", node.label(),
                       grp.status().message());
  }
  return Status::Ok();
}

std::unique_ptr<LibraryRun> OnednnBackend::begin_run(const Model& model,
                                                     const std::map<std::string, Value>& feeds) {
  // Prepared primitives belong to one version of one model file; a model without a file caches
  // nothing.
  const ModelVersion::Check version = version_.check(model.path);
  if (version != ModelVersion::kSame) ctx_.cache = onednn::PrimitiveCache{};
  ctx_.cache.enabled = version != ModelVersion::kNoFile;
  ctx_.cache.constants.clear();
  // Initializers share storage with the run's values: those no feed overrides may be cached.
  for (const auto& [name, t] : model.graph.initializers) {
    if (!feeds.count(name) && t.raw()) ctx_.cache.constants.insert(t.raw());
  }
  return std::make_unique<OnednnRun>(ctx_, *this, model);
}

}  // namespace ig
