// The report's "Against the float parent" section: a quantized zoo model studied with its parent
// gets the per-layer SQNR chart of each platform; a store without one gets no such section.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/onnx_builder.h"

namespace ig::testing {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ReportParents, QuantizedModelBesideItsParentGetsTheSqnrChart) {
  TempDir dir;
  const std::string f = dir.file("mlp.onnx"), q = dir.file("mlp-q.onnx");
  ASSERT_EQ(run_cli("zoo export MLP --size 8 -o " + f).exit_code, 0);
  ASSERT_EQ(run_cli("quantize " + f + " -o " + q + " --samples 2").exit_code, 0);
  auto r = run_cli("study --model " + q + " --parent " + f +
                   " -p ref -p ref:qdq=int --oracle none --store " + dir.file("s.db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("infergap compare --store " + dir.file("s.db") + " --model mlp-q --parent mlp"),
      std::string::npos)
      << r.out;
  const std::string html = read_text(dir.file("report.html"));
  const std::string body = html.substr(html.rfind("</head>"));
  EXPECT_NE(body.find("Against the float parent"), std::string::npos);
  EXPECT_NE(body.find("mlp-q/"), std::string::npos);
  // Both platforms have points on the chart (ref:qdq=int through its QuantizeLinear outputs).
  EXPECT_NE(body.find("\"platform\":\"ref\""), std::string::npos);
  EXPECT_NE(body.find("\"platform\":\"ref:qdq=int\""), std::string::npos);
  EXPECT_NE(body.find("SQNR against the parent (dB)"), std::string::npos);

  auto alone =
      run_cli("study --model " + f + " -p ref --oracle none --store " + dir.file("alone/s.db"));
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(read_text(dir.file("alone/report.html")).find("Against the float parent"),
            std::string::npos);
}

}  // namespace
}  // namespace ig::testing
