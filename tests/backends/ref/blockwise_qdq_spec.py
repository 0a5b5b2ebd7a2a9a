#!/usr/bin/env python3
"""Block-wise QuantizeLinear/DequantizeLinear (opset 21) and int4/uint4 weights on ref, the fp64
oracle and ONNX Runtime 1.31, against a numpy transcription of the definition: y = (q - zp) *
scale with the scale and zero point of each element's block along `axis`. Cases: int4 weights
with a zero point into a MatMul (weight-only 4-bit, as ORT's and ModelOpt's QDQ models write
it), uint4 weights in blocks that do not divide the axis, and an int8 QuantizeLinear ->
DequantizeLinear round trip of activations in blocks. ref's dequantized weights are the
transcription bit for bit; every platform's output is within 1e-5 of it. An int4 QuantizeLinear
output is refused by name.
  tests/backends/ref/blockwise_qdq_spec.py INFERGAP WORK_DIR
Runs in scripts/setup's venv (onnx, onnxruntime, numpy); exits 77 without it.
"""
import sys

import spec_venv

INFERGAP = spec_venv.enter("blockwise_qdq_spec")

import json  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto as T, helper, numpy_helper  # noqa: E402

rng = np.random.default_rng(21)
PLATFORMS = ["ref", "ref:acc=exact,dtype=fp64", "ort"]


def expand(p, axis, block, n):
    """The per-block parameter repeated over each block's elements along `axis`."""
    return np.repeat(p, block, axis=axis).take(range(n), axis=axis)


def save(name, nodes, inputs, outputs, inits, opsets=(("", 21),), ir=10):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    m.ir_version = ir
    onnx.checker.check_model(m)
    onnx.save(m, f"{name}.onnx")


