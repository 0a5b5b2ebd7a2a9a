// A finding's repro.sh (workflow/triage.h). It names this binary (INFERGAP overrides it) and the
// folder's own files relative to itself, so the folder can move.
#include <filesystem>

#include "analysis/triage/index.h"
#include "model/onnx_model.h"
#include "platform/spec.h"
#include "workflow/reduce.h"
#include "workflow/triage.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

// As `infergap run --save-outputs` names its folders and files.
std::string saved_name(const std::string& s) {
  std::string out;
  for (char c : s)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '='
            ? c
            : '_';
  return out;
}

// Inside double quotes: the four characters the shell still interprets.
std::string dq(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '$' || c == '`' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string canonical(const std::string& spec) {
  auto p = parse_platform_spec(spec);
  return p.ok() ? p->to_string() : spec;
}

// `--input "NAME=$HERE/inputs/x.npy"` for each input; paths inside the folder become relative.
std::string input_flags(const std::string& folder, const std::vector<std::string>& specs) {
  std::string flags;
  const std::string prefix = folder + "/";
  for (const auto& s : specs) {
    const auto eq = s.find('=');
    std::string path = s.substr(eq + 1);
    const bool inside = path.rfind(prefix, 0) == 0;
    if (inside) path = path.substr(prefix.size());
    flags += " --input \"" + dq(s.substr(0, eq + 1)) + (inside ? "$HERE/" : "") + dq(path) + "\"";
  }
  return flags;
}

std::string infergap_path() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("infergap") : exe.string();
}

// B: the reduction's second platform, where the reduction showed the difference; else, for a
// value found against the oracle, the oracle itself (rounded by `diff`): the fp32 reference
// (or a witness) may share the finding's behaviour, e.g. an fp32 sum that overflows to Inf
// everywhere but in fp64.
std::string repro_second_platform(const nlohmann::json& entry) {
  const auto& red = entry["reduced"];
  std::string b = red.value("b", std::string("ref"));
  if (!red.contains("criterion") || red.value("done", false) ||
      entry.value("kind", std::string()) == triage::kCompiled)
    return b;
  return entry["representative"].value("against", b);
}

// Graph input NAME's file in the folder's inputs/, as triage or reduce named it.
std::string reduced_input_file(const fs::path& folder, const std::string& name) {
  for (const auto& file : {finding_input_file_name(name), reduced_input_file_name(name)}) {
    const fs::path p = folder / "inputs" / file;
    if (fs::exists(p)) return p.string();
  }
  return "";
}

}  // namespace

Expected<int> rewrite_repro_scripts(const std::string& dir, double rtol, double atol) {
  IG_ASSIGN_OR_RETURN(const nlohmann::json index, triage::read_index(dir));
  int written = 0;
  for (const auto& entry : index["findings"]) {
    const fs::path folder =
        fs::absolute(fs::path(dir) / entry.value("folder", std::string())).lexically_normal();
    if (!fs::exists(folder / "reduced.onnx")) continue;  // a sample keeps some folders only
    IG_ASSIGN_OR_RETURN(const Model model, load_model((folder / "reduced.onnx").string()));
    std::vector<std::string> specs, outputs;
    for (const ValueInfo* in : model.graph.runtime_inputs()) {
      const std::string file = reduced_input_file(folder, in->name);
      if (file.empty())
        return not_found("{}: no inputs/ file for input '{}'", folder.string(), in->name);
      specs.push_back(in->name + "=" + file);
    }
    for (const auto& out : model.graph.outputs) outputs.push_back(out.name);
    IG_RETURN_IF_ERROR(write_repro_script(folder.string(), entry, specs, outputs, rtol, atol));
    ++written;
  }
  return written;
}

