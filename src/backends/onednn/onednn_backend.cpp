#include "backends/onednn/onednn_backend.h"

#include <unordered_map>

#include "backends/onednn/fusion_plan.h"
#include "backends/onednn/onednn_ops.h"
#include "backends/single_node.h"
#include "core/strings.h"

namespace ig {

namespace {

using onednn::OpResult;
using onednn::PostOp;

using Values = std::unordered_map<std::string, Value>;

Status from_dnnl(const Node& node, const dnnl::error& e) {
  if (e.status == dnnl_unimplemented) {
    return unsupported("{}: oneDNN has no implementation for this configuration ({})", node.label(),
                       e.what());
  }
  return internal_error("{}: oneDNN: {}", node.label(), e.what());
}

}  // namespace

Status OnednnBackend::native_support(const Node& node, const Model& model) const {
  if (!node.domain.empty()) {
    return unsupported("{}: domain '{}' has no oneDNN mapping", node.label(), node.domain);
  }
  if (is_data_movement(node.op_type)) return ref_.supports(node, model);
  const onednn::OpDef* def = onednn::find_op(node.op_type);
  if (!def) {
    return unsupported("{}: no oneDNN mapping for {} (mapped: {}; data movement: {})", node.label(),
                       node.op_type, join_names(onednn::op_names()), data_movement_names());
  }
  return def->check(node, model);
}

Status OnednnBackend::supports(const Node& node, const Model& model) const {
  Status native = native_support(node, model);
  if (native.ok() || !ctx_.opt.fallback_ref) return native;
  return ref_.supports(node, model).ok() ? Status::Ok() : native;
}

namespace {

class Executor {
 public:
  Executor(onednn::Ctx& ctx, RefBackend& ref, const OnednnBackend& backend, const Model& model,
           const NodeCallback& on_node)
      : ctx_(ctx), ref_(ref), backend_(backend), model_(model), on_node_(on_node) {}

  Status run(Values& values) {
    const Graph& g = model_.graph;
    const bool fuse = ctx_.opt.fuse;
    auto native = [&](const Node& n) { return backend_.native_support(n, model_).ok(); };
    const onednn::FusionPlan plan =
        fuse ? onednn::plan_fusion(model_, native) : onednn::FusionPlan{};
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const int gi = plan.group_of.empty() ? -1 : plan.group_of[i];
      if (gi < 0) {
        IG_RETURN_IF_ERROR(run_node(g.nodes[i], values));
      } else if (plan.groups[gi].nodes.back() == i) {
        IG_RETURN_IF_ERROR(run_group(plan.groups[gi], values));
      }
    }
    return Status::Ok();
  }

 private:
  Expected<onednn::OpInputs> inputs_of(const Node& node, const Values& values) {
    onednn::OpInputs x{node, model_.opset_for(node.domain), {}};
    for (const auto& in : node.inputs) {
      if (in.empty()) {
        x.in.push_back(nullptr);
        continue;
      }
      auto it = values.find(in);
      if (it == values.end())
        return invalid_argument("{}: input '{}' has no value", node.label(), in);
      if (!it->second.is_tensor()) {
        return unsupported("{}: input '{}' is not a tensor", node.label(), in);
      }
      x.in.push_back(&it->second.tensor);
    }
    return x;
  }

  Expected<OpResult> run_native(const Node& node, const Values& values,
                                const std::vector<PostOp>& post) {
    auto x = inputs_of(node, values);
    if (!x.ok()) return x.status();
    ctx_.cache.key = ctx_.cache.enabled ? cache_key(*x, post) : "";
    try {
      auto r = onednn::find_op(node.op_type)->run(ctx_, *x, post);
      ctx_.cache.key.clear();
      return r;
    } catch (const dnnl::error& e) {
      ctx_.cache.key.clear();
      return from_dnnl(node, e);
    }
  }

  // Everything a node's primitive depends on beyond the model file: input shapes and post-ops.
  static std::string cache_key(const onednn::OpInputs& x, const std::vector<PostOp>& post) {
    std::string key = std::to_string(x.node.index);
    for (const Tensor* t : x.in) key += t ? "|" + t->describe() : "|-";
    for (const auto& p : post) {
      key += fmt::format("|{}:{}:{}:{}", static_cast<int>(p.alg), p.binary, p.alpha, p.beta);
      if (p.binary) key += p.other.describe();
    }
    return key;
  }

  Expected<std::vector<Value>> run_ref(const Node& node, const Values& values) {
    return run_single_node(ref_, model_, node, values);
  }