def weight_case(name, elem, lo, hi, k, n, block):
    q = rng.integers(lo, hi + 1, size=(k, n))
    blocks = -(-k // block)
    scale = (rng.random((blocks, n)) * 0.1 + 0.01).astype(np.float32)
    zp = rng.integers(lo, hi + 1, size=(blocks, n))
    inits = [helper.make_tensor("Wq", elem, [k, n], q.ravel().tolist()),
             numpy_helper.from_array(scale, "Ws"),
             helper.make_tensor("Wz", elem, [blocks, n], zp.ravel().tolist())]
    nodes = [helper.make_node("DequantizeLinear", ["Wq", "Ws", "Wz"], ["W"], name="dq",
                              axis=0, block_size=block),
             helper.make_node("MatMul", ["X", "W"], ["Y"], name="mm"),
             helper.make_node("Identity", ["W"], ["Wout"], name="w_out")]
    save(name, nodes, [helper.make_tensor_value_info("X", T.FLOAT, [2, k])],
         [helper.make_tensor_value_info("Y", T.FLOAT, [2, n]),
          helper.make_tensor_value_info("Wout", T.FLOAT, [k, n])], inits)
    x = rng.standard_normal((2, k)).astype(np.float32)
    np.save(f"{name}.X.npy", x)
    w = ((q - expand(zp, 0, block, k)).astype(np.float32) * expand(scale, 0, block, k))
    return {"Wout": w.astype(np.float32), "Y": x.astype(np.float64) @ w.astype(np.float64)}


def contrib_case(name):
    """ONNX Runtime's quantizer below opset 21: int4 weights per output channel through
    com.microsoft.DequantizeLinear (its own version of the operator, opset 13 models)."""
    k, n = 24, 6
    q = rng.integers(-8, 8, size=(k, n))
    scale = (rng.random(n) * 0.1 + 0.01).astype(np.float32)
    zp = rng.integers(-8, 8, size=n)
    inits = [helper.make_tensor("Wq", T.INT4, [k, n], q.ravel().tolist()),
             numpy_helper.from_array(scale, "Ws"), helper.make_tensor("Wz", T.INT4, [n], zp)]
    nodes = [helper.make_node("DequantizeLinear", ["Wq", "Ws", "Wz"], ["W"], name="dq", axis=1,
                              domain="com.microsoft"),
             helper.make_node("MatMul", ["X", "W"], ["Y"], name="mm"),
             helper.make_node("Identity", ["W"], ["Wout"], name="w_out")]
    save(name, nodes, [helper.make_tensor_value_info("X", T.FLOAT, [2, k])],
         [helper.make_tensor_value_info("Y", T.FLOAT, [2, n]),
          helper.make_tensor_value_info("Wout", T.FLOAT, [k, n])], inits,
         opsets=(("", 13), ("com.microsoft", 1)), ir=9)
    x = rng.standard_normal((2, k)).astype(np.float32)
    np.save(f"{name}.X.npy", x)
    w = (q - zp).astype(np.float32) * scale
    return {"Wout": w, "Y": x.astype(np.float64) @ w.astype(np.float64)}


def activation_case(name, block):
    x = rng.standard_normal((3, 10)).astype(np.float32) * 4
    blocks = -(-10 // block)
    scale = (rng.random((3, blocks)) * 0.05 + 0.02).astype(np.float32)
    zp = rng.integers(-5, 6, size=(3, blocks)).astype(np.int8)
    nodes = [helper.make_node("QuantizeLinear", ["X", "S", "Z"], ["q"], name="q", axis=1,
                              block_size=block),
             helper.make_node("DequantizeLinear", ["q", "S", "Z"], ["Y"], name="dq", axis=1,
                              block_size=block)]
    save(name, nodes, [helper.make_tensor_value_info("X", T.FLOAT, [3, 10])],
         [helper.make_tensor_value_info("Y", T.FLOAT, [3, 10])],
         [numpy_helper.from_array(scale, "S"), numpy_helper.from_array(zp, "Z")])
    np.save(f"{name}.X.npy", x)
    s, z = expand(scale, 1, block, 10), expand(zp, 1, block, 10).astype(np.float32)
    q = np.clip(np.round(x / s) + z, -128, 127)  # numpy rounds half to even, as ONNX does
    return {"Y": ((q - z) * s).astype(np.float32)}


def run(name):
    r = subprocess.run([INFERGAP, "run", f"{name}.onnx", "--input", f"X={name}.X.npy",
                        *sum((["-p", p] for p in PLATFORMS), []), "--save-outputs", name,
                        "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{name}: infergap run exited {r.returncode}\n{r.stderr}")
    return json.loads(r.stdout)


def folder(spec):
    return "".join(c if c.isalnum() or c in "-_.=" else "_" for c in spec)


def check(name, expected, exact):
    run(name)
    for p in PLATFORMS:
        for out, want in expected.items():
            got = np.load(f"{name}/{folder(p)}/{out}.npy").astype(np.float64)
            err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
            assert err <= 1e-5, f"{name} {p} {out}: relative error {err}"
            if p == "ref" and out in exact:
                assert np.array_equal(got.astype(np.float32), want.astype(np.float32)), \
                    f"{name} ref {out}: not bit for bit"


check("int4_weights", weight_case("int4_weights", T.INT4, -8, 7, 64, 16, 32), {"Wout"})
check("uint4_weights", weight_case("uint4_weights", T.UINT4, 0, 15, 40, 8, 16), {"Wout"})
check("int8_blocks", activation_case("int8_blocks", 4), {"Y"})
check("contrib_int4", contrib_case("contrib_int4"), {"Wout"})

# An int4 output (QuantizeLinear to int4, core/narrow_types.h): round half to even, saturate to
# [-8, 7]; ref and the oracle give the same codes (ORT's onnxruntime-node hands out no int4).
nodes = [helper.make_node("QuantizeLinear", ["X", "S", "Z"], ["Y"], name="q4")]
save("q4", nodes, [helper.make_tensor_value_info("X", T.FLOAT, [5])],
     [helper.make_tensor_value_info("Y", T.INT4, [5])],
     [numpy_helper.from_array(np.array(0.5, np.float32), "S"),
      helper.make_tensor("Z", T.INT4, [], [1])])
np.save("q4.X.npy", np.array([-5, -0.75, 0.25, 3.9, 1.25], np.float32))
r = subprocess.run([INFERGAP, "run", "q4.onnx", "--input", "X=q4.X.npy", "-p", "ref", "-p",
                    "ref:acc=exact,dtype=fp64", "--save-outputs", "q4"], capture_output=True,
                   text=True)
assert r.returncode == 0, r.stderr
for p in ("ref", "ref:acc=exact,dtype=fp64"):
    got = np.load(f"q4/{folder(p)}/Y.npy")  # int4 is written as float32
    assert np.array_equal(got, [-8, -1, 1, 7, 3]), f"q4 {p}: {got}"
print("blockwise_qdq_spec: ok (int4 and uint4 weights, int8 blocks, com.microsoft int4; ref, oracle, ORT; int4 out)")
