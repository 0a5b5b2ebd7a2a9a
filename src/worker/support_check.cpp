#include "worker/support_check.h"

#include <algorithm>

namespace ig {

std::vector<std::string> family_specs(const Catalog& catalog) {
  std::vector<std::string> specs;
  for (const auto& backend : catalog.backends) {
    // Not a structured binding: clang before 16 (scripts/tidy parses with 14) cannot capture one.
    const std::string& name = backend.first;
    const bool visible =
        std::any_of(catalog.candidates.begin(), catalog.candidates.end(),
                    [&](const CatalogEntry& c) { return c.backend == name && !c.hidden; });
    if (visible) specs.push_back(name);
  }
  return specs;
}

std::vector<PlatformSupport> check_support(WorkerPool& pool, const std::string& model_path,
                                           const std::vector<std::string>& specs,
                                           double timeout_seconds) {
  std::vector<PlatformSupport> out;
  for (const auto& spec : specs) {
    PlatformSupport s;
    s.spec = spec;
    if (Status st = pool.start(spec); !st.ok()) {
      s.verdict = verdict_for(st);
      s.reason = st.message();
      out.push_back(std::move(s));
      continue;
    }
    s.available = true;
    RunRequest request;
    request.platform = spec;
    request.model_path = model_path;
    request.support_only = true;
    request.timeout_seconds = timeout_seconds;
    RunResult r = pool.run(request);
    s.verdict = r.verdict;
    s.reason = r.reason;
    s.rejections = std::move(r.rejections);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ig
