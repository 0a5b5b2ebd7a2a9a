#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "../support/cli.h"
#include "../support/onnx_builder.h"
#include "core/version.h"
#include "worker/probe.h"

namespace ig {
namespace {

using testing::run_cli;
using testing::TempDir;

class PlatformsCli : public ::testing::Test {
 protected:
  TempDir dir;
  void SetUp() override { ::setenv("INFERGAP_CACHE_DIR", dir.file("cache").c_str(), 1); }
  void TearDown() override { ::unsetenv("INFERGAP_CACHE_DIR"); }
};

const nlohmann::json& entry(const nlohmann::json& j, const std::string& spec) {
  for (const auto& p : j["platforms"])
    if (p["spec"] == spec) return p;
  static const nlohmann::json none;
  ADD_FAILURE() << spec << " not listed";
  return none;
}

TEST_F(PlatformsCli, ProbesByRunningAndSurvivesPlatformsThatDie) {
  auto r = run_cli("platforms --json --preset crashtest -p ref");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["platforms"].size(), 4u);
  EXPECT_EQ(entry(j, "ref")["available"], true);
  EXPECT_EQ(entry(j, "ref")["backend"], "ref");
  EXPECT_EQ(entry(j, "crashtest")["available"], true);
  const auto& segv = entry(j, "crashtest:signal=SEGV");
  EXPECT_EQ(segv["available"], false);
  EXPECT_EQ(segv["verdict"], "crash");
  EXPECT_EQ(segv["reason"].get<std::string>().rfind("SIGSEGV: ", 0), 0u) << segv["reason"];
  const auto& ill = entry(j, "crashtest:load=ILL");
  EXPECT_EQ(ill["available"], false);
  EXPECT_EQ(ill["reason"].get<std::string>().rfind("SIGILL: ", 0), 0u) << ill["reason"];
  EXPECT_EQ(ill["cached"], false);

