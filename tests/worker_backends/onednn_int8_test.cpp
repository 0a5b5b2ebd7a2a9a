// oneDNN's int8 kernels on a QDQ convolution (the format ONNX Runtime's quantizer writes): one
// integer primitive per group, reported with the nodes it covers; on avx2 (vpmaddubsw) pairs of
// u8 x s8 products saturate at int16, with VNNI (vpdpbusd) they do not ("Nuances of int8
// computations" in oneDNN's documentation).
#include <cmath>
#include <cstdio>
#include <sstream>

#include "backend_test_util.h"

namespace ig::testing::onednn_int8 {
namespace {

constexpr int64_t kIc = 4, kOc = 2, kHw = 3;
constexpr float kXs = 0.5f, kYs = 32.0f;
const std::vector<float> kWs = {0.01f, 0.02f};

// X -> Q -> DQ -> Conv(DQ(w), DQ(bias)) 3x3 pads 1 -> Relu -> Q (yq) -> DQ -> Y.
// Output channel 0 has w = 127 everywhere: with xq = 255, adjacent input channels make pairs of
// 255 * 127 products whose sum (64770) exceeds int16.
struct QdqConv {
  uint8_t x_zp = 0;
  int8_t w_zp = 0;
  std::vector<int8_t> w;
  std::vector<int32_t> bias = {100, -200};
};

std::vector<int8_t> saturating_weights() {
  std::vector<int8_t> w(kOc * kIc * 9, 127);
  for (size_t i = kIc * 9; i < w.size(); ++i) w[i] = static_cast<int8_t>(int(i * 37 % 255) - 127);
  return w;
}

onnx::ModelProto qdq_conv(const QdqConv& k) {
  GraphBuilder b;
  b.io(true, "X", {1, kIc, kHw, kHw});
  b.io(false, "Y", {1, kOc, kHw, kHw});
  b.init<float>("xs", {kXs}, {});
  b.init<uint8_t>("xz", {k.x_zp}, {});
  b.init<int8_t>("wq", k.w, {kOc, kIc, 3, 3});
  b.init<float>("ws", kWs, {kOc});
  b.init<int8_t>("wz", {k.w_zp, k.w_zp}, {kOc});
  b.init<int32_t>("bq", k.bias, {kOc});
  b.init<float>("bs", {kXs * kWs[0], kXs * kWs[1]}, {kOc});
  b.init<float>("ys", {kYs}, {});
  b.init<uint8_t>("yz", {0}, {});
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  b.node("DequantizeLinear", "dqx", {"xq", "xs", "xz"}, {"xd"});
  GraphBuilder::integer(b.node("DequantizeLinear", "dqw", {"wq", "ws", "wz"}, {"wd"}), "axis", 0);
  GraphBuilder::integer(b.node("DequantizeLinear", "dqb", {"bq", "bs"}, {"bd"}), "axis", 0);
  GraphBuilder::ints(b.node("Conv", "conv", {"xd", "wd", "bd"}, {"c"}), "pads", {1, 1, 1, 1});
  b.node("Relu", "relu", {"c"}, {"r"});
  b.node("QuantizeLinear", "qy", {"r", "ys", "yz"}, {"yq"});
  b.node("DequantizeLinear", "dqy", {"yq", "ys", "yz"}, {"Y"});
  return b.model;
}

// X = xq * 0.5 - zp * 0.5 quantizes exactly to xq: 255 everywhere, or a seeded pattern.
Tensor input_for(const QdqConv& k, bool all_max) {
  Tensor x(DType::kFloat32, {1, kIc, kHw, kHw});
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int q = all_max ? 255 : int(i * 97 % 256);
    x.data<float>()[i] = (q - k.x_zp) * kXs;
  }
  return x;
}

// The exact integer semantics: acc = sum (xq - zp) w + bias (padding adds nothing), then
// round-to-nearest-even of acc * x_scale * w_scale[o] / y_scale, Relu, saturated to u8.
std::vector<int> expected(const QdqConv& k, const Tensor& x) {
  std::vector<int> out;
  for (int64_t o = 0; o < kOc; ++o) {
    for (int64_t oy = 0; oy < kHw; ++oy) {
      for (int64_t ox = 0; ox < kHw; ++ox) {
        int64_t acc = k.bias[o];
        for (int64_t i = 0; i < kIc; ++i) {
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t y = oy + ky - 1, xx = ox + kx - 1;
              if (y < 0 || y >= kHw || xx < 0 || xx >= kHw) continue;
              const int q =
                  int(std::nearbyint(x.data<float>()[(i * kHw + y) * kHw + xx] / kXs)) + k.x_zp;
              acc += int64_t(q - k.x_zp) * k.w[((o * kIc + i) * 3 + ky) * 3 + kx];
            }
          }
        }
        const double v = std::nearbyint(double(acc) * kXs * kWs[o] / kYs);
        out.push_back(int(std::clamp(v, 0.0, 255.0)));
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
  QdqConv k;
  std::string path;
  Expected<Model> model = internal_error("unset");
  explicit Fixture(QdqConv kk) : k(std::move(kk)) {
    path = save(qdq_conv(k), dir.path.string(), "qdq.onnx");
    model = load_model(path);
  }
};

TEST(OnednnInt8, GroupRunsAsOneIntegerPrimitive) {
  Fixture f({0, 0, saturating_weights()});
  ASSERT_TRUE(f.model.ok()) << f.model.status().to_string();
  const Tensor x = input_for(f.k, false);
  const Outcome o = run_platform("onednn", *f.model, {{"X", x}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
  ASSERT_TRUE(by_node.count("qy"));
  EXPECT_EQ(by_node["qy"].covers, "dqx,dqw,dqb,conv,relu,qy");
  EXPECT_EQ(by_node["qy"].note.rfind("fused: int8 u8s8 ", 0), 0u) << by_node["qy"].note;
  EXPECT_FALSE(by_node.count("conv"));
  // The lone QuantizeLinear and DequantizeLinear are reorders.
  EXPECT_EQ(by_node["qx"].note.rfind("reorder ", 0), 0u) << by_node["qx"].note;
  EXPECT_EQ(by_node["dqy"].note.rfind("reorder ", 0), 0u) << by_node["dqy"].note;
  ASSERT_EQ(o.trace.at("yq").dtype(), DType::kUInt8);
  // ref follows QDQ in float: within one step of the integers.
  const Outcome ref = run_platform("ref", *f.model, {{"X", x}});
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  EXPECT_LE(max_step(ints_of(ref.trace.at("yq")), expected(f.k, x)), 1);
}

TEST(OnednnInt8, EagerRunsReordersAroundAnFp32Convolution) {
  Fixture f({0, 0, saturating_weights()});
  ASSERT_TRUE(f.model.ok());
  const Tensor x = input_for(f.k, false);
  const Outcome o = run_platform("onednn:fuse=off", *f.model, {{"X", x}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
  ASSERT_TRUE(by_node.count("conv"));
  EXPECT_EQ(by_node["conv"].note.find("int8"), std::string::npos);
  EXPECT_EQ(by_node["dqw"].note.rfind("reorder ", 0), 0u) << by_node["dqw"].note;
  EXPECT_LE(max_step(ints_of(o.trace.at("yq")), expected(f.k, x)), 1);
}

TEST(OnednnInt8, RefusedGroupNamesTheNode) {
  Fixture f({0, 3, saturating_weights()});
  ASSERT_TRUE(f.model.ok());
  auto plain = make_backend(*parse_platform_spec("onednn"));
  ASSERT_TRUE(plain.ok());
  const auto why = (*plain)->unsupported_nodes_of(*f.model);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0].first->name, "conv");
  EXPECT_NE(why[0].second.message().find("'dqw': weight zero point"), std::string::npos)
      << why[0].second.message();
  const Tensor x = input_for(f.k, false);
  const Outcome o = run_platform("onednn:fallback=ref", *f.model, {{"X", x}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, NodeReport> by_node(o.reports.begin(), o.reports.end());
  EXPECT_EQ(by_node["conv"].note.rfind("fallback=ref: Conv 'conv': QDQ group", 0), 0u)
      << by_node["conv"].note;
}

// Runs IG_TEST_MODEL on IG_TEST_SPEC with X = 255 (IG_TEST_MAX) or the seeded pattern; prints
// the quantized output and the group's note.
TEST(OnednnInt8Child, DISABLED_Run) {
  auto model = load_model(std::getenv("IG_TEST_MODEL"));
  ASSERT_TRUE(model.ok());
  QdqConv k;
  k.x_zp = static_cast<uint8_t>(std::atoi(std::getenv("IG_TEST_XZP")));
  const Outcome o = run_platform(std::getenv("IG_TEST_SPEC"), *model,
                                 {{"X", input_for(k, std::getenv("IG_TEST_MAX")[0] == '1')}});
  if (!o.status.ok()) {
    std::printf("\nERROR %s\n", o.status.to_string().c_str());
    return;
  }
  std::string q;
  for (int v : ints_of(o.trace.at("yq"))) q += std::to_string(v) + " ";
  for (const auto& [node, r] : o.reports) {
    if (node == "qy") std::printf("\nNOTE %s\n", r.note.c_str());
  }
  std::printf("\nQ %s\n", q.c_str());
}

std::vector<int> parse_ints(const std::string& s) {
  std::istringstream in(s);
  std::vector<int> v;
  for (int x; in >> x;) v.push_back(x);
  return v;
}

struct IsaRun {
  std::string error, note;
  std::vector<int> q;
};

IsaRun run_isa(const Fixture& f, const std::string& isa, bool all_max) {
  auto env = child_env("onednn:isa=" + isa);
  env["IG_TEST_MODEL"] = f.path;
  env["IG_TEST_XZP"] = std::to_string(f.k.x_zp);
  env["IG_TEST_MAX"] = all_max ? "1" : "0";
  const ChildResult r = run_child("OnednnInt8Child.DISABLED_Run", env);
  EXPECT_EQ(r.signal, 0) << isa;
  return {child_field(r.out, "ERROR"), child_field(r.out, "NOTE"),
          parse_ints(child_field(r.out, "Q"))};
}

bool cpu_has_vnni() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vnni");
}

// Measured (Xeon with avx512_vnni): avx2's jit_uni_int8 saturates the pairs of channel 0 and
// lands far below; VNNI gives the integers exactly.
TEST(OnednnInt8, Avx2SaturatesPairsWhereVnniIsExact) {
  for (const uint8_t x_zp : {uint8_t{0}, uint8_t{128}}) {
    Fixture f({x_zp, 0, saturating_weights()});
    ASSERT_TRUE(f.model.ok());
    for (const bool all_max : {true, false}) {
      const std::vector<int> want = expected(f.k, input_for(f.k, all_max));
      const IsaRun avx2 = run_isa(f, "avx2", all_max);
      ASSERT_EQ(avx2.error, "");
      std::printf("zp=%d max=%d avx2 %s\n", x_zp, all_max, avx2.note.c_str());
      EXPECT_NE(avx2.note.find("int8 u8s8"), std::string::npos) << avx2.note;
      if (all_max) {
        EXPECT_GT(max_step(avx2.q, want), 1) << "no pair saturated on avx2";
      }
      if (!cpu_has_vnni()) continue;
      const IsaRun vnni = run_isa(f, "avx512_core_vnni", all_max);
      ASSERT_EQ(vnni.error, "");
      std::printf("zp=%d max=%d vnni %s, avx2 max step %d\n", x_zp, all_max, vnni.note.c_str(),
                  max_step(avx2.q, want));
      EXPECT_LE(max_step(vnni.q, want), 1);
      EXPECT_EQ(vnni.q, want);
    }
  }
  if (!cpu_has_vnni()) GTEST_SKIP() << "this CPU lacks avx512_vnni: the VNNI half did not run";
}

}  // namespace
}  // namespace ig::testing::onednn_int8
