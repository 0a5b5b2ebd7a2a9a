#include "workflow/study_setup.h"

#include <algorithm>
#include <filesystem>

#include "model/onnx_model.h"
#include "synth/default_study.h"
#include "worker/probe.h"

namespace ig {

namespace fs = std::filesystem;

Status apply_default_study(const std::string& work_dir, StudyOptions& options) {
  IG_ASSIGN_OR_RETURN(DefaultStudyPlan plan,
                      default_study_plan((fs::path(work_dir) / "images").string()));
  for (const auto& m : plan.models) {
    const std::string path = (fs::path(work_dir) / "models" / (m.zoo_name + ".onnx")).string();
    std::error_code ec;
    if (!fs::exists(path, ec)) {  // the same seed gives the same bytes: build once
      IG_ASSIGN_OR_RETURN(auto proto, build_zoo_model(m.zoo_name, m.options));
      IG_RETURN_IF_ERROR(save_model_proto(proto, path));
    }
    options.models.push_back(path);
    options.input_spec_sets[path] = m.input_sets;
  }
  return Status::Ok();
}

Status add_preset_platforms(WorkerPool& pool, const Catalog& catalog,
                            const std::vector<std::string>& presets,
                            const std::function<void(const std::string&)>& note,
                            std::vector<std::string>& platforms) {
  if (presets.empty()) return Status::Ok();
  std::vector<std::string> specs;
  for (const auto& p : presets) {
    IG_ASSIGN_OR_RETURN(const auto list, preset_specs(catalog, p));
    for (const auto& s : list) {
      if (std::find(specs.begin(), specs.end(), s) == specs.end()) specs.push_back(s);
    }
  }
  for (const auto& st : probe_platforms(pool, specs, ProbeOptions{})) {
    if (st.available) {
      platforms.push_back(st.spec);
    } else if (note) {
      note("skipped (unavailable here): " + st.spec + ": " + st.reason);
    }
  }
  return Status::Ok();
}

}  // namespace ig
