// What `merge` runs: every source store's content into `output` (created or extended), a
// PostgreSQL source through its snapshot and a PostgreSQL output pushed once at the end; then the
// output's row counts.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

// Rows per table of the merged store: hosts, platforms, models, inputs, runs, tensors.
Expected<std::map<std::string, int64_t>> merge_stores(const std::vector<std::string>& sources,
                                                      const std::string& output);

}  // namespace ig
