// infergap campaign end to end: extracted single-node variants of a zoo model, a Max fed NaN, an
// op oneDNN does not map, and the parent itself, on ref (two NaN modes) and oneDNN (fused and
// eager) against the fp64 oracle; then SIGKILL mid-run and resume.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "../support/cli.h"
#include "../support/onnx_builder.h"
#include "inputs/variant_inputs.h"
#include "model/onnx_model.h"
#include "store/store.h"

namespace ig {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Y = OP(A[, B]) on float[1,16], carrying its own inputs (A with NaN at 0 and 3 for Max).
void write_op_model(const std::string& path, const std::string& op, bool two_inputs,
                    const std::map<std::string, std::string>& inputs) {
  onnx::ModelProto m = testing::empty_model(op);
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "A", onnx::TensorProto::FLOAT, {1, 16});
  if (two_inputs) testing::add_tensor_value(g->add_input(), "B", onnx::TensorProto::FLOAT, {1, 16});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 16});
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "0");
  n->add_input("A");
  if (two_inputs) n->add_input("B");
  n->add_output("Y");
  set_variant_inputs(m, inputs);
  ASSERT_TRUE(save_model_proto(m, path).ok());
}

const std::vector<std::string> kPlatforms = {"ref:nan=propagate", "ref:nan=ignore",
                                             "onednn:isa=avx2,threads=1",
                                             "onednn:fuse=off,isa=avx2,threads=1"};

std::string platform_args() {
  std::string s;
  for (const auto& p : kPlatforms) s += " -p '" + p + "'";
  return s;
}

