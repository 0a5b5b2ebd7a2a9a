// Host records (analysis/host_records.h): the record survives its JSON, a tampered record is
// refused, and `hosts compare` finds the flags that separate the classes of bits.
#include "analysis/host_records.h"

#include <gtest/gtest.h>

namespace ig {
namespace {

HostRecord host(const std::string& name, std::vector<std::string> flags,
                const std::map<std::string, std::string>& bits_by_spec) {
  HostRecord r;
  r.cpu.vendor = "GenuineIntel";
  r.cpu.name = name;
  r.cpu.family = 6;
  r.cpu.model = static_cast<int>(name.size());
  r.cpu.cores = 2;
  std::sort(flags.begin(), flags.end());
  r.cpu.flags = std::move(flags);
  r.id = host_record_id(r.cpu);
  for (const auto& [spec, bits] : bits_by_spec) {
    PlatformBits p{spec, "ok", {}};
    p.cases["m/x"] = CaseBits{bits, bits + "-layers", 10};
    r.platforms.push_back(p);
  }
  return r;
}

TEST(HostRecords, SurviveTheirJsonAndRefuseATamperedId) {
  const HostRecord r = host("Xeon", {"avx2", "avx512f"}, {{"onednn", "a"}, {"ref", "r"}});
  auto back = host_record_from_json(host_record_json(r), "x.json");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->id, r.id);
  EXPECT_EQ(back->platforms.size(), 2u);
  EXPECT_TRUE(differing_platforms(r, *back).empty());
  nlohmann::json j = host_record_json(r);
  auto& flags = j["host"]["flags"];
  flags.insert(flags.begin(), "amx_tile");  // still sorted: only the id no longer matches
  auto bad = host_record_from_json(j, "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("x.json: host id"), std::string::npos)
      << bad.status().message();
  auto wrong = host_record_from_json(nlohmann::json{{"format", "other"}}, "y.json");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("y.json: not a host record"), std::string::npos);
}

TEST(HostRecords, SecondRecordWithOtherBitsNamesThePlatform) {
  const HostRecord a = host("Xeon", {"avx2"}, {{"onednn", "a"}, {"ref", "r"}});
  const HostRecord b = host("Xeon", {"avx2"}, {{"onednn", "b"}, {"ref", "r"}});
  EXPECT_EQ(differing_platforms(a, b), std::vector<std::string>{"onednn"});
}

TEST(HostRecords, AnotherLibraryVersionIsNotNondeterminism) {
  HostRecord a = host("Xeon", {"avx2"}, {{"blas", "a"}, {"ref", "r"}});
  HostRecord b = host("Xeon", {"avx2"}, {{"blas", "b"}, {"ref", "r"}});
  a.software["platform_libraries"] = {{"blas", "OpenBLAS 0.3.26"}, {"ref", "infergap-ref 0.1.0"}};
  b.software["platform_libraries"] = {{"blas", "OpenBLAS 0.3.21"}, {"ref", "infergap-ref 0.1.0"}};
  EXPECT_TRUE(differing_platforms(a, b).empty());
  EXPECT_EQ(library_changes(a, b), std::vector<std::string>{"blas"});
  b.platforms[1].cases.begin()->second.outputs = "other";  // ref, same library: other bits
  EXPECT_EQ(differing_platforms(a, b), std::vector<std::string>{"ref"});
}

TEST(HostRecords, CompareNamesTheFlagThatSplitsAPlatform) {
  // onednn: the AVX-512 hosts agree, the AVX2-only one differs; ref agrees everywhere.
  const std::vector<HostRecord> hosts = {
      host("EPYC-avx2", {"avx2", "fma"}, {{"onednn", "narrow"}, {"ref", "r"}}),
      host("EPYC-avx512", {"avx2", "avx512f", "fma"}, {{"onednn", "wide"}, {"ref", "r"}}),
      host("Xeon-amx", {"amx_tile", "avx2", "avx512f", "fma"}, {{"onednn", "wide"}, {"ref", "r"}}),
  };
  const HostsComparison c = compare_host_records(hosts);
  ASSERT_EQ(c.platforms.size(), 2u);
  const PlatformClasses& onednn = c.platforms[0];
  EXPECT_EQ(onednn.spec, "onednn");
  EXPECT_EQ(onednn.classes.size(), 2u);
  EXPECT_EQ(onednn.split_by, std::vector<std::string>{"avx512f"});
  EXPECT_TRUE(onednn.alternatives.empty());
  EXPECT_EQ(onednn.confidence, "low");  // one host alone in its class
  const PlatformClasses& ref = c.platforms[1];
  EXPECT_EQ(ref.classes.size(), 1u);
  EXPECT_EQ(ref.confidence, "none");
  EXPECT_TRUE(ref.split_by.empty());
  const nlohmann::json j = hosts_comparison_json(c);
  EXPECT_EQ(j["platforms"][0]["classes"], 2);
  EXPECT_EQ(j["platforms"][0]["split_by"], nlohmann::json({"avx512f"}));
  EXPECT_EQ(j["hosts"].size(), 3u);
}

TEST(HostRecords, ASplitNoFlagExplainsIsSaidSo) {
  // Same flags, other bits: nothing of the CPU flags separates them.
  const std::vector<HostRecord> hosts = {
      host("A", {"avx2"}, {{"ort", "1"}}),
      host("BB", {"avx2"}, {{"ort", "2"}}),
  };
  const HostsComparison c = compare_host_records(hosts);
  EXPECT_EQ(c.platforms[0].classes.size(), 2u);
  EXPECT_EQ(c.platforms[0].confidence, "unexplained");
  EXPECT_TRUE(c.platforms[0].split_by.empty());
}

TEST(HostRecords, ASplitThatFollowsTheLibraryVersionsIsTheirs) {
  // Same CPU flags but one: the OpenBLAS platform splits as the OpenBLAS versions do.
  std::vector<HostRecord> hosts = {
      host("A", {"avx2", "amx_tile"}, {{"blas", "1"}}),
      host("BB", {"avx2"}, {{"blas", "2"}}),
      host("CCC", {"avx2", "fma"}, {{"blas", "2"}}),
  };
  hosts[0].software["platform_libraries"] = {{"blas", "OpenBLAS 0.3.26"}};
  hosts[1].software["platform_libraries"] = {{"blas", "OpenBLAS 0.3.21"}};
  hosts[2].software["platform_libraries"] = {{"blas", "OpenBLAS 0.3.21"}};
  HostsComparison c = compare_host_records(hosts);
  EXPECT_EQ(c.platforms[0].confidence, "library");
  EXPECT_TRUE(c.platforms[0].split_by.empty());
  EXPECT_EQ(c.platforms[0].library_versions.size(), 2u);
  EXPECT_EQ(hosts_comparison_json(c)["platforms"][0]["confidence"], "library");
  // A version that does not follow the classes: the flags are searched, the versions shown.
  hosts[2].platforms[0].cases.begin()->second = hosts[0].platforms[0].cases.begin()->second;
  c = compare_host_records(hosts);
  EXPECT_NE(c.platforms[0].confidence, "library");
  EXPECT_EQ(c.platforms[0].library_versions.size(), 2u);
}

}  // namespace
}  // namespace ig
