// The report's "Against the float parent" section: for each derived model of the store whose
// lineage names another model of the store (infergap quantize / convert, studied with
// --parent), per layer the SQNR against the parent on each platform
// (analysis/precision/parent_compare.h).
#include <cmath>
#include <map>
#include <set>

#include "analysis/precision/parent_compare.h"
#include "model/onnx_model.h"
#include "report/charts.h"
#include "report/report_data.h"
#include "report/sections.h"
#include "synth/mutate.h"

namespace ig {

namespace {

constexpr size_t kMostModels = 32;

struct ModelFile {
  std::string hash;    // content_hash of the proto
  std::string parent;  // its lineage's parent hash, "" without one
};

// Each distinct model file of the store, read once; files gone since the study are skipped.
// A campaign's store holds hundreds of variants, none derived by precision: not read.
std::map<std::string, ModelFile> model_files(const StudyData& study) {
  std::map<std::string, ModelFile> out;
  std::set<std::string> models;
  for (const auto& c : study.cases) models.insert(c.model);
  if (models.size() > kMostModels) return out;
  for (const auto& c : study.cases) {
    if (out.count(c.model)) continue;
    auto proto = read_model_proto(c.model_path);
    if (!proto.ok()) continue;
    auto lineage = lineage_from_model(*proto);
    out[c.model] = {content_hash(*proto), lineage.ok() ? lineage->parent_hash : ""};
  }
  return out;
}

}  // namespace

Expected<nlohmann::json> parents_data(const StudyData& study, TensorCache& cache) {
  nlohmann::json out = nlohmann::json::array();
  const auto files = model_files(study);
  for (const auto& [derived, df] : files) {
    if (df.parent.empty()) continue;
    for (const auto& [parent, pf] : files) {
      if (pf.hash != df.parent) continue;
      auto cases = compare_with_parent(study, derived, parent, cache);
      if (!cases.ok() || cases->empty()) continue;
      const ParentCase& c = cases->front();  // the first input set is enough for the chart
      nlohmann::json points = nlohmann::json::array();
      for (size_t i = 0; i < c.rows.size(); ++i)
        for (const auto& [platform, v] : c.rows[i].platforms)
          if (std::isfinite(v.sqnr_db))
            points.push_back({{"index", i},
                              {"node", c.rows[i].node},
                              {"op_type", c.rows[i].op_type},
                              {"platform", platform},
                              {"sqnr_db", v.sqnr_db}});
      out.push_back({{"derived", c.derived_case},
                     {"parent", c.parent_case},
                     {"points", points},
                     {"cases", parent_cases_json(*cases)}});
    }
  }
  return out;
}

void parents_section(HtmlPage& page, const nlohmann::json& data) {
  const auto& pairs = data.value("parents", nlohmann::json::array());
  if (pairs.empty()) return;  // no derived model with its parent: nothing to say
  std::string html = paragraph(
      "Each derived model (int8, fp16, bf16) against its float parent on the same platform and "
      "inputs: SQNR per layer in dB (higher is closer; a value the derived model quantizes is "
      "measured after its QuantizeLinear). infergap precision splits each layer's error into "
      "what it makes and what it inherits.");
  for (const auto& p : pairs) {
    html += tag("h3", cell_text(p["derived"]) + " against " + cell_text(p["parent"]));
    html += page.chart(parent_sqnr_chart(p["points"]));
  }
  page.section("parents", "Against the float parent", html);
}

}  // namespace ig
