#include "synth/quantize_model.h"

#include <gtest/gtest.h>

#include "../support/run_ref.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "backends/ref/ref_backend.h"
#include "inputs/random_input.h"
#include "model/npy.h"
#include "model/onnx_model.h"
#include "model/qdq_group.h"
#include "model/quant_scales.h"
#include "model/tensor_proto.h"
#include "synth/graph_builder.h"
#include "synth/mutate.h"

namespace ig {
namespace {

// x -> Conv(bias) -> Relu -> Conv(bias) -> GlobalAveragePool -> Flatten -> Gemm(transB) ->
// MatMul + Add -> y: every weighted op ORT's quantizer handles, with its weight layout.
onnx::ModelProto small_model() {
  GraphBuilder b("q", DType::kFloat32, 3, WeightInit{});
  const std::string x = b.input("x", {3, 8, 8});
  std::string v = b.activation(b.conv(x, 3, 8, 3, 1, 1), Activation::kRelu);
  v = b.global_avg_pool(b.conv(v, 8, 4, 3, 1, 1));
  v = b.linear(b.dense(b.flatten(v), 4, 6), 6, 5);
  b.output(v, "y", {5});
  return b.finish();
}

QuantizeOptions options(uint64_t seed = 0) {
  QuantizeOptions o;
  o.samples = 16;
  o.seed = seed;
  o.inputs.seed = seed;
  return o;
}

const onnx::NodeProto* producer(const onnx::GraphProto& g, const std::string& v) {
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == v) return &n;
  return nullptr;
}

Tensor init(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return *tensor_from_proto(t);
  ADD_FAILURE() << "no initializer " << name;
  return {};
}

TEST(Quantize, WeightedOpsReadDequantizedValuesAndPassTheChecker) {
  const auto parent = small_model();
  auto r = quantize_model(parent, options());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(check_variant(r->model).ok());
  const auto& g = r->model.graph();
  int weighted = 0;
  for (const auto& n : g.node()) {
    if (n.op_type() != "Conv" && n.op_type() != "Gemm" && n.op_type() != "MatMul") continue;
    ++weighted;
    for (const auto& in : n.input()) {
      const auto* p = producer(g, in);
      ASSERT_NE(p, nullptr) << n.name() << " reads " << in;
      EXPECT_EQ(p->op_type(), "DequantizeLinear") << n.name() << " reads " << in;
    }
  }
  EXPECT_EQ(weighted, 4);
  EXPECT_EQ(r->quantized_nodes.size(), 6u);  // + GlobalAveragePool and the Add
  EXPECT_EQ(r->folded, std::vector<std::string>{"relu"});
  // Node names are kept; new ones follow ORT's.
  EXPECT_NE(producer(g, "x_DequantizeLinear_Output"), nullptr);
  EXPECT_EQ(producer(g, "x_DequantizeLinear_Output")->name(), "x_DequantizeLinear");
  EXPECT_EQ(producer(g, "conv")->name(), "conv");
}

// Checks each weighted node's weight (int8, per channel on the output axis, scale max|w_c|/qmax)
// and bias (int32, scale x_scale * w_scale[c]).
void expect_weights(const onnx::ModelProto& parent, const onnx::ModelProto& q, int qmax) {
  const auto& g = q.graph();
  int biases = 0;
  for (const auto& n : g.node()) {
    if (n.op_type() != "Conv" && n.op_type() != "Gemm" && n.op_type() != "MatMul") continue;
    const auto* wdq = producer(g, n.input(1));
    const Tensor wq = init(g, wdq->input(0)), ws = init(g, wdq->input(1)),
                 wz = init(g, wdq->input(2));
    ASSERT_EQ(wq.dtype(), DType::kInt8) << n.name();
    const std::string wname = wdq->input(0).substr(0, wdq->input(0).size() - 10);  // _quantized
    const Tensor w = init(parent.graph(), wname);
    const int axis = n.op_type() == "Conv" ? 0 : n.op_type() == "Gemm" ? 0 : 1;  // transB=1
    EXPECT_EQ(wdq->attribute(0).i(), axis) << n.name();
    ASSERT_EQ(ws.numel(), w.dim(axis)) << n.name();
    int64_t inner = 1;
    for (int d = axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
    std::vector<double> amax(static_cast<size_t>(ws.numel()), 0);
    for (int64_t i = 0; i < w.numel(); ++i) {
      auto& m = amax[static_cast<size_t>((i / inner) % ws.numel())];
      m = std::max(m, std::fabs(w.as_double(i)));
      EXPECT_LE(std::abs(wq.as_int64(i)), qmax);
    }
    for (int64_t c = 0; c < ws.numel(); ++c) {
      EXPECT_NEAR(ws.as_double(c), amax[static_cast<size_t>(c)] / qmax, 1e-7) << n.name();
      EXPECT_EQ(wz.as_int64(c), 0);
    }
    for (int64_t i = 0; i < w.numel(); ++i) {
      const double s = ws.as_double((i / inner) % ws.numel());
      EXPECT_LE(std::fabs(wq.as_double(i) * s - w.as_double(i)), s / 2 + 1e-7);
    }
    if (n.input_size() < 3) continue;
    const auto* bdq = producer(g, n.input(2));
    const Tensor bq = init(g, bdq->input(0)), bs = init(g, bdq->input(1));
    ASSERT_EQ(bq.dtype(), DType::kInt32);
    const double xs = init(g, producer(g, n.input(0))->input(1)).as_double(0);
    for (int64_t c = 0; c < bs.numel(); ++c)
      EXPECT_FLOAT_EQ(static_cast<float>(bs.as_double(c)),
                      static_cast<float>(xs) * static_cast<float>(ws.as_double(c)));
    ++biases;
  }
  EXPECT_EQ(biases, 3);  // both Convs and the Gemm; MatMul's bias is the Add's
}

TEST(Quantize, WeightsAreInt8PerChannelAndBiasesInt32WithTheProductScale) {
  const auto parent = small_model();
  auto r = quantize_model(parent, options());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  expect_weights(parent, r->model, 127);
  QuantizeOptions reduced = options();
  reduced.reduce_range = true;
  auto r7 = quantize_model(parent, reduced);
  ASSERT_TRUE(r7.ok()) << r7.status().to_string();
  expect_weights(parent, r7->model, 63);
}

TEST(Quantize, RunsOnRefWithinAFewQuantizationStepsOfTheFloatModel) {
  const auto parent = small_model();
  for (bool s8 : {false, true}) {
    QuantizeOptions o = options();
    o.signed_activations = s8;
    auto r = quantize_model(parent, o);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    // The output's own step: the scale of the Add's QDQ pair in front of the Identity.
    const auto& g = r->model.graph();
    const auto* out_dq = producer(g, producer(g, "y")->input(0));
    ASSERT_EQ(out_dq->op_type(), "DequantizeLinear");
    const double step = init(g, out_dq->input(1)).as_double(0);
    if (s8) {
      EXPECT_EQ(init(g, out_dq->input(2)).dtype(), DType::kInt8);
    }
    for (uint64_t seed : {7, 8, 9}) {
      const Tensor x = random_uniform_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, seed);
      const Tensor a = testing::run_ref_on_x(parent, x), b = testing::run_ref_on_x(r->model, x);
      ASSERT_EQ(a.shape(), b.shape());
      double err = 0, norm = 0, worst = 0;
      for (int64_t i = 0; i < a.numel(); ++i) {
        err += std::pow(a.as_double(i) - b.as_double(i), 2);
        norm += std::pow(a.as_double(i), 2);
        worst = std::max(worst, std::fabs(a.as_double(i) - b.as_double(i)));
      }
      // Errors add up over five quantized layers: a few output steps, a few percent.
      EXPECT_LE(worst, 10 * step) << "s8=" << s8 << " seed=" << seed;
      EXPECT_LT(std::sqrt(err / norm), 0.06) << "s8=" << s8 << " seed=" << seed;
    }
  }
}

// Each QuantizeLinear -> DequantizeLinear pair, run on ref, moves a value inside its range by at
// most half a step.
TEST(Quantize, EveryQdqPairRoundsToTheNearestStep) {
  auto r = quantize_model(small_model(), options());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto& g = r->model.graph();
  onnx::ModelProto copy = r->model;  // model_from_proto consumes its proto
  auto model = model_from_proto(copy, "q", "", LoadOptions{});
  ASSERT_TRUE(model.ok());
  std::map<std::string, Tensor> seen;
  const Tensor x = random_uniform_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 7);
  seen["x"] = x;
  RefBackend ref;
  ASSERT_TRUE(ref.run(*model, {{"x", x}},
                      [&](const Node& n, const std::vector<Value>& outs) {
                        for (size_t i = 0; i < outs.size(); ++i)
                          seen[n.outputs[i]] = outs[i].tensor.clone();
                      })
                  .ok());
  int pairs = 0;
  for (const auto& q : g.node()) {
    if (q.op_type() != "QuantizeLinear") continue;
    const onnx::NodeProto* dq = nullptr;
    for (const auto& n : g.node())
      if (n.op_type() == "DequantizeLinear" && n.input(0) == q.output(0)) dq = &n;
    ASSERT_NE(dq, nullptr);
    const double s = init(g, q.input(1)).as_double(0);
    const double zp = init(g, q.input(2)).as_double(0);
    const Tensor &t = seen.at(q.input(0)), &d = seen.at(dq->output(0));
    for (int64_t i = 0; i < t.numel(); ++i) {
      const double v = t.as_double(i);
      if (v < (0 - zp) * s || v > (255 - zp) * s) continue;  // saturates
      EXPECT_LE(std::fabs(d.as_double(i) - v), s / 2 + 1e-6) << q.name() << " " << i;
    }
    ++pairs;
  }
  EXPECT_EQ(pairs, static_cast<int>(r->activations.size()));
}

