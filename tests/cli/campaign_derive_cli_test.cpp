// campaign --derive: a zoo model's int8 (both layouts), fp16 and bf16 models made, run on ref and
// oneDNN beside their parent, and the precision rows checked against SQNR and top-1 computed here
// from the stored outputs; the same seed remakes the same models (nothing rerun); a bad value is
// refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "model/parent_record.h"
#include "store/store.h"

namespace ig::campaign_derive {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Scratch {
  fs::path path;
  Scratch() {
    path = fs::temp_directory_path() / ("infergap-derive-" + std::to_string(getpid()));
    fs::remove_all(path);
    fs::create_directories(path / "models");
  }
  ~Scratch() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

const std::vector<std::string> kPlatforms = {"ref", "onednn:isa=avx2,threads=1"};

// SQNR (dB) and top-1 agreement of one graph output, transcribed from their definitions.
struct Expected1 {
  double sqnr = 0;
  bool top1_same = true;
};
Expected1 expected_vs_parent(const Tensor& d, const Tensor& p) {
  double signal = 0, noise = 0;
  for (int64_t i = 0; i < p.numel(); ++i) {
    signal += p.as_double(i) * p.as_double(i);
    noise += (d.as_double(i) - p.as_double(i)) * (d.as_double(i) - p.as_double(i));
  }
  Expected1 e;
  e.sqnr = noise == 0 ? INFINITY : 10 * std::log10(signal / noise);
  const int64_t n = p.dim(p.rank() - 1);
  for (int64_t row = 0; row < p.numel() / n; ++row) {
    int64_t bd = 0, bp = 0;
    for (int64_t k = 1; k < n; ++k) {
      if (d.as_double(row * n + k) > d.as_double(row * n + bd)) bd = k;
      if (p.as_double(row * n + k) > p.as_double(row * n + bp)) bp = k;
    }
    e.top1_same &= bd == bp;
  }
  return e;
}

// The graph output of `model`'s run on `platform`, or an empty tensor when it did not run ok.
Tensor stored_output(const Store& s, const std::string& model, const std::string& platform) {
  const auto runs = s.runs();
  if (!runs.ok()) return Tensor();
  for (const auto& r : *runs) {
    if (r.key.model != model || r.key.platform != platform || r.verdict != Verdict::kOk) continue;
    const auto outputs = s.outputs(r.id);
    if (!outputs.ok()) return Tensor();
    for (const auto& o : *outputs)
      if (o.is_output) return s.tensor(o.tensor).value();
  }
  return Tensor();
}

TEST(CampaignDeriveCli, PrecisionRowsMatchTheStoredOutputs) {
  Scratch tmp;
  const std::string parent = tmp.file("models/cifar.onnx");
  ASSERT_EQ(testing::run_cli("zoo export Cifar10-small -o " + parent).exit_code, 0);
  const std::string store = tmp.file("c.db");
  std::string args =
      "campaign --models " + tmp.file("models") + " --store " + store +
      " --derive int8,int8-inputs --derive fp16,bf16 --seed 5 --jobs 2 --no-report --json";
  for (const auto& p : kPlatforms) args += " -p '" + p + "'";
  auto r = testing::run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  const json& derive = j.at("derive");
  EXPECT_EQ(derive.at("written").get<int>(), 4) << derive.dump();
  EXPECT_EQ(derive.at("dir").get<std::string>(), tmp.file("c-derived"));
  for (const char* kind : {"int8", "int8-inputs", "fp16", "bf16"})
    EXPECT_EQ(derive.at("made").at(kind).get<int>(), 1) << kind;
  EXPECT_EQ(j.at("variants").get<int>(), 5);
  EXPECT_EQ(j.at("runs_executed").get<int>(), 5 * 3);  // two platforms and the oracle

  const json& prec = j.at("analysis").at("precision");
  EXPECT_EQ(prec.at("derived").get<int>(), 4);
  ASSERT_EQ(prec.at("rows").size(), 8u) << prec.dump();

  auto s = Store::open(store);
  ASSERT_TRUE(s.ok());
  const std::string parent_hash = model_file_hash(parent).value();
  int ref_compared = 0;
  for (const auto& row : prec.at("rows")) {
    SCOPED_TRACE(row.dump());
    const std::string platform = row.at("platform"), kind = row.at("derivation");
    EXPECT_EQ(row.at("variants").get<int>(), 1);
    EXPECT_EQ(row.at("compared").get<int>() + row.at("refused").get<int>() +
                  row.at("failed").get<int>() + row.at("parent_failed").get<int>(),
              1);
    const std::string file = tmp.file("c-derived/cifar." + kind + ".onnx");
    ASSERT_TRUE(fs::exists(file));
    const std::string hash = model_file_hash(file).value();
    const Tensor d = stored_output(**s, hash, platform);
    const Tensor p = stored_output(**s, parent_hash, platform);
    if (row.at("compared").get<int>() == 0) {
      EXPECT_TRUE(row.at("median_sqnr_db").is_null());
      EXPECT_TRUE(row.at("top1_change_rate").is_null());
      continue;
    }
    ref_compared += platform == "ref";
    ASSERT_GT(d.numel(), 0);
    ASSERT_EQ(d.numel(), p.numel());
    const Expected1 e = expected_vs_parent(d, p);
    ASSERT_TRUE(std::isfinite(e.sqnr));
    EXPECT_NEAR(row.at("median_sqnr_db").get<double>(), e.sqnr, 1e-9 * std::abs(e.sqnr));
    const double rate = row.at("top1_change_rate").get<double>();
    EXPECT_GE(rate, 0.0);
    EXPECT_LE(rate, 1.0);
    EXPECT_EQ(rate, e.top1_same ? 0.0 : 1.0);
    // Rounding to 8 bits loses more than rounding to fp16's 11.
    if (kind.rfind("int8", 0) == 0) {
      EXPECT_LT(e.sqnr, 50);
    } else if (kind == "fp16") {
      EXPECT_GT(e.sqnr, 50);
    }
  }
  EXPECT_EQ(ref_compared, 4);  // ref runs all four
  // oneDNN maps no Cast: the fp16 and bf16 models are refusals there, not failures; it runs
  // both int8 layouts.
  for (const auto& row : prec.at("rows"))
    if (row.at("platform") == kPlatforms[1] &&
        row.at("derivation").get<std::string>().rfind("int8", 0) != 0) {
      EXPECT_EQ(row.at("refused").get<int>(), 1) << row.dump();
    }

  // The same seed remakes byte-identical models: every run is already stored, even with the
  // derived folder among --models (its models are not derived again, nor run twice). The report
  // (written this time) has the precision table.
  const std::string no_report = " --no-report";
  args.erase(args.find(no_report), no_report.size());
  r = testing::run_cli(args + " --models " + tmp.file("c-derived"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json again = json::parse(r.out);
  EXPECT_EQ(again.at("variants").get<int>(), 5);
  EXPECT_EQ(again.at("derive").at("written").get<int>(), 4);
  EXPECT_TRUE(again.at("derive").at("why").empty());
  EXPECT_EQ(again.at("runs_executed").get<int>(), 0);
  EXPECT_EQ(again.at("runs_skipped").get<int>(), 15);
  EXPECT_EQ(again.at("analysis").at("precision"), prec);
  std::ifstream f(again.at("report").get<std::string>());
  const std::string html((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("Precision: derived models vs their parent"), std::string::npos);
  EXPECT_NE(html.find("median SQNR (dB)"), std::string::npos);
}

TEST(CampaignDeriveCli, BadDeriveValueIsRefusedBeforeAnything) {
  Scratch tmp;
  const std::string parent = tmp.file("models/cifar.onnx");
  ASSERT_EQ(testing::run_cli("zoo export Cifar10-small -o " + parent).exit_code, 0);
  const std::string store = tmp.file("c.db");
  auto r = testing::run_cli("campaign --models " + tmp.file("models") + " -p ref --store " + store +
                            " --derive int8,int4");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(
      r.err.find(
          "--derive 'int8,int4': 'int4' is not a derivation (int8, int8-inputs, fp16 or bf16)"),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(store));
  EXPECT_FALSE(fs::exists(tmp.file("c-derived")));
}

}  // namespace
}  // namespace ig::campaign_derive
