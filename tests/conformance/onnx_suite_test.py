#!/usr/bin/env python3
"""ONNX 1.23's backend node suite (generated from the venv's onnx package by scripts/onnx-suite)
on the reference backend: at least the pass count in pass_floor_onnx_1_23.txt must pass, so a
kernel that stops following the suite fails here.
  tests/conformance/onnx_suite_test.py INFERGAP WORK_DIR
Exits 77 without scripts/setup's venv.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")


def main():
    infergap, work = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not os.path.exists(VENV_PYTHON):
        print("onnx_suite_test: skipped: no .venv (scripts/setup)")
        return 77
    suite = os.path.join(work, "onnx-1.23")
    subprocess.run([VENV_PYTHON, os.path.join(ROOT, "scripts", "onnx-suite"), "generate", suite],
                   check=True, capture_output=True)
    floor = open(os.path.join(HERE, "pass_floor_onnx_1_23.txt")).read().strip()
    return subprocess.run([infergap, "conformance", suite, "--jobs", "2", "--min-pass",
                           floor]).returncode


if __name__ == "__main__":
    sys.exit(main())
