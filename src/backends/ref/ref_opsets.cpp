#include "backends/ref/ref_opsets.h"

namespace ig {

Status check_ref_opsets(const Model& model) {
  for (const auto& [domain, version] : model.opsets) {
    const std::string_view d = domain == "ai.onnx" ? "" : std::string_view(domain);
    for (const OpsetLimit& limit : kRefOpsetLimits) {
      if (limit.domain != d || version <= limit.newest) continue;
      return invalid_argument(
          "{}: the model declares opset {} of domain {}, newer than the reference backend "
          "implements ({}); export it for opset {} or lower",
          model.path, version, d.empty() ? "ai.onnx" : domain, limit.newest, limit.newest);
    }
  }
  return Status::Ok();
}

}  // namespace ig
