#include "synth/zoo.h"

#include "inputs/presets.h"

namespace ig {

namespace {

using BuildFn = std::string (*)(ZooBuild&, const std::string&);

struct ZooRow {
  ZooEntry entry;
  BuildFn build;
};

const std::vector<ZooRow>& zoo_rows() {
  static const std::vector<ZooRow> rows = {
      {{"Cifar10-small",
        "the paper's small CNN (Table SUP-6): 2 conv + 2 pool + 3 dense, 59,354 parameters",
        "cifar", 32, 4, 10, Activation::kRelu, true},
       build_cifar10_small},
      {{"Cifar10-R18",
        "ResNet-18 for 32x32 (3x3 stem, pooling after the first conv, 4 stages of basic blocks)",
        "cifar", 32, 16, 10, Activation::kRelu, true},
       build_cifar10_r18},
      {{"DeepWeeds-R50v2",
        "ResNet-50 v2 (pre-activation bottlenecks, Keras layout), 224x224, 9 classes", "imagenet",
        224, 32, 9, Activation::kRelu, true},
       build_deepweeds_r50v2},
      {{"MobileNetV2", "MobileNetV2 (width 1.0, inverted residuals, depthwise convs, ReLU6)",
        "imagenet", 224, 32, 1000, Activation::kRelu6, false},
       build_mobilenet_v2},
      {{"VGG11", "VGG-11 with batch norm for 32x32 inputs (8 conv, 5 pool, 2 dense)", "cifar", 32,
        32, 10, Activation::kRelu, true},
       build_vgg11},
      {{"ViT-tiny",
        "transformer encoder classifier: 4x4 patches, 2 pre-LN layers, 4 heads, "
        "LayerNormalization, MatMul, Softmax, Gelu",
        "cifar", 32, 4, 10, Activation::kGelu, false},
       build_vit_tiny},
      {{"MLP", "multi-layer perceptron on flattened 32x32 images: 3072-512-256-10", "cifar", 32, 1,
        10, Activation::kRelu, false},
       build_mlp},
  };
  return rows;
}

const ZooRow* find_row(const std::string& name) {
  for (const auto& r : zoo_rows())
    if (r.entry.name == name) return &r;
  return nullptr;
}

const char* zoo_dtype_name(DType d) {
  switch (d) {
    case DType::kFloat16:
      return "fp16";
    case DType::kFloat64:
      return "fp64";
    default:
      return "fp32";
  }
}

WeightInit effective_init(const ZooOptions& o, Activation act) {
  if (o.init) return *o.init;
  WeightInit w;
  // The paper pairs sigmoid with Xavier (Glorot) and ReLU with He.
  if (act == Activation::kSigmoid || act == Activation::kTanh) w.kind = WeightInit::Kind::kGlorot;
  return w;
}

}  // namespace

const std::vector<ZooEntry>& zoo_entries() {
  static const std::vector<ZooEntry> entries = [] {
    std::vector<ZooEntry> out;
    for (const auto& r : zoo_rows()) out.push_back(r.entry);
    return out;
  }();
  return entries;
}

const ZooEntry* find_zoo_entry(const std::string& name) {
  const ZooRow* r = find_row(name);
  return r ? &r->entry : nullptr;
}

Expected<DType> parse_zoo_dtype(const std::string& text) {
  if (text == "fp32" || text == "float") return DType::kFloat32;
  if (text == "fp16" || text == "float16") return DType::kFloat16;
  if (text == "fp64" || text == "double") return DType::kFloat64;
  return invalid_argument("unknown --dtype '{}' (use fp32, fp16 or fp64)", text);
}

std::string zoo_recipe(const std::string& name, const ZooOptions& o) {
  const ZooEntry* e = find_zoo_entry(name);
  const Activation act = o.activation.value_or(e ? e->default_activation : Activation::kRelu);
  std::string r =
      fmt::format("zoo export {} --seed {} --init {} --activation {} --pool {} --dtype {}", name,
                  o.seed, effective_init(o, act).to_string(), activation_name(act),
                  pool_name(o.pool), zoo_dtype_name(o.dtype));
  if (o.image_size != 0 && e && o.image_size != e->native_size)
    r += fmt::format(" --size {}", o.image_size);
  return r;
}

Expected<onnx::ModelProto> build_zoo_model(const std::string& name, const ZooOptions& o) {
  const ZooRow* row = find_row(name);
  if (!row) {
    std::string names;
    for (const auto& r : zoo_rows()) names += (names.empty() ? "" : ", ") + r.entry.name;
    return not_found("no zoo model '{}' (models: {})", name, names);
  }
  const ZooEntry& e = row->entry;
  if (o.dtype != DType::kFloat32 && o.dtype != DType::kFloat16 && o.dtype != DType::kFloat64)
    return invalid_argument("{}: dtype {} is not fp32, fp16 or fp64", name, dtype_name(o.dtype));
  const int64_t size = o.image_size == 0 ? e.native_size : o.image_size;
  if (size <= 0 || size % e.size_step != 0 || size > 4096)
    return invalid_argument("{}: input size {} must be a positive multiple of {} (native {})", name,
                            size, e.size_step, e.native_size);
  const Activation act = o.activation.value_or(e.default_activation);
  GraphBuilder b(name, o.dtype, o.seed, effective_init(o, act));
  ZooBuild z{b, e, act, o.pool, size};
  const std::string x = b.input("x", {3, size, size});
  std::string logits;
  try {
    logits = row->build(z, x);
  } catch (const StatusError& err) {
    return err.status().with_context(name);
  }
  b.output(b.softmax(logits, 1), "probs", {e.classes});
  b.metadata("infergap.zoo.recipe", zoo_recipe(name, o));
  b.metadata("infergap.input.x.preset", e.preset);
  const auto [lo, hi] = image_preset_range(*find_image_preset(e.preset));
  b.metadata("infergap.input.x.range", fmt::format("{},{}", lo, hi));
  return b.finish();
}

}  // namespace ig
