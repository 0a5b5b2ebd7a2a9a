// A finding whose comparison platform shares its behaviour: Y = GlobalAveragePool(X + 3e38)
// overflows to Inf in fp32 on ref and on ref:acc=exact alike, while the fp64 oracle's mean is
// finite. repro.sh must compare with the oracle (rounded by `diff`) to show it; `--rewrite-repro`
// writes the same script again; `--markdown --link-base` links only the folders present there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli.h"
#include "../support/onnx_builder.h"

namespace ig {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write_overflow_model(const std::string& path) {
  onnx::ModelProto m = testing::empty_model("overflow");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 2, 1, 1});
  auto* c = g->add_initializer();
  c->set_name("C");
  c->set_data_type(onnx::TensorProto::FLOAT);
  c->add_float_data(3e38f);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add0");
  add->add_input("X");
  add->add_input("C");
  add->add_output("S");
  auto* pool = g->add_node();
  pool->set_op_type("GlobalAveragePool");
  pool->set_name("pool0");
  pool->add_input("S");
  pool->add_output("Y");
  ASSERT_TRUE(save_model_proto(m, path).ok());
}

std::string repro_test_read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int repro_test_sh(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TriageReproCli, ComparesWithTheOracleWhereTheReferenceSharesTheBehaviour) {
  const fs::path dir =
      fs::temp_directory_path() / ("infergap-triage-repro-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "variants");
  write_overflow_model((dir / "variants" / "overflow.onnx").string());
  const std::string store = (dir / "c.db").string(), out = (dir / "findings").string();
  const auto c = testing::run_cli("campaign --models " + (dir / "variants").string() +
                                  " -p ref --store " + store + " --no-report --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json listing = testing::cli_json("triage --store " + store + " -o " + out + " --json");
  ASSERT_EQ(listing.at("findings").size(), 1u) << listing.dump(2);
  const json& f = listing.at("findings")[0];
  EXPECT_EQ(f.at("kind"), "exceptional:inf") << listing.dump(2);
  const fs::path folder = fs::path(out) / f.at("folder").get<std::string>();
  const std::string script = repro_test_read(folder / "repro.sh");
  EXPECT_NE(script.find("B='ref:acc=exact,dtype=fp64'"), std::string::npos) << script;
  const std::string env = "INFERGAP=" + std::string(INFERGAP_CLI) + " ";
  EXPECT_EQ(repro_test_sh(env + "sh " + (folder / "repro.sh").string() + " >/dev/null 2>&1"), 0);
  // Against the fp32 reference (what repro.sh compared with before) the overflow is shared.
  ASSERT_EQ(repro_test_sh("sed \"s/^B=.*/B='ref:acc=exact'/\" " + (folder / "repro.sh").string() +
                          " > " + (folder / "fp32.sh").string()),
            0);
  EXPECT_EQ(repro_test_sh(env + "sh " + (folder / "fp32.sh").string() + " >/dev/null 2>&1"), 1);
  fs::remove(folder / "fp32.sh");

  // The script written again from the folder alone is the same script.
  fs::remove(folder / "repro.sh");
  const auto again = testing::run_cli("triage -o " + out + " --rewrite-repro");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(repro_test_read(folder / "repro.sh"), script);

  // --link-base: the folder present under sample/ is linked there, a missing one is plain text.
  json index = json::parse(repro_test_read(fs::path(out) / "findings.json"));
  json ghost = index["findings"][0];
  ghost["id"] = "F002";
  ghost["folder"] = "F002-not-kept";
  index["findings"].push_back(ghost);
  std::ofstream(fs::path(out) / "findings.json") << index.dump(1);
  fs::create_directories(dir / "doc" / "sample" / folder.filename());
  fs::copy(folder, dir / "doc" / "sample" / folder.filename(), fs::copy_options::recursive);
  const std::string md_path = (dir / "doc" / "FINDINGS.md").string();
  const auto md_run =
      testing::run_cli("triage -o " + out + " --markdown " + md_path + " --link-base sample");
  ASSERT_EQ(md_run.exit_code, 0) << md_run.err;
  const std::string md = repro_test_read(md_path);
  EXPECT_NE(md.find("| [F001](sample/" + folder.filename().string() + "/README.md) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| F002 |"), std::string::npos) << md;
  EXPECT_NE(md.find("The 1 linked rows' folders are in `sample/`"), std::string::npos) << md;
  // A list none of whose folders is kept links no row and says so.
  ASSERT_EQ(testing::run_cli("triage -o " + out + " --markdown " + md_path + " --link-base none")
                .exit_code,
            0);
  const std::string plain = repro_test_read(md_path);
  EXPECT_EQ(plain.find("](none/"), std::string::npos) << plain;
  EXPECT_NE(plain.find("| F001 |"), std::string::npos) << plain;
  EXPECT_NE(plain.find("No folder is kept beside this list (none is in `none/`)"),
            std::string::npos)
      << plain;
  fs::remove_all(dir);
}

TEST(TriageReproCli, DiffExpectDifferCountsShapesAndComparesFloatTypesByValue) {
  const fs::path dir = fs::temp_directory_path() / ("infergap-diff-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string py = "/usr/bin/python3 -c \"import numpy as n; d='" + dir.string() +
                         "/'; n.save(d+'a.npy', n.array([1, 2], n.float32)); "
                         "n.save(d+'a3.npy', n.array([1, 2, 3], n.float32)); "
                         "n.save(d+'b.npy', n.array([1 + 1e-12, 2], n.float64)); "
                         "n.save(d+'inf.npy', n.array([n.inf, 2], n.float32)); "
                         "n.save(d+'binf.npy', n.array([n.inf, 2], n.float64)); "
                         "n.save(d+'h.npy', n.array([1, 2], n.float16)); "
                         "n.save(d+'h3.npy', n.array([1, 3], n.float16))\"";
  ASSERT_EQ(repro_test_sh(py), 0);
  auto diff = [&](const std::string& a, const std::string& b) {
    return testing::run_cli("diff " + (dir / a).string() + " " + (dir / b).string() +
                            " --expect-differ tolerance")
        .exit_code;
  };
  EXPECT_EQ(diff("a.npy", "a3.npy"), 0);    // other shapes: they differ
  EXPECT_EQ(diff("a.npy", "b.npy"), 1);     // fp64 rounded to fp32 is a's value
  EXPECT_EQ(diff("inf.npy", "b.npy"), 0);   // Inf where the wider reference is finite
  EXPECT_EQ(diff("a.npy", "binf.npy"), 0);  // finite where the reference is Inf
  EXPECT_EQ(diff("inf.npy", "binf.npy"), 1);
  // A platform that returned float32 where the other gave float16: compared by value, the
  // float16 widened exactly (it once stopped at 'not comparable', which repro.sh read as gone).
  EXPECT_EQ(diff("a.npy", "h.npy"), 1);
  EXPECT_EQ(diff("a.npy", "h3.npy"), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ig
