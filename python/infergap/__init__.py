"""infergap from Python: studies, their stores as pandas DataFrames, and PyTorch export checks.

The analyses are the CLI's own C++ functions (infergap._core): a DataFrame here and the CLI's
`--json` on the same store come from one function. docs/PYTHON.md has an example.
"""
import os
import pathlib

# Not resolved: in build/python/infergap/ the .py files are links into python/infergap/, and the
# module, the worker and the CLI sit beside the links.
_HERE = pathlib.Path(__file__).absolute().parent


def _find_worker():
    """The infergap-worker the platforms run in: beside the module (build/python/infergap/ and an
    installed package both put it there), unless INFERGAP_WORKER names one."""
    if os.environ.get("INFERGAP_WORKER"):
        return
    candidate = _HERE / "infergap-worker"
    if candidate.exists():
        os.environ["INFERGAP_WORKER"] = str(candidate.resolve())


_find_worker()

def cli(*args):
    """Runs the infergap CLI that came with the package (INFERGAP_CLI overrides) on `args`;
    its stdout. A failure raises infergap.Error with its message."""
    import subprocess
    exe = os.environ.get("INFERGAP_CLI") or str(_HERE / "infergap")
    done = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0:
        raise Error(done.stderr.strip().split("\n")[-1] if done.stderr else f"{exe} failed")
    return done.stdout


from . import _core  # noqa: E402  (the worker must be known before the core starts one)
from ._core import Error  # noqa: E402,F401
from .store import Store  # noqa: E402,F401
from .study import study  # noqa: E402,F401

__all__ = ["Error", "Store", "cli", "study"]
