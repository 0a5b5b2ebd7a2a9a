#include "workflow/generate.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "backends/ref/ref_opsets.h"
#include "inputs/rng.h"
#include "model/onnx_model.h"
#include "tensor/convert.h"
#include "workflow/generate_steps.h"
#include "workflow/run.h"

namespace ig {

namespace {

// The present output a past input is fed from, by the exporters' names: Optimum and GenAI
// (past_key_values.N.key -> present.N.key), and the older past_key.N -> present_key.N,
// past.N.key -> present.N.key.
std::string present_for(const std::string& past, const std::vector<ValueInfo>& outputs) {
  auto has = [&](const std::string& n) {
    return std::any_of(outputs.begin(), outputs.end(),
                       [&](const ValueInfo& o) { return o.name == n; });
  };
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"past_key_values", "present"},
                                                        {"past_key_values", "present_key_values"},
                                                        {"past", "present"}}) {
    const auto at = past.find(from);
    if (at == std::string::npos) continue;
    std::string name = past;
    name.replace(at, from.size(), to);
    if (has(name)) return name;
  }
  return "";
}

const ValueInfo* find_value(const std::vector<ValueInfo>& values, const std::string& name) {
  for (const auto& v : values)
    if (v.name == name) return &v;
  return nullptr;
}

// An empty cache: batch 1, the sequence axis (third from last... the one before the head size)
// 0, the other dims as the model fixes them.
Expected<KvCache> empty_cache(const ValueInfo& past, const std::string& present,
                              const std::string& path) {
  KvCache kv{past.name, present, 0, past.dtype, {}};
  if (!past.has_shape || past.dims.size() < 2)
    return invalid_argument(
        "{}: past input '{}' declares no shape of rank 2 or more: generate "
        "cannot start its cache empty",
        path, past.name);
  kv.axis = past.dims.size() >= 3 ? static_cast<int>(past.dims.size()) - 2 : 1;
  for (size_t i = 0; i < past.dims.size(); ++i) {
    const Dim& d = past.dims[i];
    if (i == 0 || static_cast<int>(i) == kv.axis) {
      kv.empty.push_back(i == 0 ? 1 : 0);
    } else if (d.value >= 0) {
      kv.empty.push_back(d.value);
    } else {
      return invalid_argument(
          "{}: past input '{}' leaves dim {} ({}) open: generate cannot size "
          "an empty cache",
          path, past.name, i, d.symbol.empty() ? "unnamed" : d.symbol);
    }
  }
  return kv;
}

Expected<DecodeLayout> plan_layout(const Model& model, const GenerateRequest& request) {
  DecodeLayout layout;
  const auto& outputs = model.graph.outputs;
  layout.logits = request.logits_output;
  if (layout.logits.empty())
    layout.logits = find_value(outputs, "logits") ? "logits" : outputs.at(0).name;
  if (!find_value(outputs, layout.logits))
    return not_found("{}: no output '{}' for the logits", model.path, layout.logits);
  std::map<std::string, std::string> overrides(request.kv.begin(), request.kv.end());
  bool has_ids = false;
  for (const ValueInfo* in : model.graph.runtime_inputs()) {
    const std::string& name = in->name;
    if (name == request.ids_input) {
      has_ids = true;
      layout.ids = name;
      layout.ids_dtype = in->dtype;
    } else if (name == "position_ids") {
      layout.positions = name;
      layout.positions_dtype = in->dtype;
    } else if (name == "attention_mask") {
      layout.mask = name;
      layout.mask_dtype = in->dtype;
    } else {
      const std::string present =
          overrides.count(name) ? overrides[name] : present_for(name, outputs);
      if (present.empty())
        return invalid_argument(
            "{}: input '{}' is not {}, position_ids, attention_mask or a past whose present "
            "output generate can name (give it with --kv {}=PRESENT)",
            model.path, name, request.ids_input, name);
      if (!find_value(outputs, present))
        return not_found("{}: --kv {}={}: the model has no output '{}'", model.path, name, present,
                         present);
      IG_ASSIGN_OR_RETURN(KvCache kv, empty_cache(*in, present, model.path));
      layout.cache.push_back(std::move(kv));
    }
  }
  if (!has_ids)
    return not_found("{}: no input '{}' for the token ids", model.path, request.ids_input);
  return layout;
}

