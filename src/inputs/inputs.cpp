#include "inputs/inputs.h"

#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <set>

#include "core/strings.h"
#include "inputs/mantissa_mask.h"
#include "model/npy.h"
#include "model/tensor_proto.h"
#include "tensor/hash.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

}  // namespace

bool is_image_path(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" || ext == ".tif" ||
         ext == ".tiff" || ext == ".webp";
}

Status check_source_options(const InputSource& src, const std::set<std::string>& allowed,
                            const std::string& what) {
  for (const auto& [key, _] : src.options) {
    if (allowed.count(key) || key == "mask") continue;  // mask applies to every kind
    std::string names;
    for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
    return invalid_argument("{} takes no option '{}' (options: {}, inject, mask)", what, key,
                            names);
  }
  return Status::Ok();
}

namespace {

Expected<uint64_t> seed_of(const InputSource& src, uint64_t fallback) {
  auto it = src.options.find("seed");
  if (it == src.options.end()) return fallback;
  try {
    size_t used = 0;
    const uint64_t v = std::stoull(it->second, &used);
    if (used == it->second.size() && it->second[0] != '-') return v;
  } catch (const std::exception&) {
  }
  return invalid_argument("seed '{}' is not a non-negative integer", it->second);
}

// The shape of a generated input: shape= in its spec, else the target's (declared dims sized by
// --shape / --dim, open ones 1). Without either, a literal value is a scalar.
Expected<Shape> generated_shape(const InputSource& src, const InputTarget& t,
                                std::vector<DefaultedDim>& defaulted) {
  auto it = src.options.find("shape");
  if (it != src.options.end()) {
    if (t.shape_given)
      return invalid_argument("its shape is given twice (--shape {}={} and shape={})", t.name,
                              shape_string(*t.shape), it->second);
    IG_ASSIGN_OR_RETURN(Shape s, parse_shape(it->second));
    IG_RETURN_IF_ERROR(check_declared_shape(t, s, "shape=" + it->second));
    return s;
  }
  if (t.shape) {
    defaulted = t.defaulted;
    return *t.shape;
  }
  if (t.has_shape) {  // a target made without sized_input_target: open dims are 1
    InputTarget sized = t;
    size_open_dims(sized, {});
    defaulted = sized.defaulted;
    return *sized.shape;
  }
  if (src.kind == InputSource::Kind::kValue) return Shape{};
  return invalid_argument("the model declares no shape; give one with --shape {}=... or shape=",
                          t.name);
}

// A file or image decides its own shape; it must agree with what --shape or --dim said. Fixed dims
// are the backends' check (check_feeds), defaulted ones nobody asked for.
Status check_sized_dims(const InputTarget& t, const Tensor& tensor) {
  if (!t.shape) return Status::Ok();
  const Shape& want = *t.shape;
  if (t.shape_given) {
    if (tensor.shape() == want) return Status::Ok();
    return invalid_argument("it holds {} but --shape {}={} asks for another shape",
                            tensor.describe(), t.name, shape_string(want));
  }
  for (size_t i = 0; i < t.dims.size() && i < want.size(); ++i) {
    const bool defaulted = std::any_of(t.defaulted.begin(), t.defaulted.end(),
                                       [&](const DefaultedDim& d) { return d.index == i; });
    if (t.dims[i].value >= 0 || defaulted) continue;
    if (tensor.rank() == static_cast<int>(want.size()) && tensor.shape()[i] == want[i]) continue;
    return invalid_argument("it holds {} but dim {} ({}) is sized {} by --dim or --shape",
                            tensor.describe(), i, t.dims[i].symbol, want[i]);
  }
  return Status::Ok();
}

Expected<Tensor> read_tensor_file(const std::string& path, const InputTarget& t) {
  const std::string ext = fs::path(path).extension().string();
  Tensor tensor;
  if (ext == ".npy") {
    IG_ASSIGN_OR_RETURN(tensor, read_npy(path));
    if (t.dtype != DType::kUndefined && t.dtype != tensor.dtype()) {
      IG_ASSIGN_OR_RETURN(tensor, npy_to_dtype(tensor, t.dtype, path));
    }
  } else if (ext == ".pb") {
    IG_ASSIGN_OR_RETURN(tensor, read_tensor_pb(path));
  } else {
    return invalid_argument("{}: unknown input format '{}' (use .npy, .pb or an image)", path, ext);
  }
  return tensor;
}

}  // namespace

Expected<Shape> parse_shape(const std::string& text) {
  Shape s;
  if (text.empty()) return s;
  const auto parts = split(text, 'x');
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    int64_t v = -1;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty())
      return invalid_argument("shape '{}': dim {} is empty (expected sizes like 1x3x32x32)", text,
                              i);
    if (ec == std::errc::result_out_of_range)
      return invalid_argument("shape '{}': dim {} ({}) is too large", text, i, part);
    if (ec != std::errc() || end != part.data() + part.size() || v < 0)
      return invalid_argument(
          "shape '{}': dim {} ('{}') is not a size (expected sizes like "
          "1x3x32x32)",
          text, i, part);
    s.push_back(v);
  }
  return s;
}

