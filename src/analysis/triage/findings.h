// `infergap triage` (issue 39): a campaign's failures, discrepancies against the oracle,
// exceptional-value disagreements and compiled-versus-eager differences grouped into distinct
// findings. A finding's signature is (platform family, behaviour class, operator at the origin
// with its salient attributes); every variant × platform showing it is a hit, and the smallest
// variant stands for the finding (workflow/triage.h reduces and explains it).
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "analysis/campaign/campaign.h"
#include "store/store.h"

namespace ig::triage {

// The behaviour classes, as signatures and FINDINGS.md spell them.
inline constexpr const char* kCrash = "crash";              // crash or timeout
inline constexpr const char* kError = "error";              // the platform failed otherwise
inline constexpr const char* kRefusal = "refusal";          // unsupported or not loaded
inline constexpr const char* kWrong = "wrong-result";       // beyond tolerance of the oracle
inline constexpr const char* kExceptional = "exceptional";  // + ":" + exceptional_name
inline constexpr const char* kCompiled = "compiled-vs-eager";
// Within the absolute tolerance, but results that are normal numbers keep too few significant
// bits (analysis/relative_precision.h): judged on single elementwise operators fed exact inputs.
inline constexpr const char* kLostPrecision = "lost-precision";

// One variant × platform showing a finding's behaviour.
struct Hit {
  std::string model, model_path, architecture;  // model hash; architecture: lineage's parent
  std::string input;                            // input set hash
  std::string platform, against;  // against: the oracle, or the eager platform (compiled)
  int64_t run = 0;                // the platform's run id
  int64_t nodes = 0;              // computing nodes in the variant
  std::string node;               // the origin node's name ("" when not located)
  std::string detail;             // the verdict's reason, or how the outputs differ
  std::string witness;  // a platform that agreed with the oracle on this case ("" if none)
};

struct Finding {
  std::string signature, family, kind, op;
  std::vector<Hit> hits;
  std::set<std::string> platforms() const;
  std::set<std::string> variants() const;
  std::set<std::string> architectures() const;
  // The hit of the smallest variant (fewest nodes, then model hash, then platform).
  const Hit& representative() const;
};

struct TriageOptions {
  CampaignAnalysisOptions analysis;  // tolerances, oracle, knobs (the eager knobs)
};

// The findings of a campaign store, by signature.
Expected<std::vector<Finding>> find_findings(const Store& store, const TriageOptions& options);

// The operator and the attributes that tell its kernels apart (Conv's group and kernel, a pool's
// kernel, Gemm's transposes, Resize's mode), e.g. "Conv[depthwise,k=3x3]".
std::string op_signature(const std::string& op_type, const nlohmann::json& attributes);

}  // namespace ig::triage
