// The `blas` platform: the reference backend with its GEMM (MatMul, Gemm, Conv as im2col+GEMM)
// through OpenBLAS or BLIS, sgemm for fp32 and dgemm for fp64, e.g.
// `blas:lib=openblas,core=Haswell,threads=2`, `blas:lib=blis,arch=zen3`, `blas:dtype=fp64`.
#include "backends/ref/ref_backend.h"
#include "platform/bindings/blas_options.h"
#include "platform/catalog.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

Expected<std::unique_ptr<Backend>> make_blas_backend(const PlatformSpec& spec) {
  auto choice = parse_blas_spec(spec);
  if (!choice.ok()) return choice.status();
  auto lib = open_blas(*choice);
  if (!lib.ok()) return lib.status().with_context(fmt::format("platform '{}'", spec.to_string()));
  Numerics numerics;
  numerics.conv = ConvAlgorithm::kIm2col;  // so that convolutions reach the BLAS too
  numerics.sgemm = (*lib)->sgemm;
  numerics.dgemm = (*lib)->dgemm;
  if (choice->fp64) numerics.dtype = DType::kFloat64;
  return std::unique_ptr<Backend>(std::make_unique<RefBackend>(
      std::move(numerics), LibraryVersion{(*lib)->name, (*lib)->version}));
}

Expected<std::map<std::string, std::string>> blas_env(const PlatformSpec& spec) {
  auto choice = parse_blas_spec(spec);
  if (!choice.ok()) return choice.status();
  return blas_environment(*choice);
}

const BackendRegistrar kBlasRegistrar(BackendFactory{
    "blas", "the reference backend with fp32/fp64 GEMM through OpenBLAS or BLIS (dlopen)",
    make_blas_backend, blas_env});

}  // namespace
}  // namespace ig

namespace ig {
namespace {
// OpenBLAS core types and BLIS architectures pick different sgemm kernels; the Opteron/Bulldozer
// family and KNL die with SIGILL on most CPUs, which probing reports.
const CandidateRegistrar kBlasCandidates("blas", [] {
  std::vector<PlatformCandidate> out;
  for (const char* core : {"Prescott", "Nehalem", "Sandybridge", "Barcelona", "Haswell", "SkylakeX",
                           "Cooperlake", "Bulldozer"}) {
    out.push_back({std::string("blas:core=") + core + ",lib=openblas,threads=1",
                   {"cpu-sweep"},
                   "OpenBLAS core",
                   false});
  }
  out.push_back(
      {"blas:core=Haswell,lib=openblas,threads=2", {"cpu-sweep"}, "OpenBLAS thread split", false});
  for (const char* arch :
       {"generic", "penryn", "sandybridge", "haswell", "skx", "zen3", "knl", "bulldozer"}) {
    out.push_back({std::string("blas:arch=") + arch + ",lib=blis",
                   {"cpu-sweep"},
                   "BLIS architecture",
                   false});
  }
  // The host study (hosts record): each library's own choice of kernel for this CPU, and one
  // pinned core.
  out.push_back({"blas:lib=openblas,threads=1", {}, "OpenBLAS's own core for this CPU", false});
  out.push_back({"blas:lib=blis", {}, "BLIS's own architecture for this CPU", false});
  join_preset(out, "host",
              {{"blas:lib=openblas,threads=1", 30},
               {"blas:core=Haswell,lib=openblas,threads=1", 31},
               {"blas:lib=blis", 32}});
  // Its share of the default study (preset demo, platform/catalog.h).
  join_preset(out, "demo",
              {{"blas:core=Sandybridge,lib=openblas,threads=1", 30},
               {"blas:core=Haswell,lib=openblas,threads=1", 31},
               {"blas:core=SkylakeX,lib=openblas,threads=1", 32},
               {"blas:arch=zen3,lib=blis", 33}});
  return out;
});
}  // namespace
}  // namespace ig
