// What `compare --json`, `origins --json` and `attribute --json` print, as functions: the commands
// print them and the Python package (python/) turns the same objects into DataFrames, so the two
// cannot disagree.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/explain/attribute.h"
#include "analysis/oracle/origins.h"
#include "analysis/study_data.h"
#include "store/store.h"

namespace ig {

struct CompareReportOptions {
  bool layers = false, all_nodes = false;
  KnobTables knobs;  // the backends' (read_catalog), which name the causes of splits
};

// compare --json: EQC and remaining-precision matrices, oracle ranking and origins, and with
// `layers` every case's per-node rows.
Expected<nlohmann::json> compare_report(const StudyData& study, const CompareReportOptions& options,
                                        TensorCache& cache);

// origins --oracle: per platform, where its error against the oracle is born, and the largest
// jump of each platform; `json` is what --json prints.
struct OracleOriginsReport {
  std::vector<OracleOrigin> origins, largest;
  nlohmann::json json;
};
Expected<OracleOriginsReport> oracle_origins_report(const StudyData& study, TensorCache& cache);

// origins --json between pairs of platforms (every pair when `a` is empty) and, without a pair,
// the set splits.
Expected<nlohmann::json> pair_origins_report(const StudyData& study, const std::string& a,
                                             const std::string& b, TensorCache& cache);

// attribute --json.
nlohmann::json attribute_report(const AttributeOutcome& outcome);

// The node output of run `run` named by `node`: a value name, a node name or a node index.
Expected<StoredOutput> find_output(const std::vector<StoredOutput>& outs, const std::string& node,
                                   int64_t run);

}  // namespace ig