  void store(const Node& node, std::vector<Value> outs, Values& values, const NodeReport& report) {
    std::vector<Value> by_pos = outputs_by_position(node, std::move(outs));
    if (on_node_) on_node_(node, by_pos, report);
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (!node.outputs[i].empty()) values[node.outputs[i]] = std::move(by_pos[i]);
    }
  }

  Status run_node(const Node& node, Values& values) {
    Status native = backend_.native_support(node, model_);
    if (native.ok() && !is_data_movement(node.op_type)) {
      auto r = run_native(node, values, {});
      if (r.ok()) {
        store(node, {Value::of(std::move(r->out))}, values, {"", r->impl});
        return Status::Ok();
      }
      native = r.status();
      if (native.code() != StatusCode::kUnsupported || !ctx_.opt.fallback_ref) return native;
    } else if (!native.ok() && !ctx_.opt.fallback_ref) {
      return native;
    }
    auto outs = run_ref(node, values);
    if (!outs.ok()) return outs.status();
    const std::string note =
        native.ok() ? "data movement (reference kernel)" : "fallback=ref: " + native.message();
    store(node, std::move(*outs), values, {"", note});
    return Status::Ok();
  }

  Status run_group(const onednn::FusionGroup& group, Values& values) {
    const Graph& g = model_.graph;
    std::vector<PostOp> post;
    for (size_t k = 1; k < group.nodes.size(); ++k) {
      const Node& n = g.nodes[group.nodes[k]];
      if (auto elt = onednn::eltwise_post_op(n, model_)) {
        post.push_back(*elt);
        continue;
      }
      const std::string& prev = g.nodes[group.nodes[k - 1]].outputs[0];
      const std::string& other = n.inputs[0] == prev ? n.inputs[1] : n.inputs[0];
      auto it = values.find(other);
      if (it == values.end() || !it->second.is_tensor() ||
          it->second.tensor.dtype() != DType::kFloat32) {
        return run_unfused(group, values);
      }
      post.push_back(PostOp{*onednn::binary_alg(n), true, 0, 0, it->second.tensor});
    }
    const Node& head = g.nodes[group.nodes.front()];
    auto r = run_native(head, values, post);
    // oneDNN refuses some post-op combinations (broadcast shapes, ISA): run the nodes one by one.
    if (!r.ok()) return run_unfused(group, values);
    const Node& last = g.nodes[group.nodes.back()];
    store(last, {Value::of(std::move(r->out))}, values,
          {onednn::covers_of(g, group), "fused: " + r->impl});
    return Status::Ok();
  }

  Status run_unfused(const onednn::FusionGroup& group, Values& values) {
    for (size_t n : group.nodes) IG_RETURN_IF_ERROR(run_node(model_.graph.nodes[n], values));
    return Status::Ok();
  }

  onednn::Ctx& ctx_;
  RefBackend& ref_;
  const OnednnBackend& backend_;
  const Model& model_;
  const NodeCallback& on_node_;
};

}  // namespace

Expected<std::vector<Value>> OnednnBackend::run_values(const Model& model,
                                                       const std::map<std::string, Value>& feeds,
                                                       const NodeCallback& on_node) {
  IG_RETURN_IF_ERROR(check_feeds(model, feeds));
  Values values;
  for (const auto& [name, t] : model.graph.initializers) values[name] = Value::of(t);
  for (const auto& [name, v] : feeds) values[name] = v;
  // Prepared primitives belong to one version of one model file; a model without a file caches
  // nothing.
  const ModelVersion::Check version = version_.check(model.path);
  if (version != ModelVersion::kSame) ctx_.cache = onednn::PrimitiveCache{};
  ctx_.cache.enabled = version != ModelVersion::kNoFile;
  ctx_.cache.constants.clear();
  for (const auto& [name, t] : model.graph.initializers) {
    if (!feeds.count(name) && t.raw()) ctx_.cache.constants.insert(values[name].tensor.raw());
  }
  Executor exec(ctx_, ref_, *this, model, on_node);
  ctx_.produced.clear();
  Status st = exec.run(values);
  ctx_.produced.clear();
  if (!st.ok()) return st.with_context(model.path);
  std::vector<Value> results;
  for (const auto& out : model.graph.outputs) {
    auto it = values.find(out.name);
    if (it == values.end())
      return invalid_argument("graph output '{}' is never produced", out.name);
    results.push_back(it->second);
  }
  return results;
}

}  // namespace ig
