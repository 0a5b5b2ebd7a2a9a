#include "model/limits.h"

#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "model/graph.h"
#include "model/onnx_types.h"

namespace ig {

namespace {

// Bytes of a tensor of `dtype` with `dims`; nullopt when a dim is symbolic or negative (other
// checks report those), UINT64_MAX when the product overflows.
template <typename Dims, typename DimValue>
std::optional<uint64_t> declared_bytes(int32_t dtype, const Dims& dims, DimValue value_of) {
  if (!is_valid_dtype(dtype) || dtype == 0) return std::nullopt;
  const auto dt = static_cast<DType>(dtype);
  uint64_t n = dt == DType::kString ? sizeof(std::string) : dtype_size(dt);
  bool overflow = false;
  for (const auto& d : dims) {
    const std::optional<int64_t> v = value_of(d);
    if (!v || *v < 0) return std::nullopt;
    const auto u = static_cast<uint64_t>(*v);
    if (u != 0 && n > UINT64_MAX / u) {
      overflow = true;
    } else {
      n *= u;
    }
  }
  if (overflow) {
    for (const auto& d : dims)  // a zero dim makes the tensor empty whatever the others say
      if (value_of(d) == 0) return 0;
    return UINT64_MAX;
  }
  return n;
}

std::string shape_text(const onnx::TensorProto& t) {
  std::string s = "[";
  for (int i = 0; i < t.dims_size(); ++i) s += (i ? "," : "") + std::to_string(t.dims(i));
  return s + "]";
}

std::string type_text(int32_t dtype) {
  return is_valid_dtype(dtype) ? dtype_name(static_cast<DType>(dtype)) : "?";
}

struct SizeChecker {
  const std::string& label;
  uint64_t budget;
  uint64_t initializer_total = 0;

  Status over(const std::string& what, uint64_t bytes) const {
    return resource_exhausted(
        "{}: {} needs {}, over the limit of {} set by the memory budget (--max-memory)", label,
        what, describe_bytes(bytes), describe_bytes(budget));
  }

  Status tensor(const onnx::TensorProto& t, const std::string& where) {
    const auto bytes = declared_bytes(t.data_type(), t.dims(),
                                      [](int64_t d) -> std::optional<int64_t> { return d; });
    if (!bytes) return Status::Ok();
    if (*bytes > budget) {
      return over(
          fmt::format("{} '{}' {}{}", where, t.name(), type_text(t.data_type()), shape_text(t)),
          *bytes);
    }
    return Status::Ok();
  }

  Status value(const onnx::ValueInfoProto& vi, const std::string& where) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return Status::Ok();
    const auto& tt = vi.type().tensor_type();
    const auto bytes =
        declared_bytes(tt.elem_type(), tt.shape().dim(),
                       [](const onnx::TensorShapeProto::Dimension& d) -> std::optional<int64_t> {
                         if (!d.has_dim_value()) return std::nullopt;
                         return d.dim_value();
                       });
    if (!bytes || *bytes <= budget) return Status::Ok();
    std::string shape = "[";
    for (int i = 0; i < tt.shape().dim_size(); ++i)
      shape += (i ? "," : "") + std::to_string(tt.shape().dim(i).dim_value());
    return over(fmt::format("{} '{}' declared as {}{}", where, vi.name(), type_text(tt.elem_type()),
                            shape + "]"),
                *bytes);
  }

  Status graph(const onnx::GraphProto& g) {
    for (const auto& init : g.initializer()) {
      IG_RETURN_IF_ERROR(tensor(init, "initializer tensor"));
      const auto bytes = declared_bytes(init.data_type(), init.dims(),
                                        [](int64_t d) -> std::optional<int64_t> { return d; });
      if (bytes) initializer_total += std::min(*bytes, UINT64_MAX - initializer_total);
    }
    std::map<std::string, std::string> producer;
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& o : g.node(i).output()) producer[o] = node_label(g.node(i), i);
    for (const auto& vi : g.input()) IG_RETURN_IF_ERROR(value(vi, "graph input"));
    // Intermediate values first: the first value too large is where the problem starts.
    for (const auto& vi : g.value_info()) {
      const auto it = producer.find(vi.name());
      IG_RETURN_IF_ERROR(
          value(vi, it == producer.end() ? "value" : "output of " + it->second + ", value"));
    }
    for (const auto& vi : g.output()) {
      const auto it = producer.find(vi.name());
      IG_RETURN_IF_ERROR(value(vi, it == producer.end()
                                       ? "graph output"
                                       : "output of " + it->second + ", graph output"));
    }
    for (int i = 0; i < g.node_size(); ++i) {
      for (const auto& a : g.node(i).attribute()) {
        const std::string where =
            node_label(g.node(i), i) + ", attribute '" + a.name() + "' tensor";
        if (a.has_t()) IG_RETURN_IF_ERROR(tensor(a.t(), where));
        for (const auto& t : a.tensors()) IG_RETURN_IF_ERROR(tensor(t, where));
        if (a.has_g()) IG_RETURN_IF_ERROR(graph(a.g()));
        for (const auto& sg : a.graphs()) IG_RETURN_IF_ERROR(graph(sg));
      }
    }
    return Status::Ok();
  }
};

}  // namespace