std::vector<double> counting(int64_t from, int64_t count) {
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[static_cast<size_t>(i)] = static_cast<double>(from + i);
  return v;
}

// The feeds of a step that reads `tokens` at positions [start, start + tokens.size()), each in
// the type the model declares (token ids and positions are exact in a double).
Expected<StepFeeds> step_feeds(const DecodeLayout& l, const std::vector<int64_t>& tokens,
                               int64_t start) {
  const auto n = static_cast<int64_t>(tokens.size());
  StepFeeds f;
  IG_ASSIGN_OR_RETURN(
      f[l.ids],
      tensor_from_doubles(l.ids_dtype, {1, n}, std::vector<double>(tokens.begin(), tokens.end())));
  if (!l.positions.empty()) {
    IG_ASSIGN_OR_RETURN(f[l.positions],
                        tensor_from_doubles(l.positions_dtype, {1, n}, counting(start, n)));
  }
  if (!l.mask.empty()) {
    IG_ASSIGN_OR_RETURN(
        f[l.mask], tensor_from_doubles(l.mask_dtype, {1, start + n},
                                       std::vector<double>(static_cast<size_t>(start + n), 1)));
  }
  return f;
}

const TracedTensor* output_named(const RunResult& r, const std::string& name) {
  for (const auto& o : r.outputs)
    if (o.value == name) return &o;
  return nullptr;
}

// Decodes on one platform; `steps_out`, when given, receives every step's feeds.
void decode(WorkerPool& pool, const GenerateRequest& request, const DecodeLayout& l,
            PlatformDecode& d, std::vector<StepFeeds>* steps_out) {
  auto first = step_feeds(l, request.prompt, 0);
  if (!first.ok()) {
    d.verdict = Verdict::kError;
    d.reason = first.status().message();
    return;
  }
  StepFeeds feeds = std::move(first).value();
  for (const auto& kv : l.cache) feeds[kv.past] = Tensor(kv.dtype, kv.empty);
  for (int step = 0; step < request.steps; ++step) {
    RunRequest r;
    r.platform = d.spec;
    r.model_path = request.model;
    r.inputs = feeds;
    r.capture.all_layers = false;
    r.timeout_seconds = request.timeout_seconds;
    r.max_memory_bytes = request.max_memory_bytes;
    const RunResult rr = pool.run(r);
    d.seconds += rr.seconds;
    d.library = rr.library;
    d.library_version = rr.library_version;
    if (rr.verdict != Verdict::kOk) {
      d.verdict = rr.verdict;
      d.reason = "step " + std::to_string(step) + ": " + rr.reason;
      return;
    }
    if (steps_out) steps_out->push_back(feeds);
    const TracedTensor* logits = output_named(rr, l.logits);
    const TokenPick p = logits ? pick_token(logits->tensor) : TokenPick{-1, 0, false};
    if (!p.finite || p.token < 0) {
      d.reason = "step " + std::to_string(step) + ": the logits hold NaN; decoding stopped";
      return;
    }
    d.tokens.push_back(p.token);
    d.margins.push_back(p.margin);
    // With a cache the next step reads the new token alone; without, the whole sequence again.
    std::vector<int64_t> read = {p.token};
    auto start = static_cast<int64_t>(request.prompt.size() + d.tokens.size()) - 1;
    if (l.cache.empty()) {
      read = request.prompt;
      read.insert(read.end(), d.tokens.begin(), d.tokens.end());
      start = 0;
    }
    auto next = step_feeds(l, read, start);
    if (!next.ok()) {
      d.verdict = Verdict::kError;
      d.reason = "step " + std::to_string(step + 1) + ": " + next.status().message();
      return;
    }
    feeds = std::move(next).value();
    for (const auto& kv : l.cache) {
      const TracedTensor* present = output_named(rr, kv.present);
      if (!present) {
        d.verdict = Verdict::kError;
        d.reason = "step " + std::to_string(step) + ": no output '" + kv.present + "'";
        return;
      }
      // A platform computing in another float type (ref:dtype=bf16) returns its cache in it;
      // the model's past is declared float32, and the values convert exactly.
      feeds[kv.past] = present->tensor.dtype() == kv.dtype
                           ? present->tensor
                           : convert_float_tensor(present->tensor, kv.dtype);
    }
  }
}

