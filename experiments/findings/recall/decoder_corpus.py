#!/usr/bin/env python3
"""The recall benchmark's `decoder` corpus: decoder parts written with ONNX Runtime's contrib
operators in configurations real exports use, with seeded weights (run with the venv's python).

    experiments/findings/recall/decoder_corpus.py DIR

  mha_past_scoring.onnx  a decoder attention layer that scores new tokens against a cached
                         prefix: q/k/v projections into com.microsoft.MultiHeadAttention with
                         past_key/past_value inputs, and no present outputs (a scorer keeps no
                         cache), then the output projection
  q4_act_order_mlp.onnx  a decoder MLP whose two weights are 4-bit com.microsoft.MatMulNBits as
                         GPTQ with act-order writes them: a g_idx naming each input channel's
                         block (channels quantized in order of importance), packed uint8 zero
                         points, blocks of 16
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

WIDTH, HEADS, SEQ, PAST, HIDDEN, BITS, BLOCK = 64, 2, 4, 6, 128, 4, 16


def save(path, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, os.path.basename(path)[:-5], inputs, outputs,
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def mha_past_scoring(rng, path):
    w = {f"W{p}": (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
         for p in "qkvo"}
    nodes = [helper.make_node("MatMul", ["x", f"W{p}"], [p], name=f"proj_{p}") for p in "qkv"]
    nodes.append(helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "", "", "past_key",
                                                          "past_value"], ["attn"],
                                  domain="com.microsoft", name="attention", num_heads=HEADS))
    nodes.append(helper.make_node("MatMul", ["attn", "Wo"], ["y"], name="proj_o"))
    past = [1, HEADS, PAST, WIDTH // HEADS]
    save(path, nodes, [helper.make_tensor_value_info("x", T.FLOAT, [1, SEQ, WIDTH]),
                       helper.make_tensor_value_info("past_key", T.FLOAT, past),
                       helper.make_tensor_value_info("past_value", T.FLOAT, past)],
         [helper.make_tensor_value_info("y", T.FLOAT, [1, SEQ, WIDTH])], w)


def act_order_weight(rng, k, n, prefix):
    """MatMulNBits' inputs for a [k, n] weight: each input channel's block is named by g_idx
    (channels ranked by a seeded importance, BLOCK of them a block), codes stay in channel order."""
    w = rng.standard_normal((n, k)).astype(np.float32) / np.sqrt(k)
    blocks = k // BLOCK
    g_idx = np.empty(k, np.int32)
    g_idx[np.argsort(-rng.random(k))] = np.arange(k) // BLOCK
    scales = np.empty((n, blocks), np.float32)
    zeros = np.empty((n, blocks), np.uint8)
    codes = np.empty((n, k), np.uint8)
    top = (1 << BITS) - 1
    for g in range(blocks):
        cols = g_idx == g
        lo, hi = np.minimum(w[:, cols].min(1), 0), np.maximum(w[:, cols].max(1), 0)
        scales[:, g] = (hi - lo) / top
        zeros[:, g] = np.clip(np.round(-lo / scales[:, g]), 0, top)
        codes[:, cols] = np.clip(np.round(w[:, cols] / scales[:, g:g + 1]) + zeros[:, g:g + 1],
                                 0, top)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).reshape(n, blocks, BLOCK // 2)
    zp_packed = np.zeros((n, (blocks + 1) // 2), np.uint8)
    for g in range(blocks):
        zp_packed[:, g // 2] |= zeros[:, g] << (4 * (g % 2))
    return {f"{prefix}_b": packed, f"{prefix}_scales": scales.reshape(-1),
            f"{prefix}_zp": zp_packed, f"{prefix}_g_idx": g_idx}


def q4_act_order_mlp(rng, path):
    inits = {**act_order_weight(rng, WIDTH, HIDDEN, "up"),
             **act_order_weight(rng, HIDDEN, WIDTH, "down")}
    nodes = []
    for prefix, src, dst, k, n in (("up", "x", "h", WIDTH, HIDDEN),
                                   ("down", "a", "y", HIDDEN, WIDTH)):
        nodes.append(helper.make_node(
            "MatMulNBits", [src, f"{prefix}_b", f"{prefix}_scales", f"{prefix}_zp",
                            f"{prefix}_g_idx"], [dst], domain="com.microsoft",
            name=f"mlp_{prefix}", K=k, N=n, bits=BITS, block_size=BLOCK))
        if prefix == "up":
            nodes.append(helper.make_node("Relu", ["h"], ["a"], name="act"))
    save(path, nodes, [helper.make_tensor_value_info("x", T.FLOAT, [1, SEQ, WIDTH])],
         [helper.make_tensor_value_info("y", T.FLOAT, [1, SEQ, WIDTH])], inits)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(55)
    mha_past_scoring(rng, os.path.join(out, "mha_past_scoring.onnx"))
    q4_act_order_mlp(rng, os.path.join(out, "q4_act_order_mlp.onnx"))
    print(f"decoder_corpus: 2 models in {out}")


if __name__ == "__main__":
    main()