// A folder of this test process's own (TempDir's name can repeat across test processes that
// ctest runs at once).
struct Scratch {
  fs::path path;
  Scratch() {
    path = fs::temp_directory_path() / ("infergap-campaign-" + std::to_string(getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

struct Variants {
  fs::path dir;
  int64_t count = 0;
};

Variants make_variants(const Scratch& tmp) {
  Variants v{tmp.path / "variants", 0};
  const std::string parent = tmp.file("parent.onnx");
  EXPECT_EQ(testing::run_cli("zoo export Cifar10-small -o " + parent).exit_code, 0);
  auto r = testing::run_cli("mutate " + parent + " --extract --per-node 1 --seed 3 -o " +
                            v.dir.string() + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  v.count = json::parse(r.out).at("written").get<int64_t>();
  write_op_model((v.dir / "max_nan.onnx").string(), "Max", true,
                 {{"A", "random:uniform,inject=nan@0/3"}, {"B", "random:uniform"}});
  write_op_model((v.dir / "softsign.onnx").string(), "Softsign", false, {});
  fs::copy_file(parent, v.dir / "parent.onnx");
  v.count += 3;
  return v;
}

TEST(CampaignCli, AnalysisNumbersAndResume) {
  Scratch tmp;
  const Variants v = make_variants(tmp);
  ASSERT_GE(v.count, 20);
  const std::string store = tmp.file("c.db");
  const std::string args = "campaign --models " + v.dir.string() + platform_args() + " --store " +
                           store + " --jobs 2 --rtol 1e-9 --atol 0 --json";
  auto r = testing::run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  const int64_t total = v.count * static_cast<int64_t>(kPlatforms.size() + 1);
  EXPECT_EQ(j.at("runs_executed").get<int64_t>(), total);
  EXPECT_EQ(j.at("runs_skipped").get<int64_t>(), 0);
  const json& a = j.at("analysis");
  EXPECT_EQ(a.at("variants").get<int64_t>(), v.count);
  EXPECT_EQ(a.at("oracle"), "ref:acc=exact,dtype=fp64");

  // Max with NaN: ref's two NaN modes behave as their names say.
  bool max_nan = false;
  for (const auto& e : a.at("exceptional")) {
    if (e.at("op") != "Max" || e.at("value") != "nan") continue;
    max_nan = true;
    EXPECT_EQ(e.at("variants").get<int64_t>(), 1);
    const auto& propagate = e.at("behaviours").at("propagate");
    const auto& ignore = e.at("behaviours").at("ignore");
    EXPECT_NE(std::find(propagate.begin(), propagate.end(), "ref:nan=propagate"), propagate.end())
        << e.dump();
    EXPECT_NE(std::find(ignore.begin(), ignore.end(), "ref:nan=ignore"), ignore.end()) << e.dump();
  }
  EXPECT_TRUE(max_nan) << a.at("exceptional").dump();

  // Softsign has no oneDNN mapping: refused there with the reason, run everywhere on ref.
  for (const auto& row : a.at("support").at("ops")) {
    if (row.at("op") != "Softsign") continue;
    const auto& cell = row.at("platforms").at("onednn:isa=avx2,threads=1");
    EXPECT_GE(cell.at("unsupported").get<int64_t>(), 1);
    EXPECT_NE(cell.at("reasons").dump().find("no oneDNN mapping"), std::string::npos);
    EXPECT_EQ(row.at("platforms").at("ref:nan=ignore").at("unsupported"), 0);
  }
  EXPECT_LT(a.at("support").at("percent_supported").at("onednn:isa=avx2,threads=1").get<double>(),
            100.0);
  EXPECT_EQ(a.at("support").at("percent_supported").at("ref:nan=propagate").get<double>(), 100.0);
  EXPECT_GE(a.at("failures").at("onednn:isa=avx2,threads=1").at("unsupported").get<int64_t>(), 1);

  // At rtol 1e-9 fp32 differs from fp64 nearly everywhere; every discrepancy has an origin op,
  // the parent's through its per-layer rerun.
  const json& d = a.at("discrepancy").at("ref:nan=propagate");
  EXPECT_GE(d.at("discrepant").get<int64_t>(), 5);  // exact ops (Relu, Flatten) agree
  int64_t sum = 0;
  for (const auto& [op, n] : d.at("by_origin_op").items()) {
    EXPECT_NE(op, "(unlocated)");
    sum += n.get<int64_t>();
  }
  EXPECT_EQ(sum, d.at("discrepant").get<int64_t>());
  EXPECT_GT(d.at("by_origin_op").value("Conv", 0), 0);
  // oneDNN fuses Conv+Relu in the parent and never materialises the Conv output: the origin is
  // the fused group.
  for (const auto& [p, dp] : a.at("discrepancy").items())
    EXPECT_FALSE(dp.at("by_origin_op").contains("(unlocated)")) << p << dp.dump();
  EXPECT_GT(
      a.at("discrepancy").at("onednn:isa=avx2,threads=1").at("by_origin_op").value("Conv+Relu", 0),
      0);
  EXPECT_GE(j.at("runs_layer_traced").get<int64_t>(), 2);

  ASSERT_EQ(a.at("compiled_vs_eager").size(), 1u);
  const json& ce = a.at("compiled_vs_eager")[0];
  EXPECT_EQ(ce.at("backend"), "onednn");
  EXPECT_EQ(ce.at("eager"), "onednn:fuse=off,isa=avx2,threads=1");
  EXPECT_EQ(ce.at("compiled"), "onednn:isa=avx2,threads=1");
  EXPECT_GT(ce.at("variants").get<int64_t>(), 0);

  // Nothing left to run; the tables print.
  auto again = testing::run_cli(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out).at("runs_executed"), 0);
  EXPECT_EQ(json::parse(again.out).at("runs_skipped").get<int64_t>(), total);
  auto text = testing::run_cli("campaign --models " + v.dir.string() + platform_args() +
                               " --store " + store);
  EXPECT_NE(text.out.find("Operator support"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Compiled vs eager"), std::string::npos);
}

int64_t stored_runs(const std::string& path) {
  auto s = Store::open(path);
  if (!s.ok()) return 0;
  auto n = (*s)->count("runs");
  return n.ok() ? *n : 0;
}

TEST(CampaignCli, SurvivesSigkillAndResumesStoringEveryRunOnce) {
  Scratch tmp;
  const Variants v = make_variants(tmp);
  const std::string store = tmp.file("k.db");
  // crashtest:delay_ms makes each of its runs last 40 ms, so the campaign is still running when
  // the first batch of runs has been written.
  const std::string args = "campaign --models " + v.dir.string() + platform_args() +
                           " -p crashtest:delay_ms=40 --store " + store + " --jobs 2 --json";
  // Start it detached, wait until some runs are stored, then SIGKILL the coordinator.
  const std::string cmd = std::string(INFERGAP_CLI) + " " + args + " >/dev/null 2>&1 & echo $!";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  int pid = 0;
  ASSERT_EQ(fscanf(p, "%d", &pid), 1);
  pclose(p);
  const int64_t total = v.count * static_cast<int64_t>(kPlatforms.size() + 2);
  int64_t at_kill = 0;
  for (int i = 0; i < 600 && at_kill < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    at_kill = stored_runs(store);
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  at_kill = stored_runs(store);
  ASSERT_LT(at_kill, total) << "the campaign finished before the kill";
  auto r = testing::run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("runs_skipped").get<int64_t>(), at_kill);
  EXPECT_EQ(j.at("runs_executed").get<int64_t>() + at_kill, total);
  EXPECT_EQ(stored_runs(store), total);
}

TEST(CampaignCli, ShardsPartitionTheVariants) {
  Scratch tmp;
  const Variants v = make_variants(tmp);
  int64_t sum = 0;
  for (int i = 0; i < 3; ++i) {
    auto r = testing::run_cli("campaign --models " + v.dir.string() +
                              " -p ref --oracle none --shard " + std::to_string(i) + "/3 --store " +
                              tmp.file("s" + std::to_string(i) + ".db") + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    sum += json::parse(r.out).at("variants").get<int64_t>();
  }
  EXPECT_EQ(sum, v.count);
  auto bad = testing::run_cli("campaign --models " + v.dir.string() +
                              " -p ref --shard 3/3 --store " + tmp.file("x.db"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--shard"), std::string::npos);
}

// X float[2] -> DequantizeLinear(int8 weights, scale -0.5) + X: a scale loading refuses.
onnx::ModelProto negative_scale_model() {
  onnx::ModelProto m = testing::relu_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::INT8);
  w->add_dims(2);
  w->add_int32_data(3);
  w->add_int32_data(-4);
  auto* scale = g->add_initializer();
  scale->set_name("s");
  scale->set_data_type(onnx::TensorProto::FLOAT);
  scale->add_float_data(-0.5f);
  auto* dq = g->add_node();
  dq->set_op_type("DequantizeLinear");
  dq->set_name("dq0");
  dq->add_input("w");
  dq->add_input("s");
  dq->add_output("wf");
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add0");
  add->add_input("X");
  add->add_input("wf");
  add->add_output("Y");
  return m;
}

// A model that does not load is left out of a campaign, named with why; the others run.
TEST(CampaignCli, RefusedModelsAreLeftOutAndNamed) {
  Scratch tmp;
  const fs::path dir = tmp.path / "models";
  fs::create_directories(dir);
  ASSERT_TRUE(save_model_proto(testing::relu_model(), (dir / "good.onnx").string()).ok());
  ASSERT_TRUE(save_model_proto(negative_scale_model(), (dir / "scale.onnx").string()).ok());
  { std::ofstream((dir / "garbage.onnx").string()) << "not a model"; }
  auto r = testing::run_cli("campaign --models " + dir.string() + " -p ref --store " +
                            tmp.file("c.db") + " --json");
  ASSERT_LE(r.exit_code, 1) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("runs_executed").get<int64_t>(), 2);  // ref and the oracle on good.onnx
  const json refused = j.at("refused_models");
  ASSERT_EQ(refused.size(), 2u) << refused.dump();
  EXPECT_NE(refused[0].at("path").get<std::string>().find("garbage.onnx"), std::string::npos);
  EXPECT_NE(refused[1].at("path").get<std::string>().find("scale.onnx"), std::string::npos);
  EXPECT_NE(refused[1].at("why").get<std::string>().find("a scale must be finite and above 0"),
            std::string::npos)
      << refused[1].dump();
  EXPECT_NE(r.err.find("left out"), std::string::npos) << r.err;
  // Every model refused: the campaign fails and says why.
  fs::remove(dir / "good.onnx");
  auto none =
      testing::run_cli("campaign --models " + dir.string() + " -p ref --store " + tmp.file("d.db"));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("every model was refused"), std::string::npos) << none.err;
}

TEST(MutateCli, ExtractionIsDeterministicAndCarriesItsInputs) {
  Scratch tmp;
  const std::string parent = tmp.file("parent.onnx");
  ASSERT_EQ(testing::run_cli("zoo export Cifar10-small -o " + parent).exit_code, 0);
  auto list = [&](const std::string& sub) {
    auto r = testing::run_cli("mutate " + parent + " --extract --per-node 2 --seed 9 -o " +
                              tmp.file(sub) + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(tmp.file(sub)))
      names.insert(fs::relative(e.path(), tmp.file(sub)).string());
    return names;
  };
  const auto a = list("a");
  EXPECT_EQ(a, list("b"));
  EXPECT_GT(a.size(), 20u);
  EXPECT_TRUE(a.count("inputs"));
}

}  // namespace
}  // namespace ig
