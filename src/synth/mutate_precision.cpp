// Reduced-precision mutations (mutate_util.h): a run of consecutive nodes computing in float16 or
// bfloat16 between Cast nodes, and the candidates the planner draws for them and for a whole
// model in bfloat16. Both go through convert_precision, which knows which nodes take the type.
#include <algorithm>

#include "inputs/rng.h"
#include "synth/convert_precision.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"

namespace ig {

Status cast_span(onnx::ModelProto& model, const std::map<std::string, std::string>& p) {
  const auto& g = model.graph();
  auto param = [&](const char* key) { return p.count(key) ? p.at(key) : std::string(); };
  const Expected<int> found_first = node_index(g, param("first"));
  const Expected<int> found_last = node_index(g, param("last"));
  if (!found_first.ok() || !found_last.ok())
    return invalid_argument("castspan: no node '{}'",
                            found_first.ok() ? param("last") : param("first"));
  const int first = *found_first, last = *found_last;
  if (first > last)
    return invalid_argument("castspan: '{}' comes after '{}'", param("first"), param("last"));
  ConvertOptions o;
  IG_ASSIGN_OR_RETURN(o.to, parse_precision(param("to")));
  o.keep_io = true;
  // Every node outside the run stays float32: blocked by name, so every one needs a name.
  for (int i = 0; i < g.node_size(); ++i) {
    if (i >= first && i <= last) continue;
    if (g.node(i).name().empty())
      return invalid_argument("castspan: node {} ({}) has no name to keep it in float32", i,
                              g.node(i).op_type());
    o.block.push_back(g.node(i).name());
  }
  IG_ASSIGN_OR_RETURN(ConvertResult r, convert_precision(model, o));
  if (r.converted_nodes.empty()) return invalid_argument("castspan: no node of the run converts");
  model = std::move(r.model);
  return Status::Ok();
}

std::vector<Mutation> precision_candidates(const onnx::ModelProto& model, Rng& rng) {
  const auto& g = model.graph();
  bool has_fp32 = false;
  for (const auto& [name, t] : value_types(model))
    has_fp32 |= t.elem_type == onnx::TensorProto::FLOAT;
  if (!has_fp32 || g.node_size() == 0) return {};
  for (const auto& n : g.node())
    if (n.name().empty()) return {};
  std::vector<Mutation> out;
  out.push_back({"convert", {{"to", "bf16"}, {"keep_io", "1"}, {"block", ""}}});
  const int first = static_cast<int>(rng.below(static_cast<uint64_t>(g.node_size())));
  const int last = std::min(g.node_size() - 1, first + static_cast<int>(rng.below(4)));
  out.push_back({"castspan",
                 {{"to", rng.below(2) == 0 ? "fp16" : "bf16"},
                  {"first", g.node(first).name()},
                  {"last", g.node(last).name()}}});
  return out;
}

}  // namespace ig
