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

// The specs of every preset the backends declare (`infergap platforms`; "demo" is the default
// study's), probed: unavailable ones are dropped and listed in `skipped`.
Expected<std::vector<std::string>> available_preset_platforms(
    WorkerPool& pool, const Catalog& catalog, const std::vector<std::string>& presets,
    std::vector<std::string>& skipped);

// available_preset_platforms' specs appended to `platforms`; each skipped one told to `note`.
Status add_preset_platforms(WorkerPool& pool, const Catalog& catalog,
                            const std::vector<std::string>& presets,
                            const std::function<void(const std::string&)>& note,
                            std::vector<std::string>& platforms);

}  // namespace ig