uint64_t default_memory_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t{8} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
}

Expected<uint64_t> parse_byte_size(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return invalid_argument("'{}' is not a size (examples: 4G, 512M, 1048576)", text);
  }
  std::string unit = text.substr(used);
  for (const char* suffix : {"iB", "B"}) {
    const std::string s(suffix);
    if (unit.size() >= s.size() && unit.compare(unit.size() - s.size(), s.size(), s) == 0) {
      unit.resize(unit.size() - s.size());
      break;
    }
  }
  double scale = 1;
  if (unit == "K" || unit == "k") {
    scale = 1024.0;
  } else if (unit == "M" || unit == "m") {
    scale = 1024.0 * 1024;
  } else if (unit == "G" || unit == "g") {
    scale = 1024.0 * 1024 * 1024;
  } else if (unit == "T" || unit == "t") {
    scale = 1024.0 * 1024 * 1024 * 1024;
  } else if (!unit.empty()) {
    return invalid_argument("'{}' is not a size: unknown unit '{}' (use K, M, G or T)", text, unit);
  }
  const double bytes = v * scale;
  if (!std::isfinite(bytes) || bytes < 1 || bytes >= 1.8e19) {
    return invalid_argument("'{}' is not a usable size (between 1 byte and 16 EiB)", text);
  }
  return static_cast<uint64_t>(bytes);
}

std::string describe_bytes(uint64_t bytes) {
  if (bytes == UINT64_MAX) return "more than 2^64 bytes";
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{} bytes", bytes);
  return fmt::format("{:.1f} {} ({} bytes)", v, units[u], bytes);
}

Status check_declared_sizes(const onnx::ModelProto& proto, const std::string& label,
                            uint64_t budget) {
  SizeChecker c{label, budget};
  IG_RETURN_IF_ERROR(c.graph(proto.graph()));
  if (c.initializer_total > budget) return c.over("the initializers together", c.initializer_total);
  return Status::Ok();
}

namespace {

Status check_depth(const onnx::GraphProto& graph, int depth, int limit) {
  if (depth > limit) return resource_exhausted("subgraphs nested deeper than {} levels", limit);
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const auto& a : graph.node(i).attribute()) {
      Status st;
      if (a.has_g()) st = check_depth(a.g(), depth + 1, limit);
      for (int k = 0; st.ok() && k < a.graphs_size(); ++k)
        st = check_depth(a.graphs(k), depth + 1, limit);
      if (!st.ok()) {
        return st.with_context(node_label(graph.node(i), i) + " subgraph '" + a.name() + "'");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status check_divisor_attributes(const onnx::GraphProto& graph) {
  static const char* const kDivisors[] = {"strides", "dilations", "group", "blocksize"};
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& n = graph.node(i);
    const bool standard = n.domain().empty() || n.domain() == "ai.onnx";
    for (const auto& a : n.attribute()) {
      const bool divisor = standard && std::any_of(std::begin(kDivisors), std::end(kDivisors),
                                                   [&](const char* k) { return a.name() == k; });
      if (divisor) {
        std::vector<int64_t> values(a.ints().begin(), a.ints().end());
        if (a.type() == onnx::AttributeProto::INT || a.has_i()) values.push_back(a.i());
        for (int64_t v : values) {
          if (v <= 0) {
            return invalid_argument("{}: attribute '{}' is {}; it must be positive",
                                    node_label(n, i), a.name(), v);
          }
        }
      }
      Status st;
      if (a.has_g()) st = check_divisor_attributes(a.g());
      for (int k = 0; st.ok() && k < a.graphs_size(); ++k)
        st = check_divisor_attributes(a.graphs(k));
      if (!st.ok()) return st.with_context(node_label(n, i) + " subgraph '" + a.name() + "'");
    }
  }
  return Status::Ok();
}

Status check_subgraph_depth(const onnx::GraphProto& graph, int max_depth) {
  return check_depth(graph, 0, max_depth);
}

}  // namespace ig
