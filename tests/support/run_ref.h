// Test helper: a model whose one input is "x", run on the reference backend; its first output.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "backends/ref/ref_backend.h"
#include "model/onnx_model.h"

namespace ig::testing {

inline Tensor run_ref_on_x(onnx::ModelProto proto, const Tensor& x) {
  auto model = model_from_proto(proto, "m", "", LoadOptions{});
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  if (!model.ok()) return {};
  RefBackend ref;
  auto outs = ref.run(*model, {{"x", x}}, nullptr);
  EXPECT_TRUE(outs.ok()) << outs.status().to_string();
  return outs.ok() ? (*outs)[0].tensor : Tensor();
}

}  // namespace ig::testing
