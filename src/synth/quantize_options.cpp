// quantize_model's options as lineage parameters, the checks in front of it and the opset raise.
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include <sstream>
#include "synth/quantize_model.h"
#include "synth/quantize_util.h"

namespace ig {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

const onnx::NodeProto* quantized_node(const onnx::GraphProto& g) {
  static const std::set<std::string> ops = {
      "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
      "QGemm",          "QAttention",       "DynamicQuantizeMatMul"};
  for (const auto& n : g.node()) {
    const std::string& op = n.op_type();
    if (ops.count(op) || op.rfind("QLinear", 0) == 0 || ends_with(op, "Integer") ||
        ends_with(op, "IntegerToFloat"))
      return &n;
  }
  return nullptr;
}

bool is_blocked(const onnx::NodeProto& n, const std::vector<std::string>& block) {
  return std::find(block.begin(), block.end(), n.op_type()) != block.end() ||
         (!n.name().empty() && std::find(block.begin(), block.end(), n.name()) != block.end());
}

Status raise_opset(onnx::ModelProto& model, int64_t version, bool* raised) {
  const int64_t current = default_opset(model);
  if (raised) *raised = false;
  if (current >= version) return Status::Ok();
  // The converter rebuilds the graph: metadata and names it drops are put back.
  const auto props = model.metadata_props();
  onnx::ModelProto converted;
  try {
    converted = onnx::version_conversion::ConvertVersion(model, static_cast<int>(version));
  } catch (const std::exception& e) {
    return invalid_argument("raising the opset from {} to {} (ONNX version converter): {}", current,
                            version, e.what());
  }
  *converted.mutable_metadata_props() = props;
  converted.set_ir_version(std::max<int64_t>(converted.ir_version(), 7));
  model = std::move(converted);
  if (raised) *raised = true;
  return Status::Ok();
}

std::map<std::string, std::string> quantize_params(const QuantizeOptions& o) {
  std::string block;
  for (const auto& b : o.block) block += (block.empty() ? "" : ",") + b;
  std::map<std::string, std::string> params = {
      {"activations", o.signed_activations ? "s8" : "u8"},
      {"reduce_range", o.reduce_range ? "1" : "0"},
      {"calibration",
       o.percentile ? "percentile:" + fmt::format("{}", o.percentile_value) : "minmax"},
      {"samples", std::to_string(o.samples)},
      {"seed", std::to_string(o.seed)},
      {"block", block},
      {"inputs", nlohmann::json{{"specs", o.inputs.specs},
                                {"shapes", o.inputs.shapes},
                                {"dims", o.inputs.dims},
                                {"calibrate", o.calibrate}}
                     .dump()}};
  // Only where it is not the default: the lineage of every model quantized before stays as it was.
  if (o.inputs_only) params["layout"] = "inputs";
  return params;
}

Expected<QuantizeOptions> quantize_options_from(const std::map<std::string, std::string>& p) {
  QuantizeOptions o;
  auto get = [&](const char* key) -> std::string {
    auto it = p.find(key);
    return it == p.end() ? "" : it->second;
  };
  const std::string acts = get("activations");
  if (acts != "u8" && acts != "s8" && !acts.empty())
    return invalid_argument("quantize: activations must be u8 or s8, not '{}'", acts);
  o.signed_activations = acts == "s8";
  o.reduce_range = get("reduce_range") == "1";
  const std::string layout = get("layout");
  if (layout != "inputs" && !layout.empty())
    return invalid_argument("quantize: layout must be qdq or inputs, not '{}'", layout);
  o.inputs_only = layout == "inputs";
  const std::string cal = get("calibration");
  if (cal.rfind("percentile", 0) == 0) {
    o.percentile = true;
    if (cal.size() > 11) o.percentile_value = std::stod(cal.substr(11));
  } else if (cal != "minmax" && !cal.empty()) {
    return invalid_argument("quantize: calibration must be minmax or percentile[:P], not '{}'",
                            cal);
  }
  if (!get("samples").empty()) o.samples = std::stoll(get("samples"));
  if (!get("seed").empty()) o.seed = std::stoull(get("seed"));
  std::stringstream block(get("block"));
  for (std::string b; std::getline(block, b, ',');)
    if (!b.empty()) o.block.push_back(b);
  if (!get("inputs").empty()) {
    const auto j = nlohmann::json::parse(get("inputs"));
    o.inputs.specs = j.value("specs", std::vector<std::string>{});
    o.inputs.shapes = j.value("shapes", std::vector<std::string>{});
    o.inputs.dims = j.value("dims", std::vector<std::string>{});
    o.calibrate = j.value("calibrate", std::vector<std::string>{});
  }
  o.inputs.seed = o.seed;
  return o;
}

}  // namespace ig
