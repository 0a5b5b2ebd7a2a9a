// infergap inspect MODEL [-p SPEC]... [--timeout S] [--json]
// What a model asks for and who can run it, without running it: inputs and outputs (open dims by
// name), opsets, operator counts, and per backend family the nodes it cannot run.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "backends/ref/ref_opsets.h"
#include "cli/commands.h"
#include "cli/inspect_int8.h"
#include "core/strings.h"
#include "model/onnx_model.h"
#include "platform/spec.h"
#include "worker/probe.h"
#include "worker/support_check.h"

namespace ig::cli {

namespace {

// Dims as JSON: a number where fixed, the symbol where named, null where neither.
nlohmann::json value_json(const ValueInfo& v) {
  nlohmann::json j{{"name", v.name}, {"dtype", dtype_name(v.dtype)}};
  if (!v.is_tensor) j["type"] = v.type_description;
  if (!v.has_shape) {
    j["dims"] = nullptr;
    return j;
  }
  j["dims"] = nlohmann::json::array();
  for (const auto& d : v.dims) {
    if (d.value >= 0) {
      j["dims"].push_back(d.value);
    } else if (!d.symbol.empty()) {
      j["dims"].push_back(d.symbol);
    } else {
      j["dims"].push_back(nullptr);
    }
  }
  return j;
}

std::string domain_name(const std::string& domain) { return domain.empty() ? "ai.onnx" : domain; }

void count_ops(const Graph& g, std::map<std::pair<std::string, std::string>, int64_t>& counts) {
  for (const auto& n : g.nodes) {
    ++counts[{n.domain, n.op_type}];
    for (const auto& [_, a] : n.attributes) {
      if (a.g) count_ops(*a.g, counts);
      for (const auto& sg : a.graphs) count_ops(*sg, counts);
    }
  }
}

// Per op type (in first-refused order): how many nodes, and the first reason.
nlohmann::json refused_ops(const std::vector<Rejection>& rejections) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& r : rejections) {
    bool seen = false;
    for (auto& o : ops) {
      if (o["op_type"] != r.op_type) continue;
      o["nodes"] = o["nodes"].get<int64_t>() + 1;
      seen = true;
    }
    if (!seen) ops.push_back({{"op_type", r.op_type}, {"nodes", 1}, {"reason", r.reason}});
  }
  return ops;
}

