// What `compare` reports, as JSON (cli/cmd_compare.cpp); the study computes it too, to learn its
// tensor facts (analysis/tensor_facts.h) while its runs are fresh.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/study_data.h"

namespace ig::cli {

Expected<nlohmann::json> compare_json(const StudyData& study, bool layers, bool all_nodes,
                                      TensorCache& cache);

// Writes the facts the analysis learned into the store. They only save later analyses work, so
// a store that cannot take them (read-only) gets a note on stderr, not an error.
void keep_tensor_facts(Store& store, const StudyData& study, const char* command);

}  // namespace ig::cli
