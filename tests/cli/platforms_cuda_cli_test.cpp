// `infergap platforms` lists the cuda platforms on every machine; where they cannot run, each says
// why (no GPU, or a build without CUDA) and the probe survives it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "../support/cli.h"
#include "../support/onnx_builder.h"

namespace ig {
namespace {

using testing::run_cli;
using testing::TempDir;

TEST(PlatformsCudaCli, ListsEveryCudaPlatformWithAReasonWhereItCannotRun) {
  TempDir dir;
  ::setenv("INFERGAP_CACHE_DIR", dir.file("cache").c_str(), 1);
  auto r = run_cli("platforms --json --preset cuda");
  ::unsetenv("INFERGAP_CACHE_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::set<std::string> specs;
  for (const auto& p : j["platforms"]) specs.insert(p["spec"].get<std::string>());
  for (const char* s : {"cuda", "cuda:algo=implicit-gemm", "cuda:algo=implicit-precomp-gemm",
                        "cuda:algo=gemm", "cuda:algo=direct", "cuda:algo=fft",
                        "cuda:algo=fft-tiling", "cuda:algo=winograd", "cuda:algo=winograd-nonfused",
                        "cuda:algo=autotune", "cuda:algo=autotune-median", "cuda:tf32=on"}) {
    EXPECT_TRUE(specs.count(s)) << s << " not listed";
  }
  // No device node: no driver can reach a GPU, so every cuda platform must be unavailable.
  const bool no_device_node = ::access("/dev/nvidiactl", F_OK) != 0;
  for (const auto& p : j["platforms"]) {
    const std::string reason = p["reason"];
    if (no_device_node) {
      EXPECT_FALSE(p["available"].get<bool>()) << p["spec"];
    }
    if (p["available"].get<bool>()) continue;
    EXPECT_EQ(p["verdict"], "unsupported") << p["spec"] << ": " << reason;
    const bool no_gpu =
        reason.find("no CUDA device: cudaGetDeviceCount returned") != std::string::npos;
    const bool unbuilt = reason.find("built without the cuda backend") != std::string::npos;
    EXPECT_TRUE(no_gpu || unbuilt) << p["spec"] << ": " << reason;
  }
}

}  // namespace
}  // namespace ig
