"""OpenVINO's CPU plugin (PyPI `openvino`) for compiler_runner.py. Knobs: precision (auto: the
plugin's own choice, which is bf16 on a CPU with AVX512-BF16 or AMX; f32, bf16, f16), mode
(performance | accuracy: EXECUTION_MODE_HINT) and threads. One stream, latency hint: one inference
at a time on `threads` threads. What the plugin compiled (its runtime model: every executed layer's
type, precision and the original operations it covers) is reported at load, not guessed.
"""
from collections import Counter

import numpy as np
import openvino as ov

LIBRARY = "OpenVINO"
_core = ov.Core()
# Operations of the runtime model that compute nothing, and those that only move or convert data
# (listed, but not counted in the precisions a run reports).
_PLUMBING = {"Const", "Input", "Output", "Parameter", "Result", "Constant"}
_MOVES = {"Reorder", "Reshape", "ShapeOf", "Convert", "Transpose", "Squeeze", "Unsqueeze"}


def version():
    return ov.get_version().split("-")[0]


def _config(knobs):
    config = {"PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1,
              "INFERENCE_NUM_THREADS": int(knobs.get("threads", 1)),
              "EXECUTION_MODE_HINT": knobs.get("mode", "performance").upper()}
    if knobs.get("precision", "auto") != "auto":
        config["INFERENCE_PRECISION_HINT"] = knobs["precision"]
    return config


class CompileError(RuntimeError):
    kind = "compile"


def _message(error):
    """OpenVINO's message without its source locations ("Exception from src/...")."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    kept = [line for line in lines if not line.startswith(("Exception from ", "Check 'false'"))]
    return " ".join(kept or lines) or type(error).__name__


class Program:
    def __init__(self, path, knobs, cache):
        if cache:
            _core.set_property({"CACHE_DIR": cache})
        try:
            self._compiled = _core.compile_model(path, "CPU", _config(knobs))
        except RuntimeError as e:  # the frontend's or the plugin's refusal
            raise CompileError(f"OpenVINO: {_message(e)}") from None
        self._request = self._compiled.create_infer_request()
        self.inputs = [p.get_any_name() for p in self._compiled.inputs]
        self.outputs = [p.get_any_name() for p in self._compiled.outputs]

    def run(self, feeds):
        missing = [n for n in self.inputs if n not in feeds]
        if missing:
            raise ValueError(f"no value for input '{missing[0]}'")
        result = self._request.infer({n: feeds[n] for n in self.inputs})
        by_name = {p.get_any_name(): np.array(result[p], copy=True) for p in self._compiled.outputs}
        return [by_name[n] for n in self.outputs]

    def executed(self):
        layers, precisions = [], Counter()
        for op in self._compiled.get_runtime_model().get_ordered_ops():
            info = op.get_rt_info()
            kind = info["layerType"].astype(str)
            if kind in _PLUMBING:
                continue
            precision = info["runtimePrecision"].astype(str)
            covers = [n for n in info["originalLayersNames"].astype(str).split(",") if n]
            layers.append({"layer": op.get_friendly_name(), "type": kind,
                           "precision": precision, "covers": covers})
            if kind not in _MOVES:
                precisions[precision] += 1
        hint = self._compiled.get_property("INFERENCE_PRECISION_HINT")
        return {"inference_precision": str(getattr(hint, "get_type_name", lambda: hint)()),
                "execution_mode": str(self._compiled.get_property("EXECUTION_MODE_HINT")).split(".")[-1],
                "precisions": dict(precisions), "layers": layers}


def compile_model(path, knobs, cache, digest):
    return Program(path, knobs, cache)
