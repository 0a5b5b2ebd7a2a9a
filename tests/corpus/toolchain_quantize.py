#!/usr/bin/env python3
"""Quantizes a float ONNX model with a real toolchain, as users bring int8 models to infergap
(issue #54): ONNX Runtime's static quantizer (onnxruntime.quantization, the version the venv
pins) in the layouts below, NNCF's post-training quantization (its ONNX backend) and NVIDIA
ModelOpt's ONNX PTQ. Calibrated on the given .npy inputs.

    tests/corpus/toolchain_quantize.py MODEL OUT LAYOUT NAME=X.npy [NAME=X.npy ...]

LAYOUT:
  ort-qdq-pc-u8      QDQ format, per-channel s8 weights, u8 asymmetric activations (ORT's default)
  ort-qdq-pt-s8      QDQ format, per-tensor s8 weights, s8 symmetric activations
  ort-inputs-pc-u8   QDQ on the inputs of Conv, Gemm and MatMul only, their outputs left in float
                     (OpTypesToExcludeOutputQuantization: TensorRT's explicit quantization and
                     NVIDIA ModelOpt write this layout)
  ort-qop-pc-u8      QOperator format: QLinearConv, QLinearMatMul and com.microsoft's QLinearAdd,
                     QLinearGlobalAveragePool, QGemm... in the graph, per-channel, u8 activations
  nncf-qdq           NNCF 3.4's nncf.quantize (default preset: s8 symmetric activations,
                     per-channel s8 weights, float biases, fast bias correction)
  modelopt-int8      NVIDIA ModelOpt 0.47's ONNX int8 PTQ on ORT's CPU provider (entropy
                     calibration; opset raised to 19): s8 symmetric activations quantized on the
                     inputs of Conv, pools and one input of each residual Add, per-channel s8
                     weights as float initializers through Q -> DQ, float biases, the classifier
                     Gemm left in float (its GEMV rule), Conv outputs in float

Runs in scripts/setup's venv (re-executed with its python; exit 77 without one).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAYOUTS = ("ort-qdq-pc-u8", "ort-qdq-pt-s8", "ort-inputs-pc-u8", "ort-qop-pc-u8", "nncf-qdq",
           "modelopt-int8")


def enter_venv():
    venv = os.path.join(ROOT, ".venv")
    if os.path.abspath(sys.prefix) == venv:
        return
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        print("toolchain_quantize: skipped: no .venv (scripts/setup --tests)")
        sys.exit(77)
    os.execv(python, [python] + sys.argv)


def main():
    enter_venv()
    import logging

    import numpy as np
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    # The quantizer advises pre-processing on every call; the corpus models are exported clean.
    logging.getLogger().setLevel(logging.ERROR)
    model, out, layout = sys.argv[1:4]
    if layout not in LAYOUTS:
        raise SystemExit(f"toolchain_quantize: unknown layout '{layout}' (one of {LAYOUTS})")
    feeds = {}
    for arg in sys.argv[4:]:
        name, path = arg.split("=", 1)
        feeds[name] = np.load(path)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.left = [feeds]

        def get_next(self):
            return self.left.pop() if self.left else None

    if layout == "nncf-qdq":
        import nncf
        import onnx

        parent = onnx.load(model)
        nncf.set_log_level(logging.ERROR)
        onnx.save(nncf.quantize(parent, nncf.Dataset([feeds]), subset_size=1), out)
        return
    if layout == "modelopt-int8":
        from modelopt.onnx.quantization import quantize

        # The API's defaults calibrate on CUDA and TensorRT too and cast the float parts to
        # fp16: CPU only, float32 kept.
        quantize(onnx_path=model, quantize_mode="int8", calibration_data=feeds,
                 calibration_eps=["cpu"], high_precision_dtype="fp32", output_path=out,
                 log_level="ERROR")
        return
    extra = {}
    ops = None
    if layout == "ort-inputs-pc-u8":
        ops = ["Conv", "Gemm", "MatMul"]
        extra["OpTypesToExcludeOutputQuantization"] = ops
    signed = layout.endswith("-s8")
    if signed:
        extra["ActivationSymmetric"] = True
    fmt = QuantFormat.QOperator if layout.startswith("ort-qop") else QuantFormat.QDQ
    # The quantizer writes MODEL-inferred.onnx beside its input and deletes it: a copy of its own,
    # so that two tests quantizing one corpus model at once do not delete each other's.
    import shutil
    import tempfile

    private = os.path.join(tempfile.mkdtemp(prefix="toolchain-quantize-"), "model.onnx")
    shutil.copy(model, private)
    quantize_static(private, out, Reader(), quant_format=fmt, op_types_to_quantize=ops,
                    per_channel="-pc-" in layout,
                    activation_type=QuantType.QInt8 if signed else QuantType.QUInt8,
                    weight_type=QuantType.QInt8, extra_options=extra)
    shutil.rmtree(os.path.dirname(private))


if __name__ == "__main__":
    main()
