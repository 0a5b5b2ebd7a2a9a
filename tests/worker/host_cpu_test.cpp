// The CPU of a host record (worker/host_cpu.h) from /proc/cpuinfo text: identity fields, the
// microarchitecture table, and only the flags that steer dispatch.
#include "worker/host_cpu.h"

#include <gtest/gtest.h>

namespace ig {
namespace {

TEST(HostCpu, ReadsCpuinfoAndKeepsDispatchFlags) {
  const std::string info =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
      "model name\t: AMD EPYC 9R14\nstepping\t: 1\n"
      "flags\t\t: fpu vme avx2 fma hypervisor avx512f avx512_bf16 constant_tsc sse4_2 avx512f\n"
      "processor\t: 1\nvendor_id\t: AuthenticAMD\n";
  const HostCpu cpu = host_cpu_from_cpuinfo(info, 2);
  EXPECT_EQ(cpu.vendor, "AuthenticAMD");
  EXPECT_EQ(cpu.name, "AMD EPYC 9R14");
  EXPECT_EQ(cpu.family, 25);
  EXPECT_EQ(cpu.model, 17);
  EXPECT_EQ(cpu.stepping, 1);
  EXPECT_EQ(cpu.cores, 2);
  EXPECT_EQ(cpu.microarchitecture, "zen4");
  EXPECT_EQ(cpu.flags,
            (std::vector<std::string>{"avx2", "avx512_bf16", "avx512f", "fma", "sse4_2"}));
}

TEST(HostCpu, NamesKnownPartsAndLeavesOthersUnnamed) {
  EXPECT_EQ(x86_microarchitecture("GenuineIntel", 6, 0x8f), "sapphirerapids");
  EXPECT_EQ(x86_microarchitecture("AuthenticAMD", 25, 0x01), "zen3");
  EXPECT_EQ(x86_microarchitecture("AuthenticAMD", 26, 0x02), "zen5");
  EXPECT_EQ(x86_microarchitecture("GenuineIntel", 6, 0x01), "");
  EXPECT_TRUE(dispatch_flag("amx_bf16"));
  EXPECT_TRUE(dispatch_flag("avx512_fp16"));
  EXPECT_FALSE(dispatch_flag("hypervisor"));
  EXPECT_FALSE(dispatch_flag("constant_tsc"));
}

TEST(HostCpu, ThisMachineHasAnIdentity) {
  const HostCpu cpu = probe_host_cpu();
  EXPECT_FALSE(cpu.vendor.empty());
  EXPECT_GT(cpu.cores, 0);
  EXPECT_TRUE(std::is_sorted(cpu.flags.begin(), cpu.flags.end()));
}

}  // namespace
}  // namespace ig
