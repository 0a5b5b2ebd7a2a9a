// edge(input=NAME,lo=A,hi=B): the variant's input NAME drawn uniformly from [A, B] instead of what
// it carried (issue 57). The ranges drive the operator that reads the input into the parts of its
// domain where kernels approximate: Sigmoid's and Softplus's negative tails, whose results are
// tiny but normal numbers; Exp near its underflow and overflow; Tanh, Erf and Elu near 0, where
// the result is about x and a formula such as exp(x) - 1 cancels. Campaigns judge those runs on
// relative precision (analysis/relative_precision.h), which an absolute tolerance hides.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "inputs/rng.h"
#include "inputs/variant_inputs.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"

namespace ig {

const std::map<std::string, std::vector<EdgeRange>>& edge_ranges() {
  static const std::map<std::string, std::vector<EdgeRange>> ranges = {
      {"Sigmoid", {{-80, -10}, {10, 30}}},
      {"Softplus", {{-80, -20}, {20, 80}}},
      {"Exp", {{-87, -60}, {60, 88}}},
      {"Tanh", {{-1e-3, 1e-3}}},
      {"Erf", {{-1e-3, 1e-3}}},
      {"Elu", {{-1e-3, 1e-3}}},
      {"Celu", {{-1e-3, 1e-3}}},
      {"Mish", {{-60, -10}}},
      {"Log", {{0.999, 1.001}}},
  };
  return ranges;
}

Status edge_input(onnx::ModelProto& model, const Mutation& m) {
  auto in = m.params.find("input");
  auto lo = m.params.find("lo");
  auto hi = m.params.find("hi");
  if (in == m.params.end() || lo == m.params.end() || hi == m.params.end())
    return invalid_argument("edge: needs parameters 'input', 'lo' and 'hi'");
  const double a = std::stod(lo->second), b = std::stod(hi->second);
  if (!(a < b)) return invalid_argument("edge: lo {} is not below hi {}", a, b);
  const auto inputs = runtime_inputs(model.graph());
  if (std::none_of(inputs.begin(), inputs.end(), [&](auto* i) { return i->name() == in->second; }))
    return not_found("edge: no graph input named '{}'", in->second);
  auto specs = variant_inputs(model);
  specs[in->second] = fmt::format("random:uniform,lo={},hi={}", lo->second, hi->second);
  set_variant_inputs(model, specs);
  return Status::Ok();
}

std::vector<Mutation> edge_candidates(const onnx::ModelProto& model, Rng& rng) {
  std::vector<Mutation> out;
  for (const auto* i : runtime_inputs(model.graph())) {
    if (!is_float_type(i->type().tensor_type().elem_type())) continue;
    for (const auto& n : model.graph().node()) {
      auto r = edge_ranges().find(n.op_type());
      if (r == edge_ranges().end() || n.input_size() == 0 || n.input(0) != i->name()) continue;
      const EdgeRange& range = r->second[rng.below(r->second.size())];
      out.push_back({"edge",
                     {{"input", i->name()},
                      {"lo", fmt::format("{}", range.lo)},
                      {"hi", fmt::format("{}", range.hi)}}});
      break;
    }
  }
  return out;
}

}  // namespace ig
