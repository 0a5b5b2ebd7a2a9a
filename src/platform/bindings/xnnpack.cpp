// The `xnnpack` platform factory: `xnnpack:threads=2,fp16=on,fallback=ref`.
#include "backends/xnnpack/xnnpack_backend.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/options.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

const KnobTable kKnobs = {
    threads_knob("pthreadpool threads"),
    {.key = "fp16",
     .default_value = "off",
     .values = {"off", "on"},
     .help = "run supported nodes in fp16",
     .cause = "precision"},
    fallback_knob("XNNPACK"),
};
const KnobRegistrar kRegisteredKnobs("xnnpack", kKnobs);

Expected<xnnpack::Options> parse(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, kKnobs));
  xnnpack::Options o;
  auto threads = int_option(spec, kKnobs, "threads");
  if (!threads.ok()) return threads.status();
  o.threads = *threads;
  auto fp16 = choice_option(spec, kKnobs, "fp16");
  if (!fp16.ok()) return fp16.status();
  o.fp16 = *fp16 == "on";
  auto fallback = choice_option(spec, kKnobs, "fallback");
  if (!fallback.ok()) return fallback.status();
  o.fallback_ref = *fallback == "ref";
  return o;
}

Expected<std::unique_ptr<Backend>> make(const PlatformSpec& spec) {
  auto o = parse(spec);
  if (!o.ok()) return o.status();
  IG_RETURN_IF_ERROR(xnnpack::initialize().with_context("platform '" + spec.to_string() + "'"));
  if (o->fp16 && !xnnpack::has_f16_operators()) {
    return unsupported(
        "platform '{}': fp16=on, but this XNNPACK creates no f16 operators on this CPU",
        spec.to_string());
  }
  auto backend = std::make_unique<XnnpackBackend>(*o);
  if (backend->threads() != static_cast<size_t>(o->threads)) {
    return internal_error("platform '{}': pthreadpool gave {} threads, not {}", spec.to_string(),
                          backend->threads(), o->threads);
  }
  return std::unique_ptr<Backend>(std::move(backend));
}

const BackendRegistrar kXnnpackRegistrar(BackendFactory{
    "xnnpack",
    "XNNPACK (Debian's 2022 snapshot) operators per ONNX node (knobs: threads, fp16, "
    "fallback)",
    make, nullptr});

}  // namespace
}  // namespace ig

namespace ig {
namespace {
// The default single-threaded run, and a two-thread split of XNNPACK's tiles over its pool (does
// the split change any bits?).
const CandidateRegistrar kXnnpackCandidates("xnnpack", [] {
  std::vector<PlatformCandidate> out = {
      {"xnnpack", {"cpu-sweep", "frameworks"}, "XNNPACK operators", false},
      {"xnnpack:threads=2", {"cpu-sweep"}, "thread split", false},
  };
  // The host study (hosts record): the zoo models' BatchNormalization on the reference.
  out.push_back({"xnnpack:fallback=ref", {}, "XNNPACK, other nodes on the reference", false});
  join_preset(out, "host", {{"xnnpack:fallback=ref", 60}});
  return out;
});
}  // namespace
}  // namespace ig
