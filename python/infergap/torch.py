"""infergap.torch.verify: does a PyTorch module's ONNX export, run on infergap's platforms,
compute what PyTorch eager computes, and where does it first depart?

PyTorch eager becomes the platform external:torch-eager: forward hooks record every module call's
inputs and outputs, which are mapped onto the ONNX values by torch.onnx's scope names (torch 1.13
names a node `/layer1/layer1.0/conv1/Conv`, and a module called twice gets `relu_1`), and stored
through `infergap import` (study/import_run.h) as a run of the exported model on the same inputs.
The export then runs on the platforms with the oracle, and Store.origins() says where eager or a
platform departs from the oracle: an export that differs from eager shows as an origin of
external:torch-eager at the node whose ONNX disagrees with the module's forward.
"""
import inspect
import pathlib
import tempfile
import urllib.parse

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import _core
from .store import Store
from .study import _input_dir, input_specs, study

EAGER_LABEL = "torch-eager"
EAGER_PLATFORM = "external:" + EAGER_LABEL

# Nodes that move, reshape or describe tensors rather than compute new values.
DATA_MOVEMENT = {
    "Constant", "Identity", "Shape", "Size", "Reshape", "Transpose", "Squeeze", "Unsqueeze",
    "Flatten", "Concat", "Split", "Slice", "Gather", "Cast", "ConstantOfShape", "Expand", "Range",
    "Dropout",
}
# Nodes whose output holds the input's elements in the same order (a reshape of the same buffer).
SAME_ORDER = {"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Dropout"}


def _local_name(full):
    """A module's scope name as torch.onnx writes it: the last component of its qualified name,
    with the components before it back to a non-numeric one (`layer1.0`, not `0`)."""
    parts = full.split(".")
    k = len(parts) - 1
    while k > 0 and parts[k].isdigit():
        k -= 1
    return ".".join(parts[k:])


def _tensors(x):
    """The tensors in a module's inputs or outputs, flattened in order."""
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for item in x for t in _tensors(item)]
    if isinstance(x, dict):
        return [t for item in x.values() for t in _tensors(item)]
    return []


# ONNX op -> the aten ops whose result it is, for values computed inside a module by functions
# (nn.MultiheadAttention's attention): a Linear's bias Add is addmm's result, a Gemm too.
ATEN_RESULTS = {
    "MatMul": {"mm", "bmm", "matmul"}, "Gemm": {"addmm"}, "Add": {"add", "addmm", "baddbmm"},
    "Sub": {"sub", "rsub"}, "Mul": {"mul"}, "Div": {"div"}, "Softmax": {"_softmax"},
    "LogSoftmax": {"_log_softmax"}, "Relu": {"relu"}, "Sigmoid": {"sigmoid"}, "Tanh": {"tanh"},
    "Gelu": {"gelu"}, "Erf": {"erf"}, "Sqrt": {"sqrt"}, "Exp": {"exp"}, "Pow": {"pow"},
    "Neg": {"neg"}, "ReduceMean": {"mean"}, "ReduceSum": {"sum"},
    "LayerNormalization": {"native_layer_norm"},
}
_ATEN_KEPT = set().union(*ATEN_RESULTS.values())


class _OpRecorder(TorchDispatchMode):
    """Every aten op's float result, with the innermost module call it ran in."""

    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        first = out[0] if isinstance(out, (tuple, list)) and out else out
        if name in _ATEN_KEPT and isinstance(first, torch.Tensor) and first.is_floating_point():
            scope = self.recorder.stack[-1] if self.recorder.stack else ""
            self.recorder.ops.append((scope, name, first.detach().clone()))
        return out


class _Recorder:
    """Forward hooks on every submodule: each call's scope path (as torch.onnx names it) with its
    input and output tensors; and the aten ops run inside each call (_OpRecorder)."""

    def __init__(self, module):
        self.ops = []        # (scope, aten op, result) in the order they ran
        self.names = {m: n for n, m in module.named_modules()}
        self.root = module
        self.stack = []      # scope paths of the calls in progress
        self.entered = []    # their inputs, as they were on entry
        self.counts = {}     # (parent scope, module name) -> calls so far
        self.calls = {}      # scope path -> (inputs, outputs)
        self.handles = []
        for m in self.names:
            if m is not module:
                self.handles.append(m.register_forward_pre_hook(self._enter))
                self.handles.append(m.register_forward_hook(self._leave))

    def _enter(self, m, inputs):
        parent = self.stack[-1] if self.stack else ""
        key = (parent, self.names[m])
        k = self.counts.get(key, 0)
        self.counts[key] = k + 1
        local = _local_name(self.names[m]) + (f"_{k}" if k else "")
        self.stack.append(f"{parent}/{local}")
        # Copied before the call: an in-place module (ReLU(inplace=True)) overwrites its input.
        self.entered.append([t.detach().clone() for t in _tensors(inputs)])

    def _leave(self, m, inputs, output):
        scope = self.stack.pop()
        self.calls[scope] = (self.entered.pop(), [t.detach().clone() for t in _tensors(output)])

    def remove(self):
        for h in self.handles:
            h.remove()


