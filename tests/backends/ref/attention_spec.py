#!/usr/bin/env python3
"""Attention-23 on ref against ONNX 1.23's reference implementation of its definition
(onnx.reference), over the cases that tell its parts apart: 4-D multi-head, 3-D grouped-query with
a KV cache and is_causal (offset by the cache), boolean and additive masks shorter than the keys,
a fully masked query row, softcap, a custom scale, every qk_matmul_output mode, and Attention-24's
external cache (nonpad_kv_seqlen) with Attention-25's sliding windows. ref's outputs
(Y, present_key, present_value, qk_matmul_output) must be within 2e-6 of the reference's (its
exp and sums are numpy's, ours libm's in order), present_key and present_value bit for bit; the
fp64 oracle within 1e-5. An external cache given beside a past cache is refused with the reason.
  tests/backends/ref/attention_spec.py INFERGAP WORK_DIR
Runs in scripts/setup's venv (onnx, numpy); exits 77 without it.
"""
import sys

import spec_venv

INFERGAP = spec_venv.enter("attention_spec")

import json  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto as T, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

rng = np.random.default_rng(23)
B, HQ, HKV, S, P, D = 2, 4, 2, 5, 3, 8


def f32(*shape):
    return rng.normal(size=shape).astype(np.float32)


causal_pad_mask = rng.random((S, S + P - 2)) > 0.3
causal_pad_mask[1, :] = False  # query 1 attends nothing: a zero row
CASES = {
    "mha_4d": dict(ins={"Q": f32(B, HQ, S, D), "K": f32(B, HQ, S, D), "V": f32(B, HQ, S, 6)},
                   attrs={}),
    "gqa_3d_cache_causal": dict(
        ins={"Q": f32(B, S, HQ * D), "K": f32(B, S, HKV * D), "V": f32(B, S, HKV * D),
             "attn_mask": causal_pad_mask, "past_key": f32(B, HKV, P, D),
             "past_value": f32(B, HKV, P, D)},
        attrs={"q_num_heads": HQ, "kv_num_heads": HKV, "is_causal": 1, "qk_matmul_output_mode": 3}),
    "float_mask_softcap_scale": dict(
        ins={"Q": f32(B, HQ, S, D), "K": f32(B, HKV, S + 1, D), "V": f32(B, HKV, S + 1, D),
             "attn_mask": f32(B, 1, S, S + 1)},
        attrs={"softcap": 2.5, "scale": 0.3, "qk_matmul_output_mode": 2}),
    "softcapped_scores": dict(
        ins={"Q": f32(1, 2, 3, 4) * 4, "K": f32(1, 2, 6, 4), "V": f32(1, 2, 6, 4)},
        attrs={"softcap": 1.5, "qk_matmul_output_mode": 1}),
    # Batch 0 has 4 valid keys of 7, batch 1 all 7; causal from the cache's end, a window of 2
    # keys to the left, an additive mask over the heads.
    "external_cache_window": dict(
        ins={"Q": f32(B, HQ, 3, D), "K": f32(B, HKV, 7, D), "V": f32(B, HKV, 7, D),
             "attn_mask": f32(HQ, 3, 7), "nonpad_kv_seqlen": np.array([4, 7], np.int64)},
        attrs={"is_causal": 1, "left_window_size": 2, "qk_matmul_output_mode": 2}, opset=25),
    "bidirectional_window_3d": dict(
        ins={"Q": f32(B, 4, HQ * D), "K": f32(B, 4, HKV * D), "V": f32(B, 4, HKV * D)},
        attrs={"q_num_heads": HQ, "kv_num_heads": HKV, "left_window_size": 1,
               "right_window_size": 1}, opset=25),
}
INPUTS = ["Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen"]
ELEM = {np.bool_: T.BOOL, np.int64: T.INT64}


