#!/usr/bin/python3
"""The corpus's reduced-precision test: a few architectures that scripts/corpus exported are
quantized (`infergap quantize`, static QDQ as ONNX Runtime's quantizer writes it) and converted
(`infergap convert --to fp16 --keep-io`), then run with `infergap run --json --save-outputs` on the
platforms that run them. Each output must be within the stated bound of torch's float output, and
the integer kernels that follow exact int32 arithmetic must agree with the emulator's
`ref:qdq=int` as stated below.

    tests/corpus/run_reduced.py --cli build/infergap [--corpus out/corpus] [--only NAME,...]

Error of an output y against a reference r: max|y - r| / max|r| (run_corpus.py's measure).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_corpus import rel_error, sanitize  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "transformer_encoder"]
OPSET = 13

# int8 (u8 activations, s8 per-channel weights, minmax on the test's input) against torch's
# float output, per model. Measured here (2-core EPYC with VNNI, max-abs relative): ResNet-18
# 0.10 to 0.15 (oneDNN avx2, whose first convolution saturates int16 pair sums), MobileNetV2
# 0.34 to 0.61 (per-tensor activations after depthwise convolutions are known to quantize
# badly; avx2 again the worst), the encoder 0.03 to 0.09.
# `quantize --layout inputs` (int8-inputs) is within the same bounds (measured 0.08 to 0.14,
# 0.42 to 0.65, 0.013 to 0.105).
INT8_BOUND = {"resnet18": 0.25, "mobilenet_v2": 0.8, "transformer_encoder": 0.15}
INT8 = {
    "ref": "ref",
    "ref:qdq=int": "ref:qdq=int",
    "ref:sat16": "ref:madd=sat16,qdq=int",
    "ort-disabled": "ort:opt=disabled",
    "ort-all": "ort:opt=all",
    "onednn-avx2": "onednn:fallback=ref,isa=avx2",
    "onednn-vnni": "onednn:fallback=ref,isa=avx512_core_vnni",
    "xnnpack": "xnnpack:fallback=ref",
}
# Integer kernels with exact int32 sums and ONNX Runtime's requantization: where they run every
# group as `ref:qdq=int` forms it, the graph output is ref:qdq=int's bit for bit (measured, per
# layout). Not listed, and why:
# - our layout (int8): xnnpack on MobileNetV2 refuses Conv -> Clip groups, which fallback=ref runs
#   in float; oneDNN ends a library group before a Clip (its reorder then quantizes the Clip's
#   output, multiplying by 1 / scale where ONNX divides: a tie may round the other way).
# - inputs only (int8-inputs, ort-inputs-pc-u8): XNNPACK refuses a group without a QuantizeLinear
#   (its int8 operators write 8 bits) and fallback=ref runs it in float; on our layout ONNX Runtime
#   differs from the residual Adds on (`origins --a ref:qdq=int --b ort`: it fuses Conv and Add in
#   float), on its own quantizer's it is bit for bit; on MobileNetV2 oneDNN's reorder rounds a
#   lone QuantizeLinear as above; on the encoder, with no
#   QuantizeLinear after them to hide it, oneDNN's float kernels (Softmax, the activation x
#   activation MatMuls) differ from ref's in the last bits (measured: `origins --a --b`).
# - onednn-avx2: its float kernels (pools, Add) sum in other orders than ref; its int8 groups are
#   `ref:qdq=int,madd=sat16` node by node (`explain`, tests/cli/inputs_only_qdq_cli_test.cpp).
# onednn-vnni runs only where the CPU has avx512_vnni.
EXACT_KERNELS = {
    "int8": {"resnet18": ["ort-all", "xnnpack", "onednn-vnni"], "mobilenet_v2": ["ort-all"],
             "transformer_encoder": ["ort-all", "xnnpack", "onednn-vnni"]},
    "int8-inputs": {"resnet18": ["onednn-vnni"]},
    "ort-qdq-pc-u8": {"resnet18": ["ort-all", "xnnpack"],
                      "mobilenet_v2": ["ort-all", "xnnpack", "onednn-vnni"],
                      "transformer_encoder": ["xnnpack"]},
    "ort-qdq-pt-s8": {m: ["ort-all", "xnnpack", "onednn-vnni"] for m in MODELS},
    "ort-inputs-pc-u8": {"resnet18": ["ort-all", "onednn-vnni"],
                         "mobilenet_v2": ["ort-all", "onednn-vnni"],
                         "transformer_encoder": ["xnnpack", "onednn-vnni"]},
    # QOperator: ORT's QLinear* kernels against ref's (QGemm: the qdq=int kernel); XNNPACK and
    # oneDNN run QLinearConv, QLinearMatMul and QGemm as their groups' integer kernels. On
    # ResNet-18 oneDNN adds the output zero point before rounding (`explain`:
    # ref:qdq=int,requant=float-zp), and one tie in 16,384 rounds the other way.
    "ort-qop-pc-u8": {"resnet18": ["ort-all", "ort-disabled", "xnnpack"],
                      "mobilenet_v2": ["ort-all", "ort-disabled", "xnnpack", "onednn-vnni"],
                      "transformer_encoder": ["ort-all", "ort-disabled", "xnnpack",
                                              "onednn-vnni"]},
    # ModelOpt leaves Conv outputs and the classifier in float: on the CNNs float kernels follow
    # the int8 groups and differ from ref's in the last bits (ResNet-18 3e-7 on onednn-vnni).
    "modelopt-int8": {"transformer_encoder": ["xnnpack", "onednn-vnni"]},
}
# int8 models from ONNX Runtime's quantizer (tests/corpus/toolchain_quantize.py, in the venv):
# per-channel u8 QDQ, per-tensor s8 QDQ, QDQ on the inputs of Conv/Gemm/MatMul only, and the
# QOperator format (QLinearConv, com.microsoft's QLinearAdd, QGemm, QLinearSoftmax...: ref's
# kernels, ORT's; oneDNN and XNNPACK refuse them as nodes and fallback=ref runs them on ref),
# NNCF's quantize (s8 activations, float biases: oneDNN runs its groups, XNNPACK and PyTorch
# refuse them; a convolution and the classifier it leaves in float, where oneDNN's FMA differs
# from ref) and NVIDIA ModelOpt's ONNX PTQ (s8 activations on the inputs of Conv and pools, Conv
# outputs and the classifier in float: the groups without a QuantizeLinear that TensorRT's
# explicit quantization takes), against torch's float output. Measured here: see
# TOOLCHAIN_BOUND's comment.
TOOLCHAIN_QUANTIZE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "toolchain_quantize.py")
TOOLCHAINS = ("ort-qdq-pc-u8", "ort-qdq-pt-s8", "ort-inputs-pc-u8", "ort-qop-pc-u8", "nncf-qdq",
              "modelopt-int8")
# Measured (2-core EPYC with VNNI): ResNet-18 0.08 to 0.18, 0.36 on onednn-avx2 with per-tensor
# s8 activations (oneDNN halves the weights for s8 x s8 on avx2: ref:qdq=int,wbits=7);
# MobileNetV2 0.33 to 0.74 (per-tensor weights after depthwise convolutions); the encoder 0.01
# to 0.12 (onednn-avx2 the worst). NVIDIA ModelOpt's int8 (entropy calibration): ResNet-18 0.12
# to 0.16, MobileNetV2 0.54 to 0.62, the encoder 0.015 to 0.12 (onednn-avx2 the worst each time).
TOOLCHAIN_BOUND = {"resnet18": 0.5, "mobilenet_v2": 1.0, "transformer_encoder": 0.2}
# fp16 (--keep-io: float32 input and output) against torch's float output.
# Measured: ResNet-18 3e-3, MobileNetV2 3e-2, the encoder 1.4e-3.
FP16_BOUND = {"resnet18": 1e-2, "mobilenet_v2": 6e-2, "transformer_encoder": 1e-2}
FP16 = {"ref": "ref", "ort-all": "ort:opt=all", "torch+ref": "torch:fallback=ref"}


def cpu_has(flag):
    try:
        return flag in open("/proc/cpuinfo").read().split()
    except OSError:
        return False


def run(cli, model, entry, corpus, specs, out_dir):
    cmd = [cli, "run", model, "--json", "--save-outputs", out_dir]
    for name, file in entry["inputs"].items():
        cmd += ["--input", f"{name}={os.path.join(corpus, file)}"]
    for s in specs:
        cmd += ["-p", s]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
    report = json.loads(proc.stdout)
    out = {}
    for p in report["platforms"]:
        if p["verdict"] != "ok":
            out[p["spec"]] = p["verdict"] + ": " + p.get("reason", "")
            continue
        out[p["spec"]] = {o["name"]: np.load(os.path.join(out_dir, sanitize(p["spec"]),
                                                          sanitize(o["name"]) + ".npy"))
                          for o in p["outputs"]}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--corpus", default="out/corpus")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    manifest = json.load(open(os.path.join(args.corpus, "manifest.json")))
    names = args.only.split(",") if args.only else MODELS
    int8 = dict(INT8)
    if not cpu_has("avx512_vnni"):
        del int8["onednn-vnni"]
    failures, rows, skipped = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            entry = next((m for m in manifest["models"]
                          if m["name"] == name and m["opset"] == OPSET), None)
            if entry is None:
                failures.append(f"{name}: not in the corpus")
                continue
            parent = os.path.join(args.corpus, entry["model"])
            torch_out = {o: np.load(os.path.join(args.corpus, f))
                         for o, f in entry["torch_outputs"].items()}
            # Calibrated on the input the test runs, as a user calibrates on their data.
            calibrate = []
            for n, f in entry["inputs"].items():
                calibrate += ["--calibrate", f"{n}={os.path.join(args.corpus, f)}"]
            feeds = [f"{n}={os.path.join(args.corpus, f)}" for n, f in entry["inputs"].items()]
            variants = {
                "int8": (lambda out: [args.cli, "quantize", parent, "-o", out] + calibrate, int8,
                         INT8_BOUND[name]),
                "int8-inputs": (lambda out: [args.cli, "quantize", parent, "-o", out,
                                             "--layout", "inputs"] + calibrate, int8,
                                INT8_BOUND[name]),
                "fp16": (lambda out: [args.cli, "convert", parent, "--to", "fp16", "--keep-io",
                                      "-o", out], FP16, FP16_BOUND[name]),
            }
            for layout in TOOLCHAINS:
                variants[layout] = (
                    lambda out, layout=layout: [TOOLCHAIN_QUANTIZE, parent, out, layout] + feeds,
                    int8, TOOLCHAIN_BOUND[name])
            for kind, (make, families, bound) in variants.items():
                derived = os.path.join(tmp, f"{name}.{kind}.onnx")
                proc = subprocess.run(make(derived), capture_output=True, text=True)
                if proc.returncode == 77 and kind in TOOLCHAINS:
                    skipped.append(f"{name} {kind}: {proc.stdout.strip()}")
                    continue
                if proc.returncode != 0:
                    failures.append(f"{name} {kind}: {' '.join(make(derived))}: "
                                    f"{proc.stderr.strip()[-800:]}")
                    continue
                outs = run(args.cli, derived, entry, args.corpus, list(families.values()),
                           os.path.join(tmp, f"{name}.{kind}"))
                emulated = outs.get("ref:qdq=int")
                for family, spec in families.items():
                    o = outs.get(spec)
                    if not isinstance(o, dict):
                        failures.append(f"{name} {kind} {family}: {o}")
                        continue
                    err = max(rel_error(o[k], torch_out[k])[0] for k in torch_out)
                    row = f"{name:20} {kind} {family:13} vs torch float {err:.2e}"
                    if err > bound:
                        failures.append(f"{row} > {bound}")
                    exact = EXACT_KERNELS.get(kind, {}).get(name, [])
                    if family in exact and isinstance(emulated, dict):
                        e = max(rel_error(o[k], emulated[k])[0] for k in torch_out)
                        same = all(np.array_equal(o[k], emulated[k]) for k in torch_out)
                        row += f", vs ref:qdq=int {e:.2e}" + (" (bit for bit)" if same else "")
                        if not same:
                            failures.append(f"{row}: not ref:qdq=int bit for bit")
                    rows.append(row)
    print("\n".join(rows))
    if skipped:
        print("skipped (no venv):\n  " + "\n  ".join(skipped))
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print(f"reduced precision: {len(rows)} (model, variant, platform) within their bounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
