// What `infergap attribute` computes: for every EQC split (where a class is born), the causes the
// two sides' knobs name (analysis/explain/attribute.h); between two libraries, where the specs say
// only `library`, explain's emulator is asked what each side's own order is and the causes only one
// side has replace it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/explain/attribute.h"
#include "store/store.h"

namespace ig {

struct AttributeOptions {
  std::string model;  // name or hash prefix; "" for every model
  bool explain = true;
  size_t max_trials = 120;         // explain's configurations per side
  int64_t max_elements = 1 << 20;  // explain only nodes with at most this many output elements
  KnobTables knobs;                // the backends' (read_catalog)
  // Called before each explain (a platform at a node), for progress.
  std::function<void(const std::string& platform, const std::string& node)> explaining;
};

Expected<AttributeOutcome> attribute_study(const Store& store, const AttributeOptions& options);

}  // namespace ig
