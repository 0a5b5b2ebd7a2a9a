#include "backends/op_table.h"

namespace ig {

Status opset_mismatch(const std::string& domain, const std::string& op_type,
                      const std::vector<std::pair<int, int>>& ranges, int64_t opset) {
  std::string listed;
  for (const auto& [since, until] : ranges) {
    listed += fmt::format("{}[{}, {}]", listed.empty() ? "" : ", ", since,
                          until == kMaxOpset ? std::string("latest") : std::to_string(until));
  }
  const std::string op = domain.empty() ? op_type : domain + "." + op_type;
  return unsupported("{} is implemented for opsets {} but the model uses opset {}", op, listed,
                     opset);
}

}  // namespace ig
