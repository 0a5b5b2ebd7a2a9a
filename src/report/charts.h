// Vega-Lite specifications of the report's charts. Each takes the aggregated data of its section
// (report_data.h) and inlines it; nothing is fetched.
#pragma once

#include <nlohmann/json.hpp>

namespace ig {

nlohmann::json cumulative_chart(const nlohmann::json& points);
// One model's rows: EQC count and remaining precision along the nodes, activations and pooling
// marked.
nlohmann::json layers_chart(const nlohmann::json& rows);
nlohmann::json dendrogram_chart(const nlohmann::json& drawing);
nlohmann::json sweep_chart(const nlohmann::json& points);
nlohmann::json oracle_chart(const nlohmann::json& ranking);
nlohmann::json origins_chart(const nlohmann::json& by_op);
// {index, node, op_type, platform, sqnr_db}: a derived model's layers against its parent.
nlohmann::json parent_sqnr_chart(const nlohmann::json& points);

// Campaign (docs/FORMATS.md): cells/rows already flattened by the section.
nlohmann::json support_chart(const nlohmann::json& cells);        // {op, platform, percent}
nlohmann::json failures_chart(const nlohmann::json& rows);        // {platform, verdict, runs}
nlohmann::json discrepancy_chart(const nlohmann::json& rows);     // {platform, op, variants}
nlohmann::json compiled_eager_chart(const nlohmann::json& rows);  // compiled_vs_eager entries

}  // namespace ig
