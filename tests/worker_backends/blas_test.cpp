#include <sched.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
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
                                                          "core, arch, threads, dtype)"),
            std::string::npos);
  auto dtype = parse_platform_spec("blas:dtype=fp16");
  EXPECT_NE(parse_blas_spec(*dtype).status().message().find("dtype=fp16 is not valid"),
            std::string::npos)
      << parse_blas_spec(*dtype).status().message();
  EXPECT_TRUE(parse_blas_spec(*parse_platform_spec("blas:dtype=fp64"))->fp64);
  EXPECT_FALSE(parse_blas_spec(*parse_platform_spec("blas:dtype=fp32"))->fp64);
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
  double bound_share = -1;  // the largest error as a share of gamma_K * sum |a_k b_k| (fp32)
  int signal = 0;
};

SgemmRun sgemm_in_child(const std::string& spec) {
  ChildResult r = run_child("Child.DISABLED_Sgemm", child_env(spec));
  SgemmRun s;
  s.signal = r.signal;
  s.active = child_field(r.out, "ACTIVE");
  s.hash = child_field(r.out, "OUT");
  if (!s.hash.empty()) s.bound_share = std::stod(child_field(r.out, "BOUND_SHARE"));
  return s;
}

// The sgemm ran and every element is within the bound of any summation order.
void expect_within_bound(const SgemmRun& s, const std::string& label) {
  ASSERT_FALSE(s.hash.empty()) << label;
  EXPECT_GE(s.bound_share, 0) << label;
  EXPECT_LE(s.bound_share, 1.0) << label;
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
    expect_within_bound(s, core);
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
  // OpenBLAS uses at most as many threads as the process may run on.
  cpu_set_t usable;
  if (sched_getaffinity(0, sizeof(usable), &usable) == 0 && CPU_COUNT(&usable) < 2)
    GTEST_SKIP() << "this process may use one CPU only";
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
    expect_within_bound(s, arch);
    hash_of[arch] = s.hash;
    distinct.insert(s.hash);
  }
  // Measured (BLIS 0.9.0): penryn shares sandybridge's kernel; the others differ.
  EXPECT_EQ(hash_of["penryn"], hash_of["sandybridge"]);
  EXPECT_EQ(distinct.size(), archs.size() - 1);
}

struct DgemmRun {
  std::string active, hash;
  double bound_share = -1;  // the largest error as a share of gamma_K * sum |a_k b_k|
  std::string panel_matches;
  int signal = 0;
};

DgemmRun dgemm_in_child(const std::string& spec, int64_t K, const std::string& panels = "") {
  auto env = child_env(spec);
  env["IG_TEST_K"] = std::to_string(K);
  env["IG_TEST_PANELS"] = panels;
  ChildResult r = run_child("Child.DISABLED_Dgemm", env);
  DgemmRun d;
  d.signal = r.signal;
  d.active = child_field(r.out, "ACTIVE");
  d.hash = child_field(r.out, "OUT");
  d.panel_matches = child_field(r.out, "PANEL_MATCHES");
  if (!d.hash.empty()) d.bound_share = std::stod(child_field(r.out, "BOUND_SHARE"));
  return d;
}

// fp64 bit for bit: each library's dgemm equals the scalar transcription of its panel order
// (blas_orders.h) for one panel (K = 100), two halved panels (K = 300) and several (K = 700).
// OpenBLAS 0.3.21: GEMM_Q 128 on Prescott, 256 elsewhere; GEMM_UNROLL_M 2 on Nehalem, else 4; FMA
// from Haswell on. BLIS 0.9 generic/sandybridge: KC 256, penryn: KC 384, no FMA.
TEST(Blas, DgemmFollowsTheTranscribedPanelOrderBitForBit) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"blas:lib=openblas,core=Prescott", "openblas:128:4:0"},
      {"blas:lib=openblas,core=Nehalem", "openblas:256:2:0"},
      {"blas:lib=openblas,core=Sandybridge", "openblas:256:4:0"},
      {"blas:lib=openblas,core=Haswell", "openblas:256:4:1"},
      {"blas:lib=openblas,core=Zen", "openblas:256:4:1"},
      {"blas:arch=generic,lib=blis", "blis:256:0"},
      {"blas:arch=sandybridge,lib=blis", "blis:256:0"},
      {"blas:arch=penryn,lib=blis", "blis:384:0"}};
  for (const auto& [spec, panels] : cases) {
    for (int64_t K : {100, 300, 700}) {
      DgemmRun d = dgemm_in_child(spec, K, panels);
      ASSERT_EQ(d.signal, 0) << spec;
      EXPECT_EQ(d.panel_matches, "512/512") << spec << " K=" << K << " panels " << panels;
    }
  }
  // The transcription is not vacuous: another order misses (FMA on a kernel without it).
  EXPECT_NE(
      dgemm_in_child("blas:lib=openblas,core=Sandybridge", 700, "openblas:256:4:1").panel_matches,
      "512/512");
}