def model(name, case):
    ins = case["ins"]
    names = [n if n in ins else "" for n in INPUTS]
    while names and not names[-1]:
        names.pop()
    # An external cache has no present outputs (the checker refuses them beside it).
    node_outs = ["Y"] + (["", ""] if "nonpad_kv_seqlen" in ins else ["present_key", "present_value"])
    if "qk_matmul_output_mode" in case["attrs"]:
        node_outs.append("qk")
    outs = [o for o in node_outs if o]
    node = helper.make_node("Attention", names, node_outs, name="attn", **case["attrs"])
    vi = [helper.make_tensor_value_info(n, ELEM.get(ins[n].dtype.type, T.FLOAT),
                                        list(ins[n].shape)) for n in names if n]
    def build(shapes):
        graph = helper.make_graph([node], "g", vi, [helper.make_tensor_value_info(o, T.FLOAT, sh)
                                                   for o, sh in zip(outs, shapes)])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.get("opset", 23))],
                                 ir_version=10)
    # The reference's outputs give the declared output shapes (the checker wants them).
    results = ReferenceEvaluator(build([None] * len(outs))).run(None, case["ins"])
    m = build([list(r.shape) for r in results])
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, f"{name}.onnx")
    return m, outs


ok = True
for name, case in CASES.items():
    m, outs = model(name, case)
    want = dict(zip(outs, ReferenceEvaluator(m).run(None, case["ins"])))
    args = []
    for n, a in case["ins"].items():
        np.save(f"{name}.{n}.npy", a)
        args += ["--input", f"{n}={name}.{n}.npy"]
    run = subprocess.run([INFERGAP, "run", f"{name}.onnx", *args, "-p", "ref",
                          "-p", "ref:acc=exact,dtype=fp64", "--save-outputs", f"out_{name}",
                          "--json"], capture_output=True, text=True)
    platforms = {p["spec"]: p for p in json.loads(run.stdout)["platforms"]}
    for spec, tol in (("ref", 2e-6), ("ref:acc=exact,dtype=fp64", 1e-5)):
        p = platforms[spec]
        if p["verdict"] != "ok":
            print(f"attention_spec: {name}: {spec}: {p['verdict']} {p.get('reason')}")
            ok = False
            continue
        folder = f"out_{name}/" + spec.replace(":", "_").replace(",", "_")
        for o in outs:
            got = np.load(f"{folder}/{o}.npy").astype(np.float64)
            ref = want[o].astype(np.float64)
            # Masked scores are -inf on both sides (qk_matmul_output_mode 2): equal, no error.
            with np.errstate(invalid="ignore"):
                gap = np.where(got == ref, 0.0, np.abs(got - ref))
            err = float(np.max(gap / np.maximum(1.0, np.abs(ref)))) if ref.size else 0.0
            exact = o.startswith("present") and np.array_equal(got, ref)
            good = got.shape == ref.shape and (exact or (not o.startswith("present") and err <= tol))
            print(f"attention_spec: {name}: {spec}: {o} {got.shape} max error {err:.3g}"
                  f"{' (bit for bit)' if exact else ''}: {'ok' if good else 'WRONG'}")
            ok = ok and good
    if name == "gqa_3d_cache_causal":
        y = np.load(f"out_{name}/ref/Y.npy").reshape(B, S, HQ, D)
        zero_row = bool(np.all(y[:, 1] == 0))
        print(f"attention_spec: {name}: the fully masked query row is zero: {zero_row}")
        ok = ok and zero_row

# An external cache (nonpad_kv_seqlen) beside a past cache is refused, naming the conflict.
q = f32(1, 2, 3, 4)
node = helper.make_node("Attention", ["Q", "K", "V", "", "K", "V", "lens"], ["Y"], name="attn24")
graph = helper.make_graph(
    [node], "g", [helper.make_tensor_value_info("Q", T.FLOAT, [1, 2, 3, 4])],
    [helper.make_tensor_value_info("Y", T.FLOAT, [1, 2, 3, 4])],
    [numpy_helper.from_array(q, "K"), numpy_helper.from_array(q, "V"),
     numpy_helper.from_array(np.array([2], np.int64), "lens")])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)], ir_version=10),
          "a24.onnx")
np.save("a24.Q.npy", q)
run = subprocess.run([INFERGAP, "run", "a24.onnx", "--input", "Q=a24.Q.npy", "-p", "ref"],
                     capture_output=True, text=True)
refused = run.returncode != 0 and "cannot be combined" in run.stdout + run.stderr
print(f"attention_spec: nonpad_kv_seqlen beside a past cache refused with the reason: {refused}")
ok = ok and refused
sys.exit(0 if ok else 1)