TEST(Quantize, SameSeedSameBytesAndTheLineageReplays) {
  const auto parent = small_model();
  auto a = quantize_model(parent, options(5)), b = quantize_model(parent, options(5)),
       c = quantize_model(parent, options(6));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  std::string ab, bb, cb;
  a->model.SerializeToString(&ab);
  b->model.SerializeToString(&bb);
  c->model.SerializeToString(&cb);
  EXPECT_EQ(ab, bb);
  EXPECT_NE(ab, cb);
  auto lineage = lineage_from_model(a->model);
  ASSERT_TRUE(lineage.ok()) << lineage.status().to_string();
  EXPECT_EQ(lineage->parent_hash, content_hash(parent));
  ASSERT_EQ(lineage->mutations.size(), 1u);
  EXPECT_EQ(lineage->mutations[0].kind, "quantize");
  auto again = replay_lineage(parent, *lineage);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(content_hash(*again), content_hash(a->model));
}

TEST(Quantize, RefusesAQuantizedModelNamingANode) {
  auto r = quantize_model(small_model(), options());
  ASSERT_TRUE(r.ok());
  QuantizeOptions o = options();
  o.label = "q.onnx";
  auto again = quantize_model(r->model, o);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("q.onnx"), std::string::npos);
  EXPECT_NE(again.status().message().find("already quantized"), std::string::npos);
  EXPECT_NE(again.status().message().find("_DequantizeLinear'"), std::string::npos)
      << again.status().message();
}

