// `inspect`'s int8 line: per platform, how many of a model's int8 groups (QDQ groups,
// model/qdq_group.h, and QOperator nodes) it runs as integer kernels, where that is the
// platform's to say before running.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/graph.h"
#include "worker/support_check.h"

namespace ig::cli {

// The heads (node indices) of the model's int8 groups; empty for a float model.
std::vector<size_t> int8_group_heads(const Model& model);

// The spec, canonical, whose check tells a platform's native groups: a library spec with
// fallback=ref (which refuses nothing) asks the same spec without it.
std::string plain_spec_of(const std::string& spec);

// {groups, integer_kernels} or {groups, note} for `spec`, from what `plain` (the spec's own check
// without fallback, or the spec's) refused.
nlohmann::json int8_groups_json(const std::string& spec, const Model& model,
                                const std::vector<size_t>& heads, const PlatformSupport& plain);

}  // namespace ig::cli
