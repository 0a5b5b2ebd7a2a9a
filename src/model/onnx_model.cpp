#include "model/onnx_model.h"
#include "model/ort_onnx_domain.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "model/int4_weights.h"
#include "model/limits.h"
#include "model/onnx_types.h"
#include "model/quant_scales.h"
#include "model/shape_inference.h"
#include "model/tensor_proto.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

// Bytes a tensor's data takes in the file (inline or external), without reading it.
uint64_t stored_bytes(const onnx::TensorProto& t) {
  if (t.has_raw_data()) return t.raw_data().size();
  for (const auto& kv : t.external_data())
    if (kv.key() == "length") return std::strtoull(kv.value().c_str(), nullptr, 10);
  if (t.data_location() != onnx::TensorProto::EXTERNAL || !is_valid_dtype(t.data_type())) return 0;
  uint64_t n = dtype_size(static_cast<DType>(t.data_type()));
  for (int64_t d : t.dims()) n *= d > 0 ? static_cast<uint64_t>(d) : 0;
  return n;
}

struct Converter {
  std::string base_dir;
  int max_depth;
  bool initializer_data = true;

  // `declared_by_user`: the main graph's inputs and outputs, where a negative size other than -1
  // is refused; -1 is what Paddle2ONNX writes there for a dynamic size (PaddleOCR's models, as
  // RapidOCR ships them; ONNX Runtime reads it so), and elsewhere (value_info, a subgraph's
  // signature) what ONNX's function-expanded models write for a size shape inference left open:
  // an unknown dim, as the checker reads it.
  Status convert_value_info(const onnx::ValueInfoProto& vi, ValueInfo& out,
                            bool declared_by_user = false) {
    out.name = vi.name();
    if (!vi.has_type()) return Status::Ok();
    const auto& type = vi.type();
    if (type.has_tensor_type()) {
      const auto& tt = type.tensor_type();
      if (tt.has_elem_type()) {
        if (!is_valid_dtype(tt.elem_type())) {
          return invalid_argument("value '{}' has unknown element type {}", vi.name(),
                                  tt.elem_type());
        }
        out.dtype = static_cast<DType>(tt.elem_type());
      }
      if (tt.has_shape()) {
        out.has_shape = true;
        for (const auto& d : tt.shape().dim()) {
          Dim dim;
          if (d.has_dim_value()) {
            if (d.dim_value() < -1 && declared_by_user) {
              return invalid_argument("value '{}' declares negative dimension {}", vi.name(),
                                      d.dim_value());
            }
            dim.value = d.dim_value() < 0 ? -1 : d.dim_value();
          } else if (d.dim_param() != "?") {  // Paddle2ONNX's "?" names no size: unknown
            dim.symbol = d.dim_param();
          }
          out.dims.push_back(dim);
        }
      }
    } else {
      out.is_tensor = false;
      if (type.has_sequence_type())
        out.type_description = "sequence";
      else if (type.has_optional_type())
        out.type_description = "optional";
      else if (type.has_map_type())
        out.type_description = "map";
      else if (type.has_sparse_tensor_type())
        out.type_description = "sparse tensor";
      else
        out.type_description = "unknown type";
    }
    return Status::Ok();
  }

  Status convert_attribute(const onnx::AttributeProto& a, Attribute& out, int depth) {
    using K = Attribute::Kind;
    switch (a.type()) {
      case onnx::AttributeProto::FLOAT:
        out.kind = K::kFloat;
        out.f = a.f();
        break;
      case onnx::AttributeProto::INT:
        out.kind = K::kInt;
        out.i = a.i();
        break;
      case onnx::AttributeProto::STRING:
        out.kind = K::kString;
        out.s = a.s();
        break;
      case onnx::AttributeProto::FLOATS:
        out.kind = K::kFloats;
        out.floats.assign(a.floats().begin(), a.floats().end());
        break;
      case onnx::AttributeProto::INTS:
        out.kind = K::kInts;
        out.ints.assign(a.ints().begin(), a.ints().end());
        break;
      case onnx::AttributeProto::STRINGS:
        out.kind = K::kStrings;
        out.strings.assign(a.strings().begin(), a.strings().end());
        break;
      case onnx::AttributeProto::TENSOR: {
        out.kind = K::kTensor;
        IG_ASSIGN_OR_RETURN(out.t, tensor_from_proto(a.t(), base_dir));
        break;
      }
      case onnx::AttributeProto::TENSORS: {
        out.kind = K::kTensors;
        for (const auto& t : a.tensors()) {
          IG_ASSIGN_OR_RETURN(Tensor x, tensor_from_proto(t, base_dir));
          out.tensors.push_back(std::move(x));
        }
        break;
      }
      case onnx::AttributeProto::GRAPH: {
        out.kind = K::kGraph;
        out.g = std::make_shared<Graph>();
        IG_RETURN_IF_ERROR(convert_graph(a.g(), *out.g, depth + 1));
        break;
      }
      case onnx::AttributeProto::GRAPHS: {
        out.kind = K::kGraphs;
        for (const auto& g : a.graphs()) {
          auto sg = std::make_shared<Graph>();
          IG_RETURN_IF_ERROR(convert_graph(g, *sg, depth + 1));
          out.graphs.push_back(sg);
        }
        break;
      }
      case onnx::AttributeProto::SPARSE_TENSOR:
        out.kind = K::kSparseTensor;
        break;
      case onnx::AttributeProto::TYPE_PROTO:
        out.kind = K::kTypeProto;
        break;
      default:
        return invalid_argument("attribute '{}' has unknown type {}", a.name(),
                                static_cast<int>(a.type()));
    }
    return Status::Ok();
  }

