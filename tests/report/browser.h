// Test helper: opens an HTML file in headless Chromium (Debian `chromium`) with a fresh profile
// and returns the DOM after the page's scripts ran; optionally keeps a screenshot.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "../support/cli.h"

namespace ig::testing {

inline std::string chromium_path() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(p)) return p;
  return "";
}

// Shell-quotes a path for the command line.
inline std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct BrowserResult {
  int exit_code = -1;
  std::string dom;
};

// `mode` is "--dump-dom" or "--screenshot=FILE"; `window` the viewport as Chromium's
// --window-size takes it ("WIDTH,HEIGHT").
inline BrowserResult run_chromium(const std::string& html, const std::string& mode,
                                  const std::filesystem::path& profile,
                                  const std::string& window = "1200,4000") {
  std::filesystem::create_directories(profile);
  const std::string cmd =
      "timeout 120 " + chromium_path() +
      " --headless --no-sandbox --disable-gpu --disable-background-networking"
      " --disable-component-update --no-first-run --user-data-dir=" +
      quoted(profile.string()) + " --virtual-time-budget=20000 --window-size=" + window + " " +
      mode + " " + quoted("file://" + std::filesystem::absolute(html).string()) + " 2>/dev/null";
  BrowserResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.dom.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The value of an attribute of the page's <body>, "<absent>" without one.
inline std::string body_attr(const std::string& dom, const std::string& name) {
  std::smatch m;
  if (std::regex_search(dom, m, std::regex("<body[^>]*\\s" + name + "=\"([^\"]*)\""))) return m[1];
  return "<absent>";
}

}  // namespace ig::testing
