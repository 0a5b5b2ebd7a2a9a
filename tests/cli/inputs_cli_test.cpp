// Inputs as users have them: models with open dims (--shape, --dim, and an announcement of every
// dim left at 1), literal inputs (value:), `inspect`, opsets newer than the reference backend
// implements, and repro lines that carry every input flag.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/onnx_builder.h"
#include "store/store.h"
#include "tensor/hash.h"

namespace ig {
namespace {

using testing::run_cli;
using testing::TempDir;

// Dims given as text: a number is fixed, anything else a symbol.
void add_dims(onnx::ValueInfoProto* vi, const std::string& name, int elem_type,
              const std::vector<std::string>& dims) {
  testing::add_tensor_value(vi, name, elem_type, {});
  auto* shape = vi->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (const auto& d : dims) {
    if (std::isdigit(static_cast<unsigned char>(d[0]))) {
      shape->add_dim()->set_dim_value(std::stoll(d));
    } else {
      shape->add_dim()->set_dim_param(d);
    }
  }
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                          std::vector<std::string> inputs, const std::string& output) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& in : inputs) n->add_input(in);
  n->add_output(output);
  return n;
}

void add_ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

// x: float[N,3,H,W] -> Conv 3x3 (4 filters, pads 1) -> Relu -> MaxPool 2x2 stride 2 -> y, the
// shape of a detector's stem: at H = W = 1 the pooling window does not fit.
onnx::ModelProto dynamic_model() {
  onnx::ModelProto m = testing::empty_model("stem");
  auto* g = m.mutable_graph();
  add_dims(g->add_input(), "x", onnx::TensorProto::FLOAT, {"N", "3", "H", "W"});
  add_dims(g->add_output(), "y", onnx::TensorProto::FLOAT, {"N", "4", "H2", "W2"});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {4, 3, 3, 3}) w->add_dims(d);
  for (int i = 0; i < 4 * 3 * 3 * 3; ++i) w->add_float_data(static_cast<float>(i % 7 - 3) * 0.125f);
  add_ints(add_node(g, "Conv", "conv", {"x", "w"}, "c"), "pads", {1, 1, 1, 1});
  add_node(g, "Relu", "relu", {"c"}, "r");
  auto* pool = add_node(g, "MaxPool", "pool", {"r"}, "y");
  add_ints(pool, "kernel_shape", {2, 2});
  add_ints(pool, "strides", {2, 2});
  return m;
}

// Silero VAD's pattern: x: float[N] and a scalar sample rate sr: int64, y = x * float(sr).
onnx::ModelProto scalar_input_model() {
  onnx::ModelProto m = testing::empty_model("vad");
  auto* g = m.mutable_graph();
  add_dims(g->add_input(), "x", onnx::TensorProto::FLOAT, {"N"});
  add_dims(g->add_input(), "sr", onnx::TensorProto::INT64, {});
  add_dims(g->add_output(), "y", onnx::TensorProto::FLOAT, {"N"});
  auto* cast = add_node(g, "Cast", "cast", {"sr"}, "srf");
  auto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT);
  add_node(g, "Mul", "mul", {"x", "srf"}, "y");
  return m;
}

class InputsCli : public ::testing::Test {
 protected:
  TempDir dir;
  std::string dynamic, vad;
  void SetUp() override {
    dynamic = dir.file("stem.onnx");
    vad = dir.file("vad.onnx");
    ASSERT_TRUE(save_model_proto(dynamic_model(), dynamic).ok());
    ASSERT_TRUE(save_model_proto(scalar_input_model(), vad).ok());
  }
  nlohmann::json json_of(const testing::CliResult& r) {
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
    return j;
  }
  // Rows of a table in a store (the store must exist).
  int64_t rows(const std::string& db, const std::string& table) {
    auto s = Store::open(db);
    EXPECT_TRUE(s.ok()) << s.status().message();
    auto n = (*s)->count(table);
    EXPECT_TRUE(n.ok());
    return n.ok() ? *n : -1;
  }
};