  // `release`, the same graph as `g`: its initializers give up their data once converted, so a
  // model's weights are held once, not twice, while loading.
  Status convert_graph(const onnx::GraphProto& g, Graph& out, int depth,
                       onnx::GraphProto* release = nullptr) {
    if (depth > max_depth) {
      return resource_exhausted("subgraphs nested deeper than {} levels", max_depth);
    }
    out.name = g.name();
    IG_RETURN_IF_ERROR(check_lacked_types(g));
    for (int i = 0; i < g.initializer_size(); ++i) {
      const auto& init = g.initializer(i);
      // tensor_from_proto names the tensor in its errors; the node that reads it is added.
      auto t = depth == 0 && !initializer_data && init.data_type() != onnx::TensorProto::STRING &&
                       stored_bytes(init) >= (64u << 10)
                   ? tensor_shape_from_proto(init)
                   : tensor_from_proto(init, base_dir);
      if (!t.ok()) {
        const std::string user = node_using(g, init.name());
        return user.empty() ? t.status() : t.status().with_context(user);
      }
      out.initializers[init.name()] = std::move(*t);
      if (release) std::string().swap(*release->mutable_initializer(i)->mutable_raw_data());
    }
    if (g.sparse_initializer_size() > 0) {
      return unsupported("sparse initializers ('{}') are not supported",
                         g.sparse_initializer(0).values().name());
    }
    for (const auto& vi : g.input()) {
      ValueInfo v;
      IG_RETURN_IF_ERROR(convert_value_info(vi, v, depth == 0));
      out.inputs.push_back(std::move(v));
    }
    for (const auto& vi : g.output()) {
      ValueInfo v;
      IG_RETURN_IF_ERROR(convert_value_info(vi, v, depth == 0));
      out.outputs.push_back(std::move(v));
    }
    for (const auto& vi : g.value_info()) {
      ValueInfo v;
      IG_RETURN_IF_ERROR(convert_value_info(vi, v));
      out.value_info[v.name] = std::move(v);
    }
    out.nodes.reserve(static_cast<size_t>(g.node_size()));
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& np = g.node(i);
      Node n;
      n.index = static_cast<size_t>(i);
      n.name = np.name();
      n.op_type = np.op_type();
      n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
      n.inputs.assign(np.input().begin(), np.input().end());
      n.outputs.assign(np.output().begin(), np.output().end());
      for (const auto& a : np.attribute()) {
        Attribute attr;
        Status st = convert_attribute(a, attr, depth);
        if (!st.ok()) return st.with_context(n.label() + ", attribute '" + a.name() + "'");
        n.attributes[a.name()] = std::move(attr);
      }
      out.nodes.push_back(std::move(n));
    }
    return Status::Ok();
  }
};

// Subgraph names from the enclosing scope, so a subgraph's topological sort accepts them.
Status sort_recursive(Graph& g, const std::vector<std::string>& outer) {
  IG_RETURN_IF_ERROR(topological_sort(g, outer));
  std::vector<std::string> scope = outer;
  for (const auto& v : g.inputs) scope.push_back(v.name);
  for (const auto& [k, _] : g.initializers) scope.push_back(k);
  for (const auto& n : g.nodes) scope.insert(scope.end(), n.outputs.begin(), n.outputs.end());
  for (auto& n : g.nodes) {
    for (auto& [name, a] : n.attributes) {
      if (a.g) {
        Status st = sort_recursive(*a.g, scope);
        if (!st.ok()) return st.with_context(n.label() + " subgraph '" + name + "'");
      }
      for (auto& sg : a.graphs) IG_RETURN_IF_ERROR(sort_recursive(*sg, scope));
    }
  }
  return Status::Ok();
}

}  // namespace

