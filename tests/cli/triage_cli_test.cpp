// infergap triage end to end on a small campaign made here: two Max variants and one Min variant
// fed NaN, on ref propagating NaN (as ONNX's NumPy reference does) and ref dropping it. The two
// Max variants hit one defect (one finding, count 2), Min is a second finding; a re-run counts
// instead of duplicating; README.md has its fields; repro.sh still shows the difference, and
// reports it gone once both platforms propagate NaN.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli.h"
#include "../support/onnx_builder.h"
#include "inputs/variant_inputs.h"

namespace ig {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Y = OP(A, B) on float[1,8], carrying its inputs (A with NaN where `inject` says).
void write_nan_model(const std::string& path, const std::string& op, const std::string& inject) {
  onnx::ModelProto m = testing::empty_model(op);
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "A", onnx::TensorProto::FLOAT, {1, 8});
  testing::add_tensor_value(g->add_input(), "B", onnx::TensorProto::FLOAT, {1, 8});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 8});
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "0");
  n->add_input("A");
  n->add_input("B");
  n->add_output("Y");
  set_variant_inputs(m, {{"A", "random:uniform,inject=nan@" + inject}, {"B", "random:uniform"}});
  ASSERT_TRUE(save_model_proto(m, path).ok());
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int sh(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// One campaign and its first triage, shared by the tests (a few seconds in all).
class TriageCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("infergap-triage-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "variants");
    write_nan_model((dir_ / "variants" / "max_a.onnx").string(), "Max", "0/3");
    write_nan_model((dir_ / "variants" / "max_b.onnx").string(), "Max", "1/5");
    write_nan_model((dir_ / "variants" / "min_a.onnx").string(), "Min", "2/4");
    const auto c = testing::run_cli("campaign --models " + (dir_ / "variants").string() +
                                    " -p ref:nan=propagate -p ref:nan=ignore --store " + store() +
                                    " --jobs 2 --no-report --json");
    ASSERT_EQ(c.exit_code, 0) << c.err;
    first_ = testing::cli_json("triage --store " + store() + " -o " + out() + " --json");
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string store() { return (dir_ / "c.db").string(); }
  static std::string out() { return (dir_ / "findings").string(); }
  static const json* finding(const json& listing, const std::string& op) {
    for (const auto& f : listing.at("findings"))
      if (f.at("op") == op) return &f;
    return nullptr;
  }
  static fs::path dir_;
  static json first_;
};
fs::path TriageCli::dir_;
json TriageCli::first_;

TEST_F(TriageCli, SameDefectIsOneFindingAndOtherOperatorsAnother) {
  ASSERT_EQ(first_.at("findings").size(), 2u) << first_.dump(2);
  EXPECT_EQ(first_.at("new"), 2);
  const json* max = finding(first_, "Max");
  const json* min = finding(first_, "Min");
  ASSERT_TRUE(max && min) << first_.dump(2);
  EXPECT_EQ(max->at("variant_count"), 2);
  EXPECT_EQ(min->at("variant_count"), 1);
  EXPECT_EQ(max->at("kind"), "exceptional:ignore");
  EXPECT_EQ(max->at("family"), "ref");
  EXPECT_EQ(max->at("platforms"), json::array({"ref:nan=ignore"}));
  EXPECT_EQ(max->at("verdict"), "library defect");
  EXPECT_EQ(max->at("reduced_nodes"), 1);
}

TEST_F(TriageCli, RerunCountsInsteadOfDuplicating) {
  const json again = testing::cli_json("triage --store " + store() + " -o " + out() + " --json");
  EXPECT_EQ(again.at("new"), 0);
  EXPECT_EQ(again.at("known"), 2);
  ASSERT_EQ(again.at("findings").size(), 2u);
  const json* max = finding(again, "Max");
  ASSERT_TRUE(max);
  EXPECT_EQ(max->at("variant_count"), 2);  // the same variants: counted once each
  EXPECT_GE(max->at("triage_runs").get<int>(), 2);
  int folders = 0;
  for (const auto& e : fs::directory_iterator(out())) folders += e.is_directory();
  EXPECT_EQ(folders, 2);
  // FINDINGS.md from the folder alone: the list and the counts per platform and kind.
  const std::string md_path = (dir_ / "FINDINGS.md").string();
  ASSERT_EQ(testing::run_cli("triage -o " + out() + " --markdown " + md_path).exit_code, 0);
  const std::string md = read(md_path);
  EXPECT_NE(md.find("2 distinct finding(s)"), std::string::npos) << md;
  EXPECT_NE(md.find("| ref:nan=ignore | 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| exceptional:ignore | 2 |"), std::string::npos) << md;
}

TEST_F(TriageCli, ReadmeHasItsFields) {
  const json* max = finding(first_, "Max");
  ASSERT_TRUE(max);
  const fs::path folder = fs::path(out()) / max->at("folder").get<std::string>();
  const std::string md = read(folder / "README.md");
  for (const char* field :
       {"## What differs", "- Platforms: ref:nan=ignore",
        "- Compared with: ref:acc=exact,dtype=fp64", "2 variant(s)", "## Error", "## Minimal model",
        "- `Max0` (Max)", "## Cause", "**library defect**", "propagates NaN",
        "https://onnx.ai/onnx/operators/onnx__Max.html", "## Reproduce"})
    EXPECT_NE(md.find(field), std::string::npos) << field << "\n" << md;
  EXPECT_TRUE(fs::exists(folder / "reduced.onnx"));
  EXPECT_TRUE(fs::exists(folder / "inputs"));
}

TEST_F(TriageCli, ReproShowsTheDifferenceAndNoticesWhenItVanishes) {
  const json* max = finding(first_, "Max");
  ASSERT_TRUE(max);
  const fs::path folder = fs::path(out()) / max->at("folder").get<std::string>();
  const std::string env = "INFERGAP=" + std::string(INFERGAP_CLI) + " ";
  EXPECT_EQ(sh(env + "sh " + (folder / "repro.sh").string() + " >/dev/null 2>&1"), 0);
  // The same script with both platforms propagating NaN: the difference is gone, exit nonzero.
  const fs::path gone = folder / "gone.sh";
  ASSERT_EQ(sh("sed 's/nan=ignore/nan=propagate/g' " + (folder / "repro.sh").string() + " > " +
               gone.string()),
            0);
  EXPECT_EQ(sh(env + "sh " + gone.string() + " >/dev/null 2>&1"), 1);
}

}  // namespace
}  // namespace ig
