"""The python side of infergap's runner protocol (src/backends/runner_process.h), shared by every
python-hosted runner: requests arrive on fd 3 as u32 LE header length, JSON header, u64 LE body
length, body bytes; each gets one reply in the same form, {"ok": true, ...} or {"ok": false,
"error": "..."}. Tensors travel as raw little-endian bytes in the body; a header lists them as
{name, dtype, dims, offset, length} (strings travel in the header). stdout is left to libraries.
After a hello naming a "bulk_fd", a reply's body goes into that shared file at the request's
"bulk_at" (the worker's tensors borrow earlier replies' bytes before it) and its header says
{"bulk": N}.
"""
import ctypes
import json
import mmap
import os
import struct
import sys

import numpy as np

FD = 3
BULK_FD = None  # set by the hello
BULK_AT = 0  # where in it this request's reply goes (the request's "bulk_at")
# RunnerProcess::kKeepBulkBytes: a reply up to this size is written through a mapping (and the
# worker maps it); a larger one by pwrite (its pages, mapped by both, would count twice).
KEEP_BULK_BYTES = 64 << 20
_map = None  # (mmap, its ctypes view, its address) of the bulk file, while its size holds


def mapped_bulk(end):
    """The address of the bulk file's first byte, mapped, the file grown to `end` bytes."""
    global _map
    size = os.fstat(BULK_FD).st_size
    if size < end:
        os.ftruncate(BULK_FD, end)  # only ever grown here: the worker's mappings stay valid
        size = end
    if _map is not None and len(_map[0]) != size:  # grown, or emptied by the worker
        mm, view, _ = _map
        _map = None
        del view  # the mapping cannot close while a view of it exists
        mm.close()
    if _map is None:
        mm = mmap.mmap(BULK_FD, size)
        view = ctypes.c_char.from_buffer(mm)
        _map = (mm, view, ctypes.addressof(view))
    return _map[2]
# The dtype names of the protocol (onnxruntime-node's), to numpy's.
DTYPES = {"float32": "float32", "float64": "float64", "float16": "float16", "int8": "int8",
          "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
          "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "bool": "bool"}


def read_exact(n):
    chunks = []
    while n > 0:
        chunk = os.read(FD, min(n, 1 << 24))
        if not chunk:
            sys.exit(0)
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def write_bulk(chunks):
    """Writes the chunks to the bulk file at BULK_AT; True when all went there. Through the
    mapping where the reply is small enough: pwrite's page-cache walk cost 8 ms a run on
    MobileNetV2's 27 MB of values."""
    views = [memoryview(c).cast("B") for c in chunks]
    total = sum(v.nbytes for v in views)
    at = BULK_AT
    try:
        if total <= KEEP_BULK_BYTES:
            mapped_bulk(at + total)
            mm = _map[0]
            for view in views:
                mm[at:at + view.nbytes] = view
                at += view.nbytes
            return True
        for view in views:
            while view:
                n = os.pwrite(BULK_FD, view, at)
                view, at = view[n:], at + n
        return True
    except (OSError, ValueError, BufferError):
        return False  # the socket carries it


def send(header, chunks=()):
    total = sum(memoryview(c).nbytes for c in chunks)
    if BULK_FD is not None and total and write_bulk(chunks):
        header, chunks, total = {**header, "bulk": total}, (), 0
    head = json.dumps(header).encode()
    parts = [struct.pack("<I", len(head)), head, struct.pack("<Q", total)] + list(chunks)
    for part in parts:
        view = memoryview(part).cast("B")
        while view:
            view = view[os.write(FD, view):]


def aligned_copy(data, dtype, dims):
    # ORT reads an input where it lies and some kernels give other bits for another alignment
    # (src/backends/ort/runner.js says how this was found): every input is handed over 64-byte
    # aligned, to every library alike.
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


def feeds_of(req, body):
    return {spec["name"]: to_array(spec, body) for spec in req["feeds"]}


def outputs_reply(names, values):
    """The reply's {"outputs": [...]} and body chunks for named arrays."""
    outputs, chunks, offset = [], [], 0
    for name, value in zip(names, values):
        value = np.asarray(value)
        if value.dtype == object:
            outputs.append({"name": name, "dtype": "string", "dims": list(value.shape),
                            "strings": [str(s) for s in value.reshape(-1)]})
            continue
        # The array's own bytes, not a copy: they are written once, where the reply goes.
        data = memoryview(np.ascontiguousarray(value).reshape(-1).view(np.uint8))
        outputs.append({"name": name, "dtype": value.dtype.name, "dims": list(value.shape),
                        "offset": offset, "length": data.nbytes})
        offset += data.nbytes
        chunks.append(data)
    return {"outputs": outputs}, chunks


def serve(handle):
    """Answers requests until the worker closes fd 3; handle(req, body) -> (header, chunks)."""
    global BULK_FD, BULK_AT
    while True:
        (hlen,) = struct.unpack("<I", read_exact(4))
        req = json.loads(read_exact(hlen))
        (blen,) = struct.unpack("<Q", read_exact(8))
        body = read_exact(blen) if blen else b""
        if req.get("op") == "hello" and isinstance(req.get("bulk_fd"), int):
            BULK_FD = req["bulk_fd"]
        BULK_AT = req.get("bulk_at", 0) if isinstance(req.get("bulk_at"), int) else 0
        try:
            header, chunks = handle(req, body)
            send({"ok": True, **header}, chunks)
        except Exception as e:  # the reason travels to the worker as the run's verdict
            # kind "compile": the compiler refused the model (a verdict, not a failure of ours).
            send({"ok": False, "error": str(e) or type(e).__name__,
                  "kind": getattr(e, "kind", "")})
