"""infergap's ONNX Runtime runner for the `onnxruntime` package of scripts/setup's venv (PyPI): the
ort backend starts `python runner.py` for ort:version=1.31 and talks to it over fd 3, exactly as to
runner.js (the npm build): u32 LE header length, JSON header, u64 LE body length, body bytes.
Tensors travel as raw little-endian bytes in the body; the header lists {name, dtype, dims, offset,
length} (strings travel in the header). stdout is left to libraries.
"""
import os
import sys

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


def run(req, body):
    session = sessions.get(req["key"])
    if session is None:
        raise KeyError(f"no session '{req['key']}'")
    results = session.run(req["fetch"], protocol.feeds_of(req, body))
    return protocol.outputs_reply(req["fetch"], results)


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


if __name__ == "__main__":
    protocol.serve(handle)
