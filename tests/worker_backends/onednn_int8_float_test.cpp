// oneDNN's int8 kernels on a QDQ group with no QuantizeLinear after it (Q/DQ on the inputs of Conv
// only, the layout TensorRT's explicit quantization, ModelOpt and ONNX Runtime's
// OpTypesToExcludeOutputQuantization write): one integer primitive with an f32 destination, which
// the emulator `ref:qdq=int` reproduces bit for bit; on avx2 with `madd=sat16` added.
#include <cstdio>
#include <cstring>
#include <sstream>

#include "backend_test_util.h"

namespace ig::testing::onednn_int8_float {
namespace {

constexpr int64_t kIc = 8, kOc = 3, kHw = 5;

// X -> Q (u8, zero point 128) -> DQ -> Conv(DQ(s8 w per channel), DQ(int32 bias)) 3x3 pads 1 ->
// Relu -> Y, float. Channel 0's weights are all 127, so that pairs of u8 x s8 products exceed
// int16 where X is large.
onnx::ModelProto float_output_conv() {
  GraphBuilder b;
  b.io(true, "X", {1, kIc, kHw, kHw});
  b.io(false, "Y", {1, kOc, kHw, kHw});
  const float xs = 0.03f;
  const std::vector<float> ws = {0.004f, 0.011f, 0.0075f};
  std::vector<int8_t> w(kOc * kIc * 9, 127);
  for (size_t i = kIc * 9; i < w.size(); ++i) w[i] = static_cast<int8_t>(int(i * 37 % 255) - 127);
  b.init<float>("xs", {xs}, {});
  b.init<uint8_t>("xz", {128}, {});
  b.init<int8_t>("wq", w, {kOc, kIc, 3, 3});
  b.init<float>("ws", ws, {kOc});
  b.init<int8_t>("wz", {0, 0, 0}, {kOc});
  b.init<int32_t>("bq", {1000, -7000, 300}, {kOc});
  b.init<float>("bs", {xs * ws[0], xs * ws[1], xs * ws[2]}, {kOc});
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  b.node("DequantizeLinear", "dqx", {"xq", "xs", "xz"}, {"xd"});
  GraphBuilder::integer(b.node("DequantizeLinear", "dqw", {"wq", "ws", "wz"}, {"wd"}), "axis", 0);
  GraphBuilder::integer(b.node("DequantizeLinear", "dqb", {"bq", "bs"}, {"bd"}), "axis", 0);
  GraphBuilder::ints(b.node("Conv", "conv", {"xd", "wd", "bd"}, {"c"}), "pads", {1, 1, 1, 1});
  b.node("Relu", "relu", {"c"}, {"Y"});
  return b.model;
}

// Seeded values over the whole u8 range after quantization, the top half large enough that
// channel 0's pairs saturate on avx2.
Tensor input() {
  Tensor x(DType::kFloat32, {1, kIc, kHw, kHw});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = (static_cast<float>(i * 97 % 256) - 128.0f) * 0.03f;
  return x;
}

// The output's bits (float) or values (8-bit), as text that a child process prints.
std::string bits_of(const Tensor& t) {
  std::string s;
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (t.dtype() != DType::kFloat32) {
      s += std::to_string(static_cast<int64_t>(t.as_double(i))) + " ";
      continue;
    }
    uint32_t u = 0;
    std::memcpy(&u, &t.data<float>()[i], 4);
    s += std::to_string(u) + " ";
  }
  return s;
}

struct Fixture {
  TempDir dir;
  std::string path = save(float_output_conv(), dir.path.string(), "inputs_only.onnx");
  Expected<Model> model = load_model(path);
};

// Runs IG_TEST_MODEL on IG_TEST_SPEC; prints Y's bits and the group's note.
TEST(OnednnInt8FloatChild, DISABLED_Run) {
  auto model = load_model(std::getenv("IG_TEST_MODEL"));
  ASSERT_TRUE(model.ok());
  const Outcome o = run_platform(std::getenv("IG_TEST_SPEC"), *model, {{"X", input()}});
  if (!o.status.ok()) {
    std::printf("\nERROR %s\n", o.status.to_string().c_str());
    return;
  }
  for (const auto& [node, r] : o.reports)
    if (node == "relu") std::printf("\nNOTE %s\n", r.note.c_str());
  std::printf("\nY %s\n", bits_of(o.outputs.at(0).tensor).c_str());
}

// The same for an s8 output, its bytes printed.
TEST(OnednnInt8FloatChild, DISABLED_RunS8) {
  auto model = load_model(std::getenv("IG_TEST_MODEL"));
  ASSERT_TRUE(model.ok());
  Tensor x(DType::kFloat32, {1, kIc, kHw, kHw});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = (static_cast<float>(i * 97 % 256) - 128.0f) * 0.05f;
  const Outcome o = run_platform(std::getenv("IG_TEST_SPEC"), *model, {{"X", x}});
  if (!o.status.ok()) {
    std::printf("\nERROR %s\n", o.status.to_string().c_str());
    return;
  }
  std::printf("\nY %s\n", bits_of(o.outputs.at(0).tensor).c_str());
}

struct ChildRun {
  std::string error, note, y;
};

ChildRun run_spec(const Fixture& f, const std::string& spec) {
  auto env = child_env(spec);
  env["IG_TEST_MODEL"] = f.path;
  env["IG_TEST_SPEC"] = spec;
  const ChildResult r = run_child("OnednnInt8FloatChild.DISABLED_Run", env);
  EXPECT_EQ(r.signal, 0) << spec;
  return {child_field(r.out, "ERROR"), child_field(r.out, "NOTE"), child_field(r.out, "Y")};
}

TEST(OnednnInt8, FloatOutputGroupIsTheEmulatorsIntegerKernelBitForBit) {
  Fixture f;
  ASSERT_TRUE(f.model.ok()) << f.model.status().to_string();
  const Outcome ref = run_platform("ref:qdq=int", *f.model, {{"X", input()}});
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  const Outcome sat = run_platform("ref:qdq=int,madd=sat16", *f.model, {{"X", input()}});
  ASSERT_TRUE(sat.status.ok()) << sat.status.to_string();
  ASSERT_NE(bits_of(sat.outputs[0].tensor), bits_of(ref.outputs[0].tensor))
      << "no pair saturates: the test cannot tell the kernels apart";

  const ChildRun avx2 = run_spec(f, "onednn:isa=avx2");
  ASSERT_EQ(avx2.error, "");
  EXPECT_NE(avx2.note.find("fused: int8 u8s8"), std::string::npos) << avx2.note;
  EXPECT_EQ(avx2.y, bits_of(sat.outputs[0].tensor)) << "avx2 is not madd=sat16";
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512vnni"))
    GTEST_SKIP() << "this CPU lacks avx512_vnni: the exact half did not run";
  const ChildRun vnni = run_spec(f, "onednn:isa=avx512_core_vnni");
  ASSERT_EQ(vnni.error, "");
  EXPECT_EQ(vnni.y, bits_of(ref.outputs[0].tensor)) << "VNNI is not exact int32";
}

// s8 activations on avx2: oneDNN halves the weights (its 0.5 weight scale) and adds the int32
// bias to the sum scaled back: `ref:qdq=int,wbits=7` bit for bit, bias included.
TEST(OnednnInt8, S8DataOnAvx2IsTheHalvedWeightsEmulatorWithItsBias) {
  GraphBuilder b;
  b.io(true, "X", {1, kIc, kHw, kHw});
  b.io(false, "Y", {1, kOc, kHw, kHw});
  std::vector<int8_t> w(kOc * kIc * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(int(i * 53 % 255) - 127);
  b.init<float>("xs", {0.05f}, {});
  b.init<int8_t>("xz", {0}, {});
  b.init<int8_t>("wq", w, {kOc, kIc, 3, 3});
  b.init<float>("ws", {0.01f, 0.01f, 0.01f}, {kOc});
  b.init<int8_t>("wz", {0, 0, 0}, {kOc});
  b.init<int32_t>("bq", {2500, -1700, 333}, {kOc});
  b.init<float>("bs", {0.0005f, 0.0005f, 0.0005f}, {kOc});
  b.init<float>("ys", {0.5f}, {});
  b.init<int8_t>("yz", {0}, {});
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  b.node("DequantizeLinear", "dqx", {"xq", "xs", "xz"}, {"xd"});
  GraphBuilder::integer(b.node("DequantizeLinear", "dqw", {"wq", "ws", "wz"}, {"wd"}), "axis", 0);
  GraphBuilder::integer(b.node("DequantizeLinear", "dqb", {"bq", "bs"}, {"bd"}), "axis", 0);
  GraphBuilder::ints(b.node("Conv", "conv", {"xd", "wd", "bd"}, {"c"}), "pads", {1, 1, 1, 1});
  b.node("QuantizeLinear", "qy", {"c", "ys", "yz"}, {"Y"});
  TempDir dir;
  const std::string path = save(b.model, dir.path.string(), "s8.onnx");
  auto model = load_model(path);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  Tensor x(DType::kFloat32, {1, kIc, kHw, kHw});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = (static_cast<float>(i * 97 % 256) - 128.0f) * 0.05f;
  const Outcome halved = run_platform("ref:qdq=int,wbits=7", *model, {{"X", x}});
  ASSERT_TRUE(halved.status.ok()) << halved.status.to_string();
  const Outcome exact = run_platform("ref:qdq=int", *model, {{"X", x}});
  ASSERT_TRUE(exact.status.ok()) << exact.status.to_string();
  ASSERT_NE(bits_of(halved.outputs[0].tensor), bits_of(exact.outputs[0].tensor))
      << "halving changes nothing here: the test cannot tell the kernels apart";
  auto env = child_env("onednn:isa=avx2");
  env["IG_TEST_MODEL"] = path;
  env["IG_TEST_SPEC"] = "onednn:isa=avx2";
  const ChildResult r = run_child("OnednnInt8FloatChild.DISABLED_RunS8", env);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(child_field(r.out, "ERROR"), "");
  EXPECT_EQ(child_field(r.out, "Y"), bits_of(halved.outputs[0].tensor));
}

}  // namespace
}  // namespace ig::testing::onednn_int8_float
