// Test helper: run the infergap CLI and capture its exit code and output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace ig::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// `prefix` goes before the CLI path, e.g. "timeout 20" to turn a hang into a failure.
inline CliResult run_cli(const std::string& args, const std::string& prefix = "") {
  static int counter = 0;
  const std::string err_file =
      "/tmp/infergap-cli-stderr-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  const std::string cmd = prefix + (prefix.empty() ? "" : " ") + std::string(INFERGAP_CLI) + " " +
                          args + " 2>" + err_file;
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (FILE* e = fopen(err_file.c_str(), "r")) {
    while ((n = fread(buf.data(), 1, buf.size(), e)) > 0) r.err.append(buf.data(), n);
    fclose(e);
  }
  std::remove(err_file.c_str());
  return r;
}

// Runs the CLI, expecting exit 0, and parses its stdout as JSON (discarded when it is not).
inline nlohmann::json cli_json(const std::string& args) {
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

}  // namespace ig::testing