// Every dgemm kernel this CPU runs, whatever its order (BLIS's haswell and zen3 micro-kernels are
// not transcribed), stays within the error bound of any summation order against the oracle's
// compensated dot products.
TEST(Blas, DgemmWithinTheOracleBound) {
  std::vector<std::string> specs = {"blas:lib=openblas,core=Prescott",
                                    "blas:lib=openblas,core=Haswell",
                                    "blas:lib=openblas,core=Haswell,threads=2",
                                    "blas:arch=haswell,lib=blis",
                                    "blas:arch=zen3,lib=blis",
                                    "blas:arch=generic,lib=blis"};
  if (has_avx512()) {
    specs.push_back("blas:lib=openblas,core=SkylakeX");
    specs.push_back("blas:arch=skx,lib=blis");
  }
  for (const auto& spec : specs) {
    DgemmRun d = dgemm_in_child(spec, 4096);
    ASSERT_EQ(d.signal, 0) << spec;
    ASSERT_FALSE(d.hash.empty()) << spec;
    EXPECT_GE(d.bound_share, 0) << spec;
    EXPECT_LE(d.bound_share, 1.0) << spec;
  }
}

// The hash of Y from `spec` run in a child with its environment (Child.DISABLED_RunSpec), and the
// emulator's in this process, on the same seeded input.
// The model is long_conv(cin, 16, 12, ...).
std::pair<std::string, std::string> platform_vs_emulator(const std::string& model_path, int64_t cin,
                                                         const std::string& spec,
                                                         const std::string& emulator) {
  auto env = child_env(spec);
  env["IG_TEST_MODEL"] = model_path;
  ChildResult r = run_child("Child.DISABLED_RunSpec", env);
  EXPECT_EQ(child_field(r.out, "ERROR"), "") << spec;
  auto model = load_model(model_path);
  EXPECT_TRUE(model.ok());
  std::map<std::string, Tensor> feeds;
  feeds["X"] = random_uniform_tensor(DType::kFloat32, {1, cin, 12, 12}, 7);
  Outcome o = run_platform(emulator, *model, feeds);
  EXPECT_TRUE(o.status.ok()) << o.status.to_string();
  if (o.outputs.empty()) return {child_field(r.out, "OUT"), ""};
  EXPECT_EQ(o.outputs[0].tensor.dtype(), DType::kFloat64) << emulator;
  return {child_field(r.out, "OUT"), hex_hash(o.outputs[0].tensor)};
}

