#include "results/verdict.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

namespace ig {
namespace {

TEST(Verdict, EveryVerdictHasADistinctNameThatReadsBack) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < static_cast<size_t>(Verdict::kCount); ++i) {
    const auto v = static_cast<Verdict>(i);
    const std::string_view name = verdict_name(v);
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(verdict_from_name(name), v) << name;
  }
  // The spellings DESIGN.md and every store since wave 1 use.
  EXPECT_EQ(verdict_name(Verdict::kOk), "ok");
  EXPECT_EQ(verdict_name(Verdict::kLoadError), "load-error");
  EXPECT_EQ(verdict_name(Verdict::kTimeout), "timeout");
}

TEST(Verdict, UnknownNamesAreRefusedNotGuessed) {
  EXPECT_EQ(verdict_from_name("OK"), std::nullopt);
  EXPECT_EQ(verdict_from_name("load_error"), std::nullopt);
  EXPECT_EQ(verdict_from_name(""), std::nullopt);
  EXPECT_EQ(verdict_name(Verdict::kCount), "invalid");
}

TEST(Verdict, FailureStatusMapsToUnsupportedOrError) {
  EXPECT_EQ(verdict_for(unsupported("Conv 'c': no kernel")), Verdict::kUnsupported);
  EXPECT_EQ(verdict_for(invalid_argument("bad")), Verdict::kError);
  EXPECT_EQ(verdict_for(internal_error("bug")), Verdict::kError);
  std::ostringstream os;
  os << Verdict::kCrash;
  EXPECT_EQ(os.str(), "crash");
}

TEST(Verdict, StatusCarriesTheOutermostNodeThroughContext) {
  const Status inner = unsupported("no kernel").at_node(3);
  EXPECT_EQ(inner.node(), 3);
  EXPECT_EQ(inner.with_context("model.onnx").node(), 3);
  // An enclosing If or Loop node sets its own index on the way out.
  EXPECT_EQ(inner.at_node(1).node(), 1);
  EXPECT_EQ(Status::Ok().at_node(2).node(), -1);
}

}  // namespace
}  // namespace ig
