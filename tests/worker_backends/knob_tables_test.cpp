// Each binding's knob table against its own parser: every declared key is accepted, every default
// is a valid value, and the tables are what the factories validate (no key outside them).
#include <gtest/gtest.h>

#include "platform/knobs.h"
#include "platform/registry.h"

namespace ig {
namespace {

TEST(KnobTables, EveryBackendsDefaultsAreValuesItsFactoryAccepts) {
  const KnobTables& tables = registered_knobs();
  for (const auto& name : BackendRegistry::global().names()) {
    const BackendFactory* f = BackendRegistry::global().find(name);
    ASSERT_TRUE(tables.count(name)) << name << " registers no knob table";
    for (const auto& knob : tables.at(name)) {
      EXPECT_FALSE(knob.help.empty()) << name << ":" << knob.key;
      if (knob.default_value.empty()) continue;
      PlatformSpec spec{name, {{knob.key, knob.default_value}}};
      // The environment step parses the spec without starting a library; backends without one
      // are parsed by make, which may still find the hardware missing (never a bad value).
      auto parsed = f->environment ? f->environment(spec).status() : f->make(spec).status();
      EXPECT_NE(parsed.code(), StatusCode::kInvalidArgument)
          << spec.to_string() << ": " << parsed.to_string();
    }
    PlatformSpec unknown{name, {{"no-such-knob", "1"}}};
    auto refused = f->environment ? f->environment(unknown).status() : f->make(unknown).status();
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << name;
  }
}

}  // namespace
}  // namespace ig
