// XNNPACK's int8 operators on QDQ models (the format ONNX Runtime's quantizer writes): one qs8 /
// qc8 operator per group, reported with the nodes it covers. Expected integers are computed
// here. On x86 this XNNPACK requantizes in fp32 (xnn_init_qs8_conv_minmax_fp32_*, no rndnu or
// gemmlowp there): y = lrintf(float(acc) * float(x_s * w_s / y_s)) + zp, clamped. That formula
// must match bit for bit; the exact (double) requantization within 1 step, as float rounding of
// the scale or of a sum above 2^24 can flip a near-tie.
#include <cmath>
#include <set>

#include "backend_test_util.h"

namespace ig::testing::xnnpack_int8 {
namespace {

constexpr int64_t kIc = 4, kOc = 3, kHw = 5;
constexpr float kXs = 0.5f, kYs = 2.0f;
const std::vector<float> kWs = {0.01f, 0.02f, 0.015f};

struct Case {
  bool x_u8 = true;         // activations u8 (else s8)
  bool per_channel = true;  // weight scales per output channel (else kWs[0] for all)
  bool relu = true;
  bool q = true;          // a QuantizeLinear after the conv
  bool shared_x = false;  // dqx's output is also a graph output: the group quantizes it again
  int x_zp = 3, y_zp = 10;
  float ws(int64_t o) const { return per_channel ? kWs[o] : kWs[0]; }
};

std::vector<int8_t> weights() {
  std::vector<int8_t> w(kOc * kIc * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(int(i * 37 % 255) - 127);
  return w;
}
const std::vector<int32_t> kBias = {100, -2000, 777};

template <typename T>
void zp(GraphBuilder& b, const std::string& name, int v) {
  b.init<T>(name, {static_cast<T>(v)}, {});
}

// X -> Q -> DQ -> Conv(DQ(w), DQ(bias)) 3x3 pads 1 [-> Relu] [-> Q (yq) -> DQ] -> Y.
onnx::ModelProto qdq_conv(const Case& k) {
  GraphBuilder b;
  b.io(true, "X", {1, kIc, kHw, kHw});
  b.io(false, "Y", {1, kOc, kHw, kHw});
  if (k.shared_x) b.io(false, "xd", {1, kIc, kHw, kHw});
  b.init<float>("xs", {kXs}, {});
  if (k.x_u8)
    zp<uint8_t>(b, "xz", k.x_zp);
  else
    zp<int8_t>(b, "xz", k.x_zp);
  b.init<int8_t>("wq", weights(), {kOc, kIc, 3, 3});
  std::vector<float> ws, bs;
  for (int64_t o = 0; o < kOc; ++o) {
    ws.push_back(k.ws(o));
    bs.push_back(kXs * k.ws(o));
  }
  b.init<float>("ws", k.per_channel ? ws : std::vector<float>{kWs[0]},
                k.per_channel ? Shape{kOc} : Shape{});
  b.init<int8_t>("wz", std::vector<int8_t>(k.per_channel ? kOc : 1, 0),
                 k.per_channel ? Shape{kOc} : Shape{});
  b.init<int32_t>("bq", kBias, {kOc});
  b.init<float>("bs", bs, {kOc});
  b.init<float>("ys", {kYs}, {});
  if (k.x_u8)
    zp<uint8_t>(b, "yz", k.y_zp);
  else
    zp<int8_t>(b, "yz", k.y_zp);
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  b.node("DequantizeLinear", "dqx", {"xq", "xs", "xz"}, {"xd"});
  GraphBuilder::integer(b.node("DequantizeLinear", "dqw", {"wq", "ws", "wz"}, {"wd"}), "axis", 0);
  GraphBuilder::integer(b.node("DequantizeLinear", "dqb", {"bq", "bs"}, {"bd"}), "axis", 0);
  const std::string conv_out = k.relu || k.q ? "c" : "Y";
  GraphBuilder::ints(b.node("Conv", "conv", {"xd", "wd", "bd"}, {conv_out}), "pads", {1, 1, 1, 1});
  std::string v = "c";
  if (k.relu) {
    b.node("Relu", "relu", {"c"}, {k.q ? "r" : "Y"});
    v = "r";
  }
  if (k.q) {
    b.node("QuantizeLinear", "qy", {v, "ys", "yz"}, {"yq"});
    b.node("DequantizeLinear", "dqy", {"yq", "ys", "yz"}, {"Y"});
  }
  return b.model;
}

// Integers qx: a seeded pattern over the type's range; X = (qx - zp) * xs quantizes exactly.
std::vector<int> input_ints(const Case& k) {
  std::vector<int> q;
  for (int64_t i = 0; i < kIc * kHw * kHw; ++i) q.push_back(int(i * 97 % 256) - (k.x_u8 ? 0 : 128));
  return q;
}
Tensor input_for(const Case& k) {
  Tensor x(DType::kFloat32, {1, kIc, kHw, kHw});
  const auto q = input_ints(k);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(q[i] - k.x_zp) * kXs;
  return x;
}

// acc = sum (qx - zp) w + bias (padding adds nothing), then requantized: exactly in double
// (`fp32` false), or as XNNPACK's fp32 requantization does (`fp32` true).
std::vector<int> expected(const Case& k, bool fp32) {
  const auto q = input_ints(k);
  const auto w = weights();
  const double lo = k.relu ? k.y_zp : (k.x_u8 ? 0 : -128), hi = k.x_u8 ? 255 : 127;
  std::vector<int> out;
  for (int64_t o = 0; o < kOc; ++o) {
    for (int64_t oy = 0; oy < kHw; ++oy) {
      for (int64_t ox = 0; ox < kHw; ++ox) {
        int64_t acc = kBias[o];
        for (int64_t i = 0; i < kIc; ++i) {
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t y = oy + ky - 1, xx = ox + kx - 1;
              if (y < 0 || y >= kHw || xx < 0 || xx >= kHw) continue;
              acc += int64_t(q[(i * kHw + y) * kHw + xx] - k.x_zp) *
                     w[((o * kIc + i) * 3 + ky) * 3 + kx];
            }
          }
        }
        const float scale_f = kXs * k.ws(o) / kYs;
        const double v = fp32 ? double(std::nearbyintf(float(acc) * scale_f))
                              : std::nearbyint(double(acc) * kXs * k.ws(o) / kYs);
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

int max_step(const std::vector<int>& a, const std::vector<int>& b) {
  int worst = a.size() == b.size() ? 0 : 1000;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

struct Fixture {
  TempDir dir;
  Case k;
  Expected<Model> model = internal_error("unset");
  explicit Fixture(Case kk) : k(kk) {
    model = load_model(save(qdq_conv(k), dir.path.string(), "qdq.onnx"));
  }
};

void expect_group(const Case& k, const std::string& op, bool shifted) {
  Fixture f(k);
  ASSERT_TRUE(f.model.ok()) << f.model.status().to_string();
  const Outcome o = run_platform("xnnpack", *f.model, {{"X", input_for(k)}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
  ASSERT_TRUE(by_node.count("qy"));
  const std::string dqx = k.shared_x ? "" : "dqx,";
  EXPECT_EQ(by_node["qy"].covers, dqx + (k.relu ? "dqw,dqb,conv,relu,qy" : "dqw,dqb,conv,qy"));
  const std::string& note = by_node["qy"].note;
  EXPECT_EQ(note.rfind("fused: xnn:" + op + " (", 0), 0u) << note;
  EXPECT_EQ(note.find("u8 input shifted to s8") != std::string::npos, shifted) << note;
  EXPECT_FALSE(by_node.count("conv"));
  EXPECT_EQ(by_node["qx"].note.rfind("xnn:convert_nc_f32_q", 0), 0u) << by_node["qx"].note;
  EXPECT_EQ(by_node["dqy"].note.rfind("xnn:convert_nc_q", 0), 0u) << by_node["dqy"].note;
  ASSERT_EQ(o.trace.at("yq").dtype(), k.x_u8 ? DType::kUInt8 : DType::kInt8);
  const auto got = ints_of(o.trace.at("yq"));
  EXPECT_EQ(got, expected(k, true));  // XNNPACK's fp32 requantization, bit for bit
  EXPECT_LE(max_step(got, expected(k, false)), 1);
  // Not all clamped: the case exercises the requantization.
  EXPECT_GE(std::set<int>(got.begin(), got.end()).size(), 10u);
}

TEST(XnnpackInt8, U8PerChannelConvIsQc8OnShiftedInput) {
  expect_group({}, "convolution2d_nhwc_qc8", true);
}

TEST(XnnpackInt8, S8PerTensorConvIsQs8) {
  Case k;
  k.x_u8 = false;
  k.per_channel = false;
  k.relu = false;
  k.x_zp = -5;
  k.y_zp = -3;
  expect_group(k, "convolution2d_nhwc_qs8", false);
}

TEST(XnnpackInt8, SharedInputIsQuantizedAgainExactly) {
  Case k;
  k.shared_x = true;
  expect_group(k, "convolution2d_nhwc_qc8", true);
}

TEST(XnnpackInt8, GroupWithoutQuantizeLinearIsRefusedNamingTheNode) {
  Case k;
  k.relu = false;
  k.q = false;
  Fixture f(k);
  ASSERT_TRUE(f.model.ok());
  auto plain = make_backend(*parse_platform_spec("xnnpack"));
  ASSERT_TRUE(plain.ok());
  const auto why = (*plain)->unsupported_nodes_of(*f.model);
  bool conv = false;
  for (const auto& [node, st] : why) {
    if (node->name != "conv") continue;
    conv = true;
    EXPECT_NE(st.message().find("Conv 'conv': QDQ group is not an XNNPACK int8 operator: "
                                "Conv 'conv': no QuantizeLinear"),
              std::string::npos)
        << st.message();
  }
  EXPECT_TRUE(conv);
  const Outcome o = run_platform("xnnpack:fallback=ref", *f.model, {{"X", input_for(k)}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
  EXPECT_EQ(by_node["conv"].note.rfind("fallback=ref: Conv 'conv': QDQ group", 0), 0u)
      << by_node["conv"].note;
  // The per-channel weight DequantizeLinear has no convert operator: it falls back too.
  EXPECT_NE(by_node["dqw"].note.find("fallback=ref: DequantizeLinear 'dqw'"), std::string::npos)
      << by_node["dqw"].note;
}

// X[2,8] -> Q (u8) -> DQ -> Gemm(DQ(w[3,8]) transB, DQ(bias)) -> Q -> DQ -> Y: per-tensor
// weights run as fully_connected_nc_qs8, per-channel ones as a 1x1 qc8 convolution.
constexpr int64_t kM = 2, kK = 8, kN = 3;

onnx::ModelProto qdq_gemm(bool per_channel) {
  GraphBuilder b;
  b.io(true, "X", {kM, kK});
  b.io(false, "Y", {kM, kN});
  b.init<float>("xs", {kXs}, {});
  zp<uint8_t>(b, "xz", 7);
  std::vector<int8_t> w(kN * kK);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(int(i * 53 % 255) - 127);
  b.init<int8_t>("wq", w, {kN, kK});
  const Shape sshape = per_channel ? Shape{kN} : Shape{};
  b.init<float>("ws", per_channel ? kWs : std::vector<float>{kWs[0]}, sshape);
  std::vector<float> bs;
  for (int64_t o = 0; o < kN; ++o) bs.push_back(kXs * (per_channel ? kWs[o] : kWs[0]));
  b.init<int32_t>("bq", kBias, {kN});
  b.init<float>("bs", bs, {kN});
  b.init<float>("ys", {4.0f}, {});
  zp<uint8_t>(b, "yz", 128);
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  b.node("DequantizeLinear", "dqx", {"xq", "xs", "xz"}, {"xd"});
  GraphBuilder::integer(b.node("DequantizeLinear", "dqw", {"wq", "ws"}, {"wd"}), "axis", 0);
  GraphBuilder::integer(b.node("DequantizeLinear", "dqb", {"bq", "bs"}, {"bd"}), "axis", 0);
  GraphBuilder::integer(b.node("Gemm", "fc", {"xd", "wd", "bd"}, {"g"}), "transB", 1);
  b.node("QuantizeLinear", "qy", {"g", "ys", "yz"}, {"yq"});
  b.node("DequantizeLinear", "dqy", {"yq", "ys", "yz"}, {"Y"});
  return b.model;
}

std::vector<int> expected_gemm(bool per_channel) {
  std::vector<int> out;
  for (int64_t m = 0; m < kM; ++m) {
    for (int64_t o = 0; o < kN; ++o) {
      int64_t acc = kBias[o];
      for (int64_t k = 0; k < kK; ++k) {
        const int q = int((m * kK + k) * 97 % 256);
        acc += int64_t(q - 7) * (int((o * kK + k) * 53 % 255) - 127);
      }
      const float ws = per_channel ? kWs[o] : kWs[0];
      const float v = std::nearbyintf(float(acc) * (kXs * ws / 4.0f));
      out.push_back(int(std::clamp(v + 128.0f, 0.0f, 255.0f)));
    }
  }
  return out;
}

TEST(XnnpackInt8, GemmGroupIsFullyConnectedOrOneByOneQc8) {
  Tensor x(DType::kFloat32, {kM, kK});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(int(i * 97 % 256) - 7) * kXs;
  for (const bool per_channel : {false, true}) {
    TempDir dir;
    auto model = load_model(save(qdq_gemm(per_channel), dir.path.string(), "gemm.onnx"));
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    const Outcome o = run_platform("xnnpack", *model, {{"X", x}});
    ASSERT_TRUE(o.status.ok()) << o.status.to_string();
    std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
    EXPECT_EQ(by_node["qy"].covers, "dqx,dqw,dqb,fc,qy");
    const std::string want = per_channel ? "fused: xnn:convolution2d_nhwc_qc8 (1x1"
                                         : "fused: xnn:fully_connected_nc_qs8 (";
    EXPECT_EQ(by_node["qy"].note.rfind(want, 0), 0u) << by_node["qy"].note;
    const auto got = ints_of(o.trace.at("yq"));
    EXPECT_EQ(got, expected_gemm(per_channel)) << per_channel;
    EXPECT_GE(std::set<int>(got.begin(), got.end()).size(), 4u);  // not all clamped
  }
}

}  // namespace
}  // namespace ig::testing::xnnpack_int8
