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
      nlohmann::json knob = {{"key", k.key},          {"default", k.default_value},
                             {"values", k.values},    {"help", k.help},
                             {"cause", k.cause},      {"value_causes", values},
                             {"eager", k.eager_value}};
      // An open set: what else is legal, and an integer knob's bounds.
      if (const std::string form = knob_values_form(k); !form.empty()) knob["values_form"] = form;
      if (k.min < k.max) knob["range"] = {k.min, k.max};
      if (!k.needs.empty()) knob["needs"] = k.needs;
      list.push_back(std::move(knob));
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
        Knob knob{.key = k.at("key"),
                  .default_value = k.at("default"),
                  .values = k.value("values", std::vector<std::string>{}),
                  .help = k.value("help", ""),
                  .cause = k.at("cause"),
                  .eager_value = k.value("eager", "")};
        knob.needs = k.value("needs", std::map<std::string, std::string>{});
        if (k.contains("range")) {
          knob.min = k["range"].at(0);
          knob.max = k["range"].at(1);
        } else {
          knob.values_form = k.value("values_form", "");
        }
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