namespace {

// Protobuf nests three messages per subgraph level (graph, node, attribute); the margin covers
// tensors and types inside attributes. Deeper input fails to parse instead of exhausting the stack.
int parse_recursion_limit(int max_subgraph_depth) { return 3 * max_subgraph_depth + 20; }

Status check_parse_size(uint64_t size, const std::string& label) {
  if (size == 0) return parse_error("{}: file is empty, not an ONNX model", label);
  if (size > static_cast<uint64_t>(INT32_MAX)) {
    return resource_exhausted("{}: {} bytes, over protobuf's limit of {} bytes", label, size,
                              INT32_MAX);
  }
  return Status::Ok();
}

Expected<onnx::ModelProto> parse_model_stream(google::protobuf::io::CodedInputStream& stream,
                                              uint64_t size, const std::string& label,
                                              int max_subgraph_depth) {
  onnx::ModelProto proto;
  stream.SetTotalBytesLimit(static_cast<int>(size));
  stream.SetRecursionLimit(parse_recursion_limit(max_subgraph_depth));
  if (!proto.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    return parse_error(
        "{}: not a valid ONNX protobuf (truncated, not a model, or messages nested more than {} "
        "levels deep)",
        label, parse_recursion_limit(max_subgraph_depth));
  }
  return proto;
}

Expected<onnx::ModelProto> parse_model_bytes(const std::string& bytes, const std::string& label,
                                             int max_subgraph_depth) {
  IG_RETURN_IF_ERROR(check_parse_size(bytes.size(), label));
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  return parse_model_stream(stream, bytes.size(), label, max_subgraph_depth);
}

// Parses straight from the file: the model's bytes are never held beside the parsed message.
Expected<onnx::ModelProto> parse_model_file(const std::string& path, uint64_t max_bytes,
                                            int max_subgraph_depth) {
  IG_ASSIGN_OR_RETURN(const uint64_t size, readable_file_size(path, max_bytes));
  IG_RETURN_IF_ERROR(check_parse_size(size, path));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error("{}: cannot open for reading: {}", path, std::strerror(errno));
  google::protobuf::io::FileInputStream file(fd);
  file.SetCloseOnDelete(true);
  google::protobuf::io::CodedInputStream stream(&file);
  auto proto = parse_model_stream(stream, size, path, max_subgraph_depth);
  if (!proto.ok() && file.GetErrno() != 0)
    return io_error("{}: read failed: {}", path, std::strerror(file.GetErrno()));
  return proto;
}

}  // namespace

Expected<onnx::ModelProto> read_model_proto(const std::string& path, uint64_t max_bytes) {
  return parse_model_file(path, max_bytes, LoadOptions{}.max_subgraph_depth);
}

Status save_model_proto(const onnx::ModelProto& model, const std::string& path) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) return io_error("{}: cannot serialise the model", path);
  return write_file_bytes(path, bytes);
}

Expected<std::string> save_model_beside(const onnx::ModelProto& model,
                                        const std::string& parent_path,
                                        const std::string& file_name) {
  std::string path = (fs::path(parent_path).parent_path() / file_name).string();
  if (save_model_proto(model, path).ok()) return path;
  path = (fs::temp_directory_path() / file_name).string();
  IG_RETURN_IF_ERROR(save_model_proto(model, path));
  return path;
}

Status check_model_proto(const onnx::ModelProto& model) {
  register_ort_onnx_domain_schemas();
  register_ort_qoperator_schemas();
  // A model newer than libonnx knows goes to the onnx package's checker (shape_inference.h),
  // given a copy: the helper's request takes the weights out of the proto it is handed.
  if (newer_than_libonnx(model)) {
    onnx::ModelProto copy = model;
    OnnxChecks checks;
    checks.infer_shapes = false;
    Status st = check_and_infer(copy, "the model", checks);
    if (st.ok()) return st;
    // The message names "the model: ONNX checker: ...": the callers add the file.
    const std::string prefix = "the model: ";
    std::string text = st.message();
    if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
    return Status(st.code(), text);
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return invalid_argument("ONNX checker: {}", e.what());
  }
  return Status::Ok();
}

