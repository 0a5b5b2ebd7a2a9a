// --shape and --dim: sizing the dims a model leaves open, and saying which ones nobody sized.
#include <algorithm>
#include <charconv>

#include "core/strings.h"
#include "inputs/inputs.h"

namespace ig {

namespace {

// NAME=VALUE of a --shape or --dim flag.
Expected<std::pair<std::string, std::string>> split_flag(const std::string& flag,
                                                         const char* option, const char* form) {
  const auto eq = flag.find('=');
  if (eq == std::string::npos || eq == 0)
    return invalid_argument("{} '{}': expected {}", option, flag, form);
  return std::pair{flag.substr(0, eq), flag.substr(eq + 1)};
}

// Sizes of symbols: from --dim, then from the open dims of every input a --shape sizes (so that
// --shape x=1x3x640x640 also sizes H and W of another input that shares them). `origin` says
// which flag gave each size, for messages.
struct SymbolSizes {
  std::map<std::string, int64_t> size;
  std::map<std::string, std::string> origin;
};

Expected<SymbolSizes> symbol_sizes(const Model& model, const InputSizing& sizing) {
  SymbolSizes out;
  for (const auto& [symbol, v] : sizing.dims) {
    out.size[symbol] = v;
    out.origin[symbol] = fmt::format("--dim {}={}", symbol, v);
  }
  for (const ValueInfo* in : model.graph.runtime_inputs()) {
    auto it = sizing.shapes.find(in->name);
    if (it == sizing.shapes.end() || !in->has_shape || it->second.size() != in->dims.size())
      continue;
    const std::string flag = "--shape " + in->name + "=" + shape_string(it->second);
    for (size_t i = 0; i < in->dims.size(); ++i) {
      const Dim& d = in->dims[i];
      if (d.value >= 0 || d.symbol.empty()) continue;
      const int64_t v = it->second[i];
      auto [known, fresh] = out.size.emplace(d.symbol, v);
      if (fresh) {
        out.origin[d.symbol] = flag;
      } else if (known->second != v) {
        return invalid_argument("{}: {} makes dim {} ({}) of input '{}' {}, but {} says {}",
                                model.path, flag, i, d.symbol, in->name, v, out.origin[d.symbol],
                                known->second);
      }
    }
  }
  return out;
}

}  // namespace

std::string DefaultedDim::describe() const {
  if (symbol.empty())
    return fmt::format(
        "input '{}' dim {} is not fixed by the model: using {} (set it with --shape {}=...)", input,
        index, value, input);
  return fmt::format(
      "input '{}' dim {} ({}) is not fixed by the model: using {} (set it with --dim {}=SIZE or "
      "--shape {}=...)",
      input, index, symbol, value, symbol, input);
}

Expected<InputSizing> parse_input_sizing(const std::vector<std::string>& shape_flags,
                                         const std::vector<std::string>& dim_flags) {
  InputSizing out;
  for (const auto& flag : shape_flags) {
    IG_ASSIGN_OR_RETURN(auto kv, split_flag(flag, "--shape", "NAME=DIMS, e.g. x=1x3x640x640"));
    if (kv.second.empty())
      return invalid_argument("--shape '{}': no dims (expected NAME=DIMS, e.g. x=1x3x640x640)",
                              flag);
    auto shape = parse_shape(kv.second);
    if (!shape.ok()) return shape.status().with_context("--shape '" + flag + "'");
    if (!out.shapes.emplace(kv.first, *shape).second)
      return invalid_argument("--shape '{}': input '{}' given twice", flag, kv.first);
  }
  for (const auto& flag : dim_flags) {
    IG_ASSIGN_OR_RETURN(auto kv, split_flag(flag, "--dim", "SYMBOL=SIZE, e.g. H=640"));
    int64_t v = -1;
    const std::string& text = kv.second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc::result_out_of_range)
      return invalid_argument("--dim '{}': {} is too large", flag, text);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0)
      return invalid_argument("--dim '{}': '{}' is not a size (expected SYMBOL=SIZE, e.g. H=640)",
                              flag, text);
    if (!out.dims.emplace(kv.first, v).second)
      return invalid_argument("--dim '{}': symbol '{}' given twice", flag, kv.first);
  }
  return out;
}

