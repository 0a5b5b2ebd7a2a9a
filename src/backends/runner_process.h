// A process that hosts a library the worker cannot link (ONNX Runtime in node.js or python, the
// deep-learning compilers in python), spoken to over fd 3: u32 LE header length, JSON header,
// u64 LE body length, body bytes, one request and one reply at a time. The python side of the
// protocol is src/backends/pyrunner/protocol.py.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/value.h"
#include "core/status.h"

namespace ig {

class RunnerProcess {
 public:
  struct Reply {
    nlohmann::json header;
    std::string body;
  };
  // Starts `argv` (e.g. `node runner.js MODULES_DIR` or `python runner.py`) and checks with a
  // hello that its library loads; `what` names the runner in errors ("ort runner").
  static Expected<std::unique_ptr<RunnerProcess>> start(std::vector<std::string> argv,
                                                        const std::string& what);
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // A "run" request's "feeds" entries and body for tensor feeds; `what` names the platform in
  // errors (a feed of another kind, a dtype the protocol lacks).
  static Status encode_feeds(const std::map<std::string, Value>& feeds, const std::string& what,
                             nlohmann::json* entries, std::string* body);
  // The tensors a reply's "outputs" list, by name.
  static Expected<std::map<std::string, Tensor>> decode_outputs(const Reply& reply,
                                                                const std::string& what);

  // One request, one reply. The library's own errors carry its message verbatim: kUnsupported
  // where the runner says the compiler refused the model (reply kind "compile"), else kInternal.
  Expected<Reply> call(const nlohmann::json& header, const std::string& body = "");
  const std::string& version() const { return version_; }
  // The hello reply: the library's version and whatever else the runner says about itself.
  const nlohmann::json& hello() const { return hello_; }

 private:
  RunnerProcess() = default;
  pid_t pid_ = -1;
  int sock_ = -1;
  std::string what_;
  std::string version_;
  nlohmann::json hello_;
};

}  // namespace ig
