// The `onednn` platform factory:
// `onednn:isa=avx2,threads=2,conv=winograd,fuse=off,fallback=ref,fpmath=bf16,dtype=bf16,
// layout=plain`.
#include <cpuid.h>
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "backends/onednn/onednn_backend.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/options.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

struct IsaLevel {
  const char* name;
  dnnl::cpu_isa isa;
};
const std::vector<IsaLevel> kIsas = {
    {"sse41", dnnl::cpu_isa::sse41},
    {"avx", dnnl::cpu_isa::avx},
    {"avx2", dnnl::cpu_isa::avx2},
    {"avx512_core", dnnl::cpu_isa::avx512_core},
    {"avx512_core_vnni", dnnl::cpu_isa::avx512_core_vnni},
    {"avx512_core_bf16", dnnl::cpu_isa::avx512_core_bf16},
    {"avx512_core_amx", dnnl::cpu_isa::avx512_core_amx},
    {"all", dnnl::cpu_isa::all},
};

std::vector<std::string> isa_names() {
  std::vector<std::string> names;
  for (const auto& l : kIsas) names.push_back(l.name);
  return names;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// AMX-BF16 and AMX-INT8: CPUID leaf 7 EDX bits 22 and 25 (compilers' __builtin_cpu_supports does
// not know them all yet).
bool has_amx() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (d >> 22 & 1) != 0 && (d >> 25 & 1) != 0;
}

