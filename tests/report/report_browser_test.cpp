// The HTML report of real studies (the CLI runs zoo models on reference platforms), opened in
// headless Chromium: every chart draws into a non-empty SVG with no console error, and strings
// from a model or a user appear as text, never as markup.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "../support/onnx_builder.h"
#include "browser.h"

namespace ig::testing {
namespace {

namespace fs = std::filesystem;

const char* kPlatforms = "-p ref -p ref:acc=pairwise -p ref:acc=lanes8 -p ref:acc=lanes16";

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The page after the inlined chart libraries (which contain markup and URLs in their strings).
std::string body_of(const std::string& html) {
  const size_t at = html.rfind("</head>");
  return at == std::string::npos ? "" : html.substr(at);
}

// The report's own script elements: error trap, vega, vega-lite, vega-embed, chart data, drawing.
constexpr int kReportScripts = 6;

fs::path artifacts() { return fs::path(INFERGAP_CLI).parent_path() / "report-test"; }

TEST(ReportCli, StudyReportHasEverySectionAndDrawsInChromium) {
  TempDir dir;
  for (const char* size : {"16", "32"}) {
    auto r = run_cli(std::string("zoo export Cifar10-small --size ") + size + " -o " +
                     dir.file(std::string("small") + size + ".onnx"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto study =
      run_cli("study --model " + dir.file("small16.onnx") + " --model " + dir.file("small32.onnx") +
              " " + kPlatforms + " --inputs 2 --store " + dir.file("s.db") + " --no-report");
  ASSERT_EQ(study.exit_code, 0) << study.err;
  EXPECT_FALSE(fs::exists(dir.file("report.html")));  // --no-report
  auto report =
      run_cli("report --store " + dir.file("s.db") + " -o " + dir.file("r.html") + " --json");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto j = nlohmann::json::parse(report.out);
  // cumulative, layers x2 models, dendrogram, sweep (two sizes), oracle ranking, origins, and the
  // campaign analysis' failure taxonomy and discrepancy charts (a study store has those too).
  const int charts = j["charts"].get<int>();
  EXPECT_EQ(charts, 9);
  for (const char* s :
       {"overview", "eqc", "cumulative", "layers", "dendrogram", "sweep", "oracle",
        "oracle-origins", "origins", "support", "failures", "compiled", "exceptional", "flags"})
    EXPECT_NE(std::find(j["sections"].begin(), j["sections"].end(), s), j["sections"].end()) << s;
  const std::string html = read_file(dir.file("r.html"));
  EXPECT_EQ(count_of(html, "<script"), kReportScripts);
  EXPECT_EQ(count_of(html, "<script src"), 0) << "nothing may be fetched";
  EXPECT_EQ(count_of(html, "<link"), 0);
  EXPECT_EQ(body_of(html).find("http"), std::string::npos);
  EXPECT_LT(html.size(), 2u << 20);

  if (chromium_path().empty()) GTEST_SKIP() << "no chromium (scripts/setup --tests adds it)";
  const auto dom = run_chromium(dir.file("r.html"), "--dump-dom", dir.path / "profile1");
  ASSERT_EQ(dom.exit_code, 0);
  EXPECT_EQ(body_attr(dom.dom, "data-charts-ok"), "yes")
      << "failed: " << body_attr(dom.dom, "data-charts-failed") << "\n"
      << dom.dom.substr(dom.dom.find("<pre id=\"ig-errors\""), 2000);
  EXPECT_EQ(body_attr(dom.dom, "data-errors"), "0");
  EXPECT_EQ(body_attr(dom.dom, "data-charts-drawn"), std::to_string(charts));
  EXPECT_EQ(count_of(body_of(dom.dom), "<svg"), charts);
  fs::create_directories(artifacts());
  const fs::path shot = artifacts() / "study-report.png";
  fs::remove(shot);
  run_chromium(dir.file("r.html"), "--screenshot=" + quoted(shot.string()), dir.path / "profile2");
  EXPECT_TRUE(fs::exists(shot) && fs::file_size(shot) > 10000) << shot;
}

TEST(ReportCli, StudyWritesTheReportNextToTheStoreByDefault) {
  TempDir dir;
  ASSERT_EQ(run_cli("zoo export MLP --size 8 -o " + dir.file("mlp.onnx")).exit_code, 0);
  fs::create_directories(dir.path / "sub");
  auto r = run_cli("study --model " + dir.file("mlp.onnx") + " -p ref --oracle none --store " +
                   dir.file("sub/s.db") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["report"], dir.file("sub/report.html"));
  EXPECT_GT(fs::file_size(dir.file("sub/report.html")), 100000u);
}

// X[4,64] -> MatMul (64x8 random weights) -> Relu -> Y: the ref platforms' accumulation orders
// differ at the MatMul, so its hostile name reaches the origins table too.
onnx::ModelProto hostile_model() {
  onnx::ModelProto m = empty_model("</script><script>document.title='pwned'</script>");
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {4, 64});
  const std::string hidden = "<img src=x onerror=\"document.body.dataset.pwned=1\">";
  const std::string out = "<script>alert(1)</script>";
  add_tensor_value(g->add_output(), out, onnx::TensorProto::FLOAT, {4, 8});
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(64);
  w->add_dims(8);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int i = 0; i < 64 * 8; ++i) w->add_float_data(u(rng));
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->set_name("<script>alert(1)</script>");
  mm->add_input("X");
  mm->add_input("W");
  mm->add_output(hidden);
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("<svg onload=\"document.body.dataset.pwned=2\">");
  relu->add_input(hidden);
  relu->add_output(out);
  return m;
}

TEST(ReportCli, HostileNamesAppearAsTextOnly) {
  TempDir dir;
  const std::string model = dir.file("hostile.onnx");
  ASSERT_TRUE(save_model_proto(hostile_model(), model).ok());
  auto study = run_cli("study --model " + model + " " + kPlatforms + " --inputs 2 --store " +
                       dir.file("h.db") + " --host-tag '<script>alert(2)</script>'");
  ASSERT_EQ(study.exit_code, 0) << study.err;
  const std::string html = read_file(dir.file("report.html"));
  ASSERT_FALSE(html.empty()) << "study wrote no report";
  const std::string body = body_of(html);
  EXPECT_EQ(count_of(html, "<script"), kReportScripts);
  EXPECT_EQ(body.find("<img"), std::string::npos);
  EXPECT_EQ(body.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("onerror=\"document"), std::string::npos);
  // In tables (host tag, origin node name) as escaped text.
  EXPECT_NE(body.find("&lt;script&gt;alert(2)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(body.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // In chart data as \u003c escapes.
  EXPECT_NE(body.find("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"), std::string::npos);

  if (chromium_path().empty()) GTEST_SKIP() << "no chromium (scripts/setup --tests adds it)";
  const auto dom = run_chromium(dir.file("report.html"), "--dump-dom", dir.path / "profile");
  ASSERT_EQ(dom.exit_code, 0);
  EXPECT_EQ(body_attr(dom.dom, "data-charts-ok"), "yes");
  EXPECT_EQ(body_attr(dom.dom, "data-pwned"), "<absent>");
  EXPECT_EQ(dom.dom.find("pwned</title>"), std::string::npos);
  EXPECT_EQ(count_of(dom.dom, "<script"), kReportScripts);
  EXPECT_EQ(count_of(body_of(dom.dom), "<img"), 0);
  EXPECT_NE(dom.dom.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace ig::testing
