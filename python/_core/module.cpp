#include <pybind11/pybind11.h>

#include "core.h"

namespace ig::python {

// Thrown, not set: the GIL may be released here; the translator below runs once it is held.
void raise(const Status& status) { throw StatusError(status); }

}  // namespace ig::python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  m.doc() = "infergap's C++ core: stores, studies and the analyses the CLI prints";
  static py::exception<ig::StatusError> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ig::StatusError& e) {
      // The CLI's message, without the status code's name.
      PyErr_SetString(error.ptr(), e.status().message().c_str());
    }
  });
  ig::python::bind_store(m);
  ig::python::bind_study(m);
}
