// torch:qengine=...: int8 QDQ groups as PyTorch's quantized operators (quantized::conv2d /
// conv2d_relu / linear on QNNPACK or oneDNN), reported with the nodes they cover. Expected
// integers are the exact semantics computed here: acc = sum (qx - zx) * w + bias in int64, then
// round-half-even(acc * x_s * w_s[c] / y_s) in double, plus y_zp, clamped to u8 (Relu: at y_zp).
// PyTorch's engines requantize in float (QNNPACK: fp32 scale and magic-number rounding), so
// the bound is 1 step; the tests also print how many elements match exactly. Measured here:
// QNNPACK per-channel and oneDNN bit for bit; QNNPACK per-tensor 74/75, the one off a near-tie
// (acc 14200 times the scale is 35.4999992 exactly, 35.5 in fp32, rounded up).
#include <cmath>
#include <set>

#include "backend_test_util.h"

namespace ig::testing::torch_int8 {
namespace {

constexpr int64_t kTorchIc = 4, kTorchOc = 3, kTorchHw = 5;
constexpr float kXs = 0.5f, kYs = 2.0f;
const std::vector<float> kWs = {0.01f, 0.02f, 0.015f};
const std::vector<int32_t> kBias = {100, -2000, 777};

struct Case {
  bool x_u8 = true;
  bool per_channel = true;
  bool relu = true;
  int x_zp = 3, y_zp = 10;
  float ws(int64_t o) const { return per_channel ? kWs[o] : kWs[0]; }
};

std::vector<int8_t> weights() {
  std::vector<int8_t> w(kTorchOc * kTorchIc * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(int(i * 37 % 255) - 127);
  return w;
}

// X -> Q -> DQ -> Conv(DQ(w), DQ(bias)) 3x3 pads 1 [-> Relu] -> Q (yq) -> DQ -> Y.
onnx::ModelProto qdq_conv(const Case& k) {
  GraphBuilder b;
  b.io(true, "X", {1, kTorchIc, kTorchHw, kTorchHw});
  b.io(false, "Y", {1, kTorchOc, kTorchHw, kTorchHw});
  b.init<float>("xs", {kXs}, {});
  if (k.x_u8) {
    b.init<uint8_t>("xz", {static_cast<uint8_t>(k.x_zp)}, {});
    b.init<uint8_t>("yz", {static_cast<uint8_t>(k.y_zp)}, {});
  } else {
    b.init<int8_t>("xz", {static_cast<int8_t>(k.x_zp)}, {});
    b.init<int8_t>("yz", {static_cast<int8_t>(k.y_zp)}, {});
  }
  b.init<int8_t>("wq", weights(), {kTorchOc, kTorchIc, 3, 3});
  std::vector<float> ws, bs;
  for (int64_t o = 0; o < kTorchOc; ++o) {
    ws.push_back(k.ws(o));
    bs.push_back(kXs * k.ws(o));
  }
  b.init<float>("ws", k.per_channel ? ws : std::vector<float>{kWs[0]},
                k.per_channel ? Shape{kTorchOc} : Shape{});
  b.init<int8_t>("wz", std::vector<int8_t>(k.per_channel ? kTorchOc : 1, 0),
                 k.per_channel ? Shape{kTorchOc} : Shape{});
  b.init<int32_t>("bq", kBias, {kTorchOc});
  b.init<float>("bs", bs, {kTorchOc});
  b.init<float>("ys", {kYs}, {});
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  b.node("DequantizeLinear", "dqx", {"xq", "xs", "xz"}, {"xd"});
  GraphBuilder::integer(b.node("DequantizeLinear", "dqw", {"wq", "ws", "wz"}, {"wd"}), "axis", 0);
  GraphBuilder::integer(b.node("DequantizeLinear", "dqb", {"bq", "bs"}, {"bd"}), "axis", 0);
  GraphBuilder::ints(b.node("Conv", "conv", {"xd", "wd", "bd"}, {"c"}), "pads", {1, 1, 1, 1});
  std::string v = "c";
  if (k.relu) {
    b.node("Relu", "relu", {"c"}, {"r"});
    v = "r";
  }
  b.node("QuantizeLinear", "qy", {v, "ys", "yz"}, {"yq"});
  b.node("DequantizeLinear", "dqy", {"yq", "ys", "yz"}, {"Y"});
  return b.model;
}

std::vector<int> input_ints(const Case& k) {
  std::vector<int> q;
  for (int64_t i = 0; i < kTorchIc * kTorchHw * kTorchHw; ++i)
    q.push_back(int(i * 97 % 256) - (k.x_u8 ? 0 : 128));
  return q;
}
Tensor input_for(const Case& k) {
  Tensor x(DType::kFloat32, {1, kTorchIc, kTorchHw, kTorchHw});
  const auto q = input_ints(k);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(q[i] - k.x_zp) * kXs;
  return x;
}

// The exact integer semantics (double requantization, round half to even).
std::vector<int> expected(const Case& k) {
  const auto q = input_ints(k);
  const auto w = weights();
  const double lo = k.relu ? k.y_zp : 0, hi = 255;
  std::vector<int> out;
  for (int64_t o = 0; o < kTorchOc; ++o) {
    for (int64_t oy = 0; oy < kTorchHw; ++oy) {
      for (int64_t ox = 0; ox < kTorchHw; ++ox) {
        int64_t acc = kBias[o];
        for (int64_t i = 0; i < kTorchIc; ++i) {
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t y = oy + ky - 1, xx = ox + kx - 1;
              if (y < 0 || y >= kTorchHw || xx < 0 || xx >= kTorchHw) continue;
              acc += int64_t(q[(i * kTorchHw + y) * kTorchHw + xx] - k.x_zp) *
                     w[((o * kTorchIc + i) * 3 + ky) * 3 + kx];
            }
          }
        }
        const double v = std::nearbyint(double(acc) * kXs * k.ws(o) / kYs);
        out.push_back(int(std::clamp(v + k.y_zp, lo, hi)));
      }
    }
  }
  return out;
}

std::vector<int> ints_of(const Tensor& t) {
  std::vector<int> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(int(t.as_double(i)));
  return v;
}

void expect_group(const std::string& spec, const Case& k, const std::string& op,
                  const std::string& engine) {
  TempDir dir;
  auto model = load_model(save(qdq_conv(k), dir.path.string(), "qdq.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Outcome o = run_platform(spec, *model, {{"X", input_for(k)}});
  ASSERT_TRUE(o.status.ok()) << spec << ": " << o.status.to_string();
  std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
  ASSERT_TRUE(by_node.count("qy")) << spec;
  EXPECT_EQ(by_node["qy"].covers, k.relu ? "dqx,dqw,dqb,conv,relu,qy" : "dqx,dqw,dqb,conv,qy");
  const std::string& note = by_node["qy"].note;
  EXPECT_EQ(note.rfind("fused: torch:" + op + " (" + engine, 0), 0u) << note;
  EXPECT_FALSE(by_node.count("conv"));
  ASSERT_EQ(o.trace.at("yq").dtype(), DType::kUInt8);
  const auto got = ints_of(o.trace.at("yq"));
  const auto want = expected(k);
  ASSERT_EQ(got.size(), want.size());
  int worst = 0, exact = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - want[i]));
    exact += got[i] == want[i];
  }
  EXPECT_LE(worst, 1) << spec;
  std::cout << spec << ": " << exact << "/" << got.size()
            << " integers equal the exact semantics, max step " << worst << "\n";
  // Not all clamped: the case exercises the requantization.
  EXPECT_GE(std::set<int>(got.begin(), got.end()).size(), 10u);
}

