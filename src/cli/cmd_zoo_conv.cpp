// infergap zoo conv -o FILE.onnx [--kernel K] [--filters F] [--channels C] [--height I --width J |
//                   --multiplications M] [--seed S] [--init ...] [--mask-bits N] [--json]
// One convolution layer for the paper's ablation over the number of multiplications (Fig 4).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "inputs/mantissa_mask.h"
#include "model/onnx_model.h"
#include "synth/conv_layer.h"

namespace ig::cli {

void add_zoo_conv_command(CLI::App& zoo, int& exit_code) {
  struct Args {
    ConvLayerOptions o;
    std::string out, init;
    double multiplications = 0;
    int mask_bits = 0;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = zoo.add_subcommand(
      "conv", "One Conv layer (uniform [0,1) weights, no bias, no padding) of a chosen size");
  cmd->add_option("-o,--output", a->out, "Output .onnx file")->required();
  cmd->add_option("--kernel", a->o.kernel, "Kernel size k")->capture_default_str();
  cmd->add_option("--filters", a->o.filters, "Number of filters f")->capture_default_str();
  cmd->add_option("--channels", a->o.channels, "Input channels c")->capture_default_str();
  cmd->add_option("--height", a->o.height, "Input height i")->capture_default_str();
  cmd->add_option("--width", a->o.width, "Input width j")->capture_default_str();
  cmd->add_option("--multiplications", a->multiplications,
                  "Pick i and j (square as far as possible) for about this many multiplications");
  cmd->add_option("--seed", a->o.seed, "Weight seed")->capture_default_str();
  cmd->add_option("--init", a->init, "he | glorot | gaussian:MU,SIGMA (default: uniform [0,1))");
  cmd->add_option("--mask-bits", a->mask_bits, "Zero the lowest N mantissa bits of the weights")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the result as JSON");
  cmd->callback([a, &exit_code] {
    auto fail = [&](const Status& st) {
      std::fprintf(stderr, "infergap zoo conv: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    };
    ConvLayerOptions o = a->o;
    if (!a->init.empty()) {
      auto init = parse_weight_init(a->init);
      if (!init.ok()) return fail(init.status());
      o.init = *init;
    }
    if (a->multiplications > 0) o = conv_layer_for_multiplications(o, a->multiplications);
    auto model = build_conv_layer(o);
    if (!model.ok()) return fail(model.status());
    if (a->mask_bits != 0) {
      if (Status st = mask_model_mantissa(*model, a->mask_bits); !st.ok()) return fail(st);
    }
    if (Status st = check_model_proto(*model); !st.ok()) return fail(st.with_context("zoo conv"));
    if (Status st = save_model_proto(*model, a->out); !st.ok()) return fail(st);
    const int64_t mults = conv_layer_multiplications(o);
    if (a->json) {
      std::printf("%s\n", nlohmann::json{{"file", a->out},
                                         {"kernel", o.kernel},
                                         {"filters", o.filters},
                                         {"channels", o.channels},
                                         {"height", o.height},
                                         {"width", o.width},
                                         {"multiplications", mults},
                                         {"mask_bits", a->mask_bits}}
                              .dump(2)
                              .c_str());
    } else {
      std::printf("wrote %s: Conv k=%lld f=%lld on %lldx%lldx%lld, %lld multiplications\n",
                  a->out.c_str(), static_cast<long long>(o.kernel),
                  static_cast<long long>(o.filters), static_cast<long long>(o.channels),
                  static_cast<long long>(o.height), static_cast<long long>(o.width),
                  static_cast<long long>(mults));
    }
  });
}

}  // namespace ig::cli
