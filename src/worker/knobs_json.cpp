#include "worker/knobs_json.h"

namespace ig {

nlohmann::json knobs_to_json(const KnobTables& tables) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [backend, table] : tables) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& k : table) {
      nlohmann::json values = nlohmann::json::array();
      for (const auto& vc : k.value_causes)
        values.push_back({{"value", vc.value}, {"cause", vc.cause}});
      list.push_back({{"key", k.key},
                      {"default", k.default_value},
                      {"help", k.help},
                      {"cause", k.cause},
                      {"value_causes", values},
                      {"eager", k.eager_value}});
    }
    out[backend] = list;
  }
  return out;
}

Expected<KnobTables> knobs_from_json(const nlohmann::json& j) {
  KnobTables tables;
  if (!j.is_object()) return invalid_argument("catalog: 'knobs' is not an object");
  for (const auto& [backend, list] : j.items()) {
    try {
      KnobTable& table = tables[backend];
      for (const auto& k : list) {
        Knob knob{k.at("key"), k.at("default"),     k.value("help", ""), k.at("cause"),
                  {},          k.value("eager", "")};
        for (const auto& vc : k.value("value_causes", nlohmann::json::array()))
          knob.value_causes.push_back({vc.at("value"), vc.at("cause")});
        table.push_back(std::move(knob));
      }
    } catch (const nlohmann::json::exception& e) {
      return invalid_argument("catalog: knob table of '{}' is malformed: {}", backend, e.what());
    }
  }
  return tables;
}

}  // namespace ig
