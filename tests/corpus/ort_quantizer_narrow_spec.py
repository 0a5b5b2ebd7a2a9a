#!/usr/bin/env python3
"""ResNet-18 of the corpus quantized by ONNX Runtime's own quantizer to the narrow types
(core/narrow_types.h): FP8 QDQ (float8e4m3fn activations and weights, opset 19) and int4 weights
(com.microsoft.DequantizeLinear, opset 13). On each, ref, the oracle and ORT run every node and
ref's output is ORT's bit for bit; optimized, ORT refuses its own FP8 model (its QDQ fusion makes
a QLinearConv of float8 inputs, docs/LIMITS.md), which this test holds it to.
  tests/corpus/ort_quantizer_narrow_spec.py INFERGAP WORK_DIR CORPUS_DIR
Runs in scripts/setup --tests's venv (onnxruntime); exits 77 without it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends",
                                "ref"))
import spec_venv  # noqa: E402

CORPUS = os.path.abspath(sys.argv[3])
INFERGAP = spec_venv.enter("ort_quantizer_narrow_spec", needs=("onnxruntime",), fresh=True)

import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod,  # noqa: E402
                                      QuantFormat, QuantType, quantize_static)


class Samples(CalibrationDataReader):
    def __init__(self, name, shape):
        rng = np.random.default_rng(0)
        self.batches = iter([{name: rng.random(shape, np.float32)} for _ in range(4)])

    def get_next(self):
        return next(self.batches, None)


def quantize(src, dst, fp8):
    model = onnx.load(src)
    x = model.graph.input[0]
    shape = [d.dim_value or 1 for d in x.type.tensor_type.shape.dim]
    narrow = QuantType.QFLOAT8E4M3FN if fp8 else QuantType.QInt4
    quantize_static(src, dst, Samples(x.name, shape), quant_format=QuantFormat.QDQ,
                    activation_type=narrow if fp8 else QuantType.QUInt8, weight_type=narrow,
                    calibrate_method=CalibrationMethod.Distribution if fp8
                    else CalibrationMethod.MinMax,
                    op_types_to_quantize=["Conv", "Gemm", "MatMul"],
                    extra_options={"ActivationSymmetric": True, "WeightSymmetric": True}
                    if fp8 else {})


def cli(*args):
    r = subprocess.run([INFERGAP, *args], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"infergap {' '.join(args)}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return r.stdout


def main():
    corpus_model = os.path.join(CORPUS, "resnet18.opset13.onnx")
    if not os.path.exists(corpus_model):
        sys.exit(f"no {corpus_model} (scripts/corpus)")
    # The quantizer writes MODEL-inferred.onnx beside its input and deletes it: a copy in this
    # test's own folder, so that tests quantizing the corpus model at once do not collide.
    src = "resnet18.opset13.onnx"
    shutil.copy(corpus_model, src)
    x = os.path.join(CORPUS, "resnet18.x.npy")
    for name, fp8 in (("r18_fp8", True), ("r18_int4w", False)):
        quantize(src, f"{name}.onnx", fp8)
        store = f"{name}.db"
        cli("study", "--model", f"{name}.onnx", "--input", f"x={x}", "-p", "ref", "-p", "ort",
            "-p", "ort:opt=disabled", "--store", store, "--no-report")
        matrix = json.loads(cli("compare", "--store", store, "--json"))["eqc_matrix"]
        # platform -> its class on the one case ("A", "B", ...; "*" marks a new one) or verdict
        classes = {p: cells[0].rstrip("*") for p, cells in matrix.items()}
        if classes["ref"] != classes["ort:opt=disabled"]:
            sys.exit(f"{name}: ref and ort:opt=disabled differ: {classes}")
        want_ort = "unsupported" if fp8 else classes["ref"]
        if classes["ort"] != want_ort:
            sys.exit(f"{name}: ort is '{classes['ort']}', wanted '{want_ort}': {classes}")
        print(f"ort_quantizer_narrow_spec: {name}: {classes}")
    print("ort_quantizer_narrow_spec: ok")


if __name__ == "__main__":
    main()
