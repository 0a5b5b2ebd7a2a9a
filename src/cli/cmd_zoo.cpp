// infergap zoo list [--json]
// infergap zoo export NAME -o FILE.onnx [--seed S] [--init ...] [--activation ...] [--pool ...]
//                     [--dtype ...] [--size N] [--mask-bits N] [--json]
// infergap zoo conv ... (cmd_zoo_conv.cpp)
// infergap zoo images DIR [--json]
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "inputs/mantissa_mask.h"
#include "model/onnx_model.h"
#include "synth/demo_images.h"
#include "synth/zoo.h"

namespace ig::cli {

namespace {

void print_json(const nlohmann::json& j) { std::printf("%s\n", j.dump(2).c_str()); }

int64_t count_parameters(const onnx::ModelProto& m) {
  int64_t n = 0;
  for (const auto& init : m.graph().initializer()) {
    // Shapes, pads and scalar constants are not parameters.
    if (init.data_type() == onnx::TensorProto::INT64 || init.dims_size() == 0) continue;
    int64_t k = 1;
    for (int64_t d : init.dims()) k *= d;
    n += k;
  }
  return n;
}

void add_list(CLI::App& zoo, int& exit_code) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = zoo.add_subcommand("list", "List the zoo's architectures");
  cmd->add_flag("--json", *json, "Print as JSON");
  cmd->callback([json] {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : zoo_entries()) {
      j.push_back({{"name", e.name},
                   {"description", e.description},
                   {"input", {1, 3, e.native_size, e.native_size}},
                   {"classes", e.classes},
                   {"preset", e.preset},
                   {"activation", activation_name(e.default_activation)},
                   {"size_step", e.size_step}});
      if (!*json)
        std::printf("%-16s %s [1,3,%lld,%lld] -> %lld classes; %s\n", e.name.c_str(),
                    e.preset.c_str(), static_cast<long long>(e.native_size),
                    static_cast<long long>(e.native_size), static_cast<long long>(e.classes),
                    e.description.c_str());
    }
    if (*json) print_json(j);
  });
}

void add_export(CLI::App& zoo, int& exit_code) {
  struct Args {
    std::string name, out, init, activation, pool = "max", dtype = "fp32";
    uint64_t seed = 0;
    int64_t size = 0;
    int mask_bits = 0;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = zoo.add_subcommand("export", "Build a zoo model with seeded weights as ONNX");
  cmd->add_option("name", a->name, "Architecture (see `infergap zoo list`)")->required();
  cmd->add_option("-o,--output", a->out, "Output .onnx file")->required();
  cmd->add_option("--seed", a->seed, "Weight seed")->capture_default_str();
  cmd->add_option("--init", a->init,
                  "he | glorot | gaussian:MU,SIGMA (default: he, glorot for sigmoid/tanh)");
  cmd->add_option("--activation", a->activation,
                  "relu | relu6 | sigmoid | tanh | gelu (default: the architecture's)");
  cmd->add_option("--pool", a->pool, "max | avg")->capture_default_str();
  cmd->add_option("--dtype", a->dtype, "fp32 | fp16 | fp64")->capture_default_str();
  cmd->add_option("--size", a->size, "Input height and width (default: the architecture's)");
  cmd->add_option("--mask-bits", a->mask_bits,
                  "Zero the lowest N mantissa bits of every weight (the paper's Section 3.4 "
                  "conjecture)")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the result as JSON");
  cmd->callback([a, &exit_code] {
    auto fail = [&](const Status& st) {
      std::fprintf(stderr, "infergap zoo export: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    };
    ZooOptions o;
    o.seed = a->seed;
    o.image_size = a->size;
    if (!a->init.empty()) {
      auto init = parse_weight_init(a->init);
      if (!init.ok()) return fail(init.status());
      o.init = *init;
    }
    if (!a->activation.empty()) {
      auto act = parse_activation(a->activation);
      if (!act.ok()) return fail(act.status());
      o.activation = *act;
    }
    auto pool = parse_pool(a->pool);
    if (!pool.ok()) return fail(pool.status());
    o.pool = *pool;
    auto dtype = parse_zoo_dtype(a->dtype);
    if (!dtype.ok()) return fail(dtype.status());
    o.dtype = *dtype;
    auto model = build_zoo_model(a->name, o);
    if (!model.ok()) return fail(model.status());
    if (a->mask_bits != 0) {
      if (Status st = mask_model_mantissa(*model, a->mask_bits); !st.ok()) return fail(st);
    }
    if (Status st = check_model_proto(*model); !st.ok())
      return fail(st.with_context(a->name + " (a zoo bug)"));
    if (Status st = save_model_proto(*model, a->out); !st.ok()) return fail(st);
    const std::string recipe = zoo_recipe(a->name, o) +
                               (a->mask_bits ? " --mask-bits " + std::to_string(a->mask_bits) : "");
    const int64_t params = count_parameters(*model);
    if (a->json) {
      print_json({{"name", a->name},
                  {"file", a->out},
                  {"recipe", recipe},
                  {"parameters", params},
                  {"nodes", model->graph().node_size()}});
    } else {
      std::printf("wrote %s: %s, %lld parameters, %d nodes\n", a->out.c_str(), a->name.c_str(),
                  static_cast<long long>(params), model->graph().node_size());
      std::printf("recipe: infergap %s\n", recipe.c_str());
    }
  });
}

void add_images(CLI::App& zoo, int& exit_code) {
  struct Args {
    std::string dir;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = zoo.add_subcommand("images", "Write the demo images (generated, deterministic)");
  cmd->add_option("dir", a->dir, "Folder to write into (created)")->required();
  cmd->add_flag("--json", a->json, "Print the written files as JSON");
  cmd->callback([a, &exit_code] {
    auto files = write_demo_images(a->dir);
    if (!files.ok()) {
      std::fprintf(stderr, "infergap zoo images: %s\n", files.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    if (a->json) {
      print_json(*files);
    } else {
      for (const auto& f : *files) std::printf("wrote %s\n", f.c_str());
    }
  });
}

}  // namespace

void add_zoo_command(CLI::App& app, int& exit_code) {
  auto* zoo = app.add_subcommand("zoo", "Built-in model architectures with seeded weights");
  zoo->require_subcommand(1);
  add_list(*zoo, exit_code);
  add_export(*zoo, exit_code);
  add_images(*zoo, exit_code);
  add_zoo_conv_command(*zoo, exit_code);
}

}  // namespace ig::cli
