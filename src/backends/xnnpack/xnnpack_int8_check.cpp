#include "backends/library/qdq_checks.h"
#include "backends/xnnpack/xnnpack_int8.h"

namespace ig::xnnpack {

namespace {

constexpr QdqRules kRules{.lib = "XNNPACK",
                          .ops = "XNNPACK's int8 operators",
                          .data = "u8 or s8",
                          .s8_data = true,
                          .conv_rank_min = 3,
                          .conv_rank_max = 4,
                          .conv_dims = "1 or 2",
                          .needs_q = true,
                          .acc_bias_only = true};

}  // namespace

Status check_int8_group(const Model& model, const QdqGroup& grp, const TensorLookup& known) {
  return check_qdq_int8(model, grp, known, kRules);
}

Int8Plan plan_int8(const Model& model, const std::function<bool(const Node&)>& native) {
  return plan_qdq_groups(model, native, check_int8_group);
}

}  // namespace ig::xnnpack