Expected<Model> model_from_proto(onnx::ModelProto& proto, const std::string& label,
                                 const std::string& base_dir, const LoadOptions& options) {
  if (!proto.has_graph()) return parse_error("{}: the model has no graph", label);
  if (proto.opset_import_size() == 0 && proto.ir_version() == 0) {
    return parse_error("{}: no ir_version and no opset_import; not an ONNX model", label);
  }
  // Nesting first: the checker and the converter below recurse into subgraphs.
  if (Status st = check_subgraph_depth(proto.graph(), options.max_subgraph_depth); !st.ok())
    return st.with_context(label);
  // Escaping external data is refused before the checker, which would probe the path (relative to
  // the working folder) and report it only as "not accessible".
  for (const auto& init : proto.graph().initializer()) {
    if (init.data_location() != onnx::TensorProto::EXTERNAL) continue;
    if (base_dir.empty()) {
      return invalid_argument("{}: tensor '{}' uses external data, which is not allowed here",
                              label, init.name());
    }
    for (const auto& kv : init.external_data()) {
      if (kv.key() != "location") continue;
      auto inside = resolve_inside(base_dir, kv.value());
      if (!inside.ok())
        return inside.status().with_context(label + ": tensor '" + init.name() + "'");
    }
  }
  // Declared sizes before the checker, whose complaints about such tensors are less clear, and
  // again after shape inference, which declares intermediate shapes.
  const uint64_t budget =
      options.max_memory_bytes ? options.max_memory_bytes : default_memory_budget();
  IG_RETURN_IF_ERROR(check_declared_sizes(proto, label, budget));
  // Before any libonnx code and any kernel, which divide by these.
  if (Status st = check_divisor_attributes(proto.graph()); !st.ok()) return st.with_context(label);
  if (Status st = check_constant_scales(proto); !st.ok()) return st.with_context(label);
  // int4 weights into DequantizeLinear are read as int8 (model/int4_weights.h), then the types
  // infergap lacks are refused before the checker, which knows them only as "Unrecognized
  // data_type: 22".
  if (Status st = widen_int4_weights(*proto.mutable_graph()); !st.ok())
    return st.with_context(label);
  if (Status st = check_lacked_types(proto.graph()); !st.ok()) return st.with_context(label);
  // The checker, then shape inference (advisory: execution computes shapes itself and reports
  // mismatches); libonnx can crash in either, so they run isolated (shape_inference.h).
  OnnxChecks checks;
  checks.checker = options.run_checker;
  checks.infer_shapes = options.infer_shapes;
  checks.in_this_process = options.onnx_in_this_process;
  checks.timeout_seconds = options.shape_inference_timeout_seconds;
  IG_RETURN_IF_ERROR(check_and_infer(proto, label, checks));
  IG_RETURN_IF_ERROR(check_declared_sizes(proto, label, budget));
  Model m;
  m.path = label;
  m.ir_version = proto.ir_version();
  m.producer_name = proto.producer_name();
  for (const auto& p : proto.metadata_props()) m.metadata[p.key()] = p.value();
  for (const auto& os : proto.opset_import()) {
    m.opsets[os.domain() == "ai.onnx" ? "" : os.domain()] = os.version();
  }
  if (!m.opsets.count("") && proto.ir_version() < 3) m.opsets[""] = 1;
  Converter conv{base_dir, options.max_subgraph_depth, options.initializer_data};
  Status st =
      conv.convert_graph(proto.graph(), m.graph, 0,
                         options.release_initializer_data ? proto.mutable_graph() : nullptr);
  if (!st.ok()) return st.with_context(label);
  st = sort_recursive(m.graph, {});
  if (!st.ok()) return st.with_context(label);
  return m;
}

Expected<Model> load_model_from_bytes(const std::string& bytes, const std::string& label,
                                      const std::string& base_dir, const LoadOptions& options) {
  IG_ASSIGN_OR_RETURN(onnx::ModelProto proto,
                      parse_model_bytes(bytes, label, options.max_subgraph_depth));
  LoadOptions releasing = options;
  releasing.release_initializer_data = true;
  return model_from_proto(proto, label, base_dir, releasing);
}

Expected<Model> load_model(const std::string& path, const LoadOptions& options) {
  IG_ASSIGN_OR_RETURN(onnx::ModelProto proto,
                      parse_model_file(path, options.max_file_bytes, options.max_subgraph_depth));
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  LoadOptions releasing = options;
  releasing.release_initializer_data = true;  // the proto is ours, and dropped on return
  return model_from_proto(proto, path, dir, releasing);
}

}  // namespace ig