// The CPU features oneDNN requires for each level (its cpu_isa_traits), so that a level this CPU
// cannot run is refused with the missing feature named rather than silently capped lower.
const char* missing_feature(const std::string& isa) {
  // isa=all caps nothing: oneDNN runs the best level this CPU has.
  if (isa == "all") return nullptr;
  __builtin_cpu_init();
  struct Need {
    const char* isa;
    const char* feature;
    bool present;
  };
  const Need needs[] = {
      {"sse41", "sse4.1", static_cast<bool>(__builtin_cpu_supports("sse4.1"))},
      {"avx", "avx", static_cast<bool>(__builtin_cpu_supports("avx"))},
      {"avx2", "avx2", static_cast<bool>(__builtin_cpu_supports("avx2"))},
      {"avx512_core", "avx512f/bw/vl/dq",
       __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")},
      {"avx512_core_vnni", "avx512vnni", static_cast<bool>(__builtin_cpu_supports("avx512vnni"))},
      {"avx512_core_bf16", "avx512bf16", static_cast<bool>(__builtin_cpu_supports("avx512bf16"))},
      {"avx512_core_amx", "amx-bf16/amx-int8", has_amx()},
  };
  for (const auto& n : needs) {
    if (!n.present) return n.feature;
    if (isa == n.isa) return nullptr;
  }
  return nullptr;
}

// ISA caps pick different JIT kernels (DESIGN.md: 3-4 bit patterns for a 3x3 conv); inner product
// changes bits at 3 or more threads; Winograd exists only at avx512_core; fuse=off is eager mode.
struct FpmathMode {
  const char* name;
  dnnl::fpmath_mode mode;
};
const std::vector<FpmathMode> kFpmathModes = {{"strict", dnnl::fpmath_mode::strict},
                                              {"bf16", dnnl::fpmath_mode::bf16},
                                              {"f16", dnnl::fpmath_mode::f16},
                                              {"any", dnnl::fpmath_mode::any}};

std::vector<std::string> fpmath_names() {
  std::vector<std::string> names;
  for (const auto& m : kFpmathModes) names.push_back(m.name);
  return names;
}

const KnobTable kKnobs = {
    {.key = "isa",
     .default_value = "all",
     .values = isa_names(),
     .help = "highest instruction set oneDNN may dispatch to",
     .cause = "simd-width"},
    threads_knob("OpenMP threads", {"1", "2", "3", "4"}),
    {.key = "conv",
     .default_value = "auto",
     .values = {"direct", "winograd", "auto"},
     .help = "convolution algorithm",
     .cause = "conv-algorithm"},
    {.key = "fuse",
     .default_value = "on",
     .values = {"on", "off"},
     .help = "post-op fusion (off: eager, one primitive per node)",
     .cause = "fusion",
     .eager_value = "off"},
    fallback_knob("oneDNN"),
    {.key = "fpmath",
     .default_value = "strict",
     .values = fpmath_names(),
     .help = "lower precision oneDNN may use inside f32 primitives (fpmath mode)",
     .cause = "precision"},
    {.key = "dtype",
     .default_value = "fp32",
     .values = {"fp32", "bf16"},
     .help = "bf16: Conv, Gemm and MatMul run oneDNN's bf16 kernels on their fp32 operands "
             "rounded to bf16 (nearest even), accumulating in fp32 (autocast's mixed precision; "
             "the kernel's name says which ISA ran)",
     .cause = "precision"},
    {.key = "layout",
     .default_value = "blocked",
     .values = {"blocked", "plain"},
     .help = "blocked: batch norm, eltwise, pooling and same-shape binary ops run on the layout "
             "the convolution left (nChw16c/8c), plain copies made only where read; plain: they "
             "run on row-major tensors (batch norm's ncsp kernel does not fuse its multiply-add)",
     .cause = "fma"},
    {.key = "bn",
     .default_value = "weights",
     .values = {"weights", "postops", "primitive"},
     .help = "weights (with fuse=on): a BatchNormalization right after a Conv is folded into the "
             "convolution's weights and bias (W * f, (b - mean) * f + B, f = scale / sqrt(var + "
             "eps), in fp32), as graph optimizers (ONNX Runtime's, PyTorch's) fold it before a "
             "run; postops: it runs as the "
             "convolution's post-ops, (x - mean) * f + B each step rounded; primitive: oneDNN's "
             "batch-norm kernel (on a blocked layout its multiply-add is fused)",
     // Against the default, either other value leaves the batch norm out of the weights.
     .cause = "bn-folding"},
    {.key = "residual",
     .default_value = "sum",
     .values = {"sum", "binary"},
     .help = "sum (with fuse=on): a residual Add after a Conv runs as oneDNN's sum post-op (the "
             "operand copied into the destination first), as frameworks map it; binary: a binary "
             "add post-op, for which oneDNN picks other convolution kernels (jit_1x1)",
     .cause = "conv-algorithm"},
};
const KnobRegistrar kOnednnKnobs("onednn", kKnobs);

Expected<onednn::Options> parse(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, kKnobs));
  onednn::Options o;
  auto isa = choice_option(spec, kKnobs, "isa");
  if (!isa.ok()) return isa.status();
  o.isa = *isa;
  auto threads = int_option(spec, kKnobs, "threads");
  if (!threads.ok()) return threads.status();
  o.threads = *threads;
  auto conv = choice_option(spec, kKnobs, "conv");
  if (!conv.ok()) return conv.status();
  o.conv = *conv;
  auto fuse = choice_option(spec, kKnobs, "fuse");
  if (!fuse.ok()) return fuse.status();
  o.fuse = *fuse == "on";
  auto fallback = choice_option(spec, kKnobs, "fallback");
  if (!fallback.ok()) return fallback.status();
  o.fallback_ref = *fallback == "ref";
  auto fpmath = choice_option(spec, kKnobs, "fpmath");
  if (!fpmath.ok()) return fpmath.status();
  for (const auto& m : kFpmathModes)
    if (*fpmath == m.name) o.fpmath = m.mode;
  auto dtype = choice_option(spec, kKnobs, "dtype");
  if (!dtype.ok()) return dtype.status();
  if (*dtype == "bf16") o.compute = dnnl::memory::data_type::bf16;
  auto layout = choice_option(spec, kKnobs, "layout");
  if (!layout.ok()) return layout.status();
  o.blocked = *layout == "blocked";
  auto bn = choice_option(spec, kKnobs, "bn");
  if (!bn.ok()) return bn.status();
  o.bn_post_ops = *bn != "primitive";
  o.bn_in_weights = *bn == "weights";
  auto residual = choice_option(spec, kKnobs, "residual");
  if (!residual.ok()) return residual.status();
  o.residual_sum = *residual == "sum";
  return o;
}

