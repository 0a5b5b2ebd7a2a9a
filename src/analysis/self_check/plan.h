// Which spans the self-check re-runs (study/self_check.h): per platform run, the spans whose
// output is grossly off the oracle while their inputs agree (self_check_verdict.h), worst first.
#pragma once

#include <vector>

#include "analysis/study_data.h"
#include "study/self_check.h"

namespace ig {

// At most this many spans per run: past the first few, a run that is off everywhere says no more.
inline constexpr size_t kSelfChecksPerRun = 8;

// Only runs of `host` (the re-runs must run where the runs did); "" for every host.
Expected<std::vector<SelfCheckRequest>> self_check_requests(const StudyData& study,
                                                            TensorCache& cache,
                                                            const std::string& host);

}  // namespace ig
