// Which nodes run as one oneDNN primitive with post-ops: a head (Conv, Gemm, MatMul, binary,
// eltwise) followed by a chain of eltwise or binary nodes, each the only reader of the value
// before it. The group runs at the position of its last node.
#pragma once

#include <functional>

#include "backends/library/node_groups.h"
#include "model/graph.h"

namespace ig::onednn {

// `native(node)`: oneDNN runs the node itself (not the reference fallback).
NodeGroups plan_fusion(const Model& model, const std::function<bool(const Node&)>& native);

}  // namespace ig::onednn
