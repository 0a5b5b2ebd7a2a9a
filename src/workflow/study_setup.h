// What `infergap study` runs when the user leaves parts out: the default study's models and inputs
// (Cifar10-R18 and Cifar10-small on three demo images), and platforms from presets, keeping only
// those this host can run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "platform/catalog.h"
#include "study/study.h"
#include "worker/worker_pool.h"

namespace ig {

// Exports the default study's zoo models into `work_dir`/models and fills options.models and
// options.input_spec_sets; images land in `work_dir`/images.
Status apply_default_study(const std::string& work_dir, StudyOptions& options);

// Appends to `platforms` the specs of every preset the backends declare (`infergap platforms`;
// "demo" is the default study's) that this host runs, probed; each unavailable one is told to
// `note` with the reason.
Status add_preset_platforms(WorkerPool& pool, const Catalog& catalog,
                            const std::vector<std::string>& presets,
                            const std::function<void(const std::string&)>& note,
                            std::vector<std::string>& platforms);

}  // namespace ig
