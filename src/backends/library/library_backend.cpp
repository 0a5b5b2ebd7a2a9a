#include "backends/library/library_backend.h"

#include "backends/library/library_executor.h"
#include "backends/library/qoperator_group.h"
#include "backends/single_node.h"
#include "core/strings.h"

namespace ig {

Status LibraryBackend::native_support(const Node& node, const Model& model) const {
  // com.microsoft's QGemm is an int8 group the libraries may take (qoperator_group.h).
  if (!node.domain.empty() && !is_qoperator_head(node) && !maps_domain_op(node)) {
    return unsupported("{}: domain '{}' has no {} mapping", node.label(), node.domain,
                       names_.domains);
  }
  if (is_data_movement(node.op_type)) return ref_.supports(node, model);
  return check_native(node, model);
}

Status LibraryBackend::supports(const Node& node, const Model& model) const {
  Status native = native_support(node, model);
  if (native.ok() || !fallback_ref()) return native;
  return ref_.supports(node, model).ok() ? Status::Ok() : native;
}

Expected<std::vector<Value>> LibraryBackend::run_values(const Model& model,
                                                        const std::map<std::string, Value>& feeds,
                                                        const NodeCallback& on_node) {
  IG_RETURN_IF_ERROR(check_feeds(model, feeds));
  std::unique_ptr<LibraryRun> run = begin_run(model, feeds);
  LibraryExecutor exec(*this, ref_, *run, model, on_node);
  Status st = exec.run(feeds);
  st = run->finish(std::move(st));
  if (!st.ok()) return st.with_context(model.path);
  return exec.graph_outputs();
}

Status LibraryBackend::no_mapping(const Node& node, const std::vector<std::string>& mapped) const {
  return unsupported("{}: no {} mapping for {} (mapped: {}; data movement: {})", node.label(),
                     names_.ops, node.op_type, join_names(mapped), data_movement_names());
}

}  // namespace ig
