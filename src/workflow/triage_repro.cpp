// A finding's repro.sh (workflow/triage.h). It names this binary (INFERGAP overrides it) and the
// folder's own files relative to itself, so the folder can move.
#include <filesystem>

#include "platform/spec.h"
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

}  // namespace

Status write_repro_script(const std::string& folder_in, const nlohmann::json& entry,
                          const std::vector<std::string>& input_specs,
                          const std::vector<std::string>& outputs, double rtol, double atol) {
  const std::string folder = fs::absolute(folder_in).lexically_normal().string();
  const auto& red = entry["reduced"];
  const std::string id = entry["id"].get<std::string>();
  const std::string a = canonical(red["a"].get<std::string>());
  const std::string b = canonical(red.value("b", std::string("ref")));
  const bool failure = !red.contains("criterion");
  std::string sh = "#!/bin/sh\n";
  sh += "# " + id + ": " + entry["signature"].get<std::string>() + "\n";
  sh += "# Exits 0 while " + a + (failure ? " still fails" : " and " + b + " still differ") +
        ", 1 once that has vanished.\n";
  sh += "HERE=$(cd \"$(dirname \"$0\")\" && pwd)\n";
  sh += "IG=${INFERGAP:-\"" + dq(infergap_path()) + "\"}\n";
  sh += "OUT=$(mktemp -d)\ntrap 'rm -rf \"$OUT\"' EXIT\n";
  const std::string run = "\"$IG\" run \"$HERE/reduced.onnx\"" + input_flags(folder, input_specs);
  if (failure) {
    sh += "echo '# " + b + " computes the model:'\n";
    sh += run + " -p '" + b + "'\n";
    sh += "echo '# " + a + " fails on it:'\n";
    sh += "if " + run + " -p '" + a + "'; then\n";
    sh += "  echo \"" + id + ": " + dq(a) +
          " ran the model: the failure vanished\" >&2\n  exit 1\nfi\n";
    sh += "echo \"" + id + ": " + dq(a) + " still fails\"\n";
  } else {
    const std::string mode = red["criterion"] == "bitwise" ? "bitwise" : "tolerance";
    sh += run + " -p '" + a + "' -p '" + b + "' --save-outputs \"$OUT\"\n";
    sh += "differs=0\n";
    for (const auto& o : outputs) {
      sh += fmt::format(
          "\"$IG\" diff \"$OUT/{}/{}.npy\" \"$OUT/{}/{}.npy\" --expect-differ {} --rtol {} "
          "--atol {} && differs=1\n",
          dq(saved_name(a)), dq(saved_name(o)), dq(saved_name(b)), dq(saved_name(o)), mode, rtol,
          atol);
    }
    sh += "if [ \"$differs\" = 1 ]; then\n  echo \"" + id + ": " + dq(a) + " and " + dq(b) +
          " still differ (" + mode + ")\"\n  exit 0\nfi\n";
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