TEST(TorchInt8, QnnpackPerChannelConvRelu) {
  REQUIRE_TORCH();
  expect_group("torch:qengine=qnnpack,fallback=ref", {}, "quantized::conv2d_relu", "QNNPACK");
}

TEST(TorchInt8, QnnpackPerTensorConv) {
  REQUIRE_TORCH();
  Case k;
  k.per_channel = false;
  k.relu = false;
  expect_group("torch:qengine=qnnpack,fallback=ref", k, "quantized::conv2d", "QNNPACK");
}

TEST(TorchInt8, OnednnPerChannelConvRelu) {
  REQUIRE_TORCH();
  expect_group("torch:qengine=onednn,fallback=ref", {}, "quantized::conv2d_relu", "ONEDNN");
}

// s8 activations: PyTorch's quantized conv takes quint8 only; the Conv is refused, not run in
// fp32, and fallback=ref runs the group's nodes one by one.
TEST(TorchInt8, S8ActivationsAreRefused) {
  REQUIRE_TORCH();
  Case k;
  k.x_u8 = false;
  k.x_zp = -5;
  k.y_zp = -3;
  TempDir dir;
  auto model = load_model(save(qdq_conv(k), dir.path.string(), "qdq.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Outcome o =
      run_platform("torch:qengine=qnnpack,fallback=ref", *model, {{"X", input_for(k)}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
  ASSERT_TRUE(by_node.count("conv"));
  EXPECT_NE(by_node["conv"].note.find("QDQ group is not a PyTorch quantized operator"),
            std::string::npos)
      << by_node["conv"].note;
  EXPECT_NE(by_node["conv"].note.find("quint8"), std::string::npos) << by_node["conv"].note;
}

// X [2, 8] -> Q -> DQ -> Gemm(DQ(w [4, 8], per-channel axis 0), DQ(bias), transB=1) -> Q -> DQ.
TEST(TorchInt8, QnnpackGemmIsQuantizedLinear) {
  REQUIRE_TORCH();
  constexpr int64_t kM = 2, kK = 8, kN = 4;
  const float xs = 0.25f, ys = 0.5f;
  const int xz = 7, yz = 120;
  const std::vector<float> ws = {0.01f, 0.02f, 0.005f, 0.03f};
  const std::vector<int32_t> bias = {50, -300, 1000, 0};
  std::vector<int8_t> w(kN * kK);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(int(i * 53 % 255) - 127);
  GraphBuilder b;
  b.io(true, "X", {kM, kK});
  b.io(false, "Y", {kM, kN});
  b.init<float>("xs", {xs}, {});
  b.init<uint8_t>("xz", {uint8_t(xz)}, {});
  b.init<int8_t>("wq", w, {kN, kK});
  b.init<float>("ws", ws, {kN});
  std::vector<float> bs;
  for (float s : ws) bs.push_back(xs * s);
  b.init<int32_t>("bq", bias, {kN});
  b.init<float>("bs", bs, {kN});
  b.init<float>("ys", {ys}, {});
  b.init<uint8_t>("yz", {uint8_t(yz)}, {});
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  b.node("DequantizeLinear", "dqx", {"xq", "xs", "xz"}, {"xd"});
  GraphBuilder::integer(b.node("DequantizeLinear", "dqw", {"wq", "ws"}, {"wd"}), "axis", 0);
  GraphBuilder::integer(b.node("DequantizeLinear", "dqb", {"bq", "bs"}, {"bd"}), "axis", 0);
  GraphBuilder::integer(b.node("Gemm", "fc", {"xd", "wd", "bd"}, {"g"}), "transB", 1);
  b.node("QuantizeLinear", "qy", {"g", "ys", "yz"}, {"yq"});
  b.node("DequantizeLinear", "dqy", {"yq", "ys", "yz"}, {"Y"});
  TempDir dir;
  auto model = load_model(save(b.model, dir.path.string(), "gemm.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  std::vector<int> qx;
  Tensor x(DType::kFloat32, {kM, kK});
  for (int64_t i = 0; i < kM * kK; ++i) {
    qx.push_back(int(i * 89 % 256));
    x.data<float>()[i] = float(qx.back() - xz) * xs;
  }
  const Outcome o = run_platform("torch:qengine=qnnpack,fallback=ref", *model, {{"X", x}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
  ASSERT_TRUE(by_node.count("qy"));
  EXPECT_EQ(by_node["qy"].covers, "dqx,dqw,dqb,fc,qy");
  EXPECT_EQ(by_node["qy"].note.rfind("fused: torch:quantized::linear (QNNPACK", 0), 0u)
      << by_node["qy"].note;
  const auto got = ints_of(o.trace.at("yq"));
  ASSERT_EQ(got.size(), size_t(kM * kN));
  for (int64_t m = 0; m < kM; ++m) {
    for (int64_t n = 0; n < kN; ++n) {
      int64_t acc = bias[n];
      for (int64_t k = 0; k < kK; ++k) acc += int64_t(qx[m * kK + k] - xz) * w[n * kK + k];
      const double v = std::nearbyint(double(acc) * xs * ws[n] / ys) + yz;
      EXPECT_LE(std::abs(got[m * kN + n] - std::clamp(v, 0.0, 255.0)), 1) << m << "," << n;
    }
  }
}

TEST(TorchInt8, EngineMissingFromThisBuildIsNamed) {
  REQUIRE_TORCH();
  TempDir dir;
  auto model = load_model(save(qdq_conv({}), dir.path.string(), "qdq.onnx"));
  ASSERT_TRUE(model.ok());
  // Debian's libtorch 1.13 has no FBGEMM; a build that has it runs the group.
  const Outcome o =
      run_platform("torch:qengine=fbgemm,fallback=ref", *model, {{"X", input_for({})}});
  if (o.status.ok()) GTEST_SKIP() << "this libtorch has FBGEMM";
  EXPECT_NE(o.status.message().find("qengine=fbgemm is not in this libtorch"), std::string::npos)
      << o.status.to_string();
  EXPECT_EQ(parse_platform_spec("torch:qengine=x86").ok() &&
                make_backend(*parse_platform_spec("torch:qengine=x86")).ok(),
            false);
}

}  // namespace
}  // namespace ig::testing::torch_int8