  // The second call answers from the cache for this host.
  auto again = nlohmann::json::parse(run_cli("platforms --json --preset crashtest").out);
  EXPECT_EQ(entry(again, "crashtest:load=ILL")["cached"], true);
  EXPECT_EQ(entry(again, "crashtest:load=ILL")["reason"], ill["reason"]);
  auto fresh = nlohmann::json::parse(run_cli("platforms --json --preset crashtest --refresh").out);
  EXPECT_EQ(entry(fresh, "crashtest:load=ILL")["cached"], false);
}

TEST_F(PlatformsCli, DefaultListHidesTestPlatformsAndPresetsAreChecked) {
  auto r = run_cli("platforms --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const auto& p : j["platforms"]) EXPECT_NE(p["backend"], "crashtest") << p["spec"];
  EXPECT_EQ(entry(j, "ref")["available"], true);
  // Each platform names the library it ran and its version, as the library reports it.
  EXPECT_EQ(entry(j, "ref")["library"], "infergap-ref");
  EXPECT_EQ(entry(j, "ref")["version"], kInfergapVersion);
  const std::set<std::string> reporting = {"ref", "blas", "onednn", "opencv", "ort", "torch"};
  size_t versioned = 0;
  for (const auto& p : j["platforms"]) {
    if (!p["available"] || !reporting.count(p["backend"].get<std::string>())) continue;
    EXPECT_FALSE(p["library"].get<std::string>().empty()) << p["spec"];
    EXPECT_FALSE(p["version"].get<std::string>().empty()) << p["spec"];
    versioned += !p["version"].get<std::string>().empty();
  }
  EXPECT_GE(versioned, 10u);
  auto bad = run_cli("platforms --preset nosuch");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown preset 'nosuch' (presets: all, "), std::string::npos) << bad.err;
}

// What each binding declares, without probing: a knob's default, the cause it steers and, for a
// compiled/eager switch, the eager value.
TEST_F(PlatformsCli, KnobsListWhatTheBindingsDeclare) {
  auto r = run_cli("platforms --knobs --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  auto knob = [&](const std::string& backend, const std::string& key) {
    for (const auto& k : j.at(backend))
      if (k["key"] == key) return k;
    ADD_FAILURE() << backend << ":" << key << " not listed";
    return nlohmann::json();
  };
  EXPECT_EQ(knob("onednn", "fpmath")["cause"], "precision");
  EXPECT_EQ(knob("onednn", "fpmath")["default"], "strict");
  EXPECT_EQ(knob("ort", "opt")["eager"], "disabled");
  // Two releases of one library: an upgrade is a cause of its own.
  EXPECT_EQ(knob("ort", "version")["cause"], "library-version");
  EXPECT_EQ(knob("ort", "version")["values"], (nlohmann::json{"1.30", "1.31"}));
  EXPECT_EQ(knob("ref", "acc")["value_causes"][0]["value"], "lanes*");
  auto text = run_cli("platforms --knobs");
  EXPECT_NE(text.out.find("  fuse           default on         cause fusion; eager: off"),
            std::string::npos)
      << text.out;
}

// A release from PyPI without the venv is a verdict that says how to get it, never a crash.
TEST_F(PlatformsCli, AReleaseFromPypiWithoutTheVenvSaysHowToGetIt) {
  const std::string model = dir.file("cnn.onnx");
  ASSERT_TRUE(write_probe_model(model).ok());
  ::setenv("INFERGAP_PYTHON", dir.file("no-python").c_str(), 1);
  auto r = run_cli("run " + model + " -p ort:version=1.31 -p ref --json");
  ::unsetenv("INFERGAP_PYTHON");
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["platforms"].size(), 2u) << r.out;
  EXPECT_EQ(j["platforms"][0]["verdict"], "unsupported");
  EXPECT_NE(j["platforms"][0]["reason"].get<std::string>().find("scripts/setup --tests"),
            std::string::npos)
      << j["platforms"][0]["reason"];
  EXPECT_EQ(j["platforms"][1]["verdict"], "ok");
  EXPECT_EQ(j["platforms"][1]["library"], "infergap-ref");
}

TEST_F(PlatformsCli, RunIsolatesEachPlatformAndGroupsIdenticalOutputs) {
  const std::string model = dir.file("cnn.onnx");
  ASSERT_TRUE(write_probe_model(model).ok());
  auto r = run_cli("run " + model +
                   " -p ref -p crashtest:signal=SEGV -p crashtest -p crashtest:load=ILL --json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["platforms"].size(), 4u);
  EXPECT_EQ(j["platforms"][0]["verdict"], "ok");
  EXPECT_EQ(j["platforms"][1]["verdict"], "crash");
  EXPECT_NE(j["platforms"][1]["repro"].get<std::string>().find("-p 'crashtest:signal=SEGV'"),
            std::string::npos);
  EXPECT_EQ(j["platforms"][2]["verdict"], "ok");
  EXPECT_EQ(j["platforms"][3]["verdict"], "crash");
  EXPECT_EQ(j["platforms"][0]["outputs"][0]["hash"], j["platforms"][2]["outputs"][0]["hash"]);
  ASSERT_EQ(j["groups"].size(), 1u);
  EXPECT_EQ(j["groups"][0], nlohmann::json::array({"ref", "crashtest"}));

  auto text = run_cli("run " + model + " -p ref -p crashtest:signal=ABRT -p crashtest");
  EXPECT_NE(text.out.find("SIGABRT: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1 group(s) of platforms with bitwise-identical outputs:"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("A {ref, crashtest}"), std::string::npos) << text.out;
}

// The probe says what running a platform does. OpenBLAS's and BLIS's kernels for other CPUs
// (FMA4, XOP, Xeon Phi's AVX-512 extensions) may or may not execute here, which CPUID alone does
// not tell: a kernel the probe finds unavailable is reported as SIGILL and crashes a run; one it
// finds available runs. tests/worker_backends/blas_test.cpp checks the kernels' results.
TEST_F(PlatformsCli, ProbeAgreesWithWhatAKernelForAnotherCpuDoes) {
  const std::string model = dir.file("cnn.onnx");
  ASSERT_TRUE(write_probe_model(model).ok());
  const std::vector<std::string> specs = {"blas:core=Opteron,lib=openblas",
                                          "blas:core=Bulldozer,lib=openblas",
                                          "blas:arch=knl,lib=blis"};
  std::string flags;
  for (const auto& spec : specs) flags += " -p '" + spec + "'";
  auto probe = run_cli("platforms --json" + flags);
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  auto j = nlohmann::json::parse(probe.out);
  for (const auto& spec : specs) {
    const auto& p = entry(j, spec);
    auto run = run_cli("run " + model + " -p '" + spec + "' --json");
    auto r = nlohmann::json::parse(run.out);
    ASSERT_EQ(r["platforms"].size(), 1u) << run.out;
    if (p["available"] == true) {
      EXPECT_EQ(run.exit_code, 0) << spec << ": " << run.err;
      EXPECT_EQ(r["platforms"][0]["verdict"], "ok") << spec;
    } else {
      EXPECT_EQ(p["verdict"], "crash") << spec;
      EXPECT_EQ(p["reason"].get<std::string>().rfind("SIGILL: ", 0), 0u) << p["reason"];
      EXPECT_EQ(r["platforms"][0]["verdict"], "crash") << spec;
    }
  }
}

}  // namespace
}  // namespace ig
