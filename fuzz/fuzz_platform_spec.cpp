// Platform spec strings. Properties: parsing never crashes; a parsed spec's canonical string
// parses to the same spec; option validation (spec_options.h) answers with a Status.
#include "fuzz_common.h"
#include "platform/options.h"
#include "platform/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = ig::fuzz::bytes_of(data, size);
  auto spec = ig::parse_platform_spec(text);
  if (!spec.ok()) {
    if (spec.status().message().empty()) ig::fuzz::fail("empty error", text);
    return 0;
  }
  const std::string canonical = spec->to_string();
  auto again = ig::parse_platform_spec(canonical);
  if (!again.ok()) ig::fuzz::fail("canonical spec does not parse", canonical);
  if (again->backend != spec->backend || again->options != spec->options)
    ig::fuzz::fail("canonical spec parses differently", text + " -> " + canonical);
  // The ref backend's knobs, validated as its factory does.
  (void)ig::check_option_keys(*spec, {"acc", "fma", "conv", "threads", "dtype"});
  (void)ig::choice_option(*spec, "acc", "seq", {"seq", "pairwise", "lanes8", "lanes16"});
  (void)ig::int_option(*spec, "threads", 1, 1, 256);
  return 0;
}
