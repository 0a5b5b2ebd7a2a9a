// infergap._core: the C++ behind the Python package (python/infergap/). Errors become
// infergap.Error carrying the CLI's message.
#pragma once

#include <pybind11/pybind11.h>

#include "core/status.h"

namespace ig::python {

namespace py = pybind11;

// Raises infergap.Error with the status' message (the text the CLI prints after "infergap CMD: ").
[[noreturn]] void raise(const Status& status);

template <typename T>
T value_or_raise(Expected<T> e) {
  if (!e.ok()) raise(e.status());
  return std::move(*e);
}

inline void ok_or_raise(const Status& st) {
  if (!st.ok()) raise(st);
}

void bind_store(py::module_& m);
void bind_study(py::module_& m);

}  // namespace ig::python
