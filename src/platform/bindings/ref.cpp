// The reference backend's factory: `ref:key=value,...` with the numerics knobs of numerics.h.
#include <algorithm>

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
// Help texts are numerics_knobs()'s, which parse_numerics validates against. `search` says where
// explain varies a knob and which values it combines (analysis/explain/space.h).
KnobTable ref_knobs() {
  auto knob = [](const char* key, const char* default_value, std::vector<std::string> values,
                 const char* cause) {
    return Knob{.key = key,
                .default_value = default_value,
                .values = std::move(values),
                .help = numerics_knobs().at(key),
                .cause = cause};
  };
  KnobTable t = {
      knob("acc", "seq",
           {"seq", "pairwise", "lanes2", "lanes4", "lanes8", "lanes16", "lanes32", "block16",
            "block32", "block64", "block128", "block256", "exact"},
           ""),
      knob("dtype", "fp32", {"fp32", "fp64", "fp16", "bf16"}, "precision"),
      knob("accdtype", "", {"fp16", "bf16", "fp32", "fp64"}, "precision"),
      knob("fma", "off", {"off", "on"}, "fma"),
      knob("split", "1", {"1", "2", "3", "4", "8"}, "thread-split"),
      knob("conv", "direct", {"direct", "im2col", "relo", "winograd2", "winograd4", "fft"},
           "conv-algorithm"),
      knob("ftz", "off", {"off", "on"}, "denormals"),
      knob("nan", "propagate", {"propagate", "ignore"}, "nan-handling"),
      knob("bn", "onnx", {"onnx", "folded", "affine"}, "bn-folding"),
      knob("math", "libm", {"libm", "sleef-u10", "sleef-u35", "fast"}, "math-library"),
      knob("qdq", "float", {"float", "int"}, "integer-kernel"),
      knob("madd", "exact", {"exact", "sat16"}, "int8-saturation"),
      knob("wbits", "8", {"8", "7"}, "int8-saturation"),
      knob("requant", "float", {"float", "float-zp", "gemmlowp"}, "requantization-rounding"),
      knob("qround", "even", {"even", "away"}, "requantization-rounding"),
      knob("mma", "", mma_preset_names(), "matrix-unit"),
      knob("mma-in", "", mma_format_names(), "matrix-unit"),
      knob("mma-k", "", {"1", "2", "4", "8", "16", "32"}, "matrix-unit"),
      knob("mma-bits", "", {"exact", "13", "23", "24", "25"}, "matrix-unit"),
      knob("mma-out", "", {"rz", "rne", "ro"}, "matrix-unit"),
      knob("mma-accfmt", "", {"fp32", "fp16", "e8m13"}, "matrix-unit"),
      knob("mma-acc", "", {"first", "last"}, "matrix-unit"),
      knob("mma-sub", "", {"keep", "daz", "ftz", "flush"}, "matrix-unit"),
      knob("mma-pad", "", {"1", "2", "4", "8", "16", "32"}, "matrix-unit")};
  auto at = [&t](const char* key) -> Knob& {
    return *std::find_if(t.begin(), t.end(), [&](const Knob& k) { return k.key == key; });
  };
  Knob& acc = at("acc");
  acc.value_causes = {{"lanes*", "simd-width"},
                      {"pairwise", "accumulation-order"},
                      {"block*", "accumulation-order"},
                      {"exact", "precision"}};
  acc.values_form = "seq, pairwise, lanesN (N = 2..64), blockK (K >= 2) or exact";
  at("mma-k").min = 1;
  at("mma-k").max = 64;
  at("mma-pad").min = 1;
  at("mma-pad").max = 64;
  at("mma-bits").values_form = "exact or 1..54";
  Knob& split = at("split");
  split.min = 1;
  split.max = 1024;
  // Stage 2 of explain: these values combined, where the node's traits say they matter.
  acc.search = {{"reduces"}, {acc.values.begin(), acc.values.end() - 1}};  // all but exact
  split.search = {{"reduces"}, split.values};
  at("fma").search = {{}, at("fma").values};
  at("conv").search = {{"reduces", "convolution"}, {"direct", "im2col", "relo"}};
  at("math").search = {{"reduces", "transcendental"}, at("math").values};
  at("bn").search = {{"batch-norm"}, at("bn").values};
  return t;
}
const KnobTable kRefKnobTable = ref_knobs();
const KnobRegistrar kRefKnobs("ref", kRefKnobTable);

