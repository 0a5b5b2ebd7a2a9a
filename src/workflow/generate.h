// What `infergap generate` does: greedy decoding of an LLM-shaped ONNX model on every platform,
// with its KV cache (present outputs fed back as past inputs by their names), position ids and
// attention mask advanced step by step; then, for every pair of platforms whose tokens part, the
// first step where they do, the top-1/top-2 logit margins there and the node where, at that step,
// their difference is born. The steps are stored as cases of a study (the first platform's
// decoding, teacher-forced for all, with the oracle), so compare, origins and the report work
// per step.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "inputs/inputs.h"
#include "results/verdict.h"

namespace ig {

struct GenerateRequest {
  std::string model;
  std::vector<int64_t> prompt;  // token ids
  int steps = 16;
  std::vector<std::string> platforms;                   // "ref" when empty
  std::vector<std::pair<std::string, std::string>> kv;  // past input -> present output
  std::string ids_input = "input_ids", logits_output;   // "": "logits", else the first
  std::string store_path;  // the steps as cases; "" stores nothing and locates nothing
  std::string oracle;      // "" for none
  double timeout_seconds = 300;
  uint64_t max_memory_bytes = 0;
};

struct PlatformDecode {
  std::string spec;
  Verdict verdict = Verdict::kOk;
  std::string reason;
  std::string library, library_version;
  std::vector<int64_t> tokens;
  std::vector<double> margins;  // top-1 minus top-2 logit of each step
  double seconds = 0;
};

struct TokenDivergence {
  std::string a, b;
  int first_step = -1;
  int64_t token_a = -1, token_b = -1;
  double margin_a = 0, margin_b = 0;
  // Where, in the stored case of that step, the difference that flips the token is born, as the
  // flip search names it (workflow/generate_steps.h); "" when not located (`located` says why).
  std::string node, op_type;
  std::string located;
  std::string first_born, first_born_op;  // the first difference born, in graph order
  size_t born = 0;                        // how many differences are born in the step
  bool flip_carried = false;  // searched among the differing nodes: b's kernels carry on
  size_t flip_prefix = 0;     // of the nodes searched, how many fed from b flip a's token
  size_t flip_of = 0;         // (`node` the last), of how many
  bool flip_alone = false;    // `node`'s values alone flip it too
  int flip_runs = 0;          // reruns of a the search took
  std::string case_label;
};

struct GenerateOutcome {
  std::vector<std::pair<std::string, std::string>> kv;  // as matched
  std::string logits;
  std::vector<std::string> advanced;  // position_ids / attention_mask where the model has them
  std::vector<PlatformDecode> platforms;
  std::vector<TokenDivergence> divergences;
  std::vector<std::string> step_cases;  // input-set hash of each stored step
  bool all_ok() const;
};

struct GenerateHooks {
  std::function<void(const PlatformDecode&)> platform_done;
  std::function<void(const std::string&)> note;
};

Expected<GenerateOutcome> generate_tokens(const GenerateRequest& request,
                                          const GenerateHooks& hooks);

}  // namespace ig