TEST_F(InputsCli, OpenDimsAtOneAreAnnouncedAndDimOrShapeSizeThem) {
  // Left at 1, the pooling window does not fit: the run fails on ref, and says why H and W are 1.
  auto ones = run_cli("run " + dynamic + " -p ref --json");
  EXPECT_EQ(ones.exit_code, 1) << ones.err;
  EXPECT_NE(ones.err.find("window of extent 2 is larger than the padded input (1)"),
            std::string::npos)
      << ones.err;
  EXPECT_NE(ones.err.find("infergap run: note: input 'x' dim 2 (H) is not fixed by the model: "
                          "using 1 (set it with --dim H=SIZE or --shape x=...)"),
            std::string::npos)
      << ones.err;
  auto j = json_of(ones);
  const auto& defaulted = j["inputs"][0]["defaulted_dims"];
  ASSERT_EQ(defaulted.size(), 3u);
  EXPECT_EQ(defaulted[1], (nlohmann::json{{"index", 2}, {"symbol", "H"}, {"value", 1}}));

  auto dims = run_cli("run " + dynamic + " -p ref --dim H=8 --dim W=6 --json");
  ASSERT_EQ(dims.exit_code, 0) << dims.err;
  j = json_of(dims);
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json::array({1, 3, 8, 6}));
  EXPECT_EQ(j["platforms"][0]["outputs"][0]["shape"], nlohmann::json::array({1, 4, 4, 3}));
  ASSERT_EQ(j["inputs"][0]["defaulted_dims"].size(), 1u);
  EXPECT_EQ(j["inputs"][0]["defaulted_dims"][0]["symbol"], "N");
  EXPECT_NE(dims.err.find("dim 0 (N)"), std::string::npos) << dims.err;
  EXPECT_EQ(dims.err.find("(H)"), std::string::npos) << dims.err;

  auto shape = run_cli("run " + dynamic + " -p ref --shape x=2x3x8x6 --json");
  ASSERT_EQ(shape.exit_code, 0) << shape.err;
  j = json_of(shape);
  EXPECT_EQ(j["platforms"][0]["outputs"][0]["shape"], nlohmann::json::array({2, 4, 4, 3}));
  EXPECT_TRUE(j["inputs"][0]["defaulted_dims"].empty());
  EXPECT_EQ(shape.err.find("note:"), std::string::npos) << shape.err;
}

