// Which nodes run as one oneDNN primitive with post-ops: a head (Conv, Gemm, MatMul, binary,
// eltwise) followed by a chain of eltwise or binary nodes, each the only reader of the value
// before it (with `bn_post_ops`, a Conv's chain may start with a BatchNormalization); and int8 QDQ
// groups (library/qdq_group.h), planned first, each one integer primitive. A group runs at the
// position of its last node.
#pragma once

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "backends/library/node_groups.h"
#include "backends/onednn/qdq_check.h"
#include "model/graph.h"

namespace ig::onednn {

struct FusionPlan {
  NodeGroups groups;
  std::unordered_map<size_t, QdqGroup> qdq;  // the int8 groups, by their last node
  // With `residual_sum`: the residual Adds of Conv groups that run as oneDNN's sum post-op, by
  // node index: those whose group's result only convolutions and adds read. The sum keeps the
  // convolution on the kernel it picks alone (brgconv, nhwc); a binary add makes oneDNN 2.6 pick
  // jit_1x1 on nChw16c, which a batch norm reading the result runs faster on (ResNet v2).
  std::unordered_set<size_t> sums;
};

// `native(node)`: oneDNN runs the node itself (not the reference fallback).
FusionPlan plan_fusion(const Model& model, const std::function<bool(const Node&)>& native,
                       bool bn_post_ops, bool residual_sum);

}  // namespace ig::onednn