TEST(Quantize, BlockKeepsANodeOrAnOpTypeInFloat) {
  const auto parent = small_model();
  QuantizeOptions o = options();
  o.block = {"conv_1", "Gemm"};
  auto r = quantize_model(parent, o);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto& g = r->model.graph();
  for (const auto& n : g.node()) {
    if (n.name() != "conv_1" && n.op_type() != "Gemm") continue;
    for (const auto& in : n.input()) {
      const auto* p = producer(g, in);
      EXPECT_TRUE(p == nullptr || p->op_type() != "DequantizeLinear") << n.name() << " " << in;
    }
    EXPECT_EQ(init(g, n.input(1)).dtype(), DType::kFloat32);
  }
  EXPECT_EQ(std::count(r->quantized_nodes.begin(), r->quantized_nodes.end(), "conv"), 1);
  o.block = {"nope"};
  auto bad = quantize_model(parent, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("nope"), std::string::npos);
}

TEST(Quantize, RefusesCalibrationFilesOfTheWrongShapeNamingTheFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("infergap-quantize-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "small.npy").string();
  ASSERT_TRUE(write_npy(random_uniform_tensor(DType::kFloat32, Shape{1, 3, 4, 4}, 1), file).ok());
  QuantizeOptions o = options();
  o.calibrate = {file};
  auto r = quantize_model(small_model(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(file), std::string::npos) << r.status().message();
  // A right one: one sample per file.
  ASSERT_TRUE(write_npy(random_uniform_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 1), file).ok());
  auto ok = quantize_model(small_model(), o);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ(ok->samples, 1);
  std::filesystem::remove_all(dir);
}

TEST(Quantize, RefusesAModelWithNothingToQuantize) {
  GraphBuilder b("relu", DType::kFloat32, 1, WeightInit{});
  b.output(b.activation(b.input("x", {4}), Activation::kRelu), "y", {4});
  auto r = quantize_model(b.finish(), options());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nothing to quantize"), std::string::npos);
}

TEST(Quantize, RaisesAnOlderOpsetTo13) {
  auto parent = small_model();
  for (auto& op : *parent.mutable_opset_import())
    if (op.domain().empty()) op.set_version(11);
  ASSERT_TRUE(check_model_proto(parent).ok());
  auto r = quantize_model(parent, options());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(r->opset_raised);
  for (const auto& op : r->model.opset_import())
    if (op.domain().empty()) {
      EXPECT_EQ(op.version(), 13);
    }
  EXPECT_TRUE(check_variant(r->model).ok());
}

TEST(Quantize, PercentileNarrowsTheRange) {
  QuantizeOptions o = options();
  auto minmax = quantize_model(small_model(), o);
  o.percentile = true;
  o.percentile_value = 99.0;
  auto pct = quantize_model(small_model(), o);
  ASSERT_TRUE(minmax.ok() && pct.ok());
  ASSERT_EQ(minmax->activations.size(), pct->activations.size());
  bool narrower = false;
  for (size_t i = 0; i < pct->activations.size(); ++i) {
    EXPECT_LE(pct->activations[i].max, minmax->activations[i].max);
    EXPECT_GE(pct->activations[i].min, minmax->activations[i].min);
    narrower |= pct->activations[i].max < minmax->activations[i].max;
  }
  EXPECT_TRUE(narrower);
}

// PyTorch's exporter shares equal biases through Identity nodes; they are quantized all the same.
TEST(Quantize, QuantizesWeightsAndBiasesReadThroughIdentity) {
  auto parent = small_model();
  auto* g = parent.mutable_graph();
  onnx::NodeProto* conv = nullptr;
  for (auto& n : *g->mutable_node())
    if (n.name() == "conv") conv = &n;
  ASSERT_NE(conv, nullptr);
  onnx::NodeProto id;
  id.set_op_type("Identity");
  id.set_name("shared_bias");
  const std::string bias = conv->input(2);
  id.add_input(bias);
  id.add_output("shared_bias_out");
  conv->set_input(2, "shared_bias_out");
  *g->add_node() = id;
  g->mutable_node()->SwapElements(0, g->node_size() - 1);  // keep a topological order
  for (int i = g->node_size() - 1; i > 1; --i) g->mutable_node()->SwapElements(i, i - 1);
  ASSERT_TRUE(check_model_proto(parent).ok());
  auto r = quantize_model(parent, options());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->biases, 3);
  for (const auto& n : r->model.graph().node()) EXPECT_NE(n.name(), "shared_bias");
  for (const auto& t : r->model.graph().initializer()) EXPECT_NE(t.name(), bias);  // now int32
}

