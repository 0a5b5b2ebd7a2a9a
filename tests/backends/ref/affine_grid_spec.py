#!/usr/bin/env python3
"""AffineGrid-20 on ref against ONNX 1.23's reference implementation (onnx.reference): 2-D and
3-D, align_corners 0 and 1, an axis of one pixel; bit for bit in float32 (both compute the
coordinates and the product in double and round once). Then AffineGrid into GridSample, the pair
a spatial transformer exports, within 1e-6 of the reference. A size that does not fit theta is
refused naming the node.
  tests/backends/ref/affine_grid_spec.py INFERGAP WORK_DIR
Runs in scripts/setup's venv (onnx, numpy); exits 77 without it.
"""
import sys

import spec_venv

INFERGAP = spec_venv.enter("affine_grid_spec")

import json  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto as T, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

rng = np.random.default_rng(20)
CASES = {
    "2d_align0": (rng.normal(size=(2, 2, 3)), [2, 3, 5, 7], 0),
    "2d_align1": (rng.normal(size=(2, 2, 3)), [2, 1, 6, 1], 1),
    "3d_align0": (rng.normal(size=(1, 3, 4)), [1, 2, 3, 4, 5], 0),
    "3d_align1": (rng.normal(size=(2, 3, 4)), [2, 1, 1, 3, 4], 1),
}


def run(name, feeds):
    args = []
    for n, a in feeds.items():
        np.save(f"{name}.{n}.npy", a)
        args += ["--input", f"{n}={name}.{n}.npy"]
    out = subprocess.run([INFERGAP, "run", f"{name}.onnx", *args, "-p", "ref", "--save-outputs",
                          f"out_{name}", "--json"], capture_output=True, text=True)
    return out, json.loads(out.stdout)["platforms"][0] if out.stdout.startswith("{") else None


ok = True
for name, (theta, size, align) in CASES.items():
    theta = theta.astype(np.float32)
    gshape = [size[0], *size[2:], len(size) - 2]
    node = helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="ag",
                            align_corners=align)
    graph = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info("theta", T.FLOAT, list(theta.shape))],
                              [helper.make_tensor_value_info("grid", T.FLOAT, gshape)],
                              [numpy_helper.from_array(np.array(size, np.int64), "size")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=9)
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, f"{name}.onnx")
    want = ReferenceEvaluator(m).run(None, {"theta": theta})[0]
    _, p = run(name, {"theta": theta})
    got = np.load(f"out_{name}/ref/grid.npy") if p and p["verdict"] == "ok" else None
    same = got is not None and got.shape == want.shape and np.array_equal(got.view(np.uint32),
                                                                          want.view(np.uint32))
    print(f"affine_grid_spec: {name}: {want.shape} bit for bit: {same}")
    ok = ok and same

# A spatial transformer: AffineGrid into GridSample (bilinear, zeros padding).
theta = np.array([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.05]]], np.float32)
x = rng.normal(size=(1, 2, 6, 8)).astype(np.float32)
nodes = [helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="ag", align_corners=0),
         helper.make_node("GridSample", ["x", "grid"], ["y"], name="gs", align_corners=0)]
graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, [1, 2, 6, 8])],
                          [helper.make_tensor_value_info("y", T.FLOAT, [1, 2, 6, 8])],
                          [numpy_helper.from_array(theta, "theta"),
                           numpy_helper.from_array(np.array([1, 2, 6, 8], np.int64), "size")])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=9)
onnx.checker.check_model(m, full_check=True)
onnx.save(m, "stn.onnx")
want = ReferenceEvaluator(m).run(None, {"x": x})[0]
_, p = run("stn", {"x": x})
got = np.load("out_stn/ref/y.npy") if p and p["verdict"] == "ok" else None
err = float(np.max(np.abs(got - want))) if got is not None else float("inf")
print(f"affine_grid_spec: AffineGrid -> GridSample: max |difference| {err:.3g}")
ok = ok and err <= 1e-6

# theta of the 3-D form with a 2-D size: refused, naming the node.
node = helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="bad_ag")
graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("theta", T.FLOAT, [1, 3, 4])],
                          [helper.make_tensor_value_info("grid", T.FLOAT, [1, 4, 4, 2])],
                          [numpy_helper.from_array(np.array([1, 1, 4, 4], np.int64), "size")])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=9),
          "bad.onnx")
out, p = run("bad", {"theta": np.zeros((1, 3, 4), np.float32)})
text = out.stdout + out.stderr
refused = (p is None or p["verdict"] != "ok") and "bad_ag" in text and "theta" in text
print(f"affine_grid_spec: a theta that does not fit size is refused naming the node: {refused}")
ok = ok and refused
sys.exit(0 if ok else 1)
