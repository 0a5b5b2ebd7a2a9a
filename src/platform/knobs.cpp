#include "platform/knobs.h"

#include <algorithm>

namespace ig {

KnobTables& registered_knobs() {
  static KnobTables tables;
  return tables;
}

KnobRegistrar::KnobRegistrar(const std::string& backend, KnobTable table) {
  registered_knobs()[backend] = std::move(table);
}

const Knob* find_knob(const KnobTables& tables, const std::string& backend,
                      const std::string& key) {
  auto t = tables.find(backend);
  return t == tables.end() ? nullptr : find_knob(t->second, key);
}

const Knob* find_knob(const KnobTable& table, const std::string& key) {
  for (const auto& k : table)
    if (k.key == key) return &k;
  return nullptr;
}

std::vector<std::string> knob_keys(const KnobTable& table) {
  std::vector<std::string> keys;
  for (const auto& k : table) keys.push_back(k.key);
  return keys;
}

std::string knob_default(const KnobTables& tables, const std::string& backend,
                         const std::string& key) {
  const Knob* k = find_knob(tables, backend, key);
  return k ? k->default_value : "";
}

std::string option_value(const KnobTables& tables, const PlatformSpec& spec,
                         const std::string& key) {
  auto it = spec.options.find(key);
  return it != spec.options.end() ? it->second : knob_default(tables, spec.backend, key);
}

namespace {

bool value_matches(const std::string& pattern, const std::string& value) {
  if (!pattern.empty() && pattern.back() == '*')
    return value.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == value;
}

}  // namespace

std::string knob_value_cause(const KnobTables& tables, const std::string& backend,
                             const std::string& key, const std::string& value) {
  const Knob* k = find_knob(tables, backend, key);
  if (!k) return key;
  if (value.empty() || value == k->default_value) return "";
  for (const auto& vc : k->value_causes)
    if (value_matches(vc.value, value)) return vc.cause;
  return k->cause;
}

std::vector<std::string> option_causes(const KnobTables& tables, const std::string& backend,
                                       const std::map<std::string, std::string>& options) {
  std::vector<std::string> causes;
  for (const auto& [key, value] : options) {
    const std::string c = knob_value_cause(tables, backend, key, value);
    if (!c.empty() && std::find(causes.begin(), causes.end(), c) == causes.end())
      causes.push_back(c);
  }
  return causes;
}

std::map<std::string, std::string> eager_options(const KnobTables& tables,
                                                 const std::string& backend) {
  std::map<std::string, std::string> out;
  auto t = tables.find(backend);
  if (t == tables.end()) return out;
  for (const auto& k : t->second)
    if (!k.eager_value.empty()) out[k.key] = k.eager_value;
  return out;
}

bool knob_value_listed(const Knob& knob, const std::string& value) {
  return !knob_values_form(knob).empty() ||
         std::find(knob.values.begin(), knob.values.end(), value) != knob.values.end();
}

std::string knob_values_form(const Knob& knob) {
  if (knob.min < knob.max)
    return "an integer from " + std::to_string(knob.min) + " to " + std::to_string(knob.max);
  return knob.values_form;
}

std::vector<KnobTrial>& registered_trials() {
  static std::vector<KnobTrial> trials;
  return trials;
}

KnobTrialRegistrar::KnobTrialRegistrar(std::vector<KnobTrial> trials) {
  registered_trials() = std::move(trials);
}

Knob threads_knob(const std::string& help, std::vector<std::string> values) {
  return Knob{.key = "threads",
              .default_value = "1",
              .values = std::move(values),
              .help = help,
              .cause = "thread-split",
              .min = 1,
              .max = 256};
}

Knob fallback_knob(const std::string& library) {
  return Knob{.key = "fallback",
              .default_value = "none",
              .values = {"none", "ref"},
              .help = "run nodes " + library + " lacks on the reference",
              .cause = "library"};
}

}  // namespace ig