def _scope(node_name):
    """`/layer1/layer1.0/conv1/Conv` -> `/layer1/layer1.0/conv1`; "" for a node at the top."""
    return node_name.rsplit("/", 1)[0] if node_name.startswith("/") else ""


def _inside(scope, node_scope):
    return node_scope == scope or node_scope.startswith(scope + "/")


def _squeezed(shape):
    return tuple(d for d in shape if d != 1)


def _map_ops(graph, ops, shapes, mapped, floats):
    """Unmapped float compute nodes of each scope, in graph order, get the results of the aten ops
    run in that scope, in order: the next op whose kind is the node's (ATEN_RESULTS) and whose
    shape is the node's but for unit dimensions."""
    by_scope = {}
    for scope, name, t in ops:
        by_scope.setdefault(scope, []).append((name, t))
    pointer = {}
    for n in graph.node:
        v = n.output[0] if n.output else None
        if v is None or v in mapped or v not in floats or v not in shapes:
            continue
        scope = _scope(n.name)
        kinds = ATEN_RESULTS.get(n.op_type)
        candidates = by_scope.get(scope, [])
        if not kinds or not candidates:
            continue
        for j in range(pointer.get(scope, 0), len(candidates)):
            name, t = candidates[j]
            if name in kinds and _squeezed(t.shape) == _squeezed(shapes[v]):
                mapped[v] = t.reshape(shapes[v])
                pointer[scope] = j + 1
                break


def _match(values, tensors, shapes, mapped):
    """Pairs ONNX values with recorded tensors of the same shape, in order."""
    free = list(tensors)
    for v in values:
        for i, t in enumerate(free):
            if shapes.get(v) is None or tuple(t.shape) == shapes[v]:
                mapped.setdefault(v, t)
                del free[i]
                break


def map_values(graph, calls, outputs, ops=()):
    """ONNX value name -> eager tensor: each call's outputs are the values its scope's nodes hand
    to nodes outside it, its inputs the values they take from outside; graph outputs are the
    module's outputs; nodes computed by functions inside a call get the results of its aten ops
    (_map_ops); values before a reshape-like node are that node's output reshaped back."""
    shapes = {}
    for vi in list(graph.value_info) + list(graph.output) + list(graph.input):
        dims = vi.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[vi.name] = tuple(d.dim_value for d in dims)
    producer_scope = {o: _scope(n.name) for n in graph.node for o in n.output}
    consumers = {}
    for n in graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    graph_outputs = [o.name for o in graph.output]
    mapped = {}
    _match(graph_outputs, outputs, shapes, mapped)
    for scope, (ins, outs) in calls.items():
        made = [o for n in graph.node if _inside(scope, _scope(n.name)) for o in n.output]
        leaving = [v for v in made if v in graph_outputs or any(
            not _inside(scope, _scope(c.name)) for c in consumers.get(v, []))]
        _match(leaving, outs, shapes, mapped)
        entering = []
        for n in graph.node:
            if _inside(scope, _scope(n.name)):
                for i in n.input:
                    if i in producer_scope and not _inside(scope, producer_scope[i]) \
                            and i not in entering:
                        entering.append(i)
        _match(entering, ins, shapes, mapped)
    floats = {vi.name for vi in list(graph.value_info) + list(graph.output)
              if vi.type.tensor_type.elem_type in FLOAT_TYPES}
    _map_ops(graph, ops, shapes, mapped, floats)
    # Back through reshapes: the value before a same-order node is its output's elements.
    for n in reversed(graph.node):
        if n.op_type in SAME_ORDER and n.output[0] in mapped and n.input and \
                n.input[0] in producer_scope and n.input[0] not in mapped:
            t = mapped[n.output[0]]
            shape = shapes.get(n.input[0])
            if shape is not None and int(np.prod(shape)) == t.numel():
                mapped[n.input[0]] = t.reshape(shape)
    return mapped


