// The parts of triage that need no campaign: operator signatures, spec links, the verdicts and the
// index's counting.
#include <gtest/gtest.h>

#include "analysis/triage/index.h"
#include "analysis/triage/markdown.h"
#include "analysis/triage/spec.h"

namespace ig::triage {
namespace {

TEST(TriageSignature, SalientAttributesTellKernelsApart) {
  EXPECT_EQ(op_signature("Conv", {{"group", 32}, {"kernel_shape", {3, 3}}}), "Conv[grouped,k=3x3]");
  EXPECT_EQ(op_signature("Conv", {{"group", 1}, {"kernel_shape", {1, 1}}}), "Conv[k=1x1]");
  EXPECT_EQ(op_signature("MaxPool", {{"kernel_shape", {2, 2}}}), "MaxPool[k=2x2]");
  EXPECT_EQ(op_signature("Gemm", {{"transB", 1}}), "Gemm[transB]");
  EXPECT_EQ(op_signature("Relu", nlohmann::json::object()), "Relu");
}

TEST(TriageSpec, LinksTheOperatorAndJudgesByKind) {
  EXPECT_EQ(onnx_spec_url("Conv+Relu"), "https://onnx.ai/onnx/operators/onnx__Relu.html");
  EXPECT_EQ(onnx_spec_url("Conv[k=3x3]"), "https://onnx.ai/onnx/operators/onnx__Conv.html");
  EXPECT_EQ(onnx_spec_url("Conv[k=3x3]+MaxPool[k=2x2]"),
            "https://onnx.ai/onnx/operators/onnx__MaxPool.html");
  EXPECT_EQ(onnx_spec_url("(model) / x"), "");
  EXPECT_EQ(judge(kRefusal, "Erf", nullptr, true)["verdict"], "support gap");
  EXPECT_EQ(judge(kCrash, "Conv", nullptr, true)["verdict"], "library defect");
  EXPECT_EQ(judge("exceptional:nan", "Softplus", nullptr, true)["verdict"], "library defect");
  // A sum overflowing its fp32 accumulator midway: range, not a wrong kernel.
  EXPECT_EQ(judge("exceptional:nan", "Conv[k=3x3]", nullptr, true)["verdict"],
            "implementation choice");
  EXPECT_EQ(judge("exceptional:flush", "Add", nullptr, true)["verdict"], "implementation choice");
  // ONNX's own reference MaxPool drops a NaN that is not first in a strided window.
  EXPECT_EQ(judge("exceptional:ignore", "MaxPool[k=3x3]", nullptr, true)["verdict"],
            "implementation choice");
  EXPECT_EQ(judge("exceptional:ignore", "Relu", nullptr, true)["verdict"], "library defect");
  const nlohmann::json exact{{"exact", true}, {"cause", {"fma"}}};
  const auto rounding = judge(kWrong, "Conv", exact, true);
  EXPECT_EQ(rounding["verdict"], "rounding");
  EXPECT_NE(rounding["why"].get<std::string>().find("fma"), std::string::npos);
  EXPECT_EQ(judge(kWrong, "Conv", {{"exact", false}}, true)["verdict"], "undetermined");
  // Whatever infergap's own fp32 interpreter does too is never a library's defect.
  EXPECT_EQ(judge("exceptional:ignore", "Conv", nullptr, true, true)["verdict"], "fp32 semantics");
  EXPECT_EQ(judge(kWrong, "Conv", {{"exact", false}}, true, true)["verdict"], "fp32 semantics");
  EXPECT_EQ(judge(kCrash, "Conv", nullptr, true, true)["verdict"], "library defect");
}

TEST(TriageSpec, ACompiledModeFoldingBatchNormIsAValidRewriteThatRoundsElsewhere) {
  for (const char* op : {"Conv+BatchNormalization", "Conv[k=3x3]+BatchNormalization+Relu"}) {
    const auto v = judge(kCompiled, op, nullptr, true);
    EXPECT_EQ(v["verdict"], "rounding") << op;
    EXPECT_NE(v.value("mechanism", "").find("BatchNormalization folded into the Conv"),
              std::string::npos)
        << op;
    EXPECT_NE(v["why"].get<std::string>().find("valid rewrite"), std::string::npos) << op;
  }
  // Another fusion, or a BatchNormalization no Conv feeds, names no mechanism.
  for (const char* op : {"Conv+Relu", "BatchNormalization", "Relu+BatchNormalization"})
    EXPECT_FALSE(judge(kCompiled, op, nullptr, true).contains("mechanism")) << op;
}

TEST(TriageRewrite, AFoldTheEagerModeDoesNotMakeIsNamedWithItsMechanism) {
  EXPECT_TRUE(judge_rewrite("MaxPool", nullptr).is_null());
  nlohmann::json rewrite{{"platform", "ort:opt=all,threads=1"},
                         {"eager", "ort:opt=disabled,threads=1"},
                         {"eager_agrees", false}};
  // The eager mode is off too: no rewrite to blame.
  EXPECT_TRUE(judge_rewrite("Pad+MaxPool[k=3x3]", rewrite).is_null());
  rewrite["eager_agrees"] = true;
  rewrite["groups"] = {{{"node", "maxpool"},
                        {"covers", {"zeropad", "maxpool"}},
                        {"ops", {"Pad", "MaxPool"}},
                        {"note", "ort ran com.microsoft.nchwc.MaxPool"}}};
  const auto pad = judge_rewrite("Pad+MaxPool[k=3x3]", rewrite);
  EXPECT_EQ(pad["verdict"], "invalid rewrite");
  const std::string why = pad["why"];
  for (const char* part : {"ort:opt=disabled,threads=1", "zeropad, maxpool (Pad+MaxPool)",
                           "Pad folded into MaxPool's pads", "-inf"})
    EXPECT_NE(why.find(part), std::string::npos) << part << " in: " << why;
  EXPECT_EQ(pad["spec"], "https://onnx.ai/onnx/operators/onnx__MaxPool.html");
  // A fusion no known pattern explains still says the optimizer made it.
  rewrite["groups"] = {{{"node", "relu"}, {"covers", {"conv", "relu"}}, {"ops", {"Conv", "Relu"}}}};
  const auto other = judge_rewrite("Conv+Relu", rewrite);
  EXPECT_EQ(other["verdict"], "library defect");
  EXPECT_NE(other["why"].get<std::string>().find("does not keep the model's ONNX semantics"),
            std::string::npos);
}

// The same rule whether a finding is new or judged again on a rerun: a rerun once kept only
// judge's verdict and turned ORT's invalid Pad-into-MaxPool fold into "undetermined".
TEST(TriageSpec, TheFinalJudgementWeighsTheStoredRewriteAndExplain) {
  const nlohmann::json entry{{"rewrite",
                              {{"platform", "ort:opt=all,threads=1"},
                               {"eager", "ort:opt=disabled,threads=1"},
                               {"eager_agrees", true},
                               {"groups",
                                {{{"node", "maxpool"},
                                  {"covers", {"zeropad", "maxpool"}},
                                  {"ops", {"Pad", "MaxPool"}}}}}}},
                             {"explain", {{"exact", false}}}};
  const std::string op = "Pad+MaxPool[k=3x3]";
  const auto undetermined = judge(kWrong, op, entry["explain"], true);
  ASSERT_EQ(undetermined["verdict"], "undetermined");
  EXPECT_EQ(final_judgement(undetermined, op, entry)["verdict"], "invalid rewrite");
  // Our own fp32 interpreter sharing it stands first; no evidence changes nothing.
  const auto ours = judge(kWrong, op, entry["explain"], true, true);
  EXPECT_EQ(final_judgement(ours, op, entry)["verdict"], "fp32 semantics");
  EXPECT_EQ(final_judgement(undetermined, op, nlohmann::json::object())["verdict"], "undetermined");
  // An integer cause explain reproduced is named either way.
  const nlohmann::json saturating{
      {"explain",
       {{"exact", true}, {"cause", {"int8-saturation"}}, {"emulator", "ref:madd=sat16"}}}};
  const auto rounding = judge(kWrong, "Conv", saturating["explain"], true);
  EXPECT_NE(final_judgement(rounding, "Conv", saturating).value("mechanism", "").find("int8"),
            std::string::npos);
}

TEST(TriageSpec, ExplainsIntegerCauseIsNamedAsTheMechanism) {
  const nlohmann::json rewrite = {{"verdict", "library defect"}, {"why", "a rewrite"}};
  const nlohmann::json sat = {{"exact", true},
                              {"emulator", "ref:madd=sat16,qdq=int"},
                              {"cause", {"int8-saturation", "integer-kernel"}}};
  const auto named = with_integer_mechanism(rewrite, sat);
  EXPECT_EQ(named["verdict"], "library defect");
  EXPECT_NE(named["why"].get<std::string>().find("`ref:madd=sat16,qdq=int`: int8 saturation"),
            std::string::npos)
      << named.dump();
  EXPECT_NE(named["mechanism"].get<std::string>().find("pairs saturated at int16"),
            std::string::npos);
  // Not reproduced, or reproduced by a float order: nothing is added.
  nlohmann::json closest = sat;
  closest["exact"] = false;
  EXPECT_EQ(with_integer_mechanism(rewrite, closest), rewrite);
  EXPECT_EQ(with_integer_mechanism(rewrite, {{"exact", true}, {"cause", {"fma"}}}), rewrite);
  EXPECT_EQ(with_integer_mechanism(rewrite, nullptr), rewrite);
}

TEST(TriageMarkdown, AnUnlocatedOriginIsListedWithWhatItReducedTo) {
  auto entry = [](nlohmann::json reduced) {
    return nlohmann::json{{"id", "F001"},
                          {"folder", "F001-x"},
                          {"kind", kCompiled},
                          {"op", "(unlocated)"},
                          {"family", "torch2"},
                          {"platforms", {"torch2"}},
                          {"reduced", std::move(reduced)}};
  };
  const nlohmann::json one_node{{"done", true}, {"nodes", {{{"name", "sm"}, {"op", "Softmax"}}}}};
  nlohmann::json index{{"findings", {entry(one_node), entry({{"done", false}})}}};
  const std::string md = findings_markdown(index, "", FindingLinks{});
  EXPECT_NE(md.find("`(unlocated) reduced to Softmax`"), std::string::npos) << md;
  EXPECT_NE(md.find("`(unlocated)` |"), std::string::npos) << md;  // nothing reduced: as it was
}

Finding finding_of(std::vector<std::string> models) {
  Finding f{"ort | wrong-result | Conv", "ort", kWrong, "Conv", {}};
  for (const auto& m : models) {
    Hit h;
    h.model = m;
    h.architecture = "resnet";
    h.platform = "ort:opt=all,threads=1";
    h.nodes = static_cast<int64_t>(m.size());
    f.hits.push_back(h);
  }
  return f;
}

TEST(TriageIndex, KnownSignaturesAreCountedOnce) {
  nlohmann::json index{{"findings", nlohmann::json::array()}};
  EXPECT_EQ(next_id(index), "F001");
  const Finding f = finding_of({"bb", "a"});
  EXPECT_EQ(f.representative().model, "a");  // the smallest variant
  index["findings"].push_back(new_entry(f, next_id(index)));
  EXPECT_EQ(next_id(index), "F002");
  nlohmann::json* e = find_entry(index, f.signature);
  ASSERT_TRUE(e);
  count_again(*e, finding_of({"a", "ccc"}));
  EXPECT_EQ((*e)["variant_count"], 3);  // a, bb, ccc
  EXPECT_EQ((*e)["architecture_count"], 1);
  EXPECT_EQ((*e)["triage_runs"], 2);
  EXPECT_EQ(find_entry(index, "other"), nullptr);
}

}  // namespace
}  // namespace ig::triage
