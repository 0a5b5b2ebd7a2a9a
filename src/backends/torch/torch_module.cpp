// The entry point of libinfergap_torch.so, which the `torch` binding dlopens in a worker.
#include "backends/torch/torch_backend.h"

extern "C" __attribute__((visibility("default"))) ig::Backend* infergap_make_torch_backend(
    const ig::TorchOptions* options, std::string* error) {
  try {
    return new ig::TorchBackend(*options);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
}
