"""infergap's runner for the deep-learning compilers that only have a Python API (PyPI packages in
scripts/setup's venv): `python compiler_runner.py NAME` hosts the adapter NAME_adapter.py
(openvino, iree, torch2) and answers the worker over fd 3 (protocol.py):

  hello                        -> {library, version, python}
  load {key, model, knobs}     -> compiles the ONNX file (or takes it from the cache) -> {inputs,
                                  outputs, executed: what the compiler says it will run}
  run {key, feeds, trace}      -> {outputs: the graph outputs; with trace, where the adapter can
                                  expose layers without changing what runs, their values too and
                                  layers: {value: what computed it} (or why not, as a string)}
  drop {key}

A compile failure is an error reply carrying the compiler's own message; the worker makes it the
run's verdict. Compiled artifacts are cached per model hash, knobs and release under `cache`.
"""
import hashlib
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402

NAME = sys.argv[1] if len(sys.argv) > 1 else ""
ADAPTER = None
LOAD_ERROR = ""
try:
    ADAPTER = importlib.import_module(f"{NAME}_adapter")
except ImportError as e:  # answered at hello: the package is not installed
    LOAD_ERROR = str(e)
compiled = {}


def external_data_files(path, graph):
    """The files the model's external tensors name, relative to its folder."""
    files = set()
    for tensor in graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                parts = os.path.normpath(entry.value).split(os.sep)
                if os.path.isabs(entry.value) or ".." in parts:  # models are untrusted
                    raise ValueError(f"{path}: initializer '{tensor.name}' names external data "
                                     f"outside the model's folder: {entry.value}")
                files.add(entry.value)
    return files


def model_digest(path, graph, knobs):
    """The cache key: the model file's bytes (and its external data's), the knobs, the release."""
    h = hashlib.sha256()
    folder = os.path.dirname(os.path.abspath(path))
    external = [os.path.join(folder, f) for f in sorted(external_data_files(path, graph))]
    for name in [path] + external:
        with open(name, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    h.update(repr(sorted(knobs.items())).encode())
    h.update(ADAPTER.version().encode())
    return h.hexdigest()[:32]


def graph_io(graph):
    """The graph's input names (initializers aside) and output names, in declaration order."""
    initializers = {t.name for t in graph.initializer}
    return ([i.name for i in graph.input if i.name not in initializers],
            [o.name for o in graph.output])


def load(req):
    import onnx
    knobs = req.get("knobs", {})
    cache = os.path.join(req["cache"], NAME) if req.get("cache") else ""
    if cache:
        os.makedirs(cache, exist_ok=True)
    graph = onnx.load(req["model"], load_external_data=False).graph  # read once, for all of these
    digest = model_digest(req["model"], graph, knobs)
    program = ADAPTER.compile_model(req["model"], knobs, cache, digest, graph_io(graph))
    compiled[req["key"]] = program
    # An adapter without `executed` has nothing to say of what its compiler runs.
    return {"inputs": program.inputs, "outputs": program.outputs,
            "executed": getattr(program, "executed", dict)()}, []


def run(req, body):
    program = compiled.get(req["key"])
    if program is None:
        raise KeyError(f"nothing compiled as '{req['key']}'")
    feeds = protocol.feeds_of(req, body)
    missing = [n for n in program.inputs if n not in feeds]
    if missing:
        raise ValueError(f"no value for input '{missing[0]}'")
    if req.get("trace") and hasattr(program, "trace"):
        values, exposed, notes = program.trace(feeds)
        header, chunks = protocol.outputs_reply(program.outputs + list(exposed),
                                                values + list(exposed.values()))
        # notes: each exposed value's layer; a string: why none are (the plain outputs stand).
        header["layers"] = notes
        return header, chunks
    values = program.run(feeds)
    return protocol.outputs_reply(program.outputs, values)


def handle(req, body):
    op = req.get("op")
    if op == "hello":
        if ADAPTER is None:
            raise RuntimeError(f"the {NAME} package could not be imported: {LOAD_ERROR}")
        return {"library": ADAPTER.LIBRARY, "version": ADAPTER.version(),
                "python": sys.version.split()[0]}, []
    if op == "load":
        return load(req)
    if op == "drop":
        compiled.pop(req["key"], None)
        return {}, []
    if op == "run":
        return run(req, body)
    raise ValueError(f"unknown op '{op}'")


if __name__ == "__main__":
    protocol.serve(handle)
