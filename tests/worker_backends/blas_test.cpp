#include <csignal>
#include <set>

#include "backend_test_util.h"
#include "platform/bindings/blas_options.h"

namespace ig::testing {
namespace {

TEST(BlasSpec, ValidatesKnobs) {
  auto bad_core = parse_platform_spec("blas:lib=openblas,core=Pentium4");
  auto st = parse_blas_spec(*bad_core).status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("core=Pentium4 is not valid (valid values: Prescott"),
            std::string::npos)
      << st.message();
  auto mixed = parse_platform_spec("blas:lib=openblas,arch=zen3");
  EXPECT_NE(parse_blas_spec(*mixed).status().message().find("arch= is a BLIS knob"),
            std::string::npos);
  auto key = parse_platform_spec("blas:cores=Haswell");
  EXPECT_NE(parse_blas_spec(*key).status().message().find("unknown key 'cores' (valid keys: lib, "
                                                          "core, arch, threads)"),
            std::string::npos);
}

TEST(BlasSpec, EnvironmentNamesTheLibraryKnobs) {
  auto spec = parse_platform_spec("blas:lib=openblas,core=Haswell,threads=2");
  auto env = blas_environment(*parse_blas_spec(*spec));
  EXPECT_EQ(env["OPENBLAS_CORETYPE"], "Haswell");
  EXPECT_EQ(env["OPENBLAS_NUM_THREADS"], "2");
  auto blis = parse_platform_spec("blas:lib=blis,arch=zen3");
  auto benv = blas_environment(*parse_blas_spec(*blis));
  EXPECT_EQ(benv["BLIS_ARCH_TYPE"], "6");  // arch_t index of zen3 in BLIS 0.9
  EXPECT_EQ(benv["BLIS_NUM_THREADS"], "1");
}

struct SgemmRun {
  std::string active, hash;
  double c00 = 0, exact = 0;
  int signal = 0;
};

SgemmRun sgemm_in_child(const std::string& spec) {
  ChildResult r = run_child("Child.DISABLED_Sgemm", child_env(spec));
  SgemmRun s;
  s.signal = r.signal;
  s.active = child_field(r.out, "ACTIVE");
  s.hash = child_field(r.out, "OUT");
  if (!s.hash.empty()) {
    s.c00 = std::stod(child_field(r.out, "C00"));
    s.exact = std::stod(child_field(r.out, "EXACT"));
  }
  return s;
}

// SkylakeX / skx kernels need AVX-512: on a CPU without it they die with SIGILL, as designed.
bool has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}

// OPENBLAS_CORETYPE takes effect only in a fresh process: each core type runs in a child. Kernels
// for different cores sum K = 4096 products in different orders, so the bits differ.
TEST(Blas, OpenblasCoreTypesGiveDifferentBits) {
  std::map<std::string, std::string> hash_of;
  std::set<std::string> distinct;
  std::vector<std::string> cores = {"Prescott", "Nehalem", "Sandybridge", "Haswell"};
  if (has_avx512()) cores.push_back("SkylakeX");
  for (const std::string& core : cores) {
    SgemmRun s = sgemm_in_child("blas:lib=openblas,core=" + core);
    ASSERT_EQ(s.signal, 0) << core;
    ASSERT_EQ(s.active, core);
    ASSERT_FALSE(s.hash.empty()) << core;
    EXPECT_NEAR(s.c00, s.exact, 1e-3 * std::abs(s.exact)) << core;
    hash_of[core] = s.hash;
    distinct.insert(s.hash);
  }
  // Measured on Sapphire Rapids and on AMD EPYC (no AVX-512), OpenBLAS 0.3.21: one bit pattern
  // per core type.
  EXPECT_EQ(distinct.size(), cores.size());
  // Repeats are deterministic.
  EXPECT_EQ(sgemm_in_child("blas:lib=openblas,core=Haswell").hash, hash_of["Haswell"]);
}

// Measured here: OpenBLAS's Haswell sgemm splits the work differently with two threads.
TEST(Blas, OpenblasThreadsChangeBitsOnHaswell) {
  const std::string one = sgemm_in_child("blas:lib=openblas,core=Haswell,threads=1").hash;
  const std::string two = sgemm_in_child("blas:lib=openblas,core=Haswell,threads=2").hash;
  ASSERT_FALSE(one.empty());
  EXPECT_NE(one, two);
}

TEST(Blas, BlisArchitecturesGiveDifferentBits) {
  std::map<std::string, std::string> hash_of;
  std::set<std::string> distinct;
  std::vector<std::string> archs = {"haswell", "sandybridge", "penryn", "zen3", "generic"};
  if (has_avx512()) archs.push_back("skx");
  for (const std::string& arch : archs) {
    SgemmRun s = sgemm_in_child("blas:lib=blis,arch=" + arch);
    ASSERT_EQ(s.signal, 0) << arch;
    ASSERT_EQ(s.active, arch);
    EXPECT_NEAR(s.c00, s.exact, 1e-3 * std::abs(s.exact)) << arch;
    hash_of[arch] = s.hash;
    distinct.insert(s.hash);
  }
  // Measured (BLIS 0.9.0): penryn shares sandybridge's kernel; the others differ.
  EXPECT_EQ(hash_of["penryn"], hash_of["sandybridge"]);
  EXPECT_EQ(distinct.size(), archs.size() - 1);
}

TEST(Blas, BlisKnlDiesWithSigill) {
  EXPECT_EQ(sgemm_in_child("blas:lib=blis,arch=knl").signal, SIGILL);
}

// A core type this CPU cannot run ends its worker (SIGILL); the parent sees the signal.
TEST(Blas, BulldozerDiesWithSigill) {
  SgemmRun s = sgemm_in_child("blas:lib=openblas,core=Bulldozer");
  EXPECT_EQ(s.signal, SIGILL);
}

// Without the environment at start-up, the platform refuses instead of silently running another
// core type.
TEST(Blas, WrongCoreInThisProcessIsRefused) {
  auto spec = parse_platform_spec("blas:lib=openblas,core=Prescott");
  auto b = make_backend(*spec);
  if (std::getenv("OPENBLAS_CORETYPE")) GTEST_SKIP() << "OPENBLAS_CORETYPE set for this process";
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("not Prescott (OPENBLAS_CORETYPE must be set"),
            std::string::npos)
      << b.status().message();
}

}  // namespace
}  // namespace ig::testing
