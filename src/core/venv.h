// The Python environment scripts/setup makes (.venv, from python/requirements/*.lock): where the
// onnx package's checker and PyPI's ONNX Runtime run.
#pragma once

#include <string>

namespace ig {

// $INFERGAP_PYTHON, else the source tree's .venv/bin/python.
std::string venv_python();
// A file of the source tree, from its path relative to the tree's root (src/model/onnx_checker.py).
std::string source_file(const std::string& relative);

}  // namespace ig
