// infergap._core.Store: the analyses of `compare`, `origins` and `attribute` as the JSON their
// --json prints (views/study_reports.h), and stored tensors as numpy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>

#include "analysis/learn_facts.h"
#include "core.h"
#include "views/study_json.h"
#include "views/study_reports.h"
#include "worker/probe.h"
#include "worker/worker_pool.h"
#include "workflow/attribute.h"
#include "workflow/compare.h"

namespace ig::python {

namespace {

class PyStore {
 public:
  explicit PyStore(const std::string& path)
      : path_(path), store_(value_or_raise(open_existing_store(path))) {}

  std::string compare(const std::string& model, bool layers, bool all_nodes) {
    py::gil_scoped_release unlocked;
    return value_or_raise(compare_study(*store_, CompareRequest{model, layers, all_nodes}))
        .report.dump();
  }

  std::string oracle_origins(const std::string& model) {
    py::gil_scoped_release unlocked;
    return value_or_raise(oracle_origins_study(*store_, model, path_)).report.json.dump();
  }

  std::string pair_origins(const std::string& model, const std::string& a, const std::string& b) {
    py::gil_scoped_release unlocked;
    StudyData study = load(model);
    TensorCache cache(study);
    auto j = pair_origins_report(study, a, b, cache);
    if (!j.ok()) raise(invalid_argument("{}: {}", path_, j.status().message()));
    return j->dump();
  }

  std::string attribute(const std::string& model, bool explain, size_t max_trials,
                        int64_t max_elements) {
    py::gil_scoped_release unlocked;
    const Catalog catalog = value_or_raise(read_catalog(default_worker_executable()));
    AttributeOptions options{model, explain, max_trials, max_elements, catalog.knobs, nullptr};
    return attribute_report(value_or_raise(attribute_study(*store_, options))).dump();
  }

  py::array tensor(int64_t run, const std::string& node) {
    Tensor t;
    {
      py::gil_scoped_release unlocked;
      ok_or_raise(store_->run(run).status());
      auto outs = value_or_raise(store_->outputs(run));
      const StoredOutput o = value_or_raise(find_output(outs, node, run));
      t = value_or_raise(store_->tensor(o.tensor));
    }
    if (t.nbytes() > 0 && t.raw() == nullptr)
      raise(internal_error("run {}: '{}' was stored without its elements", run, node));
    std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
    py::array out(numpy_dtype(t.dtype()), shape);
    std::memcpy(out.mutable_data(), t.raw(), t.nbytes());
    return out;
  }

  const std::string& path() const { return path_; }

 private:
  StudyData load(const std::string& model) { return value_or_raise(load_study(*store_, model)); }

  static py::dtype numpy_dtype(DType d) {
    switch (d) {
      case DType::kFloat32:
        return py::dtype("float32");
      case DType::kFloat64:
        return py::dtype("float64");
      case DType::kFloat16:
        return py::dtype("float16");
      case DType::kInt8:
        return py::dtype("int8");
      case DType::kUInt8:
        return py::dtype("uint8");
      case DType::kInt16:
        return py::dtype("int16");
      case DType::kUInt16:
        return py::dtype("uint16");
      case DType::kInt32:
        return py::dtype("int32");
      case DType::kUInt32:
        return py::dtype("uint32");
      case DType::kInt64:
        return py::dtype("int64");
      case DType::kUInt64:
        return py::dtype("uint64");
      case DType::kBool:
        return py::dtype("bool");
      case DType::kComplex64:
        return py::dtype("complex64");
      case DType::kComplex128:
        return py::dtype("complex128");
      default:
        break;
    }
    raise(invalid_argument("a {} tensor has no numpy dtype", dtype_name(d)));
  }

  std::string path_;
  std::unique_ptr<Store> store_;
};

}  // namespace

void bind_store(py::module_& m) {
  py::class_<PyStore>(m, "Store")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def_property_readonly("path", &PyStore::path)
      .def("compare_json", &PyStore::compare, py::arg("model") = "", py::arg("layers") = false,
           py::arg("all_nodes") = false)
      .def("oracle_origins_json", &PyStore::oracle_origins, py::arg("model") = "")
      .def("pair_origins_json", &PyStore::pair_origins, py::arg("model") = "", py::arg("a") = "",
           py::arg("b") = "")
      .def("attribute_json", &PyStore::attribute, py::arg("model") = "", py::arg("explain") = true,
           py::arg("max_trials") = 120, py::arg("max_elements") = int64_t{1} << 20)
      .def("tensor", &PyStore::tensor, py::arg("run"), py::arg("node"));
}

}  // namespace ig::python
