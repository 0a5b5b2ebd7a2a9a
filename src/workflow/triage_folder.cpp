// One finding's folder (workflow/triage.h): the representative's stored inputs, its reduction,
// the explanation of its origin node, the judgement, README.md and repro.sh.
#include <filesystem>

#include "analysis/campaign/data.h"
#include "analysis/triage/index.h"
#include "analysis/triage/markdown.h"
#include "analysis/triage/spec.h"
#include "model/npy.h"
#include "model/onnx_model.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/spec.h"
#include "study/self_check.h"
#include "worker/worker_pool.h"
#include "workflow/explain.h"
#include "workflow/reduce.h"
#include "workflow/triage.h"
#include "workflow/work_folder.h"

namespace ig {

namespace fs = std::filesystem;
using triage::Hit;

namespace {

bool numeric(const std::string& kind) {
  return kind == triage::kWrong || kind == triage::kCompiled || kind == triage::kLostPrecision ||
         kind.rfind(triage::kExceptional, 0) == 0;
}

// Tolerance where the class is a value beyond tolerance (or NaN/Inf against finite); bits where
// the numbers are equal or tiny (a zero's sign, a flushed denormal) or the class is bitwise.
ReduceCriterion criterion_for(const std::string& kind) {
  if (kind == triage::kCompiled) return ReduceCriterion::kBitwise;
  if (kind == "exceptional:zero-sign" || kind == "exceptional:flush")
    return ReduceCriterion::kBitwise;
  return ReduceCriterion::kTolerance;
}

// The second platform of the reduction and of repro.sh: the eager mode for compiled-vs-eager, a
// platform that agreed with the oracle on the case, else the reference in fp32.
std::string second_platform(const std::string& kind, const Hit& rep) {
  if (kind == triage::kCompiled) return rep.against;
  return rep.witness.empty() ? "ref:acc=exact" : rep.witness;
}

struct Files {
  std::vector<std::string> specs, names;  // NAME=PATH for reduce; the input names
};

// The representative case's input set as .npy files under `dir`.
Expected<Files> write_stored_inputs(const Store& store, const std::string& input,
                                    const fs::path& dir) {
  IG_ASSIGN_OR_RETURN(const auto keys, input_set_keys(store, input));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error("{}: {}", dir.string(), ec.message());
  Files out;
  for (const auto& [name, key] : keys) {
    IG_ASSIGN_OR_RETURN(const Tensor t, store.tensor(key));
    const std::string path = (dir / finding_input_file_name(name)).string();
    IG_RETURN_IF_ERROR(write_npy(t, path));
    out.specs.push_back(name + "=" + path);
    out.names.push_back(name);
  }
  return out;
}

// The variant itself stands in for the reduction: its file as reduced.onnx, its inputs beside.
Expected<Files> keep_variant(const Store& store, const Hit& rep, const fs::path& folder,
                             std::vector<std::string>& outputs) {
  std::error_code ec;
  fs::copy_file(rep.model_path, folder / "reduced.onnx", fs::copy_options::overwrite_existing, ec);
  if (ec) return io_error("{}: {}", rep.model_path, ec.message());
  LoadOptions light;
  light.run_checker = false;
  light.infer_shapes = false;
  IG_ASSIGN_OR_RETURN(const Model m, load_model(rep.model_path, light));
  outputs.clear();
  for (const auto& o : m.graph.outputs) outputs.push_back(o.name);
  return write_stored_inputs(store, rep.input, folder / "inputs");
}

struct Reduced {
  nlohmann::json json;
  Files files;
  std::vector<std::string> outputs;
};

Expected<Reduced> reduce_representative(const Store& store, const TriagePlan& plan,
                                        const triage::Finding& f, const fs::path& folder) {
  const Hit& rep = f.representative();
  Reduced out;
  out.json = {{"done", false}, {"a", rep.platform}, {"b", second_platform(f.kind, rep)}};
  if (!numeric(f.kind)) {
    out.json["why_not"] = "reduce needs both platforms to run the model, and this one fails";
    IG_ASSIGN_OR_RETURN(out.files, keep_variant(store, rep, folder, out.outputs));
    return out;
  }
  const WorkFolder scratch("triage-inputs");  // removed on every way out, errors included
  IG_ASSIGN_OR_RETURN(const Files stored, write_stored_inputs(store, rep.input, scratch.path()));
  ReduceJob rp;
  rp.model = rep.model_path;
  rp.inputs = InputRequest{stored.specs, {}, {}, 0};
  rp.options.a = rep.platform;
  rp.options.b = out.json["b"].get<std::string>();
  rp.options.criterion = criterion_for(f.kind);
  rp.options.rtol = plan.options.analysis.rtol;
  rp.options.atol = finding_atol(f.kind, plan.options.analysis.atol);
  rp.options.timeout_seconds = plan.reduce_timeout;
  rp.out_dir = folder.string();
  out.json["criterion"] = reduce_criterion_name(rp.options.criterion);
  auto reduced = reduce_and_write(rp);
  if (!reduced.ok() || reduced->result.agree) {
    out.json["why_not"] =
        !reduced.ok() ? "reduce failed: " + reduced.status().message()
                      : fmt::format(
                            "{} and {} agree on the variant under the {} criterion when "
                            "rerun together",
                            rp.options.a, rp.options.b, out.json["criterion"].get<std::string>());
    IG_ASSIGN_OR_RETURN(out.files, keep_variant(store, rep, folder, out.outputs));
    return out;
  }
  const ReduceResult& r = reduced->result;
  out.json["done"] = true;
  out.json["original_nodes"] = r.original_nodes;
  out.json["a_vs_b"] = r.a_vs_b;
  out.json["tests"] = r.tests;
  out.json["nodes"] = nlohmann::json::array();
  for (size_t i = 0; i < r.nodes.size(); ++i)
    out.json["nodes"].push_back({{"name", r.nodes[i]}, {"op", r.ops[i]}});
  for (const auto& [name, path] : reduced->files.inputs.items()) {
    out.files.specs.push_back(name + "=" + path.get<std::string>());
    out.files.names.push_back(name);
  }
  out.outputs = r.outputs;
  return out;
}

// The explain summary of the representative's origin node, or null where explain does not apply
// (failures, exceptional values, an unlocated origin).
nlohmann::json explain_representative(const Store& store, const TriagePlan& plan,
                                      const triage::Finding& f) {
  if (f.kind != triage::kWrong && f.kind != triage::kCompiled) return nullptr;
  const Hit& rep = f.representative();
  if (rep.node.empty()) return {{"error", "the divergence origin was not located"}};
  ExplainRequest request{rep.platform, rep.node, rep.run, plan.explain_trials, nullptr};
  auto o = explain_stored_node(store, plan.store_path, request);
  if (!o.ok()) return {{"node", rep.node}, {"error", o.status().message()}};
  return {{"node", rep.node},
          {"emulator", o->result.emulator},
          {"exact", o->result.exact},
          {"remaining_precision", o->result.remaining_precision},
          {"mantissa_bits", o->result.mantissa_bits},
          {"cause", o->result.causes},
          {"tried", o->result.tried.size()}};
}

// A platform's own spec with its eager knobs set (ORT's opt=disabled, torch2's compile=off); ""
// where its backend has none or the spec already is eager.
std::string eager_partner(const TriagePlan& plan, const std::string& platform) {
  const KnobTables& knobs = plan.options.analysis.knobs;
  auto spec = parse_platform_spec(platform);
  auto unfused = unfused_spec(knobs, platform);
  if (!spec.ok() || !unfused.ok()) return "";
  for (const auto& [key, value] : eager_options(knobs, spec->backend))
    if (option_value(knobs, *spec, key) != value) return *unfused;
  return "";
}

// Whether every output of `a` lies within tolerance of `oracle`'s, rounded to a's dtype first.
bool outputs_within(const RunResult& a, const RunResult& oracle, double rtol, double atol) {
  if (a.verdict != Verdict::kOk || oracle.verdict != Verdict::kOk ||
      a.outputs.size() != oracle.outputs.size())
    return false;
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    const Tensor& t = a.outputs[i].tensor;
    const Tensor& r = oracle.outputs[i].tensor;
    if (!t.defined() || !r.defined()) return false;
    if (!campaign::within_oracle_tolerance(t, r, rtol, atol)) return false;
  }
  return true;
}

// For a wrong result on a compiled mode: the reduced model on the platform (every layer), on its
// eager partner and on the oracle. Where the eager partner agrees with the oracle and the platform
// does not, the optimizer's rewrite made the difference, and the platform's traced groups say
// which nodes it fused into what (triage::judge_rewrite). Null where it does not apply.
nlohmann::json rewrite_evidence(const TriagePlan& plan, const triage::Finding& f,
                                const fs::path& folder, const Reduced& red) {
  if (f.kind != triage::kWrong || !red.json.value("done", false)) return nullptr;
  const Hit& rep = f.representative();
  const std::string eager = eager_partner(plan, rep.platform);
  if (eager.empty()) return nullptr;
  nlohmann::json out{{"platform", rep.platform}, {"eager", eager}, {"eager_agrees", false}};
  const std::string model_path = (folder / "reduced.onnx").string();
  LoadOptions light;
  light.run_checker = false;
  auto model = load_model(model_path, light);
  if (!model.ok()) return out;
  std::map<std::string, std::string> op_of;
  for (const auto& n : model->graph.nodes) op_of[n.name] = n.op_type;
  RunRequest request;
  request.model_path = model_path;
  request.timeout_seconds = plan.reduce_timeout;
  for (const auto& spec : red.files.specs) {
    const auto eq = spec.find('=');
    auto t = read_npy(spec.substr(eq + 1));
    if (!t.ok()) return out;
    request.inputs[spec.substr(0, eq)] = *t;
  }
  WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
  auto run_on = [&](const std::string& platform, bool layers) {
    RunRequest r = request;
    r.platform = platform;
    r.capture.all_layers = layers;
    r.capture.keep_tensors = !layers;  // the traced run is read for its groups alone
    return pool.run(r);
  };
  const RunResult oracle = run_on(rep.against, false);
  const RunResult eager_run = run_on(eager, false);
  const RunResult plain = run_on(rep.platform, false);
  const double rtol = plan.options.analysis.rtol, atol = plan.options.analysis.atol;
  out["eager_agrees"] =
      outputs_within(eager_run, oracle, rtol, atol) && !outputs_within(plain, oracle, rtol, atol);
  if (!out["eager_agrees"].get<bool>()) return out;
  out["groups"] = nlohmann::json::array();
  const RunResult traced = run_on(rep.platform, true);
  for (const auto& t : traced.trace) {
    if (t.covers.find(',') == std::string::npos) continue;  // one node alone
    nlohmann::json g{{"node", t.node},
                     {"note", t.note},
                     {"covers", nlohmann::json::array()},
                     {"ops", nlohmann::json::array()}};
    for (size_t start = 0; start <= t.covers.size();) {
      const size_t end = std::min(t.covers.find(',', start), t.covers.size());
      const std::string name = t.covers.substr(start, end - start);
      g["covers"].push_back(name);
      g["ops"].push_back(op_of.count(name) ? op_of[name] : std::string("?"));
      start = end + 1;
    }
    out["groups"].push_back(g);
  }
  return out;
}

bool oracle_ran(const Store& store, const Hit& rep) {
  auto runs = store.runs();
  if (!runs.ok()) return false;
  for (const auto& r : *runs)
    if (r.key.model == rep.model && r.key.input == rep.input && r.key.platform == rep.against &&
        r.verdict == Verdict::kOk)
      return true;
  return false;
}

}  // namespace

