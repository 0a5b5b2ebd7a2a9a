// infergap generate MODEL --input input_ids=IDS --steps N [-p PLATFORM]... [--kv PAST=PRESENT]...
//   [--logits NAME] [--store DB] [--oracle SPEC] [--json]
// Greedy decoding on every platform and where their tokens part (workflow/generate.h).
#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/limit_options.h"
#include "model/npy.h"
#include "study/study.h"
#include "workflow/generate.h"

namespace ig::cli {

namespace {

struct GenerateArgs {
  std::string model;
  std::vector<std::string> inputs, kv, platforms;
  std::string logits, store, oracle = "default";
  int steps = 16;
  bool json = false;
  LimitArgs limits;
};

void add_generate_options(CLI::App* cmd, GenerateArgs& a) {
  cmd->add_option("model", a.model, "ONNX decoder (input_ids in, logits out; a KV cache optional)")
      ->required();
  cmd->add_option("--input", a.inputs,
                  "input_ids=IDS: the prompt, token ids comma-separated (5,17,42) or a .npy file "
                  "of integers")
      ->required();
  cmd->add_option("--steps", a.steps, "Tokens to generate")->capture_default_str();
  cmd->add_option("-p,--platform", a.platforms, "Platform spec, e.g. ref (repeatable)");
  cmd->add_option("--kv", a.kv,
                  "PAST=PRESENT: feed output PRESENT back as input PAST (repeatable; default: by "
                  "name, past_key_values.N.key <- present.N.key, past_key.N <- present_key.N)");
  cmd->add_option("--logits", a.logits, "The logits output (default: logits, or the first)");
  cmd->add_option("--store", a.store,
                  "Store every step (the first platform's decoding, teacher-forced for all, "
                  "traced, with the oracle) as a case, and locate where tokens part; the feeds go "
                  "to STORE.steps/");
  cmd->add_option("--oracle", a.oracle, "Oracle platform for the stored steps ('none' for none)")
      ->capture_default_str();
  add_limit_options(cmd, &a.limits);
  cmd->add_flag("--json", a.json, "Print results as JSON");
}

Expected<std::vector<int64_t>> parse_prompt(const std::vector<std::string>& inputs,
                                            std::string& ids_input) {
  if (inputs.size() != 1)
    return invalid_argument("--input: generate takes one, the token ids (input_ids=5,17,42)");
  const std::string& spec = inputs[0];
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    return invalid_argument("--input '{}': expected NAME=IDS", spec);
  ids_input = spec.substr(0, eq);
  const std::string ids = spec.substr(eq + 1);
  if (ids.size() > 4 && ids.substr(ids.size() - 4) == ".npy") {
    IG_ASSIGN_OR_RETURN(const Tensor t, read_npy(ids));
    if (!is_integer(t.dtype()))
      return invalid_argument("{}: the token ids are {}, not integers", ids, t.describe());
    return t.to_int64_vector();
  }
  std::vector<int64_t> tokens;
  size_t start = 0;
  while (start <= ids.size()) {
    const size_t end = std::min(ids.find(',', start), ids.size());
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(ids.data() + start, ids.data() + end, v);
    if (ec != std::errc() || ptr != ids.data() + end || v < 0)
      return invalid_argument("--input {}: '{}' is not a token id", spec,
                              ids.substr(start, end - start));
    tokens.push_back(v);
    start = end + 1;
  }
  return tokens;
}

std::string tokens_text(const std::vector<int64_t>& tokens) {
  std::string s;
  for (int64_t t : tokens) s += (s.empty() ? "" : " ") + std::to_string(t);
  return s;
}

void print_platform(const PlatformDecode& d) {
  std::printf("%-24s %zu token(s), %.2f s: %s\n", d.spec.c_str(), d.tokens.size(), d.seconds,
              tokens_text(d.tokens).c_str());
  if (!d.reason.empty()) {
    const std::string verdict(verdict_name(d.verdict));
    std::printf("    %s: %s\n", verdict.c_str(), d.reason.c_str());
    std::fprintf(stderr, "infergap generate: %s: %s: %s\n", d.spec.c_str(), verdict.c_str(),
                 d.reason.c_str());
  }
}

void print_divergences(const GenerateOutcome& out) {
  if (out.divergences.empty()) {
    std::printf("every platform generated the same tokens\n");
    return;
  }
  for (const auto& d : out.divergences) {
    std::printf(
        "%s vs %s: part at step %d (token %lld vs %lld; top-1/top-2 margins %.4g and "
        "%.4g)\n",
        d.a.c_str(), d.b.c_str(), d.first_step, static_cast<long long>(d.token_a),
        static_cast<long long>(d.token_b), d.margin_a, d.margin_b);
    if (!d.node.empty())
      std::printf("    the flip is born at %s (%s): %s\n", d.node.c_str(), d.op_type.c_str(),
                  d.located.c_str());
    else if (!d.located.empty())
      std::printf("    %s\n", d.located.c_str());
    if (!d.first_born.empty())
      std::printf("    %zu difference(s) born in that step, the first at %s (%s)\n", d.born,
                  d.first_born.c_str(), d.first_born_op.c_str());
  }
}

nlohmann::json outcome_json(const GenerateArgs& a, const GenerateOutcome& out) {
  nlohmann::json j{{"model", a.model},
                   {"logits", out.logits},
                   {"advanced", out.advanced},
                   {"kv", nlohmann::json::array()},
                   {"platforms", nlohmann::json::array()},
                   {"divergences", nlohmann::json::array()},
                   {"store", a.store.empty() ? nlohmann::json() : nlohmann::json(a.store)},
                   {"step_cases", out.step_cases}};
  for (const auto& [past, present] : out.kv)
    j["kv"].push_back({{"past", past}, {"present", present}});
  for (const auto& d : out.platforms) {
    j["platforms"].push_back({{"spec", d.spec},
                              {"library", d.library},
                              {"version", d.library_version},
                              {"verdict", std::string(verdict_name(d.verdict))},
                              {"tokens", d.tokens},
                              {"margins", d.margins},
                              {"seconds", d.seconds}});
    if (!d.reason.empty()) j["platforms"].back()["reason"] = d.reason;
  }
  for (const auto& d : out.divergences)
    j["divergences"].push_back(
        {{"a", d.a},
         {"b", d.b},
         {"first_step", d.first_step},
         {"token_a", d.token_a},
         {"token_b", d.token_b},
         {"margin_a", d.margin_a},
         {"margin_b", d.margin_b},
         {"node", d.node.empty() ? nlohmann::json() : nlohmann::json(d.node)},
         {"op_type", d.op_type},
         {"located", d.located},
         {"first_born", d.first_born.empty() ? nlohmann::json() : nlohmann::json(d.first_born)},
         {"first_born_op", d.first_born_op},
         {"born", d.born},
         {"flip",
          {{"searched", d.flip_carried ? "differing" : "born"},
           {"prefix", d.flip_prefix},
           {"of", d.flip_of},
           {"alone", d.flip_alone},
           {"runs", d.flip_runs}}},
         {"case", d.case_label}});
  return j;
}

Status run_generate(const GenerateArgs& a, int& exit_code) {
  GenerateRequest request;
  request.model = a.model;
  IG_ASSIGN_OR_RETURN(request.prompt, parse_prompt(a.inputs, request.ids_input));
  request.steps = a.steps;
  request.platforms = a.platforms;
  for (const auto& kv : a.kv) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
      return invalid_argument("--kv '{}': expected PAST=PRESENT", kv);
    request.kv.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  request.logits_output = a.logits;
  request.store_path = a.store;
  request.oracle = oracle_from_choice(a.oracle);
  request.timeout_seconds = a.limits.timeout;
  request.max_memory_bytes = a.limits.max_memory_bytes();
  GenerateHooks hooks;
  hooks.platform_done = [&](const PlatformDecode& d) {
    if (!a.json) print_platform(d);
  };
  hooks.note = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  IG_ASSIGN_OR_RETURN(const GenerateOutcome out, generate_tokens(request, hooks));
  if (!out.all_ok()) exit_code = kExitFailures;
  if (a.json) {
    std::printf("%s\n", outcome_json(a, out).dump(2).c_str());
  } else {
    print_divergences(out);
    if (!a.store.empty())
      std::printf("steps stored in %s (inputs in %s.steps/): infergap compare --store %s\n",
                  a.store.c_str(), a.store.c_str(), a.store.c_str());
  }
  return Status::Ok();
}

}  // namespace

void add_generate_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<GenerateArgs>();
  auto* cmd = app.add_subcommand(
      "generate", "Greedy decoding with the KV cache on every platform: where tokens part");
  add_generate_options(cmd, *args);
  cmd->callback([args, &exit_code] {
    if (Status st = run_generate(*args, exit_code); !st.ok()) {
      std::fprintf(stderr, "infergap generate: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli
