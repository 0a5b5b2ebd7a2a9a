"""PyTorch 2 (PyPI `torch`) and its compiler for compiler_runner.py. The ONNX file becomes a torch
module with onnx2torch (a converter kept on PyPI that maps each ONNX node to torch operations; our
own ONNX->ATen mapping is C++ against libtorch 1.13 and cannot be traced by torch.compile), and the
whole module is run eagerly (compile=off) or through torch.compile: Inductor's fusions and its
generated C++ kernels are what runs. Knobs: compile (off, inductor, max-autotune: Inductor's
autotuned GEMM and convolution templates, freezing: weights folded as constants and prepacked for
oneDNN) and threads (torch.set_num_threads, also the threads of Inductor's OpenMP kernels).
Compiled graphs are cached by Inductor itself (its FX graph cache) under the cache folder.
"""
import os

LIBRARY = "PyTorch"
_MODES = {"inductor": "default", "max-autotune": "max-autotune", "freezing": "default"}


class CompileError(RuntimeError):
    kind = "compile"


def version():
    import torch
    return torch.__version__.split("+")[0]


class Program:
    def __init__(self, path, knobs, cache, io):
        if cache:  # read by Inductor when it first compiles
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cache, "inductor")
        import onnx2torch
        import torch
        self._torch = torch
        torch.set_num_threads(int(knobs.get("threads", 1)))
        self.inputs, self.outputs = io
        try:
            module = onnx2torch.convert(path).eval()
        except (NotImplementedError, ValueError, KeyError, RuntimeError) as e:
            raise CompileError(f"onnx2torch: {e}") from None
        self._mode = knobs.get("compile", "inductor")
        if self._mode == "off":
            self._module = module
        else:
            import torch._inductor.config as inductor_config
            inductor_config.freezing = self._mode == "freezing"
            self._module = torch.compile(module, mode=_MODES[self._mode], dynamic=False)
        self._compiled_shapes = set()
        self._refused = None  # the compiler's refusal: other runs are refused without recompiling

    def run(self, feeds):
        torch = self._torch
        args = [torch.from_numpy(feeds[n]) for n in self.inputs]
        shapes = tuple(tuple(a.shape) for a in args)
        if self._refused is not None:
            raise CompileError(self._refused)
        with torch.no_grad():
            if self._mode == "off" or shapes in self._compiled_shapes:
                result = self._module(*args)
            else:
                try:  # the first call at a shape compiles
                    result = self._module(*args)
                except Exception as e:  # noqa: BLE001: every compiler failure is the verdict
                    self._refused = (f"torch.compile ({self._mode}): {type(e).__name__}: "
                                     f"{str(e).strip().splitlines()[0] if str(e) else ''}")
                    raise CompileError(self._refused) from None
                self._compiled_shapes.add(shapes)
        values = list(result) if isinstance(result, (tuple, list)) else [result]
        return [v.detach().cpu().numpy().copy() for v in values]


def compile_model(path, knobs, cache, digest, io):
    return Program(path, knobs, cache, io)