// A Softmax output read by a quantized MatMul gets ORT's fixed parameters, not calibrated ones:
// ORT's QLinearSoftmax depends on them (with a calibrated scale of 0.0003 it wrote zeros).
TEST(Quantize, SoftmaxOutputHasOrtsFixedParameters) {
  GraphBuilder b("s", DType::kFloat32, 5, WeightInit{});
  std::string v = b.softmax(b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 8}, 8, 8)));
  v = b.matmul(v, b.weight("v", {8, 3}, 8, 3));
  b.output(v, "y", {4, 3});
  const auto parent = b.finish();
  for (bool s8 : {false, true}) {
    auto o = options();
    o.signed_activations = s8;
    auto r = quantize_model(parent, o);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    int seen = 0;
    for (const auto& n : r->model.graph().node()) {
      if (n.op_type() != "QuantizeLinear") continue;
      const auto* p = producer(r->model.graph(), n.input(0));
      if (!p || p->op_type() != "Softmax") continue;
      ++seen;
      EXPECT_EQ(init(r->model.graph(), n.input(1)).as_double(0), s8 ? 1.0 / 128 : 1.0 / 256);
      EXPECT_EQ(init(r->model.graph(), n.input(2)).as_double(0), 0);
    }
    EXPECT_EQ(seen, 1);
  }
}

