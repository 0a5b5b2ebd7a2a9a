"""infergap's ONNX Runtime runner for the `onnxruntime` package of scripts/setup's venv (PyPI): the
ort backend starts `python runner.py` for ort:version=1.31 and talks to it over fd 3, exactly as to
runner.js (the npm build): u32 LE header length, JSON header, u64 LE body length, body bytes.
Tensors travel as raw little-endian bytes in the body; the header lists {name, dtype, dims, offset,
length} (strings travel in the header). stdout is left to libraries.
"""
import json
import os
import struct
import sys

FD = 3
try:
    import numpy as np
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
# The dtype names runner.js uses (onnxruntime-node's), to numpy's.
DTYPES = {"float32": "float32", "float64": "float64", "float16": "float16", "int8": "int8",
          "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
          "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "bool": "bool"}
sessions = {}


def read_exact(n):
    chunks = []
    while n > 0:
        chunk = os.read(FD, min(n, 1 << 24))
        if not chunk:
            sys.exit(0)
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def send(header, chunks=()):
    head = json.dumps(header).encode()
    total = sum(len(c) for c in chunks)
    parts = [struct.pack("<I", len(head)), head, struct.pack("<Q", total)] + list(chunks)
    for part in parts:
        view = memoryview(part).cast("B")
        while view:
            view = view[os.write(FD, view):]


def aligned_copy(data, dtype, dims):
    # ORT reads an input where it lies and some kernels give other bits for another alignment
    # (runner.js says how this was found): every input is handed over 64-byte aligned.
    raw = np.empty(len(data) + 64, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64
    buf = raw[start:start + len(data)]
    buf[:] = np.frombuffer(data, dtype=np.uint8)
    return buf.view(np.dtype(dtype)).reshape(dims)


def to_array(spec, body):
    if spec["dtype"] == "string":
        return np.array(spec["strings"], dtype=object).reshape(spec["dims"])
    dtype = DTYPES.get(spec["dtype"])
    if dtype is None:
        raise ValueError(f"input '{spec['name']}': dtype {spec['dtype']} is not supported")
    return aligned_copy(body[spec["offset"]:spec["offset"] + spec["length"]], dtype, spec["dims"])


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


def run(req, body):
    session = sessions.get(req["key"])
    if session is None:
        raise KeyError(f"no session '{req['key']}'")
    feeds = {spec["name"]: to_array(spec, body) for spec in req["feeds"]}
    results = session.run(req["fetch"], feeds)
    outputs, chunks, offset = [], [], 0
    for name, value in zip(req["fetch"], results):
        value = np.asarray(value)
        if value.dtype == object:
            outputs.append({"name": name, "dtype": "string", "dims": list(value.shape),
                            "strings": [str(s) for s in value.reshape(-1)]})
            continue
        data = np.ascontiguousarray(value).tobytes()
        outputs.append({"name": name, "dtype": value.dtype.name, "dims": list(value.shape),
                        "offset": offset, "length": len(data)})
        offset += len(data)
        chunks.append(data)
    return {"outputs": outputs}, chunks


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
        return {}, []
    if op == "run":
        return run(req, body)
    raise ValueError(f"unknown op '{op}'")


def main():
    while True:
        (hlen,) = struct.unpack("<I", read_exact(4))
        req = json.loads(read_exact(hlen))
        (blen,) = struct.unpack("<Q", read_exact(8))
        body = read_exact(blen) if blen else b""
        try:
            header, chunks = handle(req, body)
            send({"ok": True, **header}, chunks)
        except Exception as e:  # the reason travels to the worker as the run's verdict
            send({"ok": False, "error": str(e)})


if __name__ == "__main__":
    main()
