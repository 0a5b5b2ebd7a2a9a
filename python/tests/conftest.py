"""Fixtures of the Python package's tests: the CLI (to compare against), a small model it exports
and a study of it made from Python. Run by ctest (`ctest -L python`), or by hand:
`PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests`."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT / "build" / "python"))

import infergap  # noqa: E402

# Three platforms that disagree in the last bits (summation order), and the fp64 oracle.
PLATFORMS = ["ref", "ref:acc=pairwise", "xnnpack"]


def cli_path():
    return os.environ.get("INFERGAP_CLI") or str(ROOT / "build" / "infergap")


def cli(*args):
    """Runs the CLI; its stdout (parsed when it is JSON)."""
    out = subprocess.run([cli_path(), *map(str, args)], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out) if out.lstrip().startswith(("{", "[")) else out


@pytest.fixture(scope="session")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("infergap-python")


@pytest.fixture(scope="session")
def model(work):
    path = work / "small.onnx"
    cli("zoo", "export", "Cifar10-small", "-o", path, "--seed", 3)
    return path


@pytest.fixture(scope="session")
def image():
    """A seeded input in the model's shape."""
    return np.random.default_rng(7).standard_normal((1, 3, 32, 32)).astype(np.float32)


@pytest.fixture(scope="session")
def store(work, model, image):
    """A study of the small model on three platforms and the oracle, made from Python."""
    return infergap.study(model, inputs={"x": image}, platforms=PLATFORMS,
                          store=work / "study.db")