// A quantized operator's scale is no weight: the reinit mutation leaves it alone, and a variant
// whose scale is not above 0 (which loading refuses) is discarded, counted by its reason.
TEST(Quantize, MutantsOfAnInt8ModelKeepTheirScalesValid) {
  auto r = quantize_model(small_model(), options());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto scales = constant_scale_names(r->model);
  ASSERT_FALSE(scales.empty());
  const MutateResult variants = generate_variants(r->model, 30, 5);
  EXPECT_EQ(variants.variants.size(), 30u);
  for (const auto& v : variants.variants) {
    EXPECT_TRUE(check_constant_scales(v).ok()) << check_constant_scales(v).to_string();
    auto lineage = lineage_from_model(v);
    ASSERT_TRUE(lineage.ok());
    for (const auto& m : lineage->mutations) {
      if (m.kind == "reinit") {
        EXPECT_EQ(scales.count(m.params.at("init")), 0u) << m.to_string();
      }
    }
  }
  onnx::ModelProto bad = r->model;
  for (auto& t : *bad.mutable_graph()->mutable_initializer()) {
    if (!scales.count(t.name())) continue;
    Tensor s = *tensor_from_proto(t);
    s.data<float>()[0] = -s.data<float>()[0];
    const std::string name = t.name();  // tensor_to_proto clears t first
    tensor_to_proto(s, name, &t);
    break;
  }
  const Status st = check_variant(bad);
  EXPECT_NE(st.message().find("a scale must be finite and above 0"), std::string::npos)
      << st.to_string();
}

// A group looked up by scanning the graph is the one the whole-graph index finds, for every node
// of both layouts (the backends scan, the ref interpreter and inspect index).
TEST(Quantize, GroupLookupsByScanAndByIndexAgree) {
  for (bool inputs_only : {false, true}) {
    QuantizeOptions o = options();
    o.inputs_only = inputs_only;
    auto r = quantize_model(small_model(), o);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    auto model = model_from_proto(r->model, "q", "", LoadOptions{});
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    const QdqGraphIndex index(model->graph);
    const QdqGraphIndex scan = QdqGraphIndex::scanning(model->graph);
    int groups = 0;
    for (size_t i = 0; i < model->graph.nodes.size(); ++i) {
      const auto a = find_qdq_group(index, i);
      const auto b = find_qdq_group(scan, i);
      ASSERT_EQ(a.has_value(), b.has_value()) << i;
      if (!a) continue;
      ++groups;
      EXPECT_EQ(a->nodes, b->nodes) << i;
      EXPECT_EQ(a->x.owned, b->x.owned) << i;
      EXPECT_EQ(a->w.owned, b->w.owned) << i;
      EXPECT_EQ(a->b.has_value(), b->b.has_value()) << i;
    }
    EXPECT_GE(groups, 3) << "inputs_only=" << inputs_only;
  }
}

}  // namespace
}  // namespace ig
