// Hostile and malformed models and inputs, written to a folder, for hardening tests (issue 10):
// every case must end in a clear error, never a crash, a hang or a read or write outside the
// model's folder.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

struct HostileCase {
  std::string name;                 // unique, also the case's folder name
  std::string model;                // path of the model file to run
  std::vector<std::string> inputs;  // --input NAME=SPEC arguments
  std::vector<std::string> expect;  // the error names the problem: one of these (lower case)
};

// Writes every case under `dir/<case name>/`; `dir/outside/` holds files that escaping external
// data points at (they must never be read into a tensor, and nothing may be written there).
Expected<std::vector<HostileCase>> write_hostile_cases(const std::string& dir);

// Helpers shared by the generator files.
namespace hostile {
std::vector<HostileCase> byte_cases(const std::string& dir);
std::vector<HostileCase> model_cases(const std::string& dir);
std::vector<HostileCase> external_cases(const std::string& dir);
std::vector<HostileCase> input_cases(const std::string& dir);
std::vector<HostileCase> quant_cases(const std::string& dir);
// A valid model, X float[2] -> Relu -> Y, serialised: the seed the byte-level cases damage.
std::string relu_model_bytes();
// Writes `bytes` to dir/name/file and returns the path.
std::string put(const std::string& dir, const std::string& name, const std::string& file,
                const std::string& bytes);
}  // namespace hostile

}  // namespace ig
