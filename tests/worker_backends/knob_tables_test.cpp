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
    for (const auto& knob : tables.at(name)) {
      // Every listed value is one its factory takes: the values are the table's to state.
      EXPECT_FALSE(knob.values.empty()) << name << ":" << knob.key << " lists no values";
      for (const auto& value : knob.values) {
        PlatformSpec spec{name, knob.needs};
        spec.options[knob.key] = value;
        auto parsed = f->environment ? f->environment(spec).status() : f->make(spec).status();
        EXPECT_NE(parsed.code(), StatusCode::kInvalidArgument)
            << spec.to_string() << ": " << parsed.to_string();
      }
      if (knob.values_form.empty() && knob.min >= knob.max && !knob.default_value.empty()) {
        EXPECT_TRUE(knob_value_listed(knob, knob.default_value)) << name << ":" << knob.key;
      }
    }
    PlatformSpec unknown{name, {{"no-such-knob", "1"}}};
    auto refused = f->environment ? f->environment(unknown).status() : f->make(unknown).status();
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << name;
  }
}

// A closed knob refuses a value it does not list, naming the ones it takes.
TEST(KnobTables, ClosedKnobsRefuseUnlistedValues) {
  const BackendFactory* f = BackendRegistry::global().find("onednn");
  if (!f) GTEST_SKIP() << "no onednn backend in this build";
  PlatformSpec spec{"onednn", {{"fuse", "maybe"}}};
  const Status st = f->environment ? f->environment(spec).status() : f->make(spec).status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("valid values: on, off"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace ig
