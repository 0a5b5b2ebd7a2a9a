// The study commands end to end: study, compare, origins, export, merge.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <nlohmann/json.hpp>
#include <thread>

#include "../support/cli.h"
#include "../support/interrupt.h"
#include "../support/study_fixture.h"
#include "model/npy.h"

namespace ig {
namespace {

using testing::cli_json;
using testing::run_cli;
using testing::TempDir;

// Remaining precision of two fp32 tensors with nothing but integer bit operations.
int plain_fp32_rp(const Tensor& a, const Tensor& b) {
  int rp = 23;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const uint32_t x = std::bit_cast<uint32_t>(a.data<float>()[i]);
    const uint32_t y = std::bit_cast<uint32_t>(b.data<float>()[i]);
    int bits = 23;
    if ((x >> 23) != (y >> 23)) {
      bits = 0;
    } else {
      for (int k = 22; k >= 0; --k) {
        if (((x >> k) & 1) != ((y >> k) & 1)) {
          bits = 22 - k;
          break;
        }
      }
    }
    rp = std::min(rp, bits);
  }
  return rp;
}

Tensor exported(const TempDir& dir, const std::string& db, int64_t run, const std::string& value) {
  const std::string out = dir.file("x" + std::to_string(run) + "_" + value + ".npy");
  cli_json("export --store " + db + " --run " + std::to_string(run) + " --node " + value + " -o " +
           out + " --json");
  auto t = read_npy(out);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : Tensor();
}

const std::vector<testing::SimPlatform> kPlatforms = {
    {"sim:base", ""},
    {"sim:same", ""},
    {"sim:conv2", "W2", 5, 0x10000},
    {"sim:conv1", "W1", 0, 0x400},
    {"sim:fc", "Wfc", 7, 0x10000},
};

TEST(StudyCli, RemainingPrecisionOfExportedTensorsMatchesPlainBitCode) {
  TempDir dir;
  const std::string db = testing::build_sim_store(dir, kPlatforms, 2);
  const auto j = cli_json("compare --store " + db + " --json");
  const auto labels = j["platforms"].get<std::vector<std::string>>();
  ASSERT_EQ(labels.size(), kPlatforms.size());
  std::vector<std::vector<int>> expect(labels.size(), std::vector<int>(labels.size(), 23));
  for (const auto& c : j["cases"]) {
    for (size_t a = 0; a < labels.size(); ++a) {
      for (size_t b = 0; b < labels.size(); ++b) {
        const Tensor ta = exported(dir, db, c["runs"][labels[a]][0]["run"].get<int64_t>(), "Y");
        const Tensor tb = exported(dir, db, c["runs"][labels[b]][0]["run"].get<int64_t>(), "Y");
        expect[a][b] = std::min(expect[a][b], plain_fp32_rp(ta, tb));
      }
    }
  }
  EXPECT_EQ(j["rp_matrix"].get<std::vector<std::vector<int>>>(), expect);
  EXPECT_LT(expect[0][3], 23);  // the matrix is not trivially full
  // The second compare reads the remaining precision the first one kept as tensor facts.
  const auto again = cli_json("compare --store " + db + " --json");
  EXPECT_EQ(again["rp_matrix"].get<std::vector<std::vector<int>>>(), expect);
  const auto csv = run_cli("compare --store " + db + " --csv");
  EXPECT_NE(csv.out.find("sim:conv1,C*,C*"), std::string::npos) << csv.out;
}

TEST(StudyCli, EveryOriginHasBitwiseEqualInputsAndADifferentOutput) {
  TempDir dir;
  const std::string db = testing::build_sim_store(dir, kPlatforms, 2);
  const auto cmp = cli_json("compare --store " + db + " --json");
  std::map<std::string, const nlohmann::json*> case_by_label;
  for (const auto& c : cmp["cases"])
    case_by_label[c["model"].get<std::string>() + "/" + c["input_label"].get<std::string>()] = &c;
  const auto j = cli_json("origins --store " + db + " --json");
  int checked = 0;
  for (const auto& p : j["pairs"]) {
    const auto& c = *case_by_label.at(p["case"].get<std::string>());
    const int64_t ra = c["runs"][p["a"].get<std::string>()][0]["run"].get<int64_t>();
    const int64_t rb = c["runs"][p["b"].get<std::string>()][0]["run"].get<int64_t>();
    for (const auto& o : p["origins"]) {
      for (const auto& in : o["inputs"]) {
        EXPECT_TRUE(exported(dir, db, ra, in).bitwise_equal(exported(dir, db, rb, in)))
            << p["a"] << " vs " << p["b"] << " input " << in << " of " << o["node"];
      }
      bool any_differs = false;
      for (const auto& out : o["outputs"])
        any_differs |= !exported(dir, db, ra, out).bitwise_equal(exported(dir, db, rb, out));
      EXPECT_TRUE(any_differs) << o["node"];
      ++checked;
    }
  }
  // Classes {base, same}, {conv2}, {conv1}, {fc}: 9 differing pairs per case, and each pair's
  // difference is born at exactly one operator (the later one only propagates).
  EXPECT_EQ(checked, 2 * 9);
  EXPECT_EQ(j["set"].size(), 2u * 3u);  // conv1, conv2 and fc split the set in both cases
}

TEST(StudyCli, KilledStudyResumesAndStoresEveryRunOnce) {
  TempDir dir;
  const std::string model = testing::write_model(testing::mini_resnet(16, 24), dir.file("m.onnx"));
  const std::string db = dir.file("study.db");
  const std::vector<std::string> args{"study", "--model", model, "--inputs",       "12",
                                      "-p",    "ref",     "-p",  "ref:acc=lanes8", "--repeat",
                                      "2",     "--store", db};
  const int64_t total = 12 * 2 * 2 + 12;  // + the fp64 oracle once per input
  const pid_t pid = testing::spawn_cli(args);
  int64_t seen = 0;
  for (int i = 0; i < 3000 && seen < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (auto s = Store::open(db); s.ok())
      if (auto n = (*s)->count("runs"); n.ok()) seen = *n;
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the study finished before it could be killed";
  auto s = Store::open(db);
  ASSERT_TRUE(s.ok());
  const int64_t before = *(*s)->count("runs");
  ASSERT_LT(before, total);
  std::string joined;
  for (size_t i = 1; i < args.size(); ++i) joined += " " + args[i];
  const auto resumed = cli_json("study" + joined + " --json");
  EXPECT_EQ(resumed["runs_executed"].get<int64_t>() + resumed["runs_skipped"].get<int64_t>(),
            total);
  EXPECT_EQ(resumed["runs_skipped"].get<int64_t>(), before);
  EXPECT_EQ(*(*s)->count("runs"), total);
  EXPECT_EQ(*(*s)->count("(SELECT DISTINCT model, input, platform, host, repetition FROM runs)"),
            total);
  EXPECT_EQ(cli_json("study" + joined + " --json")["runs_executed"], 0);
}

TEST(StudyCli, StoresFromTwoHostsMergeAndCompareShowsBoth) {
  TempDir dir;
  const std::string model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  for (const char* tag : {"a", "b"}) {
    const auto r = cli_json(std::string("study --model ") + model + " -p ref -p ref:fma=on" +
                            " --oracle none --store " + dir.file(std::string(tag) + ".db") +
                            " --host-tag " + tag + " --json");
    EXPECT_EQ(r["runs_executed"], 2);
  }
  const std::string merged = dir.file("merged.db");
  const std::string merge = "merge " + dir.file("a.db") + " " + dir.file("b.db") + " -o " + merged;
  auto m = cli_json(merge + " --json");
  EXPECT_EQ(m["hosts"], 2);
  EXPECT_EQ(m["runs"], 4);
  m = cli_json(merge + " --json");  // merging again adds nothing
  EXPECT_EQ(m["runs"], 4);
  const auto j = cli_json("compare --store " + merged + " --json");
  ASSERT_EQ(j["hosts"].size(), 2u);
  EXPECT_NE(j["hosts"][0]["id"], j["hosts"][1]["id"]);
  ASSERT_EQ(j["platforms"].size(), 4u);
  for (const auto& p : j["platforms"]) EXPECT_NE(p.get<std::string>().find('@'), std::string::npos);
  const auto text = run_cli("compare --store " + merged);
  EXPECT_NE(text.out.find("tag a"), std::string::npos);
  EXPECT_NE(text.out.find("tag b"), std::string::npos);
}

TEST(StudyCli, BadRequestsGetClearErrors) {
  TempDir dir;
  auto r = run_cli("compare --store " + dir.file("none.db"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such store"), std::string::npos) << r.err;
  r = run_cli("study --model " + dir.file("none.onnx") + " -p ref --store " + dir.file("s.db"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("none.onnx"), std::string::npos) << r.err;
  // A store that cannot be written is the environment's failure, not the request's: exit 3, so
  // a fleet worker retries the job (elsewhere) instead of giving it up.
  const std::string model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  r = run_cli("study --model " + model + " -p ref --store /proc/nonexistent/s.db");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("/proc/nonexistent/s.db: cannot make the store's folder"), std::string::npos)
      << r.err;
  const std::string db = testing::build_sim_store(dir, {{"sim:base", ""}}, 1);
  r = run_cli("export --store " + db + " --run 1 --node nosuch -o " + dir.file("x.npy"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no captured output named 'nosuch'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ig
