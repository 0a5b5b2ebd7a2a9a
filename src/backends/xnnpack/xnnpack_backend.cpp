#include "backends/xnnpack/xnnpack_backend.h"

#include <algorithm>

#include "backends/library/qoperator_group.h"
#include "backends/xnnpack/xnnpack_int8.h"

namespace ig {

namespace {

// One run: each node as a fresh operator (XNNPACK packs the weights when it creates one), each
// int8 QDQ group as one integer operator.
class XnnpackRun : public LibraryRun {
 public:
  XnnpackRun(xnnpack::Ctx& ctx, const XnnpackBackend& backend, const Model& model)
      : ctx_(ctx), backend_(backend), model_(model) {
    auto native = [&](const Node& n) { return backend.native_support(n, model).ok(); };
    plan_ = xnnpack::plan_int8(model, native);
  }

  const NodeGroups& groups() const override { return plan_.groups; }

  Expected<NativeOutputs> run_group(const NodeGroup& group, RunValues& values) override {
    auto it = plan_.qdq.find(group.nodes.back());
    if (it == plan_.qdq.end()) return internal_error("xnnpack: group is not an int8 group");
    IG_ASSIGN_OR_RETURN(xnnpack::OpResult r,
                        xnnpack::run_int8_group(ctx_, model_, it->second,
                                                host_or_initializer(values, initializers())));
    return NativeOutputs{{Value::of(std::move(r.out))}, std::move(r.note)};
  }

  Expected<NativeOutputs> run_node(const Node& node, RunValues& values) override {
    if (is_qoperator_head(node)) {
      const TensorLookup lookup = host_or_initializer(values, initializers());
      IG_ASSIGN_OR_RETURN(QoperatorGroup q, qoperator_group(node, model_, lookup));
      IG_ASSIGN_OR_RETURN(xnnpack::OpResult r,
                          xnnpack::run_int8_group(ctx_, q.model, q.group, q.lookup(lookup)));
      return NativeOutputs{{Value::of(std::move(r.out))}, std::move(r.note)};
    }
    xnnpack::OpInputs x{node, model_.opset_for(node.domain), {}};
    IG_ASSIGN_OR_RETURN(x.in, values.inputs(node));
    IG_ASSIGN_OR_RETURN(const xnnpack::OpDef* def,
                        backend_.table_entry(xnnpack::ops(), node, model_));
    IG_ASSIGN_OR_RETURN(xnnpack::OpResult r, def->run(ctx_, x));
    return NativeOutputs{{Value::of(std::move(r.out))}, std::move(r.note)};
  }

 private:
  const TensorLookup& initializers() {
    if (!init_) init_ = initializers_of(model_);
    return init_;
  }

  xnnpack::Ctx& ctx_;
  const XnnpackBackend& backend_;
  const Model& model_;
  TensorLookup init_;  // initializers_of(model_), made when an int8 group first needs it
  xnnpack::Int8Plan plan_;
};

}  // namespace

XnnpackBackend::XnnpackBackend(xnnpack::Options options)
    : LibraryBackend("xnnpack", {"XNNPACK", "XNNPACK"}) {
  ctx_.opt = options;
  // threads=1 runs on the calling thread: no pool, as XNNPACK's own single-threaded callers do.
  if (options.threads > 1) ctx_.pool = pthreadpool_create(static_cast<size_t>(options.threads));
}

XnnpackBackend::~XnnpackBackend() {
  if (ctx_.pool) pthreadpool_destroy(ctx_.pool);
}

Status XnnpackBackend::check_native(const Node& node, const Model& model) const {
  if (is_qoperator_head(node)) {
    Status st = check_qoperator_group(node, model, xnnpack::check_int8_group);
    if (st.ok()) return st;
    return unsupported("{}: not an XNNPACK int8 operator: {}", node.label(), st.message());
  }
  // A weight's, bias's or output's QDQ node inside an int8 group is the group's to run.
  if ((node.op_type == "DequantizeLinear" || node.op_type == "QuantizeLinear") &&
      groups_.in_group(
          node, model, [&](const Node& n) { return native_support(n, model).ok(); },
          xnnpack::check_int8_group))
    return Status::Ok();
  if (const char* why = xnnpack::known_missing(node.op_type)) {
    return unsupported("{}: {}", node.label(), why);
  }
  IG_RETURN_IF_ERROR(check_in_table(xnnpack::ops(), node, model));
  // A Conv/Gemm/MatMul reading DequantizeLinear outputs is an int8 operator or nothing: running
  // it in fp32 would hide that XNNPACK cannot take the quantized group.
  const bool main =
      node.index < model.graph.nodes.size() && &model.graph.nodes[node.index] == &node;
  if (!main) return Status::Ok();
  const auto grp = find_library_qdq_group(model, node.index);
  if (!grp) return Status::Ok();
  if (Status st = xnnpack::check_int8_group(model, *grp, initializers_of(model)); !st.ok()) {
    return unsupported("{}: QDQ group is not an XNNPACK int8 operator: {}", node.label(),
                       st.message());
  }
  return Status::Ok();
}

bool XnnpackBackend::maps_domain_op(const Node& node) const {
  const auto& table = xnnpack::ops();
  return std::any_of(table.begin(), table.end(), [&](const xnnpack::OpDef& d) {
    return d.domain == node.domain && d.op_type == node.op_type;
  });
}

std::unique_ptr<LibraryRun> XnnpackBackend::begin_run(const Model& model,
                                                      const std::map<std::string, Value>&) {
  return std::make_unique<XnnpackRun>(ctx_, *this, model);
}

}  // namespace ig
