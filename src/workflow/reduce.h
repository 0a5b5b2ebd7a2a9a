// What `infergap reduce` does: load the model and its inputs, start both platforms (and the one
// that captures the values entering each cut), shrink the model while the two still differ
// (analysis/reduce/reduce.h; candidates in a private folder), then write DIR/reduced.onnx,
// DIR/inputs/*.npy and DIR/repro.sh.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/reduce/reduce.h"
#include "inputs/inputs.h"

namespace ig {

struct ReduceJob {
  std::string model;  // path
  InputRequest inputs;
  ReduceOptions options;  // work_dir and progress are set here
  std::string out_dir;
  std::function<void(const std::string&)> progress;  // a line of where the search is
};

// What reduce wrote under DIR, and the command that reproduces the difference from it.
struct ReductionFiles {
  std::string reduced;                               // reduced.onnx
  nlohmann::json inputs = nlohmann::json::object();  // input name -> .npy path
  std::string repro;
};

struct ReduceOutcome {
  ReduceResult result;  // result.agree: the platforms agree and nothing was written
  ReductionFiles files;
};

Expected<ReduceOutcome> reduce_and_write(const ReduceJob& plan);

// The file under DIR/inputs/ that reduce_and_write gives graph input `name`.
std::string reduced_input_file_name(const std::string& name);

}  // namespace ig
