// What `compare` and `origins --oracle` (and the Python package's Store) run: load the study from
// the store, read the backends' knob tables where the per-layer view names the causes of splits,
// build the compare view, and keep the tensor facts it learnt in the store for the next command.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "analysis/study_data.h"
#include "store/store.h"
#include "views/study_reports.h"

namespace ig {

struct CompareRequest {
  std::string model;  // name or hash prefix; "" for every model
  bool layers = false, all_nodes = false;
};

struct CompareOutcome {
  StudyData study;
  nlohmann::json report;           // compare --json (views/study_reports.h)
  std::set<std::string> not_kept;  // what the study did not keep, for notes
};

Expected<CompareOutcome> compare_study(Store& store, const CompareRequest& request);

// What `origins --oracle` (and Store.oracle_origins) runs: the study, which must hold oracle
// runs, and where each platform's error against the oracle is born.
struct OracleOriginsOutcome {
  StudyData study;
  OracleOriginsReport report;
};
Expected<OracleOriginsOutcome> oracle_origins_study(Store& store, const std::string& model,
                                                    const std::string& store_path);

}  // namespace ig
