// The backends' knob tables and presets as the coordinator reads them from the worker's catalog.
#include <gtest/gtest.h>

#include "worker/knobs_json.h"
#include "worker/probe.h"

namespace ig {
namespace {

using V = std::vector<std::string>;

Catalog worker_catalog() {
  auto catalog = read_catalog(INFERGAP_WORKER);
  EXPECT_TRUE(catalog.ok()) << catalog.status().to_string();
  return catalog.ok() ? *catalog : Catalog{};
}

TEST(CatalogKnobs, EveryBackendDeclaresItsKnobs) {
  const Catalog c = worker_catalog();
  ASSERT_FALSE(c.backends.empty());
  for (const auto& [name, description] : c.backends) {
    ASSERT_TRUE(c.knobs.count(name)) << name << " registers no knob table";
    EXPECT_FALSE(c.knobs.at(name).empty()) << name;
  }
  // The compiled/eager switches the campaign pairs and the self-check turns off.
  EXPECT_EQ(eager_options(c.knobs, "onednn"),
            (std::map<std::string, std::string>{{"fuse", "off"}}));
  EXPECT_EQ(eager_options(c.knobs, "ort"),
            (std::map<std::string, std::string>{{"opt", "disabled"}}));
  EXPECT_TRUE(eager_options(c.knobs, "ref").empty());
  EXPECT_EQ(*unfused_spec(c, "onednn:isa=avx2"), "onednn:fuse=off,isa=avx2");
  EXPECT_EQ(*unfused_spec(c, "ort:opt=all,threads=1"), "ort:opt=disabled,threads=1");
  EXPECT_EQ(*unfused_spec(c, "ref:fma=on"), "ref:fma=on");
}

TEST(CatalogKnobs, DemoPresetIsTheDefaultStudysPlatformsInTheirOrder) {
  // The order is part of the store: run ids follow it.
  EXPECT_EQ(
      *preset_specs(worker_catalog(), "demo"),
      (V{"ref", "ref:fma=on", "ref:acc=lanes16", "ref:conv=im2col", "ref:conv=winograd4",
         "onednn:isa=sse41,threads=1", "onednn:isa=avx2,threads=1",
         "onednn:isa=avx512_core,threads=1", "blas:core=Sandybridge,lib=openblas,threads=1",
         "blas:core=Haswell,lib=openblas,threads=1", "blas:core=SkylakeX,lib=openblas,threads=1",
         "blas:arch=zen3,lib=blis", "opencv", "opencv:disable=AVX512-SKX+AVX2",
         "ort:opt=disabled,threads=1", "ort:opt=all,threads=1"}));
  // A preset without ranks keeps the catalog's order (backends by name).
  const auto sweep = *preset_specs(worker_catalog(), "cpu-sweep");
  ASSERT_FALSE(sweep.empty());
  EXPECT_EQ(sweep.front().rfind("blas:", 0), 0u);
}

TEST(CatalogKnobs, TablesSurviveTheCatalogsJson) {
  const KnobTables tables = {{"x",
                              {{.key = "acc",
                                .default_value = "seq",
                                .values = {"seq", "lanes8"},
                                .help = "order",
                                .cause = "",
                                .value_causes = {{"lanes*", "simd-width"}},
                                .values_form = "lanesN"},
                               {.key = "fuse",
                                .default_value = "on",
                                .values = {"on", "off"},
                                .help = "fusion",
                                .cause = "fusion",
                                .eager_value = "off"},
                               {.key = "threads",
                                .default_value = "1",
                                .values = {"1", "2"},
                                .help = "threads",
                                .cause = "thread-split",
                                .min = 1,
                                .max = 64}}}};
  const nlohmann::json j = knobs_to_json(tables);
  EXPECT_EQ(j["x"][1]["values"], nlohmann::json({"on", "off"}));
  EXPECT_EQ(j["x"][2]["values_form"], "an integer from 1 to 64");
  auto back = knobs_from_json(j);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_EQ(back->at("x").size(), 3u);
  EXPECT_EQ(back->at("x")[0].value_causes[0].value, "lanes*");
  EXPECT_EQ(back->at("x")[0].values, (std::vector<std::string>{"seq", "lanes8"}));
  EXPECT_EQ(back->at("x")[0].values_form, "lanesN");
  EXPECT_EQ(back->at("x")[2].min, 1);
  EXPECT_EQ(back->at("x")[2].max, 64);
  EXPECT_TRUE(knob_value_listed(back->at("x")[0], "lanes4"));  // open: the backend checks it
  EXPECT_FALSE(knob_value_listed(back->at("x")[1], "maybe"));
  EXPECT_EQ(knob_value_cause(*back, "x", "acc", "lanes8"), "simd-width");
  EXPECT_EQ(knob_value_cause(*back, "x", "acc", "seq"), "");
  EXPECT_EQ(knob_value_cause(*back, "x", "acc", "kahan"), "");
  EXPECT_EQ(knob_value_cause(*back, "x", "unknown", "1"), "unknown");
  EXPECT_EQ(eager_options(*back, "x").at("fuse"), "off");
  auto bad = knobs_from_json(nlohmann::json{{"x", {{{"key", "a"}}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("knob table of 'x' is malformed"), std::string::npos);
}

}  // namespace
}  // namespace ig