// A library's message without the line breaks it may end with.
std::string one_line(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// The int8 line under a platform (inspect_int8.h).
void print_int8_groups(const nlohmann::json& p) {
  if (!p.contains("int8_groups")) return;
  const auto& g = p["int8_groups"];
  std::string line = "int8 groups: ";
  if (g.contains("integer_kernels"))
    line += std::to_string(g["integer_kernels"].get<int64_t>()) + " of " +
            std::to_string(g["groups"].get<int64_t>()) + " as integer kernels";
  if (g.contains("note"))
    line +=
        (g.contains("integer_kernels") ? "; "
                                       : std::to_string(g["groups"].get<int64_t>()) + " groups: ") +
        g["note"].get<std::string>();
  std::printf("             %s\n", line.c_str());
}

void print_text(const nlohmann::json& j) {
  std::printf(
      "%s: ir_version %lld, producer '%s', %lld nodes\n", j["model"].get<std::string>().c_str(),
      static_cast<long long>(j["ir_version"].get<int64_t>()),
      j["producer"].get<std::string>().c_str(), static_cast<long long>(j["nodes"].get<int64_t>()));
  std::string opsets;
  for (const auto& opset : j["opsets"].items())
    opsets += (opsets.empty() ? "" : ", ") + opset.key() + " " +
              std::to_string(opset.value().get<int64_t>());
  std::printf("opsets: %s\n", opsets.c_str());
  if (!j["opset_problem"].is_null())
    std::printf("  refused: %s\n", j["opset_problem"].get<std::string>().c_str());
  for (const char* key : {"inputs", "outputs"}) {
    std::printf("%s:\n", key);
    for (const auto& v : j[key]) {
      std::string dims = "?";
      if (!v["dims"].is_null()) {
        dims.clear();
        for (const auto& d : v["dims"])
          dims += (dims.empty() ? "" : ",") + (d.is_number()   ? std::to_string(d.get<int64_t>())
                                               : d.is_string() ? d.get<std::string>()
                                                               : std::string("?"));
      }
      std::string line = "  " + v["name"].get<std::string>() + ": " +
                         v["dtype"].get<std::string>() + "[" + dims + "]";
      if (v.contains("open_dims") && !v["open_dims"].empty()) {
        std::string open;
        for (const auto& d : v["open_dims"]) {
          const std::string sym = d["symbol"].get<std::string>();
          open += (open.empty() ? "" : ", ") + std::to_string(d["index"].get<int64_t>()) +
                  (sym.empty() ? " (unnamed)" : " (" + sym + ")");
        }
        line += "   open dims: " + open;
      }
      std::printf("%s\n", line.c_str());
    }
  }
  std::string ops;
  for (const auto& o : j["ops"]) {
    const std::string domain = o["domain"].get<std::string>();
    ops += (ops.empty() ? "" : ", ") + o["op_type"].get<std::string>() +
           (domain == "ai.onnx" ? "" : " (" + domain + ")") + " " +
           std::to_string(o["count"].get<int64_t>());
  }
  std::printf("operators: %s\n", ops.c_str());
  std::printf("support (each platform's own checks, nothing run):\n");
  for (const auto& p : j["support"]) {
    const std::string spec = p["spec"].get<std::string>();
    const std::string verdict = p["verdict"].get<std::string>();
    if (!p["available"].get<bool>()) {
      std::printf("  %-10s unavailable here: %s\n", spec.c_str(),
                  one_line(p["reason"].get<std::string>()).c_str());
    } else if (verdict == "ok") {
      std::printf("  %-10s refuses nothing\n", spec.c_str());
    } else if (verdict != "unsupported") {
      std::printf("  %-10s check failed (%s): %s\n", spec.c_str(), verdict.c_str(),
                  one_line(p["reason"].get<std::string>()).c_str());
    } else if (p["unsupported_ops"].empty() || p["unsupported_ops"][0]["op_type"] == "") {
      std::printf("  %-10s refuses the model: %s\n", spec.c_str(),
                  one_line(p["reason"].get<std::string>()).c_str());
    } else {
      std::printf("  %-10s cannot run:\n", spec.c_str());
      for (const auto& o : p["unsupported_ops"])
        std::printf("    %s x%lld: %s\n", o["op_type"].get<std::string>().c_str(),
                    static_cast<long long>(o["nodes"].get<int64_t>()),
                    one_line(o["reason"].get<std::string>()).c_str());
    }
    print_int8_groups(p);
  }
}

struct InspectArgs {
  std::string model;
  std::vector<std::string> platforms;
  double timeout = 120;
  bool json = false;
};

void add_inspect_options(CLI::App* cmd, InspectArgs& a) {
  cmd->add_option("model", a.model, "ONNX model file")->required();
  cmd->add_option("-p,--platform", a.platforms,
                  "Platforms to ask (repeatable; default: one per backend, its defaults)");
  cmd->add_option("--timeout", a.timeout, "Seconds each platform's check may take")
      ->capture_default_str();
  cmd->add_flag("--json", a.json, "Print the inspection as JSON");
}

// Runtime inputs with their open dims (index and symbol), for the user to size.
nlohmann::json inputs_json(const Graph& graph) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const ValueInfo* in : graph.runtime_inputs()) {
    nlohmann::json v = value_json(*in);
    v["open_dims"] = nlohmann::json::array();
    for (size_t i = 0; in->has_shape && i < in->dims.size(); ++i)
      if (in->dims[i].value < 0)
        v["open_dims"].push_back({{"index", i}, {"symbol", in->dims[i].symbol}});
    inputs.push_back(v);
  }
  return inputs;
}

