"""infergap's ONNX Runtime runner for the `onnxruntime` package of scripts/setup's venv (PyPI): the
ort backend starts `python runner.py` for ort:version=1.31 and talks to it over fd 3, exactly as to
runner.js (the npm build): u32 LE header length, JSON header, u64 LE body length, body bytes.
Tensors travel as raw little-endian bytes in the body; the header lists {name, dtype, dims, offset,
length} (strings travel in the header). stdout is left to libraries.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pyrunner"))
import protocol  # noqa: E402

try:
    import onnxruntime as ort
except ImportError as e:  # answered at hello
    ort = None
    LOAD_ERROR = str(e)

LEVELS = {}
if ort is not None:
    LEVELS = {"disabled": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
              "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
              "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
              "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
sessions = {}


def load(req):
    options = ort.SessionOptions()
    options.graph_optimization_level = LEVELS[req["opt"]]
    options.intra_op_num_threads = int(req["threads"])
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    if req.get("optimized"):
        options.optimized_model_filepath = req["optimized"]
        options.log_severity_level = 3
    if req.get("arena") is False:
        options.enable_cpu_mem_arena = False
    # {"session": {"disable_prepacking": "1"}} is the entry session.disable_prepacking.
    for group, entries in (req.get("config") or {}).items():
        for key, value in entries.items():
            options.add_session_config_entry(f"{group}.{key}", str(value))
    session = ort.InferenceSession(req["model"], options, providers=["CPUExecutionProvider"])
    sessions[req["key"]] = session
    return {"inputs": [i.name for i in session.get_inputs()],
            "outputs": [o.name for o in session.get_outputs()]}, []


# What a session's outputs were, by session, fetch list and feed shapes: where a run's outputs go
# in the bulk file the next time (run_bound).
output_specs = {}


def run_bound(session, feeds, fetch, specs):
    """Has ORT write the outputs straight into the bulk file at protocol.BULK_AT (IOBinding), laid
    out as `specs` says, 64-byte aligned as ORT's own allocator aligns them; the reply, or None
    where an output came out otherwise (another shape: the caller runs it plainly)."""
    offsets, end = [], 0
    for dtype, dims in specs:
        end = (end + 63) // 64 * 64
        offsets.append(end)
        end += int(np.prod(dims, dtype=np.int64)) * np.dtype(dtype).itemsize
    if end > protocol.KEEP_BULK_BYTES:
        return None
    base = protocol.mapped_bulk(protocol.BULK_AT + end) + protocol.BULK_AT
    binding = session.io_binding()
    for name, array in feeds.items():
        binding.bind_cpu_input(name, array)
    for name, (dtype, dims), offset in zip(fetch, specs, offsets):
        binding.bind_output(name, "cpu", 0, np.dtype(dtype), list(dims), base + offset)
    try:
        session.run_with_iobinding(binding)
    except Exception:  # noqa: BLE001 (another shape, say: the plain run says what is wrong)
        return None
    outputs = []
    for value, name, (dtype, dims), offset in zip(binding.get_outputs(), fetch, specs, offsets):
        # ORT wrote where it was told, in the shape expected, or the run is done again plainly.
        if value.data_ptr() != base + offset or tuple(value.shape()) != tuple(dims):
            return None
        outputs.append({"name": name, "dtype": dtype, "dims": list(dims), "offset": offset,
                        "length": int(np.prod(dims, dtype=np.int64)) * np.dtype(dtype).itemsize})
    return {"outputs": outputs, "bulk": end}, []


def run(req, body):
    session = sessions.get(req["key"])
    if session is None:
        raise KeyError(f"no session '{req['key']}'")
    feeds = protocol.feeds_of(req, body)
    fetch = req["fetch"]
    key = (req["key"], tuple(fetch), tuple((n, a.shape) for n, a in sorted(feeds.items())))
    specs = output_specs.get(key)
    if specs is not None and protocol.BULK_FD is not None:
        reply = run_bound(session, feeds, fetch, specs)
        if reply is not None:
            return reply
    results = session.run(fetch, feeds)
    if all(isinstance(r, np.ndarray) and r.dtype != object for r in results):
        output_specs[key] = [(r.dtype.name, tuple(r.shape)) for r in results]
    return protocol.outputs_reply(fetch, results)


def handle(req, body):
    op = req.get("op")
    if op == "hello":
        if ort is None:
            raise RuntimeError(f"the onnxruntime package could not be imported: {LOAD_ERROR}")
        return {"version": ort.__version__, "python": sys.version.split()[0]}, []
    if op == "load":
        return load(req)
    if op == "drop":
        sessions.pop(req["key"], None)
        for key in [k for k in output_specs if k[0] == req["key"]]:
            del output_specs[key]
        return {}, []
    if op == "run":
        return run(req, body)
    raise ValueError(f"unknown op '{op}'")


if __name__ == "__main__":
    protocol.serve(handle)