std::string shape_string(const Shape& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "x" : "") + std::to_string(shape[i]);
  return out;
}

Expected<InputSource> parse_input_source(const std::string& text) {
  InputSource src;
  std::vector<std::string> parts = split(text, ',');
  std::string head = parts[0];
  if (head.rfind("random:", 0) == 0) {
    src.kind = InputSource::Kind::kRandom;
    src.head = head.substr(7);
  } else if (head.rfind("image:", 0) == 0) {
    src.kind = InputSource::Kind::kImage;
    src.head = head.substr(6);
  } else if (head.rfind("value:", 0) == 0) {
    src.kind = InputSource::Kind::kValue;
    src.head = head.substr(6);
  } else if (head.rfind("file:", 0) == 0) {
    src.kind = InputSource::Kind::kFile;
    src.head = head.substr(5);
  } else {
    std::error_code ec;
    src.kind = (is_image_path(head) || fs::is_directory(head, ec)) ? InputSource::Kind::kImage
                                                                   : InputSource::Kind::kFile;
    src.head = head;
  }
  if (src.head.empty()) return invalid_argument("input spec '{}': nothing after the kind", text);
  for (size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string::npos || eq == 0)
      return invalid_argument("input spec '{}': '{}' is not key=value", text, parts[i]);
    const std::string key = parts[i].substr(0, eq), value = parts[i].substr(eq + 1);
    if (key == "inject") {
      auto inj = parse_injection(value);
      if (!inj.ok()) return inj.status().with_context("input spec '" + text + "'");
      src.injections.push_back(*inj);
    } else if (!src.options.emplace(key, value).second) {
      return invalid_argument("input spec '{}': option '{}' given twice", text, key);
    }
  }
  return src;
}

Expected<NamedInput> make_input(const InputSource& src, const InputTarget& t,
                                uint64_t default_seed) {
  auto fail = [&](const Status& st) {
    return st.with_context(t.model_label + ": input '" + t.name + "'");
  };
  auto seed = seed_of(src, default_seed);
  if (!seed.ok()) return fail(seed.status());
  if (auto it = src.options.find("dtype"); it != src.options.end()) {
    auto d = dtype_from_name(it->second);
    if (!d) return fail(invalid_argument("unknown dtype '{}'", it->second));
    if (t.dtype != DType::kUndefined && *d != t.dtype)
      return fail(
          invalid_argument("dtype={} but the model declares {}", it->second, dtype_name(t.dtype)));
  }
  NamedInput out{t.name, "", Tensor(), "", {}, {}};
  InputTarget target = t;
  if (target.dtype == DType::kUndefined) {
    auto it = src.options.find("dtype");
    if (it == src.options.end() && src.kind != InputSource::Kind::kFile)
      return fail(invalid_argument("the model declares no element type; give one with dtype="));
    if (it != src.options.end()) target.dtype = *dtype_from_name(it->second);
  }
  switch (src.kind) {
    case InputSource::Kind::kFile: {
      if (Status st = check_source_options(src, {"seed", "dtype"}, "file input"); !st.ok())
        return fail(st);
      auto tensor = read_tensor_file(src.head, target);
      if (!tensor.ok()) return fail(tensor.status());
      if (Status st = check_sized_dims(target, *tensor); !st.ok()) return fail(st);
      out.tensor = *tensor;
      out.source = "file:" + src.head;
      break;
    }
    case InputSource::Kind::kImage: {
      auto tensor = image_input(src, target, out.source);
      if (!tensor.ok()) return fail(tensor.status());
      if (Status st = check_sized_dims(target, *tensor); !st.ok()) return fail(st);
      out.tensor = *tensor;
      break;
    }
    case InputSource::Kind::kRandom:
    case InputSource::Kind::kValue: {
      auto shape = generated_shape(src, target, out.defaulted);
      if (!shape.ok()) return fail(shape.status());
      auto tensor = src.kind == InputSource::Kind::kRandom
                        ? random_input(src, target, *shape, *seed, out.source)
                        : literal_input(src, target, *shape, out.source);
      if (!tensor.ok()) return fail(tensor.status());
      out.tensor = *tensor;
      break;
    }
  }
  if (auto it = src.options.find("mask"); it != src.options.end()) {
    int bits = -1;
    try {
      size_t used = 0;
      bits = std::stoi(it->second, &used);
      if (used != it->second.size()) bits = -1;
    } catch (const std::exception&) {
    }
    if (bits < 0) return fail(invalid_argument("mask '{}' is not a bit count", it->second));
    if (Status st = mask_mantissa(out.tensor, bits); !st.ok()) return fail(st);
    out.source += fmt::format(",mask={}", bits);
  }
  if (!src.injections.empty()) {
    if (Status st = apply_injections(src.injections, *seed, t.name, out.tensor); !st.ok())
      return fail(st);
    if (src.kind != InputSource::Kind::kRandom) out.source += fmt::format(",seed={}", *seed);
    for (const auto& inj : src.injections) out.source += ",inject=" + inj.to_string();
    out.injections = src.injections;
  }
  out.hash = hash_hex(tensor_hash(out.tensor));
  return out;
}

