// QOperator nodes (QLinearConv, QLinearMatMul, com.microsoft's QGemm), as ONNX Runtime's
// quantizer writes them in QuantFormat.QOperator, on the libraries' int8 kernels
// (backends/library/qoperator_group.h): each runs as the integer kernel of its QDQ group, so the
// QOperator model gives the QDQ model's integers bit for bit on every platform, and the reference
// interpreter's QLinear* kernels agree with its qdq=int groups. Refusals name the node.
#include "backend_test_util.h"

namespace ig::testing::qoperator_int8 {
namespace {

constexpr int64_t kIc = 4, kOc = 3, kHw = 5;
constexpr float kXs = 0.05f, kYs = 0.25f;
const std::vector<float> kWs = {0.01f, 0.02f, 0.015f};
const std::vector<int32_t> kBias = {100, -2000, 777};

struct Case {
  bool gemm = false;     // QGemm (com.microsoft) on X[2, kIc] instead of QLinearConv
  bool float_y = false;  // QGemm without y_scale: float output
  int w_zp = 0;          // weight zero point (u8 weights where not 0)
};

std::vector<int8_t> weights(int64_t n) {
  std::vector<int8_t> w(static_cast<size_t>(n));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(int(i * 37 % 255) - 127);
  return w;
}

Shape x_shape(const Case& k) { return k.gemm ? Shape{2, kIc} : Shape{1, kIc, kHw, kHw}; }
Shape w_shape(const Case& k) { return k.gemm ? Shape{kOc, kIc} : Shape{kOc, kIc, 3, 3}; }

// The operands both forms share: u8 activations (zero point 7), per-channel weights, an int32
// bias at x_scale * w_scale, the output's scale and zero point.
void operands(GraphBuilder& b, const Case& k) {
  b.init<float>("xs", {kXs}, {});
  b.init<uint8_t>("xz", {7}, {});
  const Shape ws = w_shape(k);
  int64_t n = 1;
  for (int64_t d : ws) n *= d;
  if (k.w_zp != 0) {
    std::vector<uint8_t> w;
    for (int8_t v : weights(n)) w.push_back(static_cast<uint8_t>(v + 128));
    b.init<uint8_t>("wq", w, ws);
    b.init<uint8_t>("wz", std::vector<uint8_t>(kOc, static_cast<uint8_t>(k.w_zp)), {kOc});
  } else {
    b.init<int8_t>("wq", weights(n), ws);
    b.init<int8_t>("wz", std::vector<int8_t>(kOc, 0), {kOc});
  }
  b.init<float>("ws", kWs, {kOc});
  std::vector<float> bs;
  for (float w : kWs) bs.push_back(kXs * w);
  b.init<int32_t>("bq", kBias, {kOc});
  b.init<float>("bs", bs, {kOc});
  b.init<float>("ys", {kYs}, {});
  b.init<uint8_t>("yz", {120}, {});
}

// X -> QuantizeLinear -> QLinearConv / QGemm -> [DequantizeLinear] -> Y.
onnx::ModelProto qoperator_model(const Case& k) {
  GraphBuilder b;
  if (k.gemm) {
    auto* ms = b.model.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
  }
  b.io(true, "X", x_shape(k));
  b.io(false, "Y", k.gemm ? Shape{2, kOc} : Shape{1, kOc, kHw, kHw});
  operands(b, k);
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  const std::string y = k.float_y ? "Y" : "yq";
  if (k.gemm) {
    std::vector<std::string> in = {"xq", "xs", "xz", "wq", "ws", "wz", "bq"};
    if (!k.float_y) in.insert(in.end(), {"ys", "yz"});
    auto* n = b.node("QGemm", "qop", in, {y});
    n->set_domain("com.microsoft");
    GraphBuilder::integer(n, "transB", 1);
  } else {
    GraphBuilder::ints(
        b.node("QLinearConv", "qop", {"xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz", "bq"}, {y}),
        "pads", {1, 1, 1, 1});
  }
  if (!k.float_y) b.node("DequantizeLinear", "dqy", {"yq", "ys", "yz"}, {"Y"});
  return b.model;
}

// The same computation as a QDQ group: DQ(x), DQ(w), DQ(bias) -> Conv / Gemm -> [Q] -> DQ.
onnx::ModelProto qdq_model(const Case& k) {
  GraphBuilder b;
  b.io(true, "X", x_shape(k));
  b.io(false, "Y", k.gemm ? Shape{2, kOc} : Shape{1, kOc, kHw, kHw});
  operands(b, k);
  b.node("QuantizeLinear", "qx", {"X", "xs", "xz"}, {"xq"});
  b.node("DequantizeLinear", "dqx", {"xq", "xs", "xz"}, {"xd"});
  GraphBuilder::integer(b.node("DequantizeLinear", "dqw", {"wq", "ws", "wz"}, {"wd"}), "axis", 0);
  GraphBuilder::integer(b.node("DequantizeLinear", "dqb", {"bq", "bs"}, {"bd"}), "axis", 0);
  const std::string head_out = k.float_y ? "Y" : "c";
  if (k.gemm) {
    GraphBuilder::integer(b.node("Gemm", "qop", {"xd", "wd", "bd"}, {head_out}), "transB", 1);
  } else {
    GraphBuilder::ints(b.node("Conv", "qop", {"xd", "wd", "bd"}, {head_out}), "pads", {1, 1, 1, 1});
  }
  if (!k.float_y) {
    b.node("QuantizeLinear", "qy", {"c", "ys", "yz"}, {"yq"});
    b.node("DequantizeLinear", "dqy", {"yq", "ys", "yz"}, {"Y"});
  }
  return b.model;
}

// Seeded values over the u8 range that quantize exactly (no input tie for the libraries' own
// QuantizeLinear rounding to decide).
Tensor input_for(const Case& k) {
  Tensor x(DType::kFloat32, x_shape(k));
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(int(i * 97 % 256) - 7) * kXs;
  return x;
}

struct Runs {
  TempDir dir;
  Outcome qop, qdq;
  Runs(const std::string& spec, const Case& k) {
    auto a = load_model(save(qoperator_model(k), dir.path.string(), "qop.onnx"));
    auto b = load_model(save(qdq_model(k), dir.path.string(), "qdq.onnx"));
    EXPECT_TRUE(a.ok() && b.ok());
    if (!a.ok() || !b.ok()) return;
    qop = run_platform(spec, *a, {{"X", input_for(k)}});
    qdq = run_platform(spec, *b, {{"X", input_for(k)}});
  }
};

std::string note_of(const Outcome& o, const std::string& node) {
  for (const auto& [name, r] : o.reports)
    if (name == node) return r.note;
  return "(no report for " + node + ")";
}

const Tensor& y_of(const Outcome& o) { return o.outputs.at(0).tensor; }

void expect_same_integers(const std::string& spec, const Case& k, const std::string& note) {
  Runs r(spec, k);
  ASSERT_TRUE(r.qop.status.ok()) << spec << ": " << r.qop.status.to_string();
  ASSERT_TRUE(r.qdq.status.ok()) << spec << ": " << r.qdq.status.to_string();
  EXPECT_EQ(note_of(r.qop, "qop").rfind(note, 0), 0u) << spec << ": " << note_of(r.qop, "qop");
  EXPECT_EQ(tensor_hash(y_of(r.qop)), tensor_hash(y_of(r.qdq))) << spec;
  if (!k.float_y) {
    EXPECT_EQ(r.qop.trace.at("yq").dtype(), DType::kUInt8);
    EXPECT_EQ(tensor_hash(r.qop.trace.at("yq")), tensor_hash(r.qdq.trace.at("yq"))) << spec;
  }
}

TEST(QoperatorInt8, QLinearConvIsItsGroupsIntegerKernelOnEveryLibrary) {
  expect_same_integers("onednn", {}, "int8 u8s8 ");
  expect_same_integers("xnnpack", {}, "xnn:convolution2d_nhwc_qc8 (");
  expect_same_integers("ref:qdq=int", {}, "");
}

TEST(QoperatorInt8, QGemmRunsOnBothLibrariesAndFloatOutputOnOnednn) {
  expect_same_integers("onednn", {.gemm = true}, "int8 u8s8 ");
  expect_same_integers("xnnpack", {.gemm = true}, "xnn:");
  expect_same_integers("onednn", {.gemm = true, .float_y = true}, "int8 u8s8 ");
  expect_same_integers("ref:qdq=int", {.gemm = true, .float_y = true}, "");
}

TEST(QoperatorInt8, LibrariesAgreeWithRefsQLinearKernels) {
  // On this small case the sums stay below 2^15: avx2's pair saturation cannot fire.
  Runs ref("ref", {});
  Runs xnn("xnnpack", {});
  ASSERT_TRUE(ref.qop.status.ok() && xnn.qop.status.ok());
  EXPECT_EQ(tensor_hash(ref.qop.trace.at("xq")), tensor_hash(xnn.qop.trace.at("xq")));
  EXPECT_EQ(tensor_hash(ref.qop.trace.at("yq")), tensor_hash(xnn.qop.trace.at("yq")));
  EXPECT_EQ(tensor_hash(y_of(ref.qop)), tensor_hash(y_of(xnn.qop)));
}

TEST(QoperatorInt8, RefusalsNameTheNodeAndFallbackRunsItOnRef) {
  // XNNPACK's int8 operators write integers: a QGemm with a float output has no operator.
  Runs gemm("xnnpack", {.gemm = true, .float_y = true});
  ASSERT_FALSE(gemm.qop.status.ok());
  EXPECT_NE(
      gemm.qop.status.message().find("com.microsoft.QGemm 'qop': not an XNNPACK int8 operator:"),
      std::string::npos)
      << gemm.qop.status.to_string();
  // u8 weights with a zero point: oneDNN's int8 kernels take symmetric s8 weights.
  Runs u8w("onednn", {.w_zp = 128});
  ASSERT_FALSE(u8w.qop.status.ok());
  EXPECT_NE(u8w.qop.status.message().find("QLinearConv 'qop': not a oneDNN int8 primitive:"),
            std::string::npos)
      << u8w.qop.status.to_string();
  EXPECT_NE(u8w.qop.status.message().find("DequantizeLinear 'qop:w': weights are uint8[3,4,3,3]; "
                                          "oneDNN's int8 kernels take s8 weights"),
            std::string::npos)
      << u8w.qop.status.to_string();
  Runs fallback("onednn:fallback=ref", {.w_zp = 128});
  Runs ref("ref", {.w_zp = 128});
  ASSERT_TRUE(fallback.qop.status.ok()) << fallback.qop.status.to_string();
  EXPECT_EQ(note_of(fallback.qop, "qop").rfind("fallback=ref: QLinearConv 'qop'", 0), 0u);
  EXPECT_EQ(tensor_hash(y_of(fallback.qop)), tensor_hash(y_of(ref.qop)));
}

// X1, X2 -> QuantizeLinear each -> QLinearAdd -> MaxPool (on the integers) ->
// QLinearGlobalAveragePool -> DequantizeLinear -> Y: the QOperator nodes around the int8 groups.
onnx::ModelProto add_pool_model(int64_t channels_last) {
  GraphBuilder b;
  auto* ms = b.model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  b.io(true, "X1", {1, kIc, 6, 6});
  b.io(true, "X2", {1, kIc, 6, 6});
  b.io(false, "Y", {1, kIc, 1, 1});
  b.init<float>("s1", {0.05f}, {});
  b.init<float>("s2", {0.03f}, {});
  b.init<float>("sc", {0.07f}, {});
  b.init<float>("sg", {0.02f}, {});
  b.init<uint8_t>("z1", {100}, {});
  b.init<uint8_t>("z2", {130}, {});
  b.init<uint8_t>("zc", {90}, {});
  b.init<uint8_t>("zg", {10}, {});
  b.node("QuantizeLinear", "q1", {"X1", "s1", "z1"}, {"a"});
  b.node("QuantizeLinear", "q2", {"X2", "s2", "z2"}, {"b"});
  b.node("QLinearAdd", "add", {"a", "s1", "z1", "b", "s2", "z2", "sc", "zc"}, {"c"})
      ->set_domain("com.microsoft");
  auto* pool = b.node("MaxPool", "pool", {"c"}, {"p"});
  GraphBuilder::ints(pool, "kernel_shape", {2, 2});
  GraphBuilder::ints(pool, "strides", {2, 2});
  auto* gap = b.node("QLinearGlobalAveragePool", "gap", {"p", "sc", "zc", "sg", "zg"}, {"g"});
  gap->set_domain("com.microsoft");
  GraphBuilder::integer(gap, "channels_last", channels_last);
  b.node("DequantizeLinear", "dqg", {"g", "sg", "zg"}, {"Y"});
  return b.model;
}

Tensor seeded(uint64_t seed) {
  Tensor x(DType::kFloat32, {1, kIc, 6, 6});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = float(int((i * 37 + seed * 11) % 97) - 48) * 0.061f;
  return x;
}

int max_steps(const Tensor& a, const Tensor& b) {
  int worst = a.shape() == b.shape() ? 0 : 1000;
  for (int64_t i = 0; worst < 1000 && i < a.numel(); ++i)
    worst = std::max(worst, std::abs(int(a.as_int64(i)) - int(b.as_int64(i))));
  return worst;
}

// The max of integers is exact: the 2x2 pool `p` of a run is the max of its own sums `c`.
void expect_max_pooled(const Outcome& o) {
  const Tensor& c = o.trace.at("c");
  const Tensor& p = o.trace.at("p");
  ASSERT_EQ(p.shape(), (Shape{1, kIc, 3, 3}));
  for (int64_t ch = 0; ch < kIc; ++ch)
    for (int64_t y = 0; y < 3; ++y)
      for (int64_t x = 0; x < 3; ++x) {
        int64_t best = 0;
        for (int64_t k = 0; k < 4; ++k)
          best = std::max(best, c.as_int64((ch * 6 + 2 * y + k / 2) * 6 + 2 * x + k % 2));
        EXPECT_EQ(p.as_int64((ch * 3 + y) * 3 + x), best);
      }
}

TEST(QoperatorInt8, XnnpackRunsQLinearAddMaxPoolAndGlobalAveragePoolOnIntegers) {
  TempDir dir;
  auto model = load_model(save(add_pool_model(0), dir.path.string(), "add_pool.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {{"X1", seeded(1)}, {"X2", seeded(2)}};
  const Outcome xnn = run_platform("xnnpack", *model, feeds);
  const Outcome ref = run_platform("ref", *model, feeds);
  ASSERT_TRUE(xnn.status.ok()) << xnn.status.to_string();
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  EXPECT_EQ(note_of(xnn, "add"), "xnn:add_nd_qu8");
  EXPECT_EQ(note_of(xnn, "pool").rfind("xnn:max_pooling2d_nhwc_u8 (", 0), 0u);
  EXPECT_EQ(note_of(xnn, "gap").rfind("xnn:global_average_pooling_nwc_qu8 (", 0), 0u);
  // XNNPACK rescales in fixed point where ref follows the schema's float formula: a tie apart.
  EXPECT_LE(max_steps(xnn.trace.at("c"), ref.trace.at("c")), 1);
  EXPECT_LE(max_steps(xnn.trace.at("g"), ref.trace.at("g")), 1);
  expect_max_pooled(xnn);
  // oneDNN maps neither QLinearAdd nor the average pool; it max-pools the integers itself.
  const Outcome dnnl = run_platform("onednn:fallback=ref", *model, feeds);
  ASSERT_TRUE(dnnl.status.ok()) << dnnl.status.to_string();
  EXPECT_EQ(note_of(dnnl, "add").rfind("fallback=ref: ", 0), 0u);
  EXPECT_EQ(note_of(dnnl, "pool").rfind("fallback=ref", 0), std::string::npos)
      << note_of(dnnl, "pool");
  expect_max_pooled(dnnl);
}

TEST(QoperatorInt8, ChannelsLastGlobalAveragePoolIsRefusedByNodeAndFallsBack) {
  TempDir dir;
  auto model = load_model(save(add_pool_model(1), dir.path.string(), "add_pool.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {{"X1", seeded(1)}, {"X2", seeded(2)}};
  // channels_last=1 reads [1,C,6,6] as 6 channels of 4 x 6 pixels.
  const Outcome xnn = run_platform("xnnpack", *model, feeds);
  EXPECT_NE(xnn.status.message().find("com.microsoft.QLinearGlobalAveragePool 'gap': "
                                      "channels_last=1 is not mapped"),
            std::string::npos)
      << xnn.status.to_string();
  const Outcome fallback = run_platform("xnnpack:fallback=ref", *model, feeds);
  ASSERT_TRUE(fallback.status.ok()) << fallback.status.to_string();
  EXPECT_EQ(
      note_of(fallback, "gap").rfind("fallback=ref: com.microsoft.QLinearGlobalAveragePool", 0), 0u)
      << note_of(fallback, "gap");
}

}  // namespace
}  // namespace ig::testing::qoperator_int8
