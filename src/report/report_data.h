// What the HTML report shows, aggregated from a store by the analysis code (src/analysis): counts,
// classes, bits and errors, never tensors, so the page stays small. One JSON object; each section
// of the page reads one key.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/campaign/campaign.h"
#include "analysis/compare/eqc.h"

namespace ig {

struct ReportOptions {
  std::string model;                 // name or hash prefix; "" for every model
  CampaignAnalysisOptions campaign;  // its knobs also name the causes of each origin
};

Expected<nlohmann::json> collect_report_data(const Store& store, const ReportOptions& options);

// Pieces of collect_report_data, one per section (report_data.cpp, report_layers.cpp).
nlohmann::json overview_data(const Store& store, const StudyData& study);
// `parts`: each case's partition of its graph outputs.
Expected<nlohmann::json> eqc_data(const StudyData& study, const std::vector<Partition>& parts,
                                  TensorCache& cache);
nlohmann::json cumulative_data(const StudyData& study, const std::vector<Partition>& parts);
Expected<nlohmann::json> dendrogram_data(const StudyData& study,
                                         const std::vector<Partition>& parts, TensorCache& cache);
Expected<nlohmann::json> oracle_data(const StudyData& study, TensorCache& cache);
Expected<nlohmann::json> origins_data(const StudyData& study, TensorCache& cache,
                                      const KnobTables& knobs);
nlohmann::json hosts_data(const StudyData& study);
// Per platform compared with the oracle: rows of classifier-like graph outputs (floating, last
// axis of two or more) and how many of them change their top-1 label (report_flips.cpp).
Expected<nlohmann::json> label_flips_data(const StudyData& study, TensorCache& cache);
// Per model, per node: the most classes and the fewest bits over the model's cases.
Expected<nlohmann::json> layers_data(const StudyData& study, TensorCache& cache);
// report_parents.cpp: each derived model whose lineage names a model of the store, per layer.
Expected<nlohmann::json> parents_data(const StudyData& study, TensorCache& cache);
// Remaining precision and EQCs against multiply-accumulates per model, when the store holds
// models of different sizes.
Expected<nlohmann::json> sweep_data(const Store& store, const StudyData& study,
                                    const std::vector<Partition>& parts, TensorCache& cache);

// "activation", "pooling" or "" for an ONNX op type (layers are marked by kind).
std::string layer_kind(const std::string& op_type);

}  // namespace ig
