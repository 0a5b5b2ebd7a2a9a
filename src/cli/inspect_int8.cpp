#include "cli/inspect_int8.h"

#include <set>

#include "backends/library/qoperator_group.h"
#include "backends/ref/qdq_groups.h"
#include "model/qdq_group.h"
#include "platform/spec.h"

namespace ig::cli {

namespace {

// The backends whose int8 kernels take QDQ groups as they find them (their adapters' plans).
bool is_int8_library(const std::string& backend) {
  return backend == "onednn" || backend == "xnnpack" || backend == "torch";
}

}  // namespace

std::vector<size_t> int8_group_heads(const Model& model) {
  std::vector<size_t> heads;
  const QdqGraphIndex index(model.graph);
  for (size_t i = 0; i < model.graph.nodes.size(); ++i)
    if (is_qoperator_head(model.graph.nodes[i]) || find_qdq_group(index, i)) heads.push_back(i);
  return heads;
}

std::string plain_spec_of(const std::string& spec) {
  auto parsed = parse_platform_spec(spec);
  if (!parsed.ok()) return spec;
  if (is_int8_library(parsed->backend)) parsed->options.erase("fallback");
  return parsed->to_string();
}

nlohmann::json int8_groups_json(const std::string& spec, const Model& model,
                                const std::vector<size_t>& heads, const PlatformSupport& plain) {
  nlohmann::json j{{"groups", heads.size()}};
  auto parsed = parse_platform_spec(spec);
  const std::string backend = parsed.ok() ? parsed->backend : "";
  int64_t qoperator = 0;
  for (size_t h : heads) qoperator += is_qoperator_head(model.graph.nodes[h]);
  if (backend == "ref") {
    const bool integer = parsed->options.count("qdq") && parsed->options.at("qdq") == "int";
    j["integer_kernels"] =
        qoperator + (integer ? static_cast<int64_t>(plan_int_kernels(model).groups.size()) : 0);
    if (!integer) j["note"] = "QDQ groups in the spec's float semantics (qdq=int: integer kernels)";
    return j;
  }
  if (backend == "ort") {
    j["note"] = "ONNX Runtime fuses QDQ groups itself at load (its trace shows which)";
    return j;
  }
  if (!is_int8_library(backend) || !plain.available || plain.verdict == Verdict::kError) {
    j["note"] = "no int8 kernels of its own: groups run in float or fall back";
    return j;
  }
  if (backend == "torch" && !parsed->options.count("qengine")) {
    j["integer_kernels"] = 0;
    j["note"] = "no qengine: int8 kernels off (qengine=qnnpack or onednn turns them on)";
    return j;
  }
  // A group runs as one integer kernel when its head is not refused. (The libraries' static
  // checks refuse a lone QuantizeLinear or DequantizeLinear even where a group would take it:
  // the head is what decides.) By name: the worker checks the model as it loads it.
  std::set<std::string> refused;
  for (const auto& r : plain.rejections) refused.insert(r.node);
  int64_t native = 0;
  for (size_t h : heads) native += !refused.count(model.graph.nodes[h].name);
  j["integer_kernels"] = native;
  return j;
}

}  // namespace ig::cli
