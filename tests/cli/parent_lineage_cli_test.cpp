// The parent found by lineage: quantize and convert record their parent file (name and hash);
// study, precision and overflow without --parent use it when it sits beside the derived model
// with that hash, and say clearly when it is missing or changed (then the model goes alone).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/onnx_builder.h"
#include "model/onnx_model.h"
#include "model/parent_record.h"

namespace ig::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int64_t runs_executed(const CliResult& r) {
  return json::parse(r.out).at("runs_executed").get<int64_t>();
}

TEST(ParentLineageCli, FoundBesideTheModelWithItsHash) {
  TempDir dir;
  const std::string m = dir.file("m.onnx"), q = dir.file("q.onnx"), h = dir.file("h.onnx");
  ASSERT_EQ(run_cli("zoo export Cifar10-small -o " + m).exit_code, 0);
  ASSERT_EQ(run_cli("quantize " + m + " -o " + q + " --samples 1").exit_code, 0);
  auto proto = read_model_proto(q);
  ASSERT_TRUE(proto.ok());
  const auto record = parent_record(*proto);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->file, "m.onnx");
  EXPECT_EQ(record->hash, model_file_hash(m).value());

  // study: the parent joins on the same inputs, so compare --parent lines the layers up.
  auto r = run_cli("study --model " + q + " -p ref --oracle none --no-report --json --store " +
                   dir.file("s.db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(q + ": parent found by lineage: " + m + " (hash " + record->hash + ")"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(runs_executed(r), 2);
  auto cmp = run_cli("compare --store " + dir.file("s.db") + " --model q --parent m --json");
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_GT(json::parse(cmp.out)["cases"][0]["layers"].size(), 5u);

  // precision without --parent runs against it.
  auto p = run_cli("precision " + q + " -p ref --json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.err.find("parent found by lineage"), std::string::npos) << p.err;
  EXPECT_FALSE(json::parse(p.out).at("layers").empty());

  // overflow of a converted model: the headroom needs the parent, found the same way.
  ASSERT_EQ(run_cli("convert " + m + " --to fp16 -o " + h).exit_code, 0);
  auto o = run_cli("overflow " + h + " --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find(h + ": parent found by lineage: " + m), std::string::npos) << o.err;
  const json oj = json::parse(o.out);
  bool headroom = false;
  for (const auto& v : oj.at("values")) headroom |= v.contains("headroom_bits");
  EXPECT_TRUE(headroom) << o.out;
}

TEST(ParentLineageCli, MissingOrChangedParentIsSaidAndTheModelGoesAlone) {
  TempDir dir;
  const std::string m = dir.file("m.onnx");
  fs::create_directories(dir.file("sub"));
  const std::string far = dir.file("sub/q.onnx"), q = dir.file("q.onnx");
  ASSERT_EQ(run_cli("zoo export Cifar10-small -o " + m).exit_code, 0);
  ASSERT_EQ(run_cli("quantize " + m + " -o " + far + " --samples 1").exit_code, 0);
  ASSERT_EQ(run_cli("quantize " + m + " -o " + q + " --samples 1").exit_code, 0);
  const std::string hash = model_file_hash(m).value();

  // Recorded as ../m.onnx: outside the model's folder, and no m.onnx beside it.
  auto r = run_cli("study --model " + far + " -p ref --oracle none --no-report --json --store " +
                   dir.file("far.db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(far + ": its lineage names parent ../m.onnx (hash " + hash +
                       "), which is not beside it: the model is used alone"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(runs_executed(r), 1);

  // The parent file changed since: its hash differs, so it is not taken.
  ASSERT_EQ(run_cli("zoo export MLP --size 8 -o " + m).exit_code, 0);
  const std::string now = model_file_hash(m).value();
  ASSERT_NE(now, hash);
  r = run_cli("study --model " + q + " -p ref --oracle none --no-report --json --store " +
              dir.file("changed.db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("but " + m + " has hash " + now + ": the model is used alone"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(runs_executed(r), 1);
  auto p = run_cli("precision " + q + " -p ref");
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find("no --parent, and " + q + ": its lineage names parent m.onnx"),
            std::string::npos)
      << p.err;
  auto o = run_cli("overflow " + q + " --json");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("has hash " + now + ": the model is used alone"), std::string::npos)
      << o.err;
}

}  // namespace
}  // namespace ig::testing