Expected<std::map<std::string, std::string>> environment(const PlatformSpec& spec) {
  auto o = parse(spec);
  if (!o.ok()) return o.status();
  std::map<std::string, std::string> env = {{"OMP_NUM_THREADS", std::to_string(o->threads)}};
  if (o->isa != "all") env["DNNL_MAX_CPU_ISA"] = upper(o->isa);
  return env;
}

Expected<std::unique_ptr<Backend>> make(const PlatformSpec& spec) {
  auto o = parse(spec);
  if (!o.ok()) return o.status();
  if (const char* missing = missing_feature(o->isa)) {
    return unsupported("platform '{}': isa={} needs {}, which this CPU lacks", spec.to_string(),
                       o->isa, missing);
  }
  const auto level =
      std::find_if(kIsas.begin(), kIsas.end(), [&](const IsaLevel& l) { return o->isa == l.name; });
  // Works only before the first primitive; DNNL_MAX_CPU_ISA from the worker's start wins anyway.
  try {
    dnnl::set_max_cpu_isa(level->isa);
  } catch (const dnnl::error&) {
  }
  const char* env_isa = std::getenv("DNNL_MAX_CPU_ISA");
  const bool capped_elsewhere = o->isa == "all" ? env_isa && upper(env_isa) != "ALL"
                                                : dnnl::get_effective_cpu_isa() != level->isa;
  if (capped_elsewhere) {
    return unsupported(
        "platform '{}': oneDNN's ISA was fixed earlier in this process (DNNL_MAX_CPU_ISA={}); "
        "run it in a worker started with this platform's environment",
        spec.to_string(), env_isa ? env_isa : "(unset)");
  }
  omp_set_num_threads(o->threads);
  return std::unique_ptr<Backend>(std::make_unique<OnednnBackend>(*o));
}

const BackendRegistrar kOnednnRegistrar(BackendFactory{
    "onednn",
    "oneDNN primitives per ONNX node (knobs: isa, threads, conv, fuse, fallback, fpmath, dtype, "
    "layout, bn)",
    make, environment});

}  // namespace
}  // namespace ig

namespace ig {
namespace {
const CandidateRegistrar kOnednnCandidates("onednn", [] {
  std::vector<PlatformCandidate> out;
  for (const char* isa :
       {"sse41", "avx", "avx2", "avx512_core", "avx512_core_vnni", "avx512_core_bf16"}) {
    out.push_back(
        {std::string("onednn:isa=") + isa + ",threads=1", {"cpu-sweep"}, "ISA cap", false});
  }
  out.push_back({"onednn:isa=avx512_core,threads=3", {"cpu-sweep"}, "thread split", false});
  out.push_back(
      {"onednn:conv=winograd,isa=avx512_core,threads=1", {"cpu-sweep"}, "Winograd", false});
  out.push_back({"onednn:fuse=off,isa=avx2,threads=1",
                 {"cpu-sweep", "eager"},
                 "eager (no post-op fusion)",
                 false});
  out.push_back({"onednn:isa=avx2,layout=plain,threads=1",
                 {"cpu-sweep"},
                 "batch norm, eltwise and pooling on row-major copies",
                 false});
  // int8: the two integer paths of x86 (pair saturation without VNNI, exact sums with it).
  for (const char* isa : {"avx2", "avx512_core_vnni"}) {
    out.push_back({std::string("onednn:fallback=ref,isa=") + isa + ",threads=1",
                   {"int8"},
                   std::string("int8 kernels, ") + isa,
                   false,
                   {{"int8", std::string(isa) == "avx2" ? 20 : 21}}});
  }
  // The host study (hosts record): its own dispatch on this CPU, and two pinned levels.
  out.push_back({"onednn:threads=1", {}, "oneDNN at the highest ISA this CPU has", false});
  join_preset(out, "host",
              {{"onednn:threads=1", 20},
               {"onednn:isa=avx2,threads=1", 21},
               {"onednn:isa=avx512_core,threads=1", 22}});
  // Its share of the default study (preset demo, platform/catalog.h).
  join_preset(out, "demo",
              {{"onednn:isa=sse41,threads=1", 20},
               {"onednn:isa=avx2,threads=1", 21},
               {"onednn:isa=avx512_core,threads=1", 22}});
  return out;
});
}  // namespace
}  // namespace ig
