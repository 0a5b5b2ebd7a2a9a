// The tensor facts (analysis/tensor_facts.h) a study learns while its runs are fresh: every number
// `compare --layers --all-nodes` derives from tensors (remaining precision of each case's classes
// and of every platform pair, each node's errors against the oracle, the ranking, the origins and
// the tolerance advice), computed and recorded in study.facts, nothing else produced.
#pragma once

#include "analysis/study_data.h"

namespace ig {

Status learn_tensor_facts(const StudyData& study, TensorCache& cache);

// Writes the facts an analysis learned into the store. They only save later analyses work, so
// a store that cannot take them (read-only) gets a note on stderr naming `command`, not an error.
void keep_tensor_facts(Store& store, const StudyData& study, const char* command);

}  // namespace ig
