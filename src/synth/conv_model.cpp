#include "synth/conv_model.h"

#include "inputs/random_input.h"

namespace ig {

Model single_conv_model(const std::string& label, const Shape& weight_shape, uint64_t seed,
                        const std::vector<int64_t>& pads) {
  Model m;
  m.path = label;
  m.opsets[""] = 13;
  ValueInfo x;
  x.name = "X";
  x.dtype = DType::kFloat32;
  m.graph.inputs.push_back(x);
  m.graph.initializers["W"] = random_uniform_tensor(DType::kFloat32, weight_shape, seed);
  ValueInfo y;
  y.name = "Y";
  m.graph.outputs.push_back(y);
  Node conv;
  conv.name = "conv";
  conv.op_type = "Conv";
  conv.inputs = {"X", "W"};
  conv.outputs = {"Y"};
  if (!pads.empty()) {
    Attribute a;
    a.kind = Attribute::Kind::kInts;
    a.ints = pads;
    conv.attributes["pads"] = a;
  }
  m.graph.nodes.push_back(conv);
  return m;
}

}  // namespace ig
