// What `infergap study` does, in order: the default study when no model is given, the platforms
// of its presets this host runs, the runs (study/study.h), then the tensor facts learned while the
// runs are fresh, the self-check of grossly-off spans, the inner tensors dropped on request, the
// shared store updated and the report written. cli/ parses the flags into a StudyPlan and prints
// the outcome; the fleet's job body is this same command (fleet/work.h runs `infergap study`).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "study/self_check.h"
#include "study/study.h"

namespace ig {

// Which tensors' bytes a study keeps once it has learned its facts (docs/STUDY.md "Keeping
// tensors"): every distinct one; those of graph outputs, inputs and the nodes where divergences are
// born; or only graph outputs and inputs.
enum class KeepTensors { kClasses, kOrigins, kNone };

struct StudyPlan {
  StudyOptions options;              // no models: the default study
  std::string store_path;            // as given: a SQLite file or a postgresql:// URL
  std::vector<std::string> presets;  // with no platform and no preset: demo
  bool self_check = true;
  KeepTensors keep_tensors = KeepTensors::kClasses;
  bool report = true;
};

struct StudyHooks {
  std::function<void(const StudyProgress&)> progress;
  std::function<void(const std::string&)> note;      // a line the user must see (stderr)
  std::function<void(const std::string&)> error;     // a second error, besides the one returned
  std::function<void(const std::string&)> announce;  // a line for a reader of the text output
};

struct StudyOutcome {
  StudySummary summary;
  std::optional<SelfCheckSummary> self_checks;  // when they ran
  std::optional<PruneCounts> dropped;           // --keep-tensors none
  std::string report;                           // its path; "" when not written
};

// The runs stored before a failure stay stored (and are pushed to a shared store): a rerun
// skips them.
Expected<StudyOutcome> run_study_steps(Store& store, StudyPlan plan, const StudyHooks& hooks);

// Learns the tensor facts (analysis/learn_facts.h) of every case of the store and keeps them in
// it, case by case so that one case's tensors are held at a time; `command` names the caller in
// the note about cases whose inner tensors an earlier study dropped. At most `budget_bytes` of
// tensors are cached (analysis/study_data.h TensorCache); the facts do not depend on it.
Status learn_store_facts(Store& store, const char* command,
                         uint64_t budget_bytes = kDefaultTraceBudgetBytes);

// The models a study runs beside their float parents (infergap quantize / convert), so that
// `compare --parent` lines the layers up: `parents` as given or, with none, the parent each
// model's lineage names where it sits beside the model with the recorded hash (model/
// parent_record.h); `note` hears which, or why not. Parents are appended to the models once.
struct ModelsWithParents {
  std::vector<std::string> models, parents;
};
ModelsWithParents with_recorded_parents(std::vector<std::string> models,
                                        std::vector<std::string> parents,
                                        const std::function<void(const std::string&)>& note);

}  // namespace ig
