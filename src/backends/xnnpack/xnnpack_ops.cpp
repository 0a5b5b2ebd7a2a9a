#include "backends/xnnpack/xnnpack_ops.h"

#include "backends/xnnpack/xnnpack_ops_int8.h"

#include <map>

namespace ig::xnnpack {

const std::vector<OpDef>& ops() {
  static const std::vector<OpDef> kOps = [] {
    std::vector<OpDef> all;
    for (const auto* part :
         {&conv_ops(), &gemm_ops(), &pool_ops(), &elementwise_ops(), &quant_ops(), &int8_ops()})
      all.insert(all.end(), part->begin(), part->end());
    return all;
  }();
  return kOps;
}

const char* known_missing(const std::string& op_type) {
  // What users of other backends expect to be there; Debian's XNNPACK is a 2022-02 snapshot.
  static const std::map<std::string, const char*> kMissing = {
      {"Tanh", "no f32 XNNPACK operator for Tanh in Debian's 2022 XNNPACK (tanh is qs8/qu8 only)"},
      {"Exp", "no XNNPACK operator for Exp in Debian's 2022 XNNPACK"},
      {"Log", "no XNNPACK operator for Log in Debian's 2022 XNNPACK"},
      {"Erf", "no XNNPACK operator for Erf in Debian's 2022 XNNPACK"},
      {"Gelu", "no XNNPACK operator for Gelu in Debian's 2022 XNNPACK"},
      {"HardSigmoid", "no XNNPACK operator for HardSigmoid in Debian's 2022 XNNPACK"},
      {"BatchNormalization",
       "no XNNPACK operator for BatchNormalization (export with the batch norm folded into the "
       "Conv)"},
      {"ConvTranspose",
       "ConvTranspose (XNNPACK's deconvolution2d) is not mapped: its output padding and shape "
       "rules differ from ONNX's"},
      {"Concat", "no XNNPACK operator for Concat in Debian's 2022 XNNPACK operator API"},
      {"Transpose", "no XNNPACK operator for Transpose in Debian's 2022 XNNPACK operator API"},
  };
  auto it = kMissing.find(op_type);
  return it == kMissing.end() ? nullptr : it->second;
}

Status require_float(const OpInputs& x) {
  for (size_t i = 0; i < x.in.size(); ++i) {
    if (x.has(i) && x.at(i).dtype() != DType::kFloat32) {
      return unsupported("{}: input '{}' is {}; the XNNPACK backend maps fp32 only", x.node.label(),
                         x.node.inputs[i], x.at(i).describe());
    }
  }
  return Status::Ok();
}

Status require_nonempty(const OpInputs& x) {
  for (size_t i = 0; i < x.in.size(); ++i) {
    if (x.has(i) && x.at(i).numel() == 0) {
      return unsupported("{}: input '{}' is empty ({}); XNNPACK refuses empty tensors",
                         x.node.label(), x.node.inputs[i], x.at(i).describe());
    }
  }
  return Status::Ok();
}

std::string note_of(const std::string& name, bool half, const std::string& layout) {
  std::string detail = layout;
  if (half) detail += std::string(detail.empty() ? "" : "; ") + "fp32 operands rounded to fp16";
  std::string note = "xnn:" + name + (half ? "_f16" : "_f32");
  return detail.empty() ? note : note + " (" + detail + ")";
}

}  // namespace ig::xnnpack
