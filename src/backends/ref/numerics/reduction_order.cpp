#include "backends/ref/numerics/reduction_order.h"

namespace ig {

std::string ReductionOrder::to_string() const {
  switch (kind) {
    case Kind::kSeq:
      return "seq";
    case Kind::kPairwise:
      return "pairwise";
    case Kind::kLanes:
      return "lanes" + std::to_string(lanes);
    case Kind::kBlock:
      return "block" + std::to_string(block);
  }
  return "?";
}

Expected<ReductionOrder> parse_reduction_order(const std::string& text) {
  ReductionOrder o;
  if (text == "seq") return o;
  if (text == "pairwise") {
    o.kind = ReductionOrder::Kind::kPairwise;
    return o;
  }
  for (int lanes : {2, 4, 8, 16, 32}) {
    if (text == "lanes" + std::to_string(lanes)) {
      o.kind = ReductionOrder::Kind::kLanes;
      o.lanes = lanes;
      return o;
    }
  }
  if (text.rfind("block", 0) == 0 && text.size() > 5) {
    const std::string digits = text.substr(5);
    if (digits.find_first_not_of("0123456789") == std::string::npos && digits.size() <= 6) {
      const int k = std::stoi(digits);
      if (k >= 1) {
        o.kind = ReductionOrder::Kind::kBlock;
        o.block = k;
        return o;
      }
    }
  }
  return invalid_argument(
      "acc '{}' is not one of seq, pairwise, lanes2, lanes4, lanes8, lanes16, lanes32, block<K>",
      text);
}

}  // namespace ig