double finding_atol(const std::string& kind, double atol) {
  return kind == triage::kLostPrecision ? 0.0 : atol;
}

std::string finding_input_file_name(const std::string& name) {
  std::string file;
  for (char c : name) file += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return file + ".npy";
}

nlohmann::json judge_finding(const Store& store, const triage::Finding& f,
                             const nlohmann::json& entry, bool fp32_reference_too) {
  const nlohmann::json explain = entry.value("explain", nlohmann::json());
  return triage::final_judgement(
      triage::judge(f.kind, f.op, explain, oracle_ran(store, f.representative()),
                    fp32_reference_too || f.platforms().count("ref") != 0),
      f.op, entry);
}

Status write_finding_folder(const Store& store, const TriagePlan& plan, const triage::Finding& f,
                            bool fp32_reference_too, nlohmann::json& entry) {
  // Absolute, so that reduce's input paths are too and repro.sh can name them relative to itself.
  const fs::path folder =
      fs::absolute(fs::path(plan.out_dir) / entry["folder"].get<std::string>()).lexically_normal();
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return io_error("{}: {}", folder.string(), ec.message());
  if (plan.progress) plan.progress(entry["id"].get<std::string>() + ": reduce");
  IG_ASSIGN_OR_RETURN(const Reduced red, reduce_representative(store, plan, f, folder));
  entry["reduced"] = red.json;
  if (!red.json.value("done", false)) {
    // The smallest variant's own nodes stand for the minimal model.
    entry["reduced"]["nodes"] = nlohmann::json::array();
    IG_ASSIGN_OR_RETURN(const auto nodes, store.nodes(f.representative().model));
    for (const auto& n : nodes)
      entry["reduced"]["nodes"].push_back({{"name", n.name}, {"op", n.op_type}});
  }
  if (plan.progress) plan.progress(entry["id"].get<std::string>() + ": explain");
  entry["explain"] = explain_representative(store, plan, f);
  if (plan.progress) plan.progress(entry["id"].get<std::string>() + ": eager partner");
  entry["rewrite"] = rewrite_evidence(plan, f, folder, red);
  entry["judgement"] = judge_finding(store, f, entry, fp32_reference_too);
  IG_RETURN_IF_ERROR(write_repro_script(folder.string(), entry, red.files.specs, red.outputs,
                                        plan.options.analysis.rtol, plan.options.analysis.atol));
  entry["repro"] = (folder / "repro.sh").string();
  std::FILE* readme = std::fopen((folder / "README.md").string().c_str(), "w");
  if (!readme) return io_error("{}: cannot write README.md", folder.string());
  const std::string md = triage::finding_readme(entry);
  std::fwrite(md.data(), 1, md.size(), readme);
  std::fclose(readme);
  return Status::Ok();
}

}  // namespace ig