std::vector<TokenDivergence> divergences(const std::vector<PlatformDecode>& platforms) {
  std::vector<TokenDivergence> out;
  for (size_t i = 0; i < platforms.size(); ++i)
    for (size_t j = i + 1; j < platforms.size(); ++j) {
      const auto& a = platforms[i];
      const auto& b = platforms[j];
      if (a.verdict != Verdict::kOk || b.verdict != Verdict::kOk) continue;
      const size_t n = std::min(a.tokens.size(), b.tokens.size());
      size_t k = 0;
      while (k < n && a.tokens[k] == b.tokens[k]) ++k;
      if (k == n) continue;
      TokenDivergence d;
      d.a = a.spec;
      d.b = b.spec;
      d.first_step = static_cast<int>(k);
      d.token_a = a.tokens[k];
      d.token_b = b.tokens[k];
      d.margin_a = a.margins[k];
      d.margin_b = b.margins[k];
      out.push_back(d);
    }
  return out;
}

}  // namespace

bool GenerateOutcome::all_ok() const {
  return std::all_of(platforms.begin(), platforms.end(),
                     [](const PlatformDecode& p) { return p.verdict == Verdict::kOk; });
}

Expected<GenerateOutcome> generate_tokens(const GenerateRequest& request,
                                          const GenerateHooks& hooks) {
  IG_ASSIGN_OR_RETURN(const std::vector<std::string> specs,
                      platform_specs_or_ref(request.platforms));
  if (request.prompt.empty()) return invalid_argument("the prompt holds no token");
  if (request.steps < 1) return invalid_argument("--steps must be 1 or more");
  LoadOptions load;
  load.max_memory_bytes = request.max_memory_bytes;
  IG_ASSIGN_OR_RETURN(const Model model, load_model(request.model, load));
  IG_RETURN_IF_ERROR(check_ref_opsets(model));
  IG_ASSIGN_OR_RETURN(const DecodeLayout layout, plan_layout(model, request));
  GenerateOutcome out;
  out.logits = layout.logits;
  for (const auto& kv : layout.cache) out.kv.emplace_back(kv.past, kv.present);
  for (const auto& n : {layout.positions, layout.mask})
    if (!n.empty()) out.advanced.push_back(n);
  WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
  IG_RETURN_IF_ERROR(start_platforms(pool, specs));
  std::vector<StepFeeds> steps;
  for (const auto& spec : specs) {
    PlatformDecode d;
    d.spec = spec;
    // The first platform that decodes at all gives the stored steps.
    const bool records = steps.empty();
    decode(pool, request, layout, d, records ? &steps : nullptr);
    if (records && d.tokens.empty()) steps.clear();
    if (hooks.platform_done) hooks.platform_done(d);
    out.platforms.push_back(std::move(d));
  }
  out.divergences = divergences(out.platforms);
  if (!request.store_path.empty() && !steps.empty())
    IG_RETURN_IF_ERROR(store_and_locate(request, steps, pool, out, hooks));
  return out;
}

}  // namespace ig