// dtype=fp64 runs the whole model in fp64 with every GEMM a dgemm of the library. Where the order
// is transcribed the emulator states it: BLIS generic's KC = 256 panels are ref's block256 (a
// convolution with K = 64 * 9 = 576 terms: three panels), OpenBLAS Haswell's single FMA chain
// (K = 16 * 9 = 144 <= GEMM_Q) is ref's fma=on.
TEST(Blas, Fp64PlatformEqualsTheEmulatedOrderBitForBit) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("infergap-blas-fp64-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string wide = save(long_conv(64, 16, 12, 0.3f), dir.string(), "k576.onnx");
  const std::string narrow = save(long_conv(16, 16, 12, 0.3f), dir.string(), "k144.onnx");
  const std::string blis_spec = "blas:arch=generic,dtype=fp64,lib=blis";
  auto [blis, block] =
      platform_vs_emulator(wide, 64, blis_spec, "ref:acc=block256,conv=im2col,dtype=fp64");
  EXPECT_FALSE(blis.empty());
  EXPECT_EQ(blis, block);
  // Not vacuous: one sequential chain over all 576 terms gives other bits.
  auto [again, seq] = platform_vs_emulator(wide, 64, blis_spec, "ref:conv=im2col,dtype=fp64");
  EXPECT_EQ(again, blis);
  EXPECT_NE(again, seq);
  auto [haswell, fma] = platform_vs_emulator(
      narrow, 16, "blas:core=Haswell,dtype=fp64,lib=openblas", "ref:conv=im2col,dtype=fp64,fma=on");
  EXPECT_FALSE(haswell.empty());
  EXPECT_EQ(haswell, fma);
  // Fp32-valued operands multiply exactly in fp64, so here FMA or not gives the same bits: only
  // the order of the sums tells fp64 kernels apart.
  auto [haswell2, plain] = platform_vs_emulator(
      narrow, 16, "blas:core=Haswell,dtype=fp64,lib=openblas", "ref:conv=im2col,dtype=fp64");
  EXPECT_EQ(haswell2, plain);
  std::filesystem::remove_all(dir);
}

// A kernel built for another CPU either dies with SIGILL and nothing else, or runs as the kernel
// asked for and computes a correct sgemm, within the bound of any summation order. A wrong result,
// another signal or a silent fallback to another kernel fails.
void expect_correct_or_sigill(const std::string& spec, const std::string& kernel) {
  SgemmRun s = sgemm_in_child(spec);
  if (s.signal == SIGILL) {
    EXPECT_TRUE(s.hash.empty()) << spec;
    return;
  }
  ASSERT_EQ(s.signal, 0) << spec;
  EXPECT_EQ(s.active, kernel) << spec;
  expect_within_bound(s, spec);
}

// The Opteron/Bulldozer family's kernels use 3DNow!-era prefetches, SSE4a, FMA4 and XOP. Whether a
// CPU executes them is not in its CPUID flags alone (first-generation Zen runs FMA4 without
// reporting it; a hypervisor may hide or trap instructions), so the test does not predict which
// branch it takes; the probe reports the same outcome
// (PlatformsCli.ProbeAgreesWithWhatAKernelForAnotherCpuDoes).
TEST(Blas, OpenblasCoresOfOtherCpusRunCorrectlyOrDieWithSigill) {
  for (const std::string core :
       {"Opteron", "Barcelona", "Bulldozer", "Piledriver", "Steamroller", "Excavator"})
    expect_correct_or_sigill("blas:lib=openblas,core=" + core, core);
}

// BLIS's knl (AVX-512 with Xeon Phi's prefetch and exponential extensions) and AMD's FMA4 cores.
TEST(Blas, BlisArchitecturesOfOtherCpusRunCorrectlyOrDieWithSigill) {
  for (const std::string arch : {"knl", "bulldozer", "piledriver", "steamroller", "excavator"})
    expect_correct_or_sigill("blas:lib=blis,arch=" + arch, arch);
}

// Without the environment at start-up, the platform refuses instead of silently running another
// core type.
TEST(Blas, WrongCoreInThisProcessIsRefused) {
  if (std::getenv("OPENBLAS_CORETYPE")) GTEST_SKIP() << "OPENBLAS_CORETYPE set for this process";
  // Any core but the one OpenBLAS picked for this CPU: 0.3.21 picks Prescott on a CPU its table
  // does not know (a 2-core Emerald Rapids VM without AMX, docs/HOSTS.md).
  for (const std::string core : {"Prescott", "Nehalem"}) {
    auto b = make_backend(*parse_platform_spec("blas:lib=openblas,core=" + core));
    if (b.ok()) continue;  // this process's own core
    EXPECT_NE(b.status().message().find("not " + core + " (OPENBLAS_CORETYPE must be set"),
              std::string::npos)
        << b.status().message();
    return;
  }
  FAIL() << "OpenBLAS accepted two different cores in one process";
}

}  // namespace
}  // namespace ig::testing