Status write_repro_script(const std::string& folder_in, const nlohmann::json& entry,
                          const std::vector<std::string>& input_specs,
                          const std::vector<std::string>& outputs, double rtol, double atol) {
  const std::string folder = fs::absolute(folder_in).lexically_normal().string();
  atol = finding_atol(entry.value("kind", std::string()), atol);
  const auto& red = entry["reduced"];
  const std::string id = entry["id"].get<std::string>();
  const std::string a = canonical(red["a"].get<std::string>());
  const bool failure = !red.contains("criterion");
  const std::string b = canonical(repro_second_platform(entry));
  std::string sh = "#!/bin/sh\n";
  sh += "# " + id + ": " + entry["signature"].get<std::string>() + "\n";
  sh +=
      "# Exits 0 while A" +
      std::string(failure ? " still fails where B computes" : " and B still differ") +
      ", 1 once that has vanished,\n# 77 (skipped) where A or B does not run on this host, 2 when "
      "infergap itself fails.\n";
  sh += "# infergap: $INFERGAP, else the one on PATH, else the one that wrote this script.\n";
  sh += "B='" + b + "'\n";
  sh += "A='" + a + "'\n";
  sh += "HERE=$(cd \"$(dirname \"$0\")\" && pwd)\n";
  sh += "if [ -n \"${INFERGAP:-}\" ]; then IG=$INFERGAP\n";
  sh += "elif command -v infergap >/dev/null 2>&1; then IG=$(command -v infergap)\n";
  sh += "else IG=\"" + dq(infergap_path()) + "\"; fi\n";
  sh += "LIST=$(\"$IG\" platforms -p \"$A\" -p \"$B\") || { echo \"" + id +
        ": $IG platforms failed\" >&2; exit 2; }\n";
  sh += "MISSING=$(printf '%s\\n' \"$LIST\" | awk 'NR > 1 && $2 == \"no\"')\n";
  sh += "if [ -n \"$MISSING\" ]; then\n  echo \"" + id +
        ": skipped: a platform does not run on this host:\"\n  printf '%s\\n' \"$MISSING\"\n"
        "  exit 77\nfi\n";
  sh += "OUT=$(mktemp -d)\ntrap 'rm -rf \"$OUT\"' EXIT\n";
  const std::string run = "\"$IG\" run \"$HERE/reduced.onnx\"" + input_flags(folder, input_specs);
  if (failure) {
    sh += "echo \"# $B computes the model:\"\n";
    sh += run + " -p \"$B\" || { echo \"" + id + ": $B fails too\" >&2; exit 1; }\n";
    sh += "echo \"# $A fails on it:\"\n";
    sh += run + " -p \"$A\"\nrc=$?\n";
    sh += "if [ \"$rc\" = 0 ]; then\n  echo \"" + id +
          ": $A ran the model: the failure vanished\" >&2\n  exit 1\nfi\n";
    sh += "[ \"$rc\" = 1 ] || { echo \"" + id + ": infergap run exited $rc\" >&2; exit 2; }\n";
    sh += "echo \"" + id + ": $A still fails\"\n";
  } else {
    const std::string mode = red["criterion"] == "bitwise" ? "bitwise" : "tolerance";
    // As `infergap run --save-outputs` names a platform's folder.
    sh += "saved() { printf '%s' \"$1\" | tr -c 'A-Za-z0-9._=-' '_'; }\n";
    sh += run + " -p \"$A\" -p \"$B\" --save-outputs \"$OUT\" || exit 2\n";
    sh += "differs=0\n";
    for (const auto& o : outputs) {
      sh += fmt::format(
          "\"$IG\" diff \"$OUT/$(saved \"$A\")/{0}.npy\" \"$OUT/$(saved \"$B\")/{0}.npy\" "
          "--expect-differ {1} --rtol {2} --atol {3} && differs=1\n",
          dq(saved_name(o)), mode, rtol, atol);
    }
    sh += "if [ \"$differs\" = 1 ]; then\n  echo \"" + id + ": $A and $B still differ (" + mode +
          ")\"\n  exit 0\nfi\n";
    sh += "echo \"" + id + ": the difference vanished\" >&2\nexit 1\n";
  }
  const fs::path path = fs::path(folder) / "repro.sh";
  std::FILE* f = std::fopen(path.string().c_str(), "w");
  if (!f) return io_error("{}: cannot write", path.string());
  std::fwrite(sh.data(), 1, sh.size(), f);
  std::fclose(f);
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  return Status::Ok();
}

}  // namespace ig