Status check_declared_shape(const InputTarget& t, const Shape& shape, const std::string& what) {
  if (!t.has_shape) return Status::Ok();
  ValueInfo declared;
  declared.name = t.name;
  declared.dtype = t.dtype;
  declared.has_shape = true;
  declared.dims = t.dims;
  if (shape.size() != t.dims.size())
    return invalid_argument("{} has {} dims but the model declares {} ({})", what, shape.size(),
                            t.dims.size(), declared.describe());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (t.dims[i].value >= 0 && t.dims[i].value != shape[i])
      return invalid_argument("{} makes dim {} {} but the model fixes it at {} ({})", what, i,
                              shape[i], t.dims[i].value, declared.describe());
  }
  return Status::Ok();
}

InputTarget input_target(const Model& model, const ValueInfo& info) {
  // With no flags nothing can contradict the model.
  return sized_input_target(model, info, InputSizing{}).value();
}

Expected<InputTarget> sized_input_target(const Model& model, const ValueInfo& info,
                                         const InputSizing& sizing) {
  InputTarget t{info.name,  info.dtype,   info.has_shape, info.dims, model.metadata,
                model.path, std::nullopt, false,          {}};
  auto fail = [&](const Status& st) {
    return st.with_context(model.path + ": input '" + info.name + "'");
  };
  auto symbols = symbol_sizes(model, sizing);
  if (!symbols.ok()) return symbols.status();
  if (auto it = sizing.shapes.find(info.name); it != sizing.shapes.end()) {
    const std::string flag = "--shape " + info.name + "=" + shape_string(it->second);
    if (Status st = check_declared_shape(t, it->second, flag); !st.ok()) return fail(st);
    t.shape = it->second;
    t.shape_given = true;
    return t;
  }
  if (!info.has_shape) return t;
  size_open_dims(t, symbols->size);
  return t;
}

void size_open_dims(InputTarget& t, const std::map<std::string, int64_t>& symbols) {
  Shape shape;
  t.defaulted.clear();
  for (size_t i = 0; i < t.dims.size(); ++i) {
    const Dim& d = t.dims[i];
    auto it = symbols.find(d.symbol);
    if (d.value >= 0) {
      shape.push_back(d.value);
    } else if (!d.symbol.empty() && it != symbols.end()) {
      shape.push_back(it->second);
    } else {
      shape.push_back(1);
      t.defaulted.push_back({t.name, i, d.symbol, 1});
    }
  }
  t.shape = shape;
}

Status sizing_fits_nothing(const InputRequest& request,
                           const std::vector<const GatheredInputs*>& gathered,
                           const std::string& label) {
  if (gathered.empty()) return Status::Ok();
  std::set<std::string> shapes = gathered.front()->unused_shapes;
  std::set<std::string> dims = gathered.front()->unused_dims;
  std::vector<std::string> names, symbols;
  for (const GatheredInputs* g : gathered) {
    std::erase_if(shapes, [&](const std::string& s) { return !g->unused_shapes.count(s); });
    std::erase_if(dims, [&](const std::string& s) { return !g->unused_dims.count(s); });
    for (const auto& n : g->input_names)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    for (const auto& n : g->symbols)
      if (std::find(symbols.begin(), symbols.end(), n) == symbols.end()) symbols.push_back(n);
  }
  auto flag_of = [](const std::vector<std::string>& flags, const std::string& name) {
    for (const auto& f : flags)
      if (f.rfind(name + "=", 0) == 0) return f;
    return name;
  };
  if (!shapes.empty()) {
    const std::string& name = *shapes.begin();
    return invalid_argument("--shape '{}': no input of {} is named '{}' (inputs: {})",
                            flag_of(request.shapes, name), label, name, join_names(names));
  }
  if (!dims.empty()) {
    const std::string& symbol = *dims.begin();
    return invalid_argument(
        "--dim '{}': no input dim of {} is named '{}' ({})", flag_of(request.dims, symbol), label,
        symbol,
        symbols.empty() ? "no input has a named open dim" : "symbols: " + join_names(symbols));
  }
  return Status::Ok();
}

std::string InputRequest::flags() const {
  std::string out;
  for (const auto& s : specs) out += " --input " + shell_quote(s);
  for (const auto& s : shapes) out += " --shape " + shell_quote(s);
  for (const auto& s : dims) out += " --dim " + shell_quote(s);
  return out + " --seed " + std::to_string(seed);
}

}  // namespace ig
