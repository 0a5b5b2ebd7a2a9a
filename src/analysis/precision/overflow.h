// Where a float16 or bfloat16 model leaves its number range: the first nodes whose output holds
// Inf or NaN, or sits at the type's largest finite value, while the float parent is finite there;
// with the parent's largest |value| and the headroom the type has for it, and the nodes to keep in
// float32 so the value never exists in the narrow type (its producer and the nodes reading it).
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace ig {

struct OverflowRow {
  std::string value, node, op_type;
  DType dtype = DType::kUndefined;  // the derived model's type there
  int64_t numel = 0, infs = 0, nans = 0, saturated = 0;
  bool parent_known = false;  // the parent traced this value
  double parent_max = 0;      // its largest finite |value|
  int64_t parent_nonfinite = 0;
  // log2(largest finite value of dtype / parent_max): bits of headroom; negative: out of range.
  double headroom_bits = 0;
  bool first = false;  // no value entering the node is already Inf/NaN in the derived model
  bool overflows() const { return infs + nans + saturated > 0 && parent_nonfinite == 0; }
};

struct OverflowReport {
  std::vector<OverflowRow> rows;       // every traced narrow-float value, in graph order
  std::vector<std::string> keep;       // node names to block so the overflows stay in float32
  std::vector<size_t> first_overflow;  // indices into rows: overflows with `first` set
};

// `derived` and `parent`: values by name as traced on one platform (the parent may be empty).
OverflowReport find_overflows(const onnx::GraphProto& derived_graph,
                              const std::map<std::string, Tensor>& derived,
                              const std::map<std::string, Tensor>& parent);

nlohmann::json overflow_json(const OverflowReport& report);

}  // namespace ig
