// The reference backend's factory: `ref:key=value,...` with the numerics knobs of numerics.h.
#include "backends/ref/ref_backend.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

Expected<std::unique_ptr<Backend>> make_ref_backend(const PlatformSpec& spec) {
  auto numerics = parse_numerics(spec.options);
  if (!numerics.ok()) return numerics.status().with_context("platform '" + spec.to_string() + "'");
  return std::unique_ptr<Backend>(std::make_unique<RefBackend>(std::move(numerics).value()));
}

// The paper's causes, one per numerics knob; the accumulation order names several by its value.
// Help texts are numerics_knobs()'s, which parse_numerics validates against.
KnobTable ref_knobs() {
  auto knob = [](const char* key, const char* default_value, const char* cause,
                 std::vector<KnobValueCause> value_causes = {}) {
    return Knob{key, default_value, numerics_knobs().at(key), cause, std::move(value_causes), ""};
  };
  return {knob("acc", "seq", "",
               {{"lanes*", "simd-width"},
                {"pairwise", "accumulation-order"},
                {"block*", "accumulation-order"},
                {"exact", "precision"}}),
          knob("dtype", "fp32", "precision"),
          knob("accdtype", "", "precision"),
          knob("fma", "off", "fma"),
          knob("split", "1", "thread-split"),
          knob("conv", "direct", "conv-algorithm"),
          knob("ftz", "off", "denormals"),
          knob("nan", "propagate", "nan-handling"),
          knob("bn", "onnx", "bn-folding"),
          knob("math", "libm", "math-library"),
          knob("qdq", "float", "integer-kernel"),
          knob("madd", "exact", "int8-saturation"),
          knob("wbits", "8", "int8-saturation"),
          knob("requant", "float", "requantization-rounding"),
          knob("qround", "even", "requantization-rounding")};
}
const KnobRegistrar kRefKnobs("ref", ref_knobs());

const BackendRegistrar kRefRegistrar(BackendFactory{
    "ref", "the reference interpreter (numerics are knobs)", make_ref_backend, nullptr});

}  // namespace
}  // namespace ig

namespace ig {
namespace {
// The emulator's sweep: one knob changed at a time from the default, each a cause the paper names.
const CandidateRegistrar kRefCandidates("ref", [] {
  const std::vector<std::string> sweep = {
      "ref:acc=pairwise", "ref:acc=lanes8",     "ref:acc=lanes16",    "ref:fma=on",  "ref:split=2",
      "ref:conv=im2col",  "ref:conv=winograd2", "ref:conv=winograd4", "ref:conv=fft"};
  std::vector<PlatformCandidate> out = {
      {"ref", {"cpu-sweep", "ref-sweep"}, "the reference interpreter", false}};
  for (const auto& s : sweep) out.push_back({s, {"ref-sweep"}, "one numerics knob changed", false});
  out.push_back(
      {"ref:acc=exact,dtype=fp64", {"oracle"}, "fp64 with compensated dot products", false});
  out.push_back({"ref:qdq=int", {}, "QDQ groups as integer kernels (exact int32 sums)", false});
  // int8 models: the spec's float QDQ semantics beside exact integer kernels.
  join_preset(out, "int8", {{"ref", 10}, {"ref:qdq=int", 11}});
  // Its share of the default study (preset demo, platform/catalog.h).
  join_preset(out, "demo",
              {{"ref", 10},
               {"ref:fma=on", 11},
               {"ref:acc=lanes16", 12},
               {"ref:conv=im2col", 13},
               {"ref:conv=winograd4", 14}});
  return out;
});
}  // namespace
}  // namespace ig
