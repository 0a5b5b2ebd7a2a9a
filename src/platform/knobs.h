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
#include "platform/spec.h"

namespace ig {

// A value (or, ending in '*', a value prefix) that steers a cause other than the knob's own.
struct KnobValueCause {
  std::string value;
  std::string cause;
};

// Where `explain` varies a knob: the node traits that make it matter (analysis/explain/space.h
// names them: reduces, convolution, transcendental, batch-norm, ...), all of which must hold, and
// the values it combines with other knobs' (the default among them).
struct KnobSearch {
  std::vector<std::string> when;
  std::vector<std::string> combine;
};

struct Knob {
  std::string key;
  std::string default_value;  // "" when leaving the key out sets nothing (e.g. blas core)
  // The legal values. Where `values_form` is set the set is open: other values of that form are
  // legal too, and `values` lists the usual ones.
  std::vector<std::string> values;
  std::string help;  // what it does, for listings
  // What changing it changes, in the paper's words: simd-width, fma, conv-algorithm,
  // thread-split, accumulation-order, precision, fusion, library, ... "" names none.
  std::string cause;
  std::vector<KnobValueCause> value_causes = {};  // checked before `cause`, in order
  std::string eager_value = "";  // non-empty: this value runs the backend eagerly (no fusion)
  std::string values_form = "";  // e.g. "lanesN (N = 2..64)"; "" for a closed set
  // An integer knob: its bounds (values then lists the usual ones).
  int min = 0, max = 0;
  KnobSearch search = {};  // the emulator's knobs only
  // Other options the knob takes effect with (BLIS's arch with lib=blis); a spec that sets the
  // knob without them is refused by the backend.
  std::map<std::string, std::string> needs = {};
};

// The knobs several backends share, declared by one function each: `threads` (the library's
// worker threads: thread-split, 1 by default, 1 to 256) and `fallback` (none|ref: nodes the
// library lacks run on the reference interpreter; its cause is `library`).
Knob threads_knob(const std::string& help, std::vector<std::string> values = {"1", "2", "4"});
Knob fallback_knob(const std::string& library);

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
// The value of `key` a spec runs with: its own, else the knob's default.
std::string option_value(const KnobTables& tables, const PlatformSpec& spec,
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

// Whether `value` is one of the knob's legal values (always true for an open set: its backend
// checks the form).
bool knob_value_listed(const Knob& knob, const std::string& value);
// The form of an open set of values: values_form, or "an integer from MIN to MAX"; "" when closed.
std::string knob_values_form(const Knob& knob);

// A configuration of the emulator that `explain` tries alone (stage 1), and the node traits
// that must all hold for it to matter; the emulator's binding lists them in the order worth
// trying.
struct KnobTrial {
  std::vector<std::string> when;
  std::map<std::string, std::string> options;
};
std::vector<KnobTrial>& registered_trials();  // by the emulator's binding
struct KnobTrialRegistrar {
  explicit KnobTrialRegistrar(std::vector<KnobTrial> trials);
};

}  // namespace ig
