// The matrix-unit emulator against bits recorded on real hardware (data/amx-emeraldrapids): oneDNN
// 2.6's bf16 kernels on an AMX CPU, each reproduced by the unit and the K order its note names.
// Runs on any CPU: the recorded outputs stand in for the machine.
#include <gtest/gtest.h>

#include <cstring>

#include "backends/ref/numerics.h"
#include "backends/ref/ref_backend.h"
#include "model/npy.h"
#include "model/onnx_model.h"

namespace ig {
namespace mma_recorded_test {
namespace {

const std::string kDir =
    std::string(INFERGAP_SOURCE_DIR) + "/tests/backends/ref/data/amx-emeraldrapids/";

// Runs `model` on ref with `knobs` on its recorded input; true when the output's bits are those
// of `recorded`.
bool reproduces(const std::string& model, const std::map<std::string, std::string>& knobs,
                const std::string& recorded) {
  auto m = load_model(kDir + model + ".onnx");
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  auto x = read_npy(kDir + model + ".x.npy");
  auto want = read_npy(kDir + model + "." + recorded + ".npy");
  EXPECT_TRUE(x.ok() && want.ok());
  auto numerics = parse_numerics(knobs);
  EXPECT_TRUE(numerics.ok()) << numerics.status().to_string();
  if (!m.ok() || !x.ok() || !want.ok() || !numerics.ok()) return false;
  RefBackend backend(*numerics);
  auto out = backend.run(*m, {{"x", *x}}, nullptr);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  if (!out.ok()) return false;
  const Tensor& got = (*out)[0].tensor;
  return got.bytes().size() == want->bytes().size() &&
         std::memcmp(got.bytes().data(), want->bytes().data(), got.bytes().size()) == 0;
}

TEST(MatrixUnitRecorded, OnednnJitAmxConvolutionIsReducedLowering) {
  // 3 input channels: oneDNN's jit AMX kernel orders K (kernel column, kernel row, channel).
  EXPECT_TRUE(reproduces("c3_k3", {{"mma", "amx-bf16"}, {"conv", "relo"}}, "onednn-amx"));
  EXPECT_FALSE(reproduces("c3_k3", {{"mma", "amx-bf16"}}, "onednn-amx"));
}

TEST(MatrixUnitRecorded, OnednnBrgemmAmxGivesEachTapWholeTileRows) {
  // 8 channels per tap padded to a 32-element tile row: with pairs only (mma-pad=2) the chunks of
  // 32 products fall elsewhere and the bits differ.
  EXPECT_TRUE(reproduces("c8_k3", {{"mma", "amx-bf16"}}, "onednn-amx"));
  EXPECT_FALSE(reproduces("c8_k3", {{"mma", "amx-bf16"}, {"mma-pad", "2"}}, "onednn-amx"));
  EXPECT_TRUE(reproduces("g16_k100", {{"mma", "amx-bf16"}}, "onednn-amx"));
}

TEST(MatrixUnitRecorded, OnednnAvx512Bf16OnTheSameCpu) {
  EXPECT_TRUE(reproduces("c8_k3", {{"mma", "avx512-bf16"}}, "onednn-avx512bf16"));
  EXPECT_FALSE(reproduces("c8_k3", {{"mma", "amx-bf16"}}, "onednn-avx512bf16"));
}

}  // namespace
}  // namespace mma_recorded_test
}  // namespace ig