nlohmann::json ops_json(const Graph& graph) {
  std::map<std::pair<std::string, std::string>, int64_t> counts;
  count_ops(graph, counts);
  std::vector<std::pair<std::pair<std::string, std::string>, int64_t>> sorted(counts.begin(),
                                                                              counts.end());
  // Most frequent first; ties by name, so the listing is stable.
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& [key, n] : sorted)
    ops.push_back({{"op_type", key.second}, {"domain", domain_name(key.first)}, {"count", n}});
  return ops;
}

// What the model asks for, without the platforms' answers ("support").
nlohmann::json model_json(const std::string& path, const Model& model) {
  nlohmann::json j{{"model", path},
                   {"ir_version", model.ir_version},
                   {"producer", model.producer_name},
                   {"nodes", model.graph.nodes.size()},
                   {"opsets", nlohmann::json::object()}};
  for (const auto& [domain, version] : model.opsets) j["opsets"][domain_name(domain)] = version;
  const Status opsets = check_ref_opsets(model);
  j["opset_problem"] = opsets.ok() ? nlohmann::json(nullptr) : nlohmann::json(opsets.message());
  j["inputs"] = inputs_json(model.graph);
  j["outputs"] = nlohmann::json::array();
  for (const auto& out : model.graph.outputs) j["outputs"].push_back(value_json(out));
  j["ops"] = ops_json(model.graph);
  return j;
}

// The platforms given, else one per backend family of the worker's catalog.
Expected<std::vector<std::string>> specs_to_check(const WorkerPool& pool, const InspectArgs& a) {
  if (!a.platforms.empty()) return a.platforms;
  IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(pool.worker_executable()));
  return family_specs(catalog);
}

Status run_inspect(const InspectArgs& a) {
  IG_ASSIGN_OR_RETURN(const Model model, load_model(a.model));
  WorkerPool pool(WorkerPoolOptions{});
  IG_ASSIGN_OR_RETURN(const std::vector<std::string> specs, specs_to_check(pool, a));
  nlohmann::json j = model_json(a.model, model);
  j["support"] = nlohmann::json::array();
  for (const auto& spec : specs) {
    // A spec no worker can build (unknown backend or option) is a usage error, as in `run`.
    Status st = pool.start(spec);
    if (st.code() == StatusCode::kInvalidArgument || st.code() == StatusCode::kNotFound) return st;
  }
  const std::vector<size_t> heads = int8_group_heads(model);
  // A library spec with fallback=ref refuses nothing: its own int8 groups are the plain spec's.
  std::vector<std::string> plain;
  for (const auto& spec : specs)
    if (!heads.empty() && plain_spec_of(spec) != canonical_platform_label(spec))
      plain.push_back(plain_spec_of(spec));
  std::map<std::string, PlatformSupport> plain_support;
  for (auto& s : check_support(pool, a.model, plain, a.timeout)) plain_support[s.spec] = s;
  for (const auto& s : check_support(pool, a.model, specs, a.timeout)) {
    j["support"].push_back({{"spec", s.spec},
                            {"available", s.available},
                            {"verdict", verdict_name(s.verdict)},
                            {"reason", s.reason},
                            {"unsupported_ops", refused_ops(s.rejections)}});
    if (heads.empty()) continue;
    auto own = plain_support.find(plain_spec_of(s.spec));
    j["support"].back()["int8_groups"] =
        int8_groups_json(s.spec, model, heads, own == plain_support.end() ? s : own->second);
  }
  if (a.json) {
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    print_text(j);
  }
  return Status::Ok();
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InspectArgs>();
  auto* cmd = app.add_subcommand(
      "inspect",
      "Show a model's inputs, outputs, opsets and operators, and what each platform "
      "cannot run (without running it)");
  add_inspect_options(cmd, *args);
  cmd->callback([args, &exit_code] {
    if (Status st = run_inspect(*args); !st.ok()) {
      std::fprintf(stderr, "infergap inspect: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli
