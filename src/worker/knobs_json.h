// The knob tables as the worker's `--catalog` carries them to the coordinator.
#pragma once

#include <nlohmann/json.hpp>

#include "platform/knobs.h"

namespace ig {

nlohmann::json knobs_to_json(const KnobTables& tables);
// Fields the reader does not know are ignored; a malformed table is an error naming the backend.
Expected<KnobTables> knobs_from_json(const nlohmann::json& j);

}  // namespace ig
