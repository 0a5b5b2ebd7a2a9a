// infergap convert MODEL --to fp16|bf16 -o OUT [--keep-io] [--block OPS|NODES] [--json]
// Writes the model in float16 or bfloat16 (synth/convert_precision.h).
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "workflow/derive_model.h"

namespace ig::cli {

namespace {

struct ConvertArgs {
  std::string model, out, to;
  bool keep_io = false, json = false;
  std::vector<std::string> block;
};

Status run_convert(const ConvertArgs& a) {
  ConvertOptions o;
  IG_ASSIGN_OR_RETURN(o.to, parse_precision(a.to));
  o.keep_io = a.keep_io;
  o.block = a.block;
  o.label = a.model;
  o.base_dir = std::filesystem::path(a.model).parent_path().string();
  IG_ASSIGN_OR_RETURN(const auto file, convert_model_file(a.model, a.out, o));
  const ConvertResult& r = file.result;
  if (a.json) {
    std::printf("%s\n", nlohmann::json{{"model", a.model},
                                       {"output", a.out},
                                       {"to", a.to},
                                       {"parent", file.parent_hash},
                                       {"hash", file.hash},
                                       {"opset_raised", r.opset_raised},
                                       {"nodes_converted", r.converted_nodes.size()},
                                       {"kept_float32", r.kept},
                                       {"initializers", r.initializers},
                                       {"casts", r.casts}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf(
        "wrote %s: %zu nodes in %s, %zu kept in float32, %lld initializers converted, "
        "%lld Cast nodes%s\n",
        a.out.c_str(), r.converted_nodes.size(), a.to.c_str(), r.kept.size(),
        static_cast<long long>(r.initializers), static_cast<long long>(r.casts),
        r.opset_raised ? "; opset raised to 13" : "");
    for (const auto& [node, why] : r.kept)
      std::printf("  float32: %s (%s)\n", node.c_str(), why.c_str());
  }
  return Status::Ok();
}

}  // namespace

void add_convert_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ConvertArgs>();
  auto* cmd =
      app.add_subcommand("convert", "Write a float16 or bfloat16 version of a float32 model");
  cmd->add_option("model", a->model, "Float32 .onnx model")->required();
  cmd->add_option("--to", a->to, "fp16 or bf16")->required();
  cmd->add_option("-o,--output", a->out, "The .onnx to write")->required();
  cmd->add_flag("--keep-io", a->keep_io,
                "Keep float32 graph inputs and outputs (Cast nodes at the edges)");
  cmd->add_option("--block", a->block,
                  "Op types or node names to keep in float32 behind Cast nodes (comma-separated "
                  "or repeated); nodes whose ONNX schema lacks the type stay float32 too")
      ->delimiter(',');
  cmd->add_flag("--json", a->json, "Print a summary as JSON");
  cmd->callback([a, &exit_code] {
    if (Status st = run_convert(*a); !st.ok()) {
      std::fprintf(stderr, "infergap convert: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli
