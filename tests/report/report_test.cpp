// The report's pure parts: escaping and the remaining-precision dendrogram.
#include <gtest/gtest.h>

#include "report/dendrogram.h"
#include "report/escape.h"
#include "report/html_writer.h"

namespace ig {
namespace {

TEST(ReportEscape, HtmlEscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
}

TEST(ReportEscape, ScriptJsonCannotCloseOrCommentTheScriptElement) {
  const nlohmann::json j{{"node", "</script><script>alert(1)</script><!-- &"}};
  const std::string text = json_for_script(j);
  EXPECT_EQ(text.find("</"), std::string::npos);
  EXPECT_EQ(text.find("<!--"), std::string::npos);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(text), j);  // the same JSON
}

TEST(ReportEscape, TablesEscapeCells) {
  const std::string t = text_table({"<b>"}, {{"<img src=x onerror=alert(1)>"}});
  EXPECT_NE(t.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_EQ(t.find("<img"), std::string::npos);
}

TEST(ReportDendrogram, CompleteLinkageJoinsClosestFirstAtTheSetPrecision) {
  // Classes 0 and 2 agree on 20 bits, 1 and 3 on 15; across the pairs 8 or 5 bits.
  const std::vector<std::vector<int>> rp{
      {23, 8, 20, 5}, {8, 23, 6, 15}, {20, 6, 23, 7}, {5, 15, 7, 23}};
  const Dendrogram d = cluster_by_precision(rp);
  ASSERT_EQ(d.merges.size(), 3u);
  EXPECT_EQ(d.merges[0].a, 0);
  EXPECT_EQ(d.merges[0].b, 2);
  EXPECT_EQ(d.merges[0].precision, 20);
  EXPECT_EQ(d.merges[1].a, 1);
  EXPECT_EQ(d.merges[1].b, 3);
  EXPECT_EQ(d.merges[1].precision, 15);
  // Complete linkage: the root's height is the minimum over all cross pairs.
  EXPECT_EQ(d.merges[2].precision, 5);
  EXPECT_EQ(d.order, (std::vector<int>{0, 2, 1, 3}));
  const auto drawing = dendrogram_drawing(d, {"a", "b", "c", "d"}, 23);
  EXPECT_EQ(drawing["segments"].size(), 9u);
  EXPECT_EQ(drawing["leaves"][1]["label"], "c");
}

TEST(ReportDendrogram, UnknownPrecisionCountsAsNoAgreement) {
  const Dendrogram d = cluster_by_precision({{23, -1}, {-1, 23}});
  ASSERT_EQ(d.merges.size(), 1u);
  EXPECT_EQ(d.merges[0].precision, 0);
}

}  // namespace
}  // namespace ig
