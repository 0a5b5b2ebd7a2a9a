// The `torch` platform through the CLI, in its workers: the mkldnn knob picks ATen's oneDNN
// convolution or its im2col + BLAS one, which sum a 576-term reduction in different orders.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/onnx_builder.h"

namespace ig {
namespace {

using testing::run_cli;
using testing::TempDir;

TEST(TorchCli, MkldnnKnobGivesItsOwnClass) {
  TempDir dir;
  const std::string model = dir.file("conv.onnx");
  ASSERT_EQ(run_cli("zoo conv -o " + model +
                    " --kernel 3 --filters 16 --channels 64 --height 32 --width 32")
                .exit_code,
            0);
  const auto r =
      run_cli("run " + model + " -p torch -p torch:mkldnn=off -p torch:threads=2 --json");
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  if (j["platforms"][0]["verdict"] != "ok" && r.out.find("unknown backend") != std::string::npos) {
    GTEST_SKIP() << "built without libtorch";
  }
  for (const auto& p : j["platforms"]) ASSERT_EQ(p["verdict"], "ok") << p.dump();
  // mkldnn on (1 or 2 threads: oneDNN's direct conv splits over outputs, not sums) vs off.
  ASSERT_EQ(j["groups"].size(), 2u) << j["groups"].dump();
  EXPECT_EQ(j["platforms"][0]["group"], j["platforms"][2]["group"]);
  EXPECT_NE(j["platforms"][0]["group"], j["platforms"][1]["group"]);
}

}  // namespace
}  // namespace ig
