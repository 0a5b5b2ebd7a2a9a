// Whether a finding is a library defect (a result the ONNX operator's specification does not
// admit) or legitimate behaviour (rounding, a declined operator, an implementation choice the
// specification leaves open), and why, citing the operator's page of the ONNX specification.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ig::triage {

// The ONNX operator page for an op type (the last op of a fused "A+B" group; bracketed
// attributes dropped); "" for a non-operator such as "(model)".
std::string onnx_spec_url(const std::string& op);

// {"verdict": "library defect" | "invalid rewrite" | "rounding" | "support gap" |
//  "implementation choice" | "undetermined", "why": ..., "spec": url}. `explain`: the explain
//  summary written for the
// finding (cause, exact), or null when explain did not run; `oracle_ran`: the fp64 reference ran
// the same case, so the model is valid and computable; `fp32_reference_too`: infergap's own fp32
// interpreter (plain `ref`, no knobs) has a finding of the same kind at the same operator, so it
// comes from fp32 arithmetic against the fp64 oracle, never a library defect.
nlohmann::json judge(const std::string& kind, const std::string& op, const nlohmann::json& explain,
                     bool oracle_ran, bool fp32_reference_too = false);

// The judgement of a wrong result that appears only with the platform's optimizer on. `rewrite`:
// {"platform", "eager": its eager partner, "eager_agrees": the partner is within tolerance of the
// oracle on the reduced model while the platform is not, "groups": [{"node", "covers": [names],
// "ops": [op types], "note"}] the compiled run fused}. With eager_agrees, the optimizer's rewrite
// made the difference: "library defect" (the rewrite does not keep the model's ONNX semantics),
// naming the rewrite and, for a pattern known here (a Pad folded into the next operator's pads),
// its mechanism. Null otherwise.
nlohmann::json judge_rewrite(const std::string& op, const nlohmann::json& rewrite);

// The judgement with the integer mechanism named where explain reproduced the platform's output
// bit for bit with the integer emulator: "int8-saturation" (u8 x s8 pairs saturated at int16, or
// weights halved to 7 bits) and "requantization-rounding" causes add a sentence saying so; any
// other judgement is returned as it is.
nlohmann::json with_integer_mechanism(nlohmann::json judgement, const nlohmann::json& explain);

// The judgement a finding's entry ends with, from `judgement` (judge's): the rewrite evidence's
// verdict (entry["rewrite"], judge_rewrite) where it has one, unless our own fp32 interpreter
// shares the finding ("fp32 semantics" stands first), then the integer mechanism named from
// entry["explain"]. One rule for a finding judged for the first time and one judged again.
nlohmann::json final_judgement(nlohmann::json judgement, const std::string& op,
                               const nlohmann::json& entry);

}  // namespace ig::triage
