// Each backend's knobs, declared once next to its factory (platform/bindings/NAME.cpp): the key,
// its default, what it does, the cause of numerical difference it steers and, for knobs that turn
// graph compilation or fusion off, the eager value. `attribute`, the campaign's compiled-vs-eager
// pairing, the self-check's unfused re-run and `platforms` read these tables through the worker's
// catalog, so adding a knob touches only the backend's binding and its folder.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

// A value (or, ending in '*', a value prefix) that steers a cause other than the knob's own.
struct KnobValueCause {
  std::string value;
  std::string cause;
};

struct Knob {
  std::string key;
  std::string default_value;  // "" when leaving the key out sets nothing (e.g. blas core)
  std::string help;           // values and meaning, for listings
  // What changing it changes, in the paper's words: simd-width, fma, conv-algorithm,
  // thread-split, accumulation-order, precision, fusion, library, ... "" names none.
  std::string cause;
  std::vector<KnobValueCause> value_causes;  // checked before `cause`, in order
  std::string eager_value;  // non-empty: this value runs the backend eagerly (no fusion/compile)
};

using KnobTable = std::vector<Knob>;
using KnobTables = std::map<std::string, KnobTable>;  // by backend name

// The tables registered in this process (the worker registers every backend; the coordinator
// only the reference interpreter, which it links for explain).
KnobTables& registered_knobs();
struct KnobRegistrar {
  KnobRegistrar(const std::string& backend, KnobTable table);
};

const Knob* find_knob(const KnobTables& tables, const std::string& backend, const std::string& key);
const Knob* find_knob(const KnobTable& table, const std::string& key);
// The keys of a table, in declaration order (what check_option_keys accepts).
std::vector<std::string> knob_keys(const KnobTable& table);
// The value a spec without `key` means ("" when there is none).
std::string knob_default(const KnobTables& tables, const std::string& backend,
                         const std::string& key);
// The cause that `value` of knob `key` names: "" for the knob's default or a value that names
// none; the key itself for a knob the table does not declare (a word we have not chosen yet).
std::string knob_value_cause(const KnobTables& tables, const std::string& backend,
                             const std::string& key, const std::string& value);
// The causes a platform's options name, each value against its knob's default; distinct, in key
// order. For the emulator this is its own explanation: `ref:acc=lanes16,fma=on` is simd-width, fma.
std::vector<std::string> option_causes(const KnobTables& tables, const std::string& backend,
                                       const std::map<std::string, std::string>& options);
// The options that run `backend` eagerly (fusion and graph compilation off): {} when it has none.
std::map<std::string, std::string> eager_options(const KnobTables& tables,
                                                 const std::string& backend);

}  // namespace ig