// Stage 1 of explain: the reference, then one change at a time where the node's traits say it
// can matter, in the order worth trying (cheap, likely causes first; wider arithmetic last).
std::vector<KnobTrial> ref_trials() {
  auto values_of = [](const char* key) {
    return std::find_if(kRefKnobTable.begin(), kRefKnobTable.end(),
                        [&](const Knob& k) { return k.key == key; })
        ->values;
  };
  std::vector<KnobTrial> out = {{{}, {}}};
  // Integer kernels as the libraries build them, one trait each, then the pairs seen in practice:
  // ONNX Runtime (MLAS) on x86 without VNNI saturates pairs; oneDNN there halves the weights.
  for (const std::map<std::string, std::string>& k :
       std::vector<std::map<std::string, std::string>>{
           {{"qdq", "int"}},
           {{"qdq", "int"}, {"madd", "sat16"}},
           {{"qdq", "int"}, {"wbits", "7"}},
           {{"qdq", "int"}, {"requant", "gemmlowp"}},
           {{"qdq", "int"}, {"qround", "away"}},
           {{"qdq", "int"}, {"requant", "float-zp"}},
           {{"qdq", "int"}, {"madd", "sat16"}, {"requant", "float-zp"}},
           {{"qdq", "int"}, {"madd", "sat16"}, {"requant", "gemmlowp"}},
           {{"qdq", "int"}, {"wbits", "7"}, {"qround", "away"}}})
    out.push_back({{"quantized"}, k});
  // One knob at a time: every value but the default (and, for the order, but exact: below).
  auto each = [&](const char* key, std::vector<std::string> when, bool skip_last = false) {
    const auto values = values_of(key);
    const auto end = skip_last ? values.end() - 1 : values.end();
    for (auto v = values.begin() + 1; v != end; ++v) out.push_back({when, {{key, *v}}});
  };
  each("acc", {"reduces"}, true);
  each("split", {"reduces"});
  each("fma", {});
  each("conv", {"convolution"});
  each("math", {"transcendental"});
  for (const auto& form : values_of("bn")) {
    if (form == "onnx") continue;
    out.push_back({{"batch-norm"}, {{"bn", form}}});
    out.push_back({{"batch-norm"}, {{"bn", form}, {"fma", "on"}}});
  }
  each("ftz", {"denormal"});
  each("nan", {"nan"});
  // Matrix units (matrix-unit): each preset, and for convolutions with K ordered (channel, tap)
  // and (kernel column, kernel row, channel) as well as (tap, channel).
  // Only where the reference misses by more than fp32 could (reduced-precision): a unit reads
  // 16-bit or narrower operands.
  for (const auto& unit : mma_preset_names())
    out.push_back({{"matrix-product", "reduced-precision"}, {{"mma", unit}}});
  for (const char* order : {"im2col", "relo"}) {
    for (const auto& unit : mma_preset_names())
      out.push_back({{"convolution", "reduced-precision"}, {{"mma", unit}, {"conv", order}}});
  }
  // Wider arithmetic rounded once at the end: "precision".
  out.push_back({{}, {{"dtype", "fp64"}}});
  out.push_back({{}, {{"acc", "exact"}}});
  return out;
}
const KnobTrialRegistrar kRefTrials(ref_trials());

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
  // The host study's control: the interpreter computes the same bits on every x86 CPU.
  join_preset(out, "host", {{"ref", 10}});
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
