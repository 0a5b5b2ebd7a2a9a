"""IREE (PyPI `iree-base-compiler`, `iree-base-runtime`) for compiler_runner.py: the ONNX file is
imported by iree-import-onnx, compiled by iree-compile for llvm-cpu, and run by IREE's runtime.
Knobs: opt (--iree-opt-level O0..O3; O0 is the eager partner), cpu (host: this CPU's vector
extensions, generic: the x86-64 baseline) and threads (1: the local-sync driver, more: local-task
with that many workers). The compiled module (.vmfb) is cached per model hash and knobs.
"""
import os
import subprocess
import sys
import tempfile

import iree.compiler as compiler
import iree.compiler.version as compiler_version
import iree.runtime as runtime
import numpy as np

LIBRARY = "IREE"
_threads_set = None


def version():
    return compiler_version.VERSION


class CompileError(RuntimeError):
    kind = "compile"


def _import(path, mlir):
    done = subprocess.run([sys.executable, "-m", "iree.compiler.tools.import_onnx", path,
                           "-o", mlir], capture_output=True, text=True)
    if done.returncode != 0:
        raise CompileError("iree-import-onnx: " + _exception_line(done.stderr or done.stdout))


def _exception_line(text):
    """A python traceback's last line (the exception and its message), else the last lines."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return "failed without a message"
    return lines[-1] if "Error" in lines[-1] or "Exception" in lines[-1] else " | ".join(lines[-4:])


def _compiler_errors(text, mlir):
    """iree-compile's `error:` diagnostics (at most three), without the temporary file's path."""
    errors = [line.replace(mlir + ":", "model.mlir:").strip() for line in text.splitlines()
              if "error:" in line]
    return " | ".join(errors[:3]) if errors else _exception_line(text)


def _compile(path, knobs):
    with tempfile.TemporaryDirectory(prefix="infergap-iree-") as tmp:
        mlir = os.path.join(tmp, "model.mlir")
        _import(path, mlir)
        args = [f"--iree-opt-level={knobs.get('opt', 'O2')}",
                f"--iree-llvmcpu-target-cpu={knobs.get('cpu', 'host')}"]
        try:
            return compiler.compile_file(mlir, target_backends=["llvm-cpu"], extra_args=args)
        except compiler.CompilerToolError as e:
            raise CompileError("iree-compile: " + _compiler_errors(str(e), mlir)) from None


def _runtime_config(threads):
    global _threads_set
    if threads == 1:
        return runtime.Config("local-sync")
    if _threads_set is None:  # read once, when the task driver starts
        runtime.flags.parse_flags(f"--task_topology_max_group_count={threads}")
        _threads_set = threads
    return runtime.Config("local-task")


class Program:
    def __init__(self, path, knobs, cache, digest, io):
        vmfb_path = os.path.join(cache, digest + ".vmfb") if cache else ""
        if vmfb_path and os.path.exists(vmfb_path):
            with open(vmfb_path, "rb") as f:
                vmfb = f.read()
        else:
            vmfb = _compile(path, knobs)
            if vmfb_path:  # written whole or not at all
                with tempfile.NamedTemporaryFile(dir=cache, delete=False) as f:
                    f.write(vmfb)
                os.replace(f.name, vmfb_path)
        self.inputs, self.outputs = io
        self._context = runtime.SystemContext(config=_runtime_config(int(knobs.get("threads", 1))))
        module = runtime.VmModule.copy_buffer(self._context.instance, vmfb)
        self._context.add_vm_module(module)
        entry = [f for f in module.function_names if f != "__init" and not f.endswith("$async")]
        if len(entry) != 1:
            raise CompileError(f"the compiled module has functions {entry}, expected one entry")
        self._entry = self._context.modules[module.name][entry[0]]

    def run(self, feeds):
        result = self._entry(*[feeds[n] for n in self.inputs])
        values = list(result) if isinstance(result, (tuple, list)) else [result]
        return [np.array(v.to_host() if hasattr(v, "to_host") else v, copy=True) for v in values]


def compile_model(path, knobs, cache, digest, io):
    return Program(path, knobs, cache, digest, io)
