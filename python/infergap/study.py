"""infergap.study: `infergap study` from Python, with numpy arrays as inputs."""
import hashlib
import json
import os
import pathlib
import tempfile

import numpy as np

from . import _core
from .store import Store


def _is_url(path):
    return str(path).startswith(("postgresql://", "postgres://"))


def _input_dir(store):
    """Where numpy inputs are written as .npy: beside a SQLite store (a later explain or self-check
    re-reads them from the path the store keeps), else a temporary folder."""
    if _is_url(store):
        return pathlib.Path(tempfile.mkdtemp(prefix="infergap-inputs-"))
    d = pathlib.Path(store).resolve().parent / "infergap-inputs"
    d.mkdir(parents=True, exist_ok=True)
    return d


def input_specs(inputs, directory):
    """NAME=SPEC strings for the core: an array is saved as NAME.npy in a folder named by its bytes
    (the same values, the same file: the input hash and label of `--input NAME=NAME.npy` to the
    CLI); a string is a spec as `infergap run --input` takes it (a file, image:PATH, random:...,
    value:V)."""
    specs = []
    for name, value in (inputs or {}).items():
        if isinstance(value, (str, os.PathLike)):
            specs.append(f"{name}={value}")
            continue
        array = np.ascontiguousarray(value)
        digest = hashlib.sha1(str(array.dtype).encode() + str(array.shape).encode() +
                              array.tobytes()).hexdigest()[:16]
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        path = pathlib.Path(directory) / digest / f"{safe}.npy"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, array)
        specs.append(f"{name}={path}")
    return specs


def study(model, inputs=None, platforms=(), store=None, layers="all", oracle="default", seed=0,
          presets=(), repeat=1, self_check=True, report=False, shapes=(), dims=(), timeout=300.0):
    """Runs `model` (an ONNX file, or several in a list) on `platforms` with the oracle into
    `store` (a SQLite path or postgresql:// URL; None: a new temporary SQLite file) and returns
    the Store. inputs: {name: numpy array | spec string}; inputs not given get seeded random data,
    as in the CLI. layers: "all" captures every node, "outputs" only the graph outputs. Progress
    goes to stderr as in the CLI; a failure raises infergap.Error with the CLI's message."""
    if layers not in ("all", "outputs"):
        raise ValueError(f"layers={layers!r}: expected 'all' or 'outputs'")
    if store is None:
        store = str(pathlib.Path(tempfile.mkdtemp(prefix="infergap-study-")) / "study.db")
    models = [str(m) for m in (model if isinstance(model, (list, tuple)) else [model])]
    specs = input_specs(inputs, _input_dir(store))
    summary = _core.study(str(store), models, specs, [str(p) for p in platforms], oracle=oracle,
                          all_layers=layers == "all", presets=list(presets), seed=seed,
                          repeat=repeat, shapes=list(shapes), dims=list(dims),
                          self_check=self_check, report=report, timeout=timeout)
    result = Store(store)
    result.summary = json.loads(summary)
    return result
