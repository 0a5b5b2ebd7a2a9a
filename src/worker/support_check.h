// What each platform cannot run of a model, asked of the platforms' own workers without running
// the model: the nodes each backend refuses (its support checks), then what its library refuses
// when it reads the whole model (ORT's session, OpenCV's importer, the reference backend's
// opsets). The coordinator links no backend, so the question travels as a support-only job.
#pragma once

#include <string>
#include <vector>

#include "platform/catalog.h"
#include "results/run_result.h"
#include "worker/worker_pool.h"

namespace ig {

struct PlatformSupport {
  std::string spec;
  bool available = false;             // its worker started (built its backend) on this host
  Verdict verdict = Verdict::kError;  // ok, unsupported, or why the check itself failed
  std::string reason;                 // "" when ok
  std::vector<Rejection> rejections;  // every refused node; one with node "" for the whole model
};

// One platform per backend family that has a platform users can name (test-only backends are
// left out): the backend's defaults, its bare name.
std::vector<std::string> family_specs(const Catalog& catalog);

std::vector<PlatformSupport> check_support(WorkerPool& pool, const std::string& model_path,
                                           const std::vector<std::string>& specs,
                                           double timeout_seconds);

}  // namespace ig