TEST_F(InputsCli, CampaignAndStudySizeEveryModelAndListTheDimsTheyDefaulted) {
  const std::string folder = dir.file("variants");
  std::filesystem::create_directories(folder);
  ASSERT_TRUE(save_model_proto(dynamic_model(), folder + "/stem.onnx").ok());
  auto c = run_cli("campaign --models " + folder + " -p ref --dim H=8 --dim W=6 --no-report " +
                   "--json --store " + dir.file("c.db"));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto j = json_of(c);
  EXPECT_EQ(j["verdicts"]["ok"], 2);  // ref and the oracle
  ASSERT_EQ(j["defaulted_dims"].size(), 1u);
  EXPECT_EQ(j["defaulted_dims"][0]["symbol"], "N");
  EXPECT_EQ(j["defaulted_dims"][0]["model"],
            std::filesystem::absolute(folder + "/stem.onnx").string());
  EXPECT_NE(c.err.find("infergap campaign: note: input 'x' dim 0 (N)"), std::string::npos) << c.err;
  // A study of two models: H and W size only the stem's input, which is enough; a dim that no
  // model names is an error.
  const std::string both = "study --model " + dynamic + " --model " + vad +
                           " -p ref --oracle none --no-report --json --dim N=2 --dim H=4 --dim W=4";
  auto s = run_cli(both + " --store " + dir.file("s.db"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(json_of(s)["defaulted_dims"].empty());
  EXPECT_EQ(s.err.find("note:"), std::string::npos) << s.err;
  auto q = run_cli(both + " --dim Q=1 --store " + dir.file("q.db"));
  EXPECT_EQ(q.exit_code, 2);
  EXPECT_NE(q.err.find("--dim 'Q=1': no input dim of any of the 2 models is named 'Q' (symbols: "
                       "N, H, W)"),
            std::string::npos)
      << q.err;
}

TEST_F(InputsCli, MutateExtractAndBoundarySizeTheInputsTheyGenerate) {
  // Extraction runs the parent on ref: at H = W = 1 its pooling fails, and the note says why.
  auto ones = run_cli("mutate " + dynamic + " --extract -o " + dir.file("v1") + " --json");
  EXPECT_EQ(ones.exit_code, 2);
  EXPECT_NE(ones.err.find("; input 'x' dim 2 (H) is not fixed by the model: using 1"),
            std::string::npos)
      << ones.err;
  EXPECT_NE(ones.err.find("window of extent 2 is larger than the padded input (1)"),
            std::string::npos)
      << ones.err;
  auto sized = run_cli("mutate " + dynamic + " --extract --dim H=8 --dim W=6 -o " + dir.file("v2") +
                       " --json");
  ASSERT_EQ(sized.exit_code, 0) << sized.err;
  auto j = json_of(sized);
  EXPECT_EQ(j["written"], 3);
  ASSERT_EQ(j["defaulted_dims"].size(), 1u);
  EXPECT_EQ(j["defaulted_dims"][0]["symbol"], "N");

  auto b = run_cli("boundary " + dynamic +
                   " -p ref -p ref:fma=on --starts 2 --max-pairs 1 --max-steps 2 --shape " +
                   "x=1x3x8x6 --json -o " + dir.file("b"));
  ASSERT_NE(b.exit_code, 2) << b.err;
  j = json_of(b);
  EXPECT_TRUE(j["defaulted_dims"].empty());
  ASSERT_EQ(j["starts"].size(), 2u);
  EXPECT_NE(j["starts"][0].get<std::string>().find("shape=1x3x8x6"), std::string::npos)
      << j["starts"][0];
}

TEST_F(InputsCli, ValueInputsAreScalarsOrFillsInTheModelsDtype) {
  auto r =
      run_cli("run " + vad + " -p ref --input sr=value:16000 --input x=value:0.5 --dim N=3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json_of(r);
  EXPECT_EQ(j["inputs"][1]["source"], "value:16000,shape=,dtype=int64");
  EXPECT_EQ(j["inputs"][1]["shape"], nlohmann::json::array());
  EXPECT_EQ(j["inputs"][0]["source"], "value:0.5,shape=3,dtype=float");
  const Tensor expected = Tensor::from_vector<float>({8000, 8000, 8000}, {3});
  EXPECT_EQ(j["platforms"][0]["outputs"][0]["hash"], hash_hex(tensor_hash(expected)));
}

TEST_F(InputsCli, BadSizingAndValuesExitTwoNamingTheInputAndStoreNothing) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {dynamic + " --shape x=1x4x8x8",
       "input 'x': --shape x=1x4x8x8 makes dim 1 4 but the model fixes it at 3 (x: "
       "float[N,3,H,W])"},
      {dynamic + " --shape x=1x0x", "--shape 'x=1x0x': shape '1x0x': dim 2 is empty"},
      {dynamic + " --shape x=axb", "--shape 'x=axb': shape 'axb': dim 0 ('a') is not a size"},
      {dynamic + " --shape q=1x3",
       "--shape 'q=1x3': no input of " + dynamic + " is named 'q' (inputs: x)"},
      {dynamic + " --dim Q=3",
       "--dim 'Q=3': no input dim of " + dynamic + " is named 'Q' (symbols: N, H, W)"},
      {vad + " --input sr=value:abc", "input 'sr': value:abc is not an integer, which int64 needs"},
      {vad + " --input sr=value:99999999999999999999",
       "input 'sr': value:99999999999999999999 overflows int64"},
  };
  for (const auto& [args, message] : cases) {
    auto run = run_cli("run " + args + " -p ref");
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
    EXPECT_NE(run.err.find(message), std::string::npos) << args << "\n" << run.err;
    const std::string db = dir.file("bad.db");
    std::filesystem::remove(db);
    const std::string model = args.substr(0, args.find(' '));
    auto study =
        run_cli("study --model " + args + " -p ref --oracle none --no-report --store " + db);
    EXPECT_EQ(study.exit_code, 2) << args << "\n" << study.err;
    EXPECT_NE(study.err.find(message.substr(message.find("'"))), std::string::npos) << args << "\n"
                                                                                    << study.err;
    for (const char* table : {"runs", "models", "inputs"})
      EXPECT_EQ(rows(db, table), 0) << args << ": " << table;
  }
}

TEST_F(InputsCli, OpsetNewerThanTheReferenceImplementsIsRefused) {
  auto proto = testing::relu_model();
  proto.mutable_opset_import(0)->set_version(99);
  const std::string model = dir.file("opset99.onnx");
  ASSERT_TRUE(save_model_proto(proto, model).ok());
  const std::string message = model +
                              ": the model declares opset 99 of domain ai.onnx, newer than the "
                              "reference backend implements (28)";
  auto run = run_cli("run " + model + " -p ref");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
  const std::string db = dir.file("s.db");
  auto study = run_cli("study --model " + model + " -p ref --no-report --store " + db);
  EXPECT_EQ(study.exit_code, 2);
  EXPECT_NE(study.err.find(message), std::string::npos) << study.err;
  EXPECT_EQ(rows(db, "runs"), 0);
  EXPECT_EQ(rows(db, "models"), 0);
  // inspect shows it rather than failing, and the reference backend's own check agrees.
  auto inspect = run_cli("inspect " + model + " -p ref --json");
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  auto j = json_of(inspect);
  EXPECT_EQ(j["opsets"], (nlohmann::json{{"ai.onnx", 99}}));
  EXPECT_NE(j["opset_problem"].get<std::string>().find(message), std::string::npos);
  EXPECT_EQ(j["support"][0]["verdict"], "unsupported");
  EXPECT_NE(j["support"][0]["reason"].get<std::string>().find("opset 99 of domain ai.onnx"),
            std::string::npos);
}

TEST_F(InputsCli, InspectShowsSymbolsOpsetsOpsAndWhatEachPlatformCannotRun) {
  auto r = run_cli("inspect " + dynamic + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json_of(r);
  EXPECT_EQ(j["inputs"][0]["dims"], (nlohmann::json{"N", 3, "H", "W"}));
  EXPECT_EQ(j["inputs"][0]["open_dims"], (nlohmann::json{{{"index", 0}, {"symbol", "N"}},
                                                         {{"index", 2}, {"symbol", "H"}},
                                                         {{"index", 3}, {"symbol", "W"}}}));
  EXPECT_EQ(j["outputs"][0]["dims"], (nlohmann::json{"N", 4, "H2", "W2"}));
  EXPECT_EQ(j["opsets"], (nlohmann::json{{"ai.onnx", 13}}));
  EXPECT_TRUE(j["opset_problem"].is_null());
  EXPECT_EQ(j["ops"].size(), 3u);
  EXPECT_EQ(j["ops"][0]["count"], 1);
  // One platform per backend family that users can name; the test-only backend is not one.
  std::map<std::string, nlohmann::json> support;
  for (const auto& p : j["support"]) support[p["spec"].get<std::string>()] = p;
  for (const char* family : {"ref", "blas", "onednn", "opencv", "ort"}) {
    ASSERT_TRUE(support.count(family)) << family << "\n" << r.out;
    EXPECT_EQ(support[family]["verdict"], "ok") << family << ": " << support[family]["reason"];
  }
  EXPECT_FALSE(support.count("crashtest"));

  // An operator nobody implements: the node-level checks name it, ORT and OpenCV refuse the model.
  const std::string custom = dir.file("custom.onnx");
  ASSERT_TRUE(save_model_proto(testing::custom_op_model(), custom).ok());
  auto c = run_cli("inspect " + custom + " -p ref -p onednn -p ort --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  j = json_of(c);
  ASSERT_EQ(j["support"].size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(j["support"][i]["verdict"], "unsupported");
    ASSERT_EQ(j["support"][i]["unsupported_ops"].size(), 1u) << j["support"][i];
    EXPECT_EQ(j["support"][i]["unsupported_ops"][0]["op_type"], "Frobnicate");
    EXPECT_EQ(j["support"][i]["unsupported_ops"][0]["nodes"], 1);
  }
  EXPECT_EQ(j["support"][2]["verdict"], "unsupported");
  EXPECT_NE(j["support"][2]["reason"].get<std::string>().find("Frobnicate"), std::string::npos)
      << j["support"][2]["reason"];
  auto text = run_cli("inspect " + custom + " -p ref");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("ref        cannot run:\n    Frobnicate x1: "), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("  X: float[2]\n"), std::string::npos) << text.out;
}

TEST_F(InputsCli, ReproLinesCarryEveryInputFlagAndRecreateTheInputs) {
  const std::string flags = " --input sr=value:16000 --dim N=3 --seed 5";
  auto r = run_cli("run " + vad + " -p crashtest:signal=SEGV" + flags + " --json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = json_of(r);
  const std::string repro = j["platforms"][0]["repro"];
  EXPECT_EQ(repro, "infergap run " + vad + " -p 'crashtest:signal=SEGV'" + flags);
  // The repro line, run as printed (on ref), makes the same inputs.
  auto again = run_cli(repro.substr(std::string("infergap ").size()) + " -p ref --json");
  ASSERT_EQ(again.exit_code, 1) << again.err;  // crashtest still crashes; ref runs
  EXPECT_EQ(json_of(again)["input_set_hash"], j["input_set_hash"]);

  const std::string db = dir.file("repro.db");
  auto study = run_cli("study --model " + vad + " -p crashtest:signal=SEGV --oracle none " +
                       "--no-report --store " + db + flags);
  EXPECT_EQ(study.exit_code, 1) << study.err;
  auto store = Store::open(db);
  ASSERT_TRUE(store.ok());
  auto runs = (*store)->runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].repro, "infergap run " + std::filesystem::absolute(vad).string() +
                                  " -p 'crashtest:signal=SEGV'" + flags);
}

}  // namespace
}  // namespace ig
