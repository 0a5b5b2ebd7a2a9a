// The report opens with the answer: a summary box on the first screen of a 1400x900 window
// (headless Chromium) naming as many classes as `compare` finds and the platform `compare` ranks
// closest to the oracle, each item linking to its section; hosts and platforms come last.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "../support/onnx_builder.h"
#include "browser.h"

namespace ig::testing {
namespace {

namespace fs = std::filesystem;

// The markup of one element with an id, up to its closing tag (no nesting of the same tag).
std::string element(const std::string& html, const std::string& tag, const std::string& id) {
  const size_t at = html.find("<" + tag + " id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const size_t end = html.find("</" + tag + ">", at);
  return html.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Platforms whose EQC letters agree in every case share a class (what `compare` prints).
size_t classes_from_compare(const nlohmann::json& cmp) {
  std::set<std::string> signatures;
  for (const auto& [platform, cells] : cmp["eqc_matrix"].items()) {
    std::string sig;
    for (const auto& cell : cells) {
      std::string letter = cell.get<std::string>();
      std::erase_if(letter, [](char c) { return c == '*' || c == '~'; });
      sig += letter + ",";
    }
    signatures.insert(sig);
  }
  return signatures.size();
}

// Width and height of a PNG file, from its IHDR chunk.
std::pair<uint32_t, uint32_t> png_size(const std::string& png) {
  auto be32 = [&](size_t at) {
    return static_cast<uint32_t>(static_cast<unsigned char>(png[at])) << 24 |
           static_cast<uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16 |
           static_cast<uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8 |
           static_cast<uint32_t>(static_cast<unsigned char>(png[at + 3]));
  };
  if (png.size() < 24 || png.compare(12, 4, "IHDR") != 0) return {0, 0};
  return {be32(16), be32(20)};
}

TEST(ReportSummary, OpensWithTheAnswerOnTheFirstScreen) {
  TempDir dir;
  ASSERT_EQ(run_cli("zoo export Cifar10-small --size 16 -o " + dir.file("small.onnx")).exit_code,
            0);
  auto study = run_cli("study --model " + dir.file("small.onnx") +
                       " -p ref -p ref:fma=on -p ref:acc=lanes16 -p ref:acc=pairwise --inputs 2"
                       " --store " +
                       dir.file("s.db") + " --no-report");
  ASSERT_EQ(study.exit_code, 0) << study.err;
  auto cmp = run_cli("compare --store " + dir.file("s.db") + " --json");
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const auto c = nlohmann::json::parse(cmp.out);
  const size_t classes = classes_from_compare(c);
  ASSERT_GE(classes, 2u) << "the platforms must differ for the summary to say something";
  const std::string closest = c["oracle_ranking"][0]["platform"];
  const std::string farthest = c["oracle_ranking"].back()["platform"];

  auto report =
      run_cli("report --store " + dir.file("s.db") + " -o " + dir.file("r.html") + " --json");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto sections = nlohmann::json::parse(report.out)["sections"];
  EXPECT_EQ(sections.front(), "summary");
  EXPECT_EQ(sections.back(), "overview") << "hosts and platforms come last";

  const std::string html = read_file(dir.file("r.html"));
  const std::string summary = element(html, "section", "summary");
  ASSERT_FALSE(summary.empty());
  EXPECT_NE(summary.find(">" + std::to_string(classes) + " classes</a>"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("Closest to the oracle</a>: <b>" + closest + "</b>"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("farthest: <b>" + farthest + "</b>"), std::string::npos) << summary;
  // Each item links to a section that exists.
  for (const char* anchor : {"dendrogram", "oracle", "oracle-origins", "origins", "label-flips"}) {
    EXPECT_NE(summary.find(std::string("href=\"#") + anchor + "\""), std::string::npos) << anchor;
    EXPECT_NE(html.find(std::string("id=\"") + anchor + "\""), std::string::npos) << anchor;
  }
  // Two inputs of one row each, compared with the oracle's argmax.
  EXPECT_TRUE(std::regex_search(summary, std::regex("none \\(2 rows per platform\\)|of 2 rows")))
      << summary;

  if (chromium_path().empty()) GTEST_SKIP() << "chromium not installed (scripts/setup adds it)";
  const auto dom =
      run_chromium(dir.file("r.html"), "--dump-dom", dir.path / "profile1", "1400,900");
  ASSERT_EQ(dom.exit_code, 0);
  EXPECT_EQ(body_attr(dom.dom, "data-charts-ok"), "yes");
  const std::string top = body_attr(dom.dom, "data-summary-top");
  const std::string bottom = body_attr(dom.dom, "data-summary-bottom");
  ASSERT_TRUE(std::regex_match(top, std::regex("[0-9]+"))) << top;
  ASSERT_TRUE(std::regex_match(bottom, std::regex("[0-9]+"))) << bottom;
  EXPECT_GT(std::stoi(bottom), std::stoi(top));
  EXPECT_LE(std::stoi(bottom), 900) << "the summary must fit the first screen";
  const std::string drawn = element(dom.dom, "section", "summary");
  EXPECT_NE(drawn.find(std::to_string(classes) + " classes"), std::string::npos);
  EXPECT_NE(drawn.find(closest), std::string::npos);

  fs::create_directories(fs::path(INFERGAP_CLI).parent_path() / "report-test");
  const fs::path shot = fs::path(INFERGAP_CLI).parent_path() / "report-test" / "first-screen.png";
  fs::remove(shot);
  run_chromium(dir.file("r.html"), "--screenshot=" + quoted(shot.string()), dir.path / "profile2",
               "1400,900");
  const auto [width, height] = png_size(read_file(shot.string()));
  EXPECT_EQ(width, 1400u);
  EXPECT_EQ(height, 900u);
}

}  // namespace
}  // namespace ig::testing
