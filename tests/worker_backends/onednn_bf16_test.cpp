// onednn:dtype=bf16 runs oneDNN's bf16 kernels on a CPU with AVX512-BF16, and the matrix-unit
// emulator reproduces them bit for bit: VDPBF16PS's pairs (odd product first) along K ordered
// (tap, channel), each tap's channels padded to a pair (ref:mma=avx512-bf16). On a CPU with AMX
// oneDNN picks the AMX kernels unless `isa` holds it to avx512_core_bf16; its AMX inner products
// are TDPBF16PS's chain (ref:mma=amx-bf16).
#include "backend_test_util.h"

namespace ig::testing {
namespace {

// X -> Conv(3 channels: pairs straddle taps unless padded) -> Relu -> Conv(16) -> Flatten
// -> Gemm -> Y.
onnx::ModelProto conv_conv_gemm() {
  GraphBuilder b;
  b.io(true, "X", {1, 3, 8, 8});
  b.io(false, "Y", {1, 10});
  auto* c1 = b.node("Conv", "conv1", {"X", b.weight("w1", {16, 3, 3, 3}, 0.7f)}, {"c1"});
  GraphBuilder::ints(c1, "pads", {1, 1, 1, 1});
  b.node("Relu", "relu", {"c1"}, {"r"});
  auto* c2 = b.node("Conv", "conv2", {"r", b.weight("w2", {4, 16, 3, 3}, 0.4f)}, {"c2"});
  GraphBuilder::ints(c2, "strides", {2, 2});
  b.node("Flatten", "flat", {"c2"}, {"f"});
  auto* g = b.node("Gemm", "fc", {"f", b.weight("wf", {10, 36}, 0.3f)}, {"Y"});
  GraphBuilder::integer(g, "transB", 1);
  return b.model;
}

TEST(OnednnBf16, KernelsAreTheEmulatedVdpbf16psBitForBit) {
  if (!__builtin_cpu_supports("avx512bf16")) GTEST_SKIP() << "CPU lacks avx512_bf16";
  TempDir dir;
  auto model = load_model(save(conv_conv_gemm(), dir.path.string(), "ccg.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 8, 8}, 3)}};
  const Outcome bf16 =
      run_platform("onednn:dtype=bf16,fuse=off,isa=avx512_core_bf16", *model, feeds);
  const Outcome emulated = run_platform("ref:mma=avx512-bf16", *model, feeds);
  const Outcome fp32 = run_platform("onednn:fuse=off", *model, feeds);
  ASSERT_TRUE(bf16.status.ok()) << bf16.status.to_string();
  ASSERT_TRUE(emulated.status.ok()) << emulated.status.to_string();
  ASSERT_TRUE(fp32.status.ok()) << fp32.status.to_string();
  for (const auto& [node, r] : bf16.reports) {
    if (node == "conv1" || node == "conv2" || node == "fc") {
      EXPECT_NE(r.note.find("avx512_core_bf16"), std::string::npos) << node << ": " << r.note;
    }
  }
  for (const char* v : {"c1", "c2", "Y"}) {
    const Tensor& got = bf16.trace.at(v);
    EXPECT_EQ(tensor_hash(got), tensor_hash(emulated.trace.at(v))) << v;
    EXPECT_NE(tensor_hash(got), tensor_hash(fp32.trace.at(v))) << v << ": bf16 changed nothing";
  }
}

// X (fp32) -> Cast bf16 -> Gemm (weights cast to bf16) -> Relu -> Add -> Cast fp32 -> Y: a bf16
// graph as convert and exporters write it.
onnx::ModelProto bf16_graph() {
  GraphBuilder b(14);  // Relu takes bf16 from opset 14
  b.io(true, "X", {2, 24});
  b.io(false, "Y", {2, 8});
  auto cast = [&](const std::string& name, const std::string& in, const std::string& out, int to) {
    GraphBuilder::integer(b.node("Cast", name, {in}, {out}), "to", to);
  };
  cast("cx", "X", "xb", 16);
  cast("cw", b.weight("w", {8, 24}, 0.5f), "wb", 16);
  cast("cb", b.weight("bias", {8}, 0.5f), "bb", 16);
  GraphBuilder::integer(b.node("Gemm", "fc", {"xb", "wb", "bb"}, {"g"}), "transB", 1);
  b.node("Relu", "relu", {"g"}, {"r"});
  b.node("Add", "add", {"r", "g"}, {"s"});
  cast("cy", "s", "Y", 1);
  return b.model;
}

TEST(OnednnBf16, Bf16GraphsRunOnOnednnItself) {
  if (!__builtin_cpu_supports("avx512bf16")) GTEST_SKIP() << "CPU lacks avx512_bf16";
  TempDir dir;
  auto model = load_model(save(bf16_graph(), dir.path.string(), "bf16.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {2, 24}, 4)}};
  const Outcome o = run_platform("onednn:fuse=off", *model, feeds);
  const Outcome ref = run_platform("ref", *model, feeds);
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  for (const auto& [node, r] : o.reports)
    EXPECT_EQ(r.note.find("fallback"), std::string::npos) << node << ": " << r.note;
  // Casts round to nearest even as ref does; the bf16 Gemm sums in fp32 and rounds once.
  EXPECT_EQ(tensor_hash(o.trace.at("xb")), tensor_hash(ref.trace.at("xb")));
  EXPECT_EQ(o.trace.at("g").dtype(), DType::kBFloat16);
  EXPECT_LT(max_rel_error(o.outputs[0].tensor, ref.outputs[0].tensor), 1e-2);
}

// One node on X [1, ic, 16, 16] -> Y: a 3x3 convolution, or (ic = 0) a Gemm [16 x 100] x [100 x
// 24].
onnx::ModelProto one_node(int64_t ic) {
  GraphBuilder b;
  if (ic == 0) {
    b.io(true, "X", {16, 100});
    b.io(false, "Y", {16, 24});
    auto* g = b.node("Gemm", "node", {"X", b.weight("w", {24, 100}, 0.3f)}, {"Y"});
    GraphBuilder::integer(g, "transB", 1);
    return b.model;
  }
  b.io(true, "X", {1, ic, 16, 16});
  b.io(false, "Y", {1, 16, 16, 16});
  auto* c = b.node("Conv", "node", {"X", b.weight("w", {16, ic, 3, 3}, 0.3f)}, {"Y"});
  GraphBuilder::ints(c, "pads", {1, 1, 1, 1});
  return b.model;
}

// On a CPU with AMX, oneDNN 2.6 runs bf16 convolutions of 2 to 4 input channels on its jit AMX
// kernel, which lowers K as (kernel column, kernel row, channel) with no padding between taps
// (ref conv=relo), wider ones on its brgemm kernels, which give each tap's channels whole tile
// rows (the amx-bf16 preset pads them to 32), and most inner products on brgemm AMX too. Each
// node's note names the kernel; the emulation it names reproduces the node bit for bit.
TEST(OnednnBf16, AmxKernelsAreTheEmulatedTdpbf16psBitForBit) {
  if (!__builtin_cpu_supports("amx-bf16")) GTEST_SKIP() << "CPU lacks amx_bf16";
  TempDir dir;
  int amx_kernels = 0;
  for (int64_t ic : {3, 8, 0}) {
    SCOPED_TRACE("input channels " + std::to_string(ic));
    auto model = load_model(save(one_node(ic), dir.path.string(), "n.onnx"));
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    const Shape shape = ic == 0 ? Shape{16, 100} : Shape{1, ic, 16, 16};
    const std::map<std::string, Tensor> feeds = {
        {"X", random_uniform_tensor(DType::kFloat32, shape, 6)}};
    const Outcome lib = run_platform("onednn:dtype=bf16", *model, feeds);
    ASSERT_TRUE(lib.status.ok()) << lib.status.to_string();
    std::string note;
    for (const auto& [node, r] : lib.reports)
      if (node == "node") note = r.note;
    std::string emulator = "ref:mma=avx512-bf16";
    if (note.find("amx") != std::string::npos) {
      ++amx_kernels;
      emulator = note.rfind("jit:", 0) == 0 ? "ref:mma=amx-bf16,conv=relo" : "ref:mma=amx-bf16";
    }
    const Outcome emulated = run_platform(emulator, *model, feeds);
    ASSERT_TRUE(emulated.status.ok()) << emulated.status.to_string();
    EXPECT_EQ(tensor_hash(lib.outputs[0].tensor), tensor_hash(emulated.outputs[0].tensor))
        << note << " vs " << emulator;
  }
  EXPECT_GT(amx_kernels, 0) << "oneDNN ran no AMX kernel on a CPU with AMX";
}

TEST(OnednnBf16, DtypeIsAKnobWithItsValues) {
  const Outcome bad = run_platform("onednn:dtype=fp8", Model{}, {});
  ASSERT_FALSE(bad.status.ok());
  EXPECT_NE(bad.status.message().find("fp32, bf16"), std::string::npos) << bad.status.message();
}

}  // namespace
}  // namespace ig::testing
