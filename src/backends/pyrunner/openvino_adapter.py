"""OpenVINO's CPU plugin (PyPI `openvino`) for compiler_runner.py. Knobs: precision (auto: the
plugin's own choice, which is bf16 on a CPU with AVX512-BF16 or AMX; f32, bf16, f16), mode
(performance | accuracy: EXECUTION_MODE_HINT) and threads. One stream, latency hint: one inference
at a time on `threads` threads. A traced run compiles the model a second time with the values at
the edges of the runtime model's layers as extra outputs, and keeps them only where its graph
outputs are the plain compilation's, bit for bit. What the plugin compiled (its runtime model:
every executed layer's type, precision and the original operations it covers) is reported at
load, not guessed.
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


def _runtime_layers(compiled):
    """The runtime model's computing layers: (op, layer type, precision, covered operations)."""
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        kind = info["layerType"].astype(str)
        if kind in _PLUMBING:
            continue
        covers = [n for n in info["originalLayersNames"].astype(str).split(",") if n]
        yield op, kind, info["runtimePrecision"].astype(str), covers


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
        self._path, self._config = path, _config(knobs)
        self._compiled = self._compile(path)
        self._request = self._compiled.create_infer_request()
        self.inputs = [p.get_any_name() for p in self._compiled.inputs]
        self.outputs = [p.get_any_name() for p in self._compiled.outputs]
        self._traced = None  # (compiled, request, exposed names, notes), made at the first trace

    def _compile(self, model):
        try:
            return _core.compile_model(model, "CPU", self._config)
        except RuntimeError as e:  # the frontend's or the plugin's refusal
            raise CompileError(f"OpenVINO: {_message(e)}") from None

    def _infer(self, compiled, request, feeds):
        result = request.infer({n: feeds[n] for n in self.inputs})
        return {p.get_any_name(): np.array(result[p], copy=True) for p in compiled.outputs}

    def run(self, feeds):
        by_name = self._infer(self._compiled, self._request, feeds)
        return [by_name[n] for n in self.outputs]

    def boundaries(self):
        """The ONNX values the runtime model computes at the edge of one of its layers (a value a
        layer's covered operations hand to another layer or to a graph output), each with the
        layer's type and precision: exposing them keeps every fusion as it is."""
        original = _core.read_model(self._path)
        by_name = {op.get_friendly_name(): op for op in original.get_ops()}
        found = {}
        for _, kind, precision, covered in _runtime_layers(self._compiled):
            covers = set(covered)
            for name in covers:
                if name not in by_name:
                    continue
                for out in by_name[name].outputs():
                    consumers = [t.get_node() for t in out.get_target_inputs()]
                    if not out.get_names() or not any(
                            c.get_friendly_name() not in covers or c.get_type_name() == "Result"
                            for c in consumers):
                        continue
                    for tensor in out.get_names():
                        found[tensor] = f"{kind} {precision}"
        return found

    def trace(self, feeds):
        """The plain run's outputs, and the boundary values from a second compilation that also
        returns them; None where its graph outputs are not the plain run's, bit for bit."""
        plain = self.run(feeds)
        if self._traced is None:
            notes = {n: v for n, v in self.boundaries().items() if n not in self.outputs}
            model = _core.read_model(self._path)
            if notes:
                model.add_outputs(sorted(notes))
            compiled = self._compile(model)
            self._traced = (compiled, compiled.create_infer_request(), notes)
        compiled, request, notes = self._traced
        values = self._infer(compiled, request, feeds)
        for name, value in zip(self.outputs, plain):
            got = values.get(name)
            if got is None or got.dtype != value.dtype or got.shape != value.shape or \
                    got.tobytes() != value.tobytes():
                return plain, {}, (f"graph output '{name}' of the compilation exposing its layers "
                                   "differs from the plain one's")
        exposed = {n: values[n] for n in notes if n in values}
        return plain, exposed, {n: notes[n] for n in exposed}

    def executed(self):
        layers, precisions = [], Counter()
        for op, kind, precision, covers in _runtime_layers(self._compiled):
            layers.append({"layer": op.get_friendly_name(), "type": kind,
                           "precision": precision, "covers": covers})
            if kind not in _MOVES:
                precisions[precision] += 1
        hint = self._compiled.get_property("INFERENCE_PRECISION_HINT")
        return {"inference_precision": str(getattr(hint, "get_type_name", lambda: hint)()),
                "execution_mode":
                    str(self._compiled.get_property("EXECUTION_MODE_HINT")).split(".")[-1],
                "precisions": dict(precisions), "layers": layers}


def compile_model(path, knobs, cache, digest, io):
    # The compiled model's own input and output names (the ONNX frontend keeps the model's): `io`
    # is not needed.
    return Program(path, knobs, cache)