FLOAT_TYPES = {1, 10, 11, 16}  # ONNX float, float16, double, bfloat16


def compute_nodes(graph):
    """The nodes that compute float values (not data movement, not shape arithmetic), less a
    MatMul whose one consumer adds a constant bias: eager computes the two as one op (a Linear's
    addmm), so the pair has one eager value, the Add's."""
    floats = {vi.name for vi in list(graph.value_info) + list(graph.output)
              if vi.type.tensor_type.elem_type in FLOAT_TYPES}
    constants = {i.name for i in graph.initializer} | {
        o for n in graph.node if n.op_type == "Constant" for o in n.output}
    # torch.onnx hands a weight shared by copies of a layer out through Identity nodes.
    constants |= {n.output[0] for n in graph.node if n.op_type == "Identity" and
                  n.input[0] in constants}
    consumers = {}
    for n in graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)

    def biased(n):
        users = consumers.get(n.output[0], [])
        return (n.op_type == "MatMul" and len(users) == 1 and users[0].op_type == "Add" and
                any(i in constants for i in users[0].input))

    return [n for n in graph.node if n.op_type not in DATA_MOVEMENT and n.output and
            n.output[0] in floats and not biased(n)]


def _input_names(module, count):
    try:
        params = [p for p in inspect.signature(module.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = [p.name for p in params][:count]
    except (TypeError, ValueError):
        names = []
    return names + [f"input_{i}" for i in range(len(names), count)]


class Verification(Store):
    """The Store of a verify() run, with what the eager mapping covered."""


def verify(module, args, platforms=("ref",), opset=17, dynamic_axes=None, store=None,
           oracle="default", layers="all"):
    """Exports `module` on `args` with torch.onnx (opset `opset`, BatchNorm kept as its own node so
    that every module's output has an ONNX value), stores PyTorch eager's per-module values as a
    run of external:torch-eager, runs the export on `platforms` with the oracle and returns the
    Store; .origins() then says where eager or a platform first departs from the oracle.
    .mapping holds how many compute nodes got an eager value."""
    import onnx
    args = args if isinstance(args, tuple) else (args,)
    module = module.eval()
    if store is None:
        store = str(pathlib.Path(tempfile.mkdtemp(prefix="infergap-verify-")) / "verify.db")
    work = pathlib.Path(tempfile.mkdtemp(prefix="infergap-verify-", dir=pathlib.Path(store).parent
                                         if not str(store).startswith("postgres") else None))
    names = _input_names(module, len(args))
    model_path = work / "model.onnx"
    torch.onnx.export(module, args, str(model_path), opset_version=opset, input_names=names,
                      dynamic_axes=dynamic_axes, training=torch.onnx.TrainingMode.PRESERVE)
    recorder = _Recorder(module)
    try:
        with torch.no_grad(), _OpRecorder(recorder):
            outputs = _tensors(module(*args))
    finally:
        recorder.remove()
    # Shapes of every value, so that eager tensors are matched and reshaped by them.
    graph = onnx.shape_inference.infer_shapes(onnx.load(str(model_path))).graph
    mapped = map_values(graph, recorder.calls, outputs, recorder.ops)
    inputs = {n: a.detach().cpu().numpy() for n, a in zip(names, args)}
    eager_dir = work / "torch-eager"
    eager_dir.mkdir()
    # Values import_run can check against the model: node outputs with their declared dtype.
    produced = {o for n in graph.node for o in n.output}
    dtypes = {vi.name: onnx.mapping.TENSOR_TYPE_TO_NP_TYPE.get(vi.type.tensor_type.elem_type)
              for vi in list(graph.value_info) + list(graph.output)}
    saved = set()
    for value, t in mapped.items():
        array = t.detach().cpu().numpy()
        if value in produced and dtypes.get(value) == array.dtype:
            np.save(eager_dir / (urllib.parse.quote(value, safe="") + ".npy"), array)
            saved.add(value)
    result = study(str(model_path), inputs=inputs, platforms=platforms, store=store,
                   layers=layers, oracle=oracle)
    specs = input_specs(inputs, _input_dir(store))
    _core.import_run(str(store), str(model_path), specs, 0, str(eager_dir), EAGER_LABEL)
    computing = compute_nodes(graph)
    covered = [n.name for n in computing if n.output[0] in saved]
    verification = Verification(store)
    verification.summary = result.summary
    verification.model = str(model_path)
    verification.mapping = {"compute_nodes": len(computing), "mapped": len(covered),
                            "unmapped": [n.name for n in computing
                                         if n.output[0] not in saved]}
    return verification
