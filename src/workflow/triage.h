// What `infergap triage` does: group a campaign store's failures and discrepancies into findings
// (analysis/triage/findings.h); for each signature not yet in DIR's index, reduce its smallest
// variant (workflow/reduce.h), explain the origin node where the finding is a numeric one
// (workflow/explain.h), judge it against the operator's specification and write
// DIR/<id>-.../{README.md, reduced.onnx, inputs/, repro.sh}; known signatures are counted into
// their entry instead. DIR/findings.json is the index.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/triage/findings.h"

namespace ig {

struct TriagePlan {
  std::string store_path, out_dir;
  triage::TriageOptions options;                     // tolerances and oracle; knobs are read here
  size_t explain_trials = 60;                        // explain's configurations per finding
  double reduce_timeout = 120;                       // seconds per reduce run
  std::function<void(const std::string&)> progress;  // a line per step
};

struct TriageOutcome {
  nlohmann::json index;  // the index as written
  int64_t new_findings = 0, known_findings = 0;
};

Expected<TriageOutcome> run_triage(const TriagePlan& plan);

// The judgement of a finding of `store` from its index entry's explain summary and rewrite
// evidence (triage::judge, then triage::final_judgement).
nlohmann::json judge_finding(const Store& store, const triage::Finding& finding,
                             const nlohmann::json& entry, bool fp32_reference_too);

// One finding's folder: inputs, reduction, explanation, judgement, README.md and repro.sh; fills
// the entry's "reduced", "explain", "judgement" and "repro" (workflow/triage_folder.cpp).
// `fp32_reference_too`: ref has a finding of the same kind and operator (triage::judge).
Status write_finding_folder(const Store& store, const TriagePlan& plan,
                            const triage::Finding& finding, bool fp32_reference_too,
                            nlohmann::json& entry);

// The folder's repro.sh (workflow/triage_repro.cpp): `infergap run` of reduced.onnx on both
// platforms, then `infergap diff --expect-differ` on each output (or, for a failure, the run
// of the failing platform), exiting nonzero once the difference is gone.
Status write_repro_script(const std::string& folder, const nlohmann::json& entry,
                          const std::vector<std::string>& input_specs,
                          const std::vector<std::string>& outputs, double rtol, double atol);

// The absolute tolerance a finding's reduction and repro.sh compare with: the analysis' own, but
// 0 for a lost-precision finding, which lies within it and shows only relatively.
double finding_atol(const std::string& kind, double atol);

// The file under a finding's inputs/ that holds the representative's graph input `name`, where
// the variant itself stands in for a reduction (reduce names its own: reduced_input_file_name).
std::string finding_input_file_name(const std::string& name);

// Writes repro.sh again, with today's script, in every finding folder of DIR's index that is
// present (an earlier triage's folders, a copied sample); the inputs are reduced.onnx's, found
// in inputs/. Returns how many it wrote.
Expected<int> rewrite_repro_scripts(const std::string& dir, double rtol, double atol);

}  // namespace ig
