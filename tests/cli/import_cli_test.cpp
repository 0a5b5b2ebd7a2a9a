// `infergap import`: outputs computed on another device become a platform of the study, compared
// like any other; a folder that does not fit the model is refused and nothing is stored.
#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/mini_resnet.h"
#include "model/npy.h"
#include "store/store.h"
#include "study/import_run.h"

namespace ig {
namespace {

namespace fs = std::filesystem;
using testing::cli_json;
using testing::run_cli;
using testing::TempDir;

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

int64_t run_of(const nlohmann::json& compare, const std::string& platform) {
  return compare["cases"][0]["runs"][platform][0]["run"].get<int64_t>();
}

Tensor exported(const TempDir& dir, const std::string& db, int64_t run, const std::string& value) {
  const std::string out = dir.file("export_" + std::to_string(run) + "_" + value + ".npy");
  cli_json("export --store " + db + " --run " + std::to_string(run) + " --node " + value + " -o " +
           out + " --json");
  auto t = read_npy(out);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : Tensor();
}

// The class (index into "classes") that holds `platform` in the first case.
int class_of(const nlohmann::json& compare, const std::string& platform) {
  const auto& classes = compare["cases"][0]["classes"];
  for (size_t i = 0; i < classes.size(); ++i)
    for (const auto& p : classes[i])
      if (p == platform) return static_cast<int>(i);
  return -1;
}

struct Study {
  TempDir dir;
  std::string model, db;
  nlohmann::json compare;
  Study() {
    model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
    db = dir.file("s.db");
    cli_json("study --model " + model + " -p ref -p ref:fma=on --store " + db +
             " --no-report --json");
    compare = cli_json("compare --store " + db + " --json");
  }
  std::string import(const std::string& folder, const std::string& label,
                     const std::string& extra = "") const {
    return "import " + folder + " --store " + db + " --platform " + label + " --model " + model +
           extra;
  }
  int64_t runs() const { return *(*Store::open(db))->count("runs"); }
};

TEST(ImportCli, ImportedOutputsAreAPlatformWithTheirOwnClassAndPrecision) {
  Study s;
  const Tensor ref_y = exported(s.dir, s.db, run_of(s.compare, "ref"), "Y");
  const Tensor ref_r1 = exported(s.dir, s.db, run_of(s.compare, "ref"), "r1");

  // A device that computed ref's bits exactly, with one inner value.
  const std::string same = s.dir.file("same");
  fs::create_directories(same);
  ASSERT_TRUE(write_npy(ref_y, same + "/Y.npy").ok());
  ASSERT_TRUE(write_npy(ref_r1, same + "/r1.npy").ok());
  std::ofstream(same + "/" + kImportManifest) << R"({"engine": "onnxruntime", "device": "mps"})";
  auto j = cli_json(s.import(same, "mps-m2", " --json"));
  EXPECT_EQ(j["platform"], "external:mps-m2");
  EXPECT_EQ(j["outputs"], 1);
  EXPECT_EQ(j["layers"], 1);

  // A device whose output differs from ref's in the lowest mantissa bit of one element.
  Tensor flipped = ref_y.clone();
  uint32_t bits = std::bit_cast<uint32_t>(flipped.data<float>()[3]);
  flipped.data<float>()[3] = std::bit_cast<float>(bits ^ 1u);
  const std::string off = s.dir.file("off");
  fs::create_directories(off);
  ASSERT_TRUE(write_npy(flipped, off + "/Y.npy").ok());
  cli_json(s.import(off, "phone", " --host-tag pixel7 --json"));

  const auto c = cli_json("compare --store " + s.db + " --json");
  const auto labels = c["platforms"].get<std::vector<std::string>>();
  EXPECT_EQ(labels,
            (std::vector<std::string>{"ref", "ref:fma=on", "external:mps-m2", "external:phone"}));
  EXPECT_EQ(class_of(c, "external:mps-m2"), class_of(c, "ref"));
  EXPECT_NE(class_of(c, "external:phone"), class_of(c, "ref"));
  EXPECT_NE(class_of(c, "external:phone"), class_of(c, "ref:fma=on"));
  // One flipped last bit: 22 of 23 mantissa bits agree with ref.
  const auto& rp = c["rp_matrix"];
  EXPECT_EQ(rp[0][3], 22);
  EXPECT_EQ(rp[0][2], 23);
  // The imported tensors are stored bit for bit.
  EXPECT_TRUE(same_bits(exported(s.dir, s.db, run_of(c, "external:phone"), "Y"), flipped));
  EXPECT_TRUE(same_bits(exported(s.dir, s.db, run_of(c, "external:mps-m2"), "r1"), ref_r1));
  // Each device is a host of its own, described by its manifest.
  ASSERT_EQ(c["hosts"].size(), 3u);
  bool described = false;
  for (const auto& h : c["hosts"])
    described |= h["cpu"] == "imported onnxruntime mps" && h["tag"] == "mps-m2";
  EXPECT_TRUE(described) << c["hosts"].dump();
}

TEST(ImportCli, AFolderThatDoesNotFitTheModelIsRefusedAndNothingIsStored) {
  Study s;
  const Tensor ref_y = exported(s.dir, s.db, run_of(s.compare, "ref"), "Y");
  const int64_t before = s.runs();
  auto refused = [&](const std::string& folder, const std::string& label, const std::string& what,
                     const std::string& extra = "") {
    const auto r = run_cli(s.import(folder, label, extra));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << "want '" << what << "' in: " << r.err;
    EXPECT_EQ(s.runs(), before);
  };
  const std::string empty = s.dir.file("empty");
  fs::create_directories(empty);
  refused(empty, "dev", "no tensor for graph output 'Y'");
  refused(s.dir.file("nosuch"), "dev", "nosuch: not a folder");

  const std::string stray = s.dir.file("stray");
  fs::create_directories(stray);
  ASSERT_TRUE(write_npy(ref_y, stray + "/Y.npy").ok());
  ASSERT_TRUE(write_npy(ref_y, stray + "/%2Flayer9%2Fout.npy").ok());
  refused(stray, "dev", "'/layer9/out' is not a value computed by");

  const std::string wrong_shape = s.dir.file("wrong_shape");
  fs::create_directories(wrong_shape);
  ASSERT_TRUE(write_npy(Tensor(DType::kFloat32, {1, 9}), wrong_shape + "/Y.npy").ok());
  refused(wrong_shape, "dev", "value 'Y' has shape [1,10] in the model, the file holds [1,9]");

  const std::string wrong_dtype = s.dir.file("wrong_dtype");
  fs::create_directories(wrong_dtype);
  ASSERT_TRUE(write_npy(Tensor(DType::kFloat64, {1, 10}), wrong_dtype + "/Y.npy").ok());
  refused(wrong_dtype, "dev", "value 'Y' is float in the model, the file holds double");

  const std::string outside = s.dir.file("outside");
  fs::create_directories(outside);
  ASSERT_TRUE(write_npy(ref_y, s.dir.file("elsewhere.npy")).ok());
  fs::create_symlink(s.dir.file("elsewhere.npy"), outside + "/Y.npy");
  refused(outside, "dev", "outside the folder");

  const std::string good = s.dir.file("good");
  fs::create_directories(good);
  ASSERT_TRUE(write_npy(ref_y, good + "/Y.npy").ok());
  refused(good, "'my device'", "must be a plain name");
  cli_json(s.import(good, "dev", " --json"));
  EXPECT_EQ(s.runs(), before + 1);
  const auto again = run_cli(s.import(good, "dev"));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already has a run of external:dev"), std::string::npos) << again.err;
  EXPECT_EQ(s.runs(), before + 1);
  cli_json(s.import(good, "dev", " --repetition 1 --json"));
  EXPECT_EQ(s.runs(), before + 2);
}

TEST(ImportCli, ValueFileNamesArePercentDecoded) {
  EXPECT_EQ(decode_value_file_stem("%2Flayer1%2FRelu_output_0"), "/layer1/Relu_output_0");
  EXPECT_EQ(decode_value_file_stem("a%3Ab"), "a:b");
  EXPECT_EQ(decode_value_file_stem("100%"), "100%");
  EXPECT_EQ(decode_value_file_stem("x%zz"), "x%zz");
}

// The helper a user runs on another device (scripts/run-elsewhere), with PyTorch on this CPU:
// its folder imports and lands within float32 rounding of the oracle.
TEST(ImportCli, RunElsewhereHelperWithTorchImports) {
  if (std::system("/usr/bin/python3 -c 'import torch, onnx' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no Debian python3-torch/python3-onnx here";
  TempDir dir;
  std::ofstream(dir.file("tinynet.py")) << R"(import torch
def build():
    torch.manual_seed(7)
    return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                               torch.nn.Linear(8, 4)).eval()
)";
  const std::string prep = "cd " + dir.path.string() +
                           " && /usr/bin/python3 -c \"import numpy as np, torch, tinynet; "
                           "x = np.random.default_rng(1).standard_normal((1,3,16,16))"
                           ".astype(np.float32); np.save('x.npy', x); "
                           "torch.onnx.export(tinynet.build(), torch.from_numpy(x), 'tiny.onnx', "
                           "input_names=['x'], output_names=['y'], opset_version=13)\"";
  ASSERT_EQ(std::system((prep + " >/dev/null 2>&1").c_str()), 0);
  const std::string helper = std::string(INFERGAP_SOURCE_DIR) + "/scripts/run-elsewhere";
  const std::string run = "cd " + dir.path.string() + " && /usr/bin/python3 " + helper +
                          " tiny.onnx -o dev --engine torch --torch-module tinynet:build "
                          "--input x=x.npy >/dev/null";
  ASSERT_EQ(std::system(run.c_str()), 0);
  const std::string db = dir.file("s.db"), model = dir.file("tiny.onnx");
  const std::string input = " --input x=" + dir.file("x.npy");
  cli_json("study --model " + model + input + " -p ref --store " + db + " --no-report --json");
  cli_json("import " + dir.file("dev") + " --store " + db + " --platform torch-cpu --model " +
           model + input + " --json");
  const auto c = cli_json("compare --store " + db + " --json");
  bool ranked = false;
  for (const auto& r : c["oracle_ranking"]) {
    if (r["platform"] != "external:torch-cpu") continue;
    ranked = true;
    EXPECT_LT(r["max_rel_error"].get<double>(), 1e-5) << r.dump();
  }
  EXPECT_TRUE(ranked) << c["oracle_ranking"].dump();
  bool described = false;
  for (const auto& h : c["hosts"])
    described |= h["cpu"].get<std::string>().rfind("imported torch ", 0) == 0;
  EXPECT_TRUE(described) << c["hosts"].dump();
}

}  // namespace
}  // namespace ig
