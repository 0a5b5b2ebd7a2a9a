"""What this folder's spec scripts share: they run in scripts/setup's venv (the script is
re-executed with its python, or exits 77 without one), then work in WORK_DIR (argv[2]).
enter() returns INFERGAP (argv[1]) as an absolute path, since the scripts change directory;
it exits 77 too where the venv lacks a module the script `needs` (scripts/setup --tests's).
`fresh` empties WORK_DIR first, for scripts whose stores would otherwise resume an earlier run."""
import importlib.util
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def enter(name, needs=(), fresh=False):
    venv_python = os.path.join(ROOT, ".venv", "bin", "python")
    if os.path.abspath(sys.prefix) != os.path.join(ROOT, ".venv"):
        if not os.path.exists(venv_python):
            print(f"{name}: skipped: no .venv (scripts/setup)")
            sys.exit(77)
        os.execv(venv_python, [venv_python] + sys.argv)
    missing = [m for m in needs if importlib.util.find_spec(m) is None]
    if missing:
        print(f"{name}: skipped: the venv lacks {', '.join(missing)} (scripts/setup --tests)")
        sys.exit(77)
    infergap = os.path.abspath(sys.argv[1])
    if fresh:
        shutil.rmtree(sys.argv[2], ignore_errors=True)
    os.makedirs(sys.argv[2], exist_ok=True)
    os.chdir(sys.argv[2])
    return infergap
