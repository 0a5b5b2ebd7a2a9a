// Views of a study (compare, origins): JSON objects, CSV and text tables, for the CLI and the
// Python package alike.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/compare/eqc.h"
#include "analysis/compare/origins.h"
#include "analysis/oracle/oracle.h"
#include "analysis/oracle/origins.h"

namespace ig {

nlohmann::json partition_json(const Partition& p);
nlohmann::json case_json(const CaseData& c, const Partition& outputs);
nlohmann::json layer_json(const LayerRow& r);
nlohmann::json origin_json(const Origin& o);
nlohmann::json tolerance_json(const ToleranceAdvice& t);

void print_csv_matrix(const std::string& corner, const std::vector<std::string>& rows,
                      const std::vector<std::string>& columns, const nlohmann::json& cells);
// An error as "1.23e-04" ("inf", "nan").
std::string error_text(double e);
// Steps off (quant_steps.h) as text: 3, 0.25 or "inf".
std::string steps_text(const nlohmann::json& steps);
// One origin (oracle_origin_json) on one line: node, the span it closes, case, errors, jump.
std::string origin_text(const nlohmann::json& origin);
// Origins against the oracle (oracle_origin_json, worst first per platform): at most
// `per_platform` per platform, each with its self-check.
void print_oracle_origins(const nlohmann::json& origins, size_t per_platform);
// The text form of compare's JSON.
void print_text_report(const StudyData& study, const nlohmann::json& j,
                       const std::vector<std::string>& columns);

}  // namespace ig