Expected<std::vector<NamedInput>> gather_inputs(const Model& model,
                                                const std::vector<std::string>& specs,
                                                uint64_t seed) {
  InputRequest request;
  request.specs = specs;
  request.seed = seed;
  IG_ASSIGN_OR_RETURN(GatheredInputs g, gather_inputs(model, request));
  return std::move(g.inputs);
}

namespace {

// The sizes a tensor's shape gives the open, named dims of its input, for the symbols neither
// --dim nor --shape sized (those were checked against it already); the first tensor to size a
// symbol wins, and a later one that disagrees fails in make_input against that size.
void learn_symbol_sizes(const Model& model, const ValueInfo& info, const Shape& shape,
                        const InputSizing& flags, InputSizing& learned) {
  if (!info.has_shape || shape.size() != info.dims.size()) return;
  std::set<std::string> flagged;  // symbols --dim or a --shape sizes
  for (const auto& [symbol, size] : flags.dims) flagged.insert(symbol);
  for (const ValueInfo* in : model.graph.runtime_inputs()) {
    if (!flags.shapes.count(in->name)) continue;
    for (const Dim& d : in->dims) flagged.insert(d.symbol);
  }
  for (size_t i = 0; i < info.dims.size(); ++i) {
    const Dim& d = info.dims[i];
    if (d.value >= 0 || d.symbol.empty() || flagged.count(d.symbol)) continue;
    learned.dims.emplace(d.symbol, shape[i]);
  }
}

}  // namespace

Expected<GatheredInputs> gather_inputs(const Model& model, const InputRequest& request) {
  std::map<std::string, std::string> given;
  for (const auto& s : request.specs) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      return invalid_argument(
          "--input '{}': expected NAME=SPEC (a file, image:PATH, random:... or value:V)", s);
    if (!given.emplace(s.substr(0, eq), s.substr(eq + 1)).second)
      return invalid_argument("--input '{}': input '{}' given twice", s, s.substr(0, eq));
  }
  IG_ASSIGN_OR_RETURN(const InputSizing sizing, parse_input_sizing(request.shapes, request.dims));
  GatheredInputs out;
  for (const auto& [name, _] : sizing.shapes) out.unused_shapes.insert(name);
  for (const auto& [symbol, _] : sizing.dims) out.unused_dims.insert(symbol);
  for (const ValueInfo* in : model.graph.runtime_inputs()) {
    out.input_names.push_back(in->name);
    out.unused_shapes.erase(in->name);
    for (const auto& d : in->dims) {
      if (d.value >= 0 || d.symbol.empty()) continue;
      out.unused_dims.erase(d.symbol);
      if (std::find(out.symbols.begin(), out.symbols.end(), d.symbol) == out.symbols.end())
        out.symbols.push_back(d.symbol);
    }
  }
  // Files and images bring their own shapes: made first, they size the symbols they share with
  // generated inputs (input_ids [1,8] from a file makes `seq` 8 for a random position_ids too).
  std::vector<const ValueInfo*> inputs = model.graph.runtime_inputs();
  std::vector<std::optional<NamedInput>> made(inputs.size());
  std::vector<InputSource> sources;
  for (const ValueInfo* in : inputs) {
    if (!in->is_tensor)
      return unsupported("{}: input '{}' is a {}", model.path, in->name, in->type_description);
    auto it = given.find(in->name);
    const std::string spec = it != given.end() ? it->second : "random:uniform";
    if (it != given.end()) given.erase(it);
    IG_ASSIGN_OR_RETURN(InputSource src, parse_input_source(spec));
    sources.push_back(std::move(src));
  }
  InputSizing learned = sizing;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputSource::Kind kind = sources[i].kind;
    if (kind != InputSource::Kind::kFile && kind != InputSource::Kind::kImage) continue;
    IG_ASSIGN_OR_RETURN(InputTarget target, sized_input_target(model, *inputs[i], sizing));
    IG_ASSIGN_OR_RETURN(NamedInput value, make_input(sources[i], target, request.seed));
    learn_symbol_sizes(model, *inputs[i], value.tensor.shape(), sizing, learned);
    made[i] = std::move(value);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!made[i]) {
      IG_ASSIGN_OR_RETURN(InputTarget target, sized_input_target(model, *inputs[i], learned));
      IG_ASSIGN_OR_RETURN(NamedInput value, make_input(sources[i], target, request.seed));
      made[i] = std::move(value);
    }
    out.inputs.push_back(std::move(*made[i]));
  }
  if (!given.empty()) {
    return invalid_argument("{}: the model has no input '{}' (inputs: {})", model.path,
                            given.begin()->first, join_names(out.input_names));
  }
  return out;
}

std::string input_set_hash(const std::vector<NamedInput>& inputs) {
  std::vector<const NamedInput*> sorted;
  for (const auto& in : inputs) sorted.push_back(&in);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  std::string text;
  for (const auto* in : sorted) text += in->name + '\0' + in->hash + '\0';
  return hash_hex(XXH3_64bits(text.data(), text.size()));
}

}  // namespace ig
