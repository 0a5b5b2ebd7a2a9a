#include "backends/xnnpack/xnnpack_backend.h"

#include "backends/xnnpack/xnnpack_ops.h"

namespace ig {

namespace {

// One run: each node as a fresh operator (XNNPACK packs the weights when it creates one).
class XnnpackRun : public LibraryRun {
 public:
  XnnpackRun(xnnpack::Ctx& ctx, const XnnpackBackend& backend, const Model& model)
      : ctx_(ctx), backend_(backend), model_(model) {}

  Expected<NativeOutputs> run_node(const Node& node, RunValues& values) override {
    xnnpack::OpInputs x{node, model_.opset_for(node.domain), {}};
    IG_ASSIGN_OR_RETURN(x.in, values.inputs(node));
    IG_ASSIGN_OR_RETURN(const xnnpack::OpDef* def,
                        backend_.table_entry(xnnpack::ops(), node, model_));
    IG_ASSIGN_OR_RETURN(xnnpack::OpResult r, def->run(ctx_, x));
    return NativeOutputs{{Value::of(std::move(r.out))}, std::move(r.note)};
  }

 private:
  xnnpack::Ctx& ctx_;
  const XnnpackBackend& backend_;
  const Model& model_;
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
  if (const char* why = xnnpack::known_missing(node.op_type)) {
    return unsupported("{}: {}", node.label(), why);
  }
  return check_in_table(xnnpack::ops(), node, model);
}

std::unique_ptr<LibraryRun> XnnpackBackend::begin_run(const Model& model,
                                                      const std::map<std::string, Value>&) {
  return std::make_unique<XnnpackRun>(ctx_, *this, model);
}

}  // namespace ig
