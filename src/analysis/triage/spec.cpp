#include "analysis/triage/spec.h"

#include "analysis/triage/findings.h"

#include <algorithm>
#include <vector>

namespace ig::triage {

namespace {

// The op types of a fused group's label, in order, attributes dropped: "Conv[k=3x3]+MaxPool[k=2x2]
// reduced to ..." -> {"Conv", "MaxPool"}.
std::vector<std::string> group_ops(const std::string& op) {
  const std::string group = op.substr(0, op.find(' '));
  std::vector<std::string> ops;
  for (size_t at = 0; at <= group.size();) {
    const size_t plus = std::min(group.find('+', at), group.size());
    const std::string one = group.substr(at, plus - at);
    ops.push_back(one.substr(0, one.find('[')));
    at = plus + 1;
  }
  return ops;
}

std::string last_op(const std::string& op) { return group_ops(op).back(); }

// A rewrite graph optimizers make, by the op types it fuses (in order) and what it does to the
// model's semantics.
struct KnownRewrite {
  std::vector<std::string> ops;
  const char* mechanism;
};

// The rewrite of `table` whose op types appear in order, consecutively, among `ops`.
const KnownRewrite* match_rewrite(const std::vector<KnownRewrite>& table,
                                  const std::vector<std::string>& ops) {
  for (const auto& k : table)
    for (size_t i = 0; i + k.ops.size() <= ops.size(); ++i)
      if (std::equal(k.ops.begin(), k.ops.end(), ops.begin() + static_cast<std::ptrdiff_t>(i)))
        return &k;
  return nullptr;
}

}  // namespace

std::string onnx_spec_url(const std::string& op) {
  const std::string last = last_op(op);
  if (last.empty() || last[0] == '(') return "";
  return "https://onnx.ai/onnx/operators/onnx__" + last + ".html";
}

namespace {

nlohmann::json verdict(const char* v, const std::string& why, const std::string& op) {
  return {{"verdict", v}, {"why", why}, {"spec", onnx_spec_url(op)}};
}

// Operators that sum many products or terms: their fp32 accumulation can overflow midway (Inf,
// then Inf - Inf = NaN) where the exact, fp64 result is finite.
bool accumulates(const std::string& op) {
  for (const char* a : {"Conv", "Gemm", "MatMul", "Reduce", "Softmax", "LogSoftmax", "Pool",
                        "Normalization", "Einsum", "LSTM", "GRU", "RNN"})
    if (op.find(a) != std::string::npos) return true;
  return false;
}

nlohmann::json judge_exceptional(const std::string& behaviour, const std::string& op) {
  if ((behaviour == "nan" || behaviour == "inf") && accumulates(op))
    return verdict("implementation choice",
                   "the output holds " + std::string(behaviour == "nan" ? "NaN" : "Inf") +
                       " where the exact result is finite: a sum accumulated in the output type "
                       "overflows midway (Inf, then Inf - Inf = NaN) on these extreme inputs; the "
                       "specification does not fix the accumulation type, so this is fp32 range, "
                       "not a wrong kernel",
                   op);
  if (behaviour == "nan" || behaviour == "inf")
    return verdict("library defect",
                   "the output holds " + std::string(behaviour == "nan" ? "NaN" : "Inf") +
                       " where the exact result, rounded once to the output type, is finite: "
                       "the specification defines " +
                       op +
                       " as a function of its inputs, and no rounding of a finite value "
                       "gives a non-finite one",
                   op);
  if (behaviour == "ignore" && last_op(op) == "MaxPool")
    return verdict("implementation choice",
                   "a NaN reaching the operator disappears from its output. ONNX's reference "
                   "MaxPool does not settle it: with strides above 1 it keeps a window's running "
                   "maximum by `x > max`, so a NaN counts only where it comes first in the "
                   "window; with unit strides it uses np.max, which propagates. Dropping NaN "
                   "(IEEE 754-2008 maxNum) is one of the behaviours the reference itself shows",
                   op);
  if (behaviour == "ignore")
    return verdict("library defect",
                   "the output is finite where the oracle's is NaN or Inf: ONNX defines " + op +
                       " by IEEE 754 arithmetic (its reference implementation is NumPy's, which "
                       "propagates NaN and makes 0 / 0 NaN), so a NaN that reaches the operator, "
                       "or one its own arithmetic makes, must reach the outputs it feeds",
                   op);
  if (behaviour == "flush")
    return verdict("implementation choice",
                   "denormal results flushed to zero (FTZ/DAZ): a loss below 1.2e-38 in fp32 that "
                   "the specification does not forbid explicitly, though IEEE 754 keeps denormals",
                   op);
  if (behaviour == "zero-sign")
    return verdict("implementation choice",
                   "a zero of the other sign: equal as numbers (-0 == +0), visible only through "
                   "1/x or copysign; the specification does not pin the sign of zero",
                   op);
  if (behaviour == "no-overflow")
    return verdict("implementation choice",
                   "a finite result where the exact one overflows the output type: the platform "
                   "computed in a wider type than the specification's output type",
                   op);
  return verdict("undetermined", "exceptional-value behaviour '" + behaviour + "'", op);
}

// Rewrites optimizers make that keep ONNX's semantics in exact arithmetic but round elsewhere.
const std::vector<KnownRewrite>& valid_rewrites() {
  static const std::vector<KnownRewrite> table = {
      {{"Conv", "BatchNormalization"},
       "BatchNormalization folded into the Conv: the optimizer scales the weights by "
       "gamma / sqrt(var + eps) and shifts the bias, each rounded to the model's type, "
       "where the eager graph normalizes the convolution's rounded output; equal in exact "
       "arithmetic, so a valid rewrite that rounds elsewhere"},
  };
  return table;
}

}  // namespace

nlohmann::json judge(const std::string& kind, const std::string& op, const nlohmann::json& explain,
                     bool oracle_ran, bool fp32_reference_too) {
  // What our own interpreter does in fp32 is no library's defect: calling it one would be a
  // discrepancy invented by infergap.
  if (fp32_reference_too && kind != kRefusal && kind != kCrash && kind != kError)
    return verdict("fp32 semantics",
                   "infergap's own fp32 reference (ref) behaves the same at this operator, so the "
                   "difference is between fp32 arithmetic and the fp64 oracle, not a defect of "
                   "this platform",
                   op);
  if (kind == kRefusal)
    return verdict("support gap",
                   "the platform declines the operator or model (a documented limit of the "
                   "library's operator set), it does not compute a wrong value",
                   op);
  if (kind == kCrash || kind == kError) {
    if (oracle_ran)
      return verdict("library defect",
                     "the model passes the ONNX checker and the fp64 reference computes it, so "
                     "the specification defines its result; the platform " +
                         std::string(kind == kCrash ? "crashes or hangs" : "fails") +
                         " instead of computing it",
                     op);
    return verdict("undetermined", "the reference did not run this case either", op);
  }
  if (kind == kLostPrecision)
    return verdict("library defect",
                   "fed exact inputs, the kernel returns results that are normal numbers with "
                   "few or none of their significant bits right: its error is bounded in "
                   "absolute terms, not relative to the result, so the campaign's absolute "
                   "tolerance hides it. ONNX defines " +
                       op +
                       " as a function of its input, whose value rounded once to the output type "
                       "keeps every significant bit (infergap's own fp32 reference does)",
                   op);
  if (kind.rfind(kExceptional, 0) == 0)
    return judge_exceptional(kind.substr(std::string(kExceptional).size() + 1), op);
  const bool explained = explain.is_object() && explain.value("exact", false);
  std::string cause;
  if (explained)
    for (const auto& c : explain.value("cause", nlohmann::json::array()))
      cause += (cause.empty() ? "" : ", ") + c.get<std::string>();
  if (kind == kCompiled) {
    nlohmann::json v =
        explained ? verdict("rounding",
                            "the compiled graph evaluates the same arithmetic in another order (" +
                                (cause.empty() ? std::string("the reference's order") : cause) +
                                "); both results are legitimate roundings",
                            op)
                  : verdict("rounding",
                            "fusing or reordering operators changes where results are rounded; "
                            "explain found no single-node configuration reproducing it bit for bit",
                            op);
    if (const KnownRewrite* k = match_rewrite(valid_rewrites(), group_ops(op))) {
      v["mechanism"] = k->mechanism;
      v["why"] = v.value("why", std::string()) + ". " + k->mechanism;
    }
    return v;
  }
  if (explained)
    return verdict("rounding",
                   "the platform's output is reproduced bit for bit by a rounding order of the "
                   "emulator (" +
                       (cause.empty() ? std::string("the reference's own order") : cause) +
                       "): legitimate rounding that the tolerance does not cover",
                   op);
  return verdict("undetermined",
                 "beyond the tolerance of the fp64 oracle and not reproduced by any rounding "
                 "order tried by explain: a candidate defect, to be checked against the "
                 "specification by hand",
                 op);
}

namespace {

// Rewrites graph optimizers make whose validity depends on the operands.
const std::vector<KnownRewrite>& known_rewrites() {
  static const std::vector<KnownRewrite> table = {
      {{"Pad", "MaxPool"},
       "Pad folded into MaxPool's pads: MaxPool pads with -inf where the model's Pad writes its "
       "constant (0 unless set), so a window at the border whose values all lie below the "
       "constant takes another maximum; the fold keeps ONNX's semantics only for a constant of "
       "-inf"},
      {{"Pad", "AveragePool"},
       "Pad folded into AveragePool's pads: the model averages the padded constant in; the fold "
       "keeps ONNX's semantics only for a zero constant with count_include_pad=1"},
      {{"Pad", "Conv"},
       "Pad folded into Conv's pads: Conv pads with zeros; the fold keeps ONNX's semantics only "
       "for Pad's constant mode with a zero constant"},
  };
  return table;
}

}  // namespace

nlohmann::json judge_rewrite(const std::string& op, const nlohmann::json& rewrite) {
  if (!rewrite.is_object() || !rewrite.value("eager_agrees", false)) return nullptr;
  const std::string platform = rewrite.value("platform", std::string());
  const std::string eager = rewrite.value("eager", std::string());
  std::string fused, mechanism;
  for (const auto& g : rewrite.value("groups", nlohmann::json::array())) {
    const auto covers = g.value("covers", std::vector<std::string>{});
    const auto ops = g.value("ops", std::vector<std::string>{});
    std::string names;
    for (const auto& c : covers) names += (names.empty() ? "" : ", ") + c;
    const std::string note = g.value("note", std::string());
    fused += fmt::format("{}{} ({}){}", fused.empty() ? "" : "; ", names, fmt::join(ops, "+"),
                         note.empty() ? "" : " as `" + note + "`");
    if (const KnownRewrite* k = match_rewrite(known_rewrites(), ops); k && mechanism.empty())
      mechanism = k->mechanism;
  }
  std::string why = fmt::format(
      "with its optimizer off ({}) the platform agrees with the fp64 oracle on the reduced model; "
      "with it on ({}) it does not",
      eager, platform);
  why += fused.empty() ? ", though its executed graph shows no fused group"
                       : fmt::format(", and its executed graph fuses {}", fused);
  why += mechanism.empty() ? ": a rewrite that does not keep the model's ONNX semantics"
                           : ". " + mechanism +
                                 "; here it changes the result, so the rewrite is "
                                 "not valid for this model";
  return verdict(mechanism.empty() ? "library defect" : "invalid rewrite", why, op);
}

nlohmann::json with_integer_mechanism(nlohmann::json judgement, const nlohmann::json& explain) {
  if (!judgement.is_object() || !explain.is_object() || !explain.value("exact", false))
    return judgement;
  static const std::vector<std::pair<std::string, std::string>> mechanisms = {
      {"int8-saturation",
       "int8 saturation: the integer kernel sums u8 x s8 products in pairs saturated at int16 "
       "(x86's vpmaddubsw without VNNI) or halves the weights to 7 bits to avoid it"},
      {"requantization-rounding",
       "requantization rounding: the int32 sums are scaled back to 8 bits with another rounding "
       "(a fixed-point multiplier, a zero point added in float, ties away from zero)"}};
  std::string named;
  for (const auto& [cause, sentence] : mechanisms)
    for (const auto& c : explain.value("cause", nlohmann::json::array()))
      if (c.is_string() && c.get<std::string>() == cause) {
        named += (named.empty() ? "" : "; ") + sentence;
        break;
      }
  if (named.empty()) return judgement;
  judgement["mechanism"] = named;
  judgement["why"] = judgement.value("why", std::string()) +
                     ". Explain reproduces the output bit for bit with `" +
                     explain.value("emulator", std::string("ref")) + "`: " + named;
  return judgement;
}

nlohmann::json final_judgement(nlohmann::json judgement, const std::string& op,
                               const nlohmann::json& entry) {
  if (auto rewrite = judge_rewrite(op, entry.value("rewrite", nlohmann::json()));
      !rewrite.is_null() && judgement.value("verdict", "") != "fp32 semantics")
    judgement = std::move(rewrite);
  return with_integer_mechanism(std::move(judgement), entry.value("explain", nlohmann::json()));
}

}  // namespace ig::triage
