// The `opencv` platform factory: `opencv:disable=AVX512-SKX+AVX2,threads=2`. Features are joined
// with '+' because ',' separates spec options; the worker gets OPENCV_CPU_DISABLE=AVX512-SKX,AVX2.
#include <opencv2/core.hpp>

#include "backends/opencv/opencv_backend.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/options.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

struct Feature {
  const char* name;  // as OpenCV spells it: hyphens, not underscores (those it ignores silently)
  int id;
};
const std::vector<Feature> kFeatures = {
    {"AVX512-SKX", CV_CPU_AVX512_SKX},
    {"AVX512-COMMON", CV_CPU_AVX512_COMMON},
    {"AVX512-CLX", CV_CPU_AVX512_CLX},
    {"AVX512-ICL", CV_CPU_AVX512_ICL},
    {"AVX2", CV_CPU_AVX2},
    {"FMA3", CV_CPU_FMA3},
    {"AVX", CV_CPU_AVX},
    {"FP16", CV_CPU_FP16},
    {"POPCNT", CV_CPU_POPCNT},
    {"SSE4.2", CV_CPU_SSE4_2},
    {"SSE4.1", CV_CPU_SSE4_1},
};

std::vector<std::string> feature_names() {
  std::vector<std::string> names;
  for (const auto& f : kFeatures) names.push_back(f.name);
  return names;
}

// disable= turns SIMD levels off (the dispatcher picks narrower kernels); threads splits work.
const KnobTable kKnobs = {
    {.key = "disable",
     .default_value = "",
     .values = feature_names(),
     .help = "CPU features to turn off",
     .cause = "simd-width",
     .values_form = "features joined with '+', e.g. AVX512-SKX+AVX2"},
    threads_knob("OpenCV threads"),
};
const KnobRegistrar kRegisteredKnobs("opencv", kKnobs);

Expected<OpencvOptions> parse(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, kKnobs));
  OpencvOptions o;
  auto it = spec.options.find("disable");
  if (it != spec.options.end()) {
    size_t pos = 0;
    const std::string& list = it->second;
    while (pos <= list.size()) {
      const size_t plus = std::min(list.find('+', pos), list.size());
      const std::string name = list.substr(pos, plus - pos);
      bool known = false;
      for (const auto& f : kFeatures) known = known || name == f.name;
      if (!known) {
        return invalid_argument(
            "platform '{}': disable={} names '{}', not an OpenCV CPU feature (valid: {}; join "
            "several with '+'; OpenCV silently ignores misspellings such as AVX512_SKX)",
            spec.to_string(), list, name, join_names(feature_names()));
      }
      o.disable.push_back(name);
      pos = plus + 1;
    }
  }
  auto threads = int_option(spec, kKnobs, "threads");
  if (!threads.ok()) return threads.status();
  o.threads = *threads;
  return o;
}

Expected<std::map<std::string, std::string>> environment(const PlatformSpec& spec) {
  auto o = parse(spec);
  if (!o.ok()) return o.status();
  std::map<std::string, std::string> env;
  std::string list;
  for (const auto& f : o->disable) list += (list.empty() ? "" : ",") + f;
  if (!list.empty()) env["OPENCV_CPU_DISABLE"] = list;
  return env;
}

Expected<std::unique_ptr<Backend>> make(const PlatformSpec& spec) {
  auto o = parse(spec);
  if (!o.ok()) return o.status();
  // OpenCV reads OPENCV_CPU_DISABLE once, when it loads: check that it took effect here.
  for (const auto& name : o->disable) {
    for (const auto& f : kFeatures) {
      if (name == f.name && cv::checkHardwareSupport(f.id)) {
        return unsupported(
            "platform '{}': {} is still enabled in this process (OPENCV_CPU_DISABLE must be set "
            "when the worker starts)",
            spec.to_string(), name);
      }
    }
  }
  return std::unique_ptr<Backend>(std::make_unique<OpencvBackend>(*o));
}

const BackendRegistrar kOpencvRegistrar(BackendFactory{
    "opencv", "OpenCV DNN's ONNX importer and CPU layers (knobs: disable, threads)", make,
    environment});

}  // namespace
}  // namespace ig

namespace ig {
namespace {
// OpenCV dispatches its DNN kernels on CPU features; disabling them top-down gives the levels.
const CandidateRegistrar kOpencvCandidates("opencv", [] {
  std::vector<PlatformCandidate> out = {{"opencv", {"cpu-sweep"}, "all CPU features", false}};
  for (const char* d : {"AVX512-SKX", "AVX512-SKX+AVX2", "AVX512-SKX+AVX2+AVX"}) {
    out.push_back(
        {std::string("opencv:disable=") + d, {"cpu-sweep"}, "CPU features disabled", false});
  }
  // Its share of the default study (preset demo, platform/catalog.h).
  join_preset(out, "demo", {{"opencv", 40}, {"opencv:disable=AVX512-SKX+AVX2", 41}});
  join_preset(out, "host", {{"opencv", 40}});
  return out;
});
}  // namespace
}  // namespace ig
