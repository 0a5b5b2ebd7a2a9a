"""ONNX's checker and shape inference from the `onnx` package (PyPI, python/requirements/), for
models newer than the libonnx infergap links knows (src/model/shape_inference.cpp starts this).

Speaks shape_inference.cpp's frames on fd 3: a request is one byte of wanted checks (1: checker,
2: inference, 4: the checker's full check, strict inference included) and a little-endian uint64 length, then the model without its large weights; the
answers are the same header with the frame kinds below. Ends when the socket closes.
"""
import os
import struct
import sys
import tempfile

CHECKER_FAILED, CHECKER_PASSED, INFERRED, INFERENCE_THREW = 1, 2, 3, 4
WANT_CHECKER, WANT_INFERENCE, WANT_STRICT = 1, 2, 4
HEADER = struct.Struct("<BQ")
FD = 3
LEFT_OUT = "weights-left-out"


def read_exact(n):
    chunks = []
    while n > 0:
        chunk = os.read(FD, min(n, 1 << 24))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def send(kind, payload=b""):
    data = HEADER.pack(kind, len(payload)) + payload
    view = memoryview(data)
    while view:
        view = view[os.write(FD, view):]


def serve(onnx):
    while True:
        header = read_exact(HEADER.size)
        if header is None:
            return
        want, size = HEADER.unpack(header)
        body = read_exact(size)
        if body is None:
            return
        model = onnx.ModelProto()
        try:
            model.ParseFromString(body)
        except Exception as e:  # the caller parsed it with its own protobuf; say so if this cannot
            send(CHECKER_FAILED, f"the onnx package cannot parse the model: {e}".encode())
            continue
        del body
        # The caller checked the paths of external data and left large weights out, declaring
        # them external: the checker finds each at an empty file in this process's folder.
        for tensor in model.graph.initializer:
            if tensor.data_location == onnx.TensorProto.EXTERNAL:
                for entry in tensor.external_data:
                    if entry.key == "location":
                        entry.value = LEFT_OUT
        if want & WANT_CHECKER:
            try:
                onnx.checker.check_model(model, full_check=bool(want & WANT_STRICT))
            except Exception as e:  # the checker's ValidationError, or a parse complaint
                send(CHECKER_FAILED, str(e).encode("utf-8", "replace"))
                continue
        send(CHECKER_PASSED)
        if not want & WANT_INFERENCE:
            continue
        try:
            inferred = onnx.shape_inference.infer_shapes(model)
        except Exception:
            send(INFERENCE_THREW)
            continue
        del inferred.graph.initializer[:]
        send(INFERRED, inferred.SerializeToString())


def register_ort_onnx_domain_schemas(onnx):
    """ONNX Runtime's SimplifiedLayerNormalization, which it registers in the ONNX domain itself;
    the same schema as src/model/ort_onnx_domain.cpp gives libonnx."""
    S = onnx.defs.OpSchema
    floats = ["tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"]
    schema = S(
        "SimplifiedLayerNormalization", "", 1,
        "ONNX Runtime's RMS normalization over [axis, rank)",
        inputs=[S.FormalParameter("X", "T"), S.FormalParameter("scale", "V")],
        outputs=[S.FormalParameter("Y", "V"),
                 S.FormalParameter("inv_std_var", "U", param_option=S.FormalParameterOption.Optional)],
        type_constraints=[("T", floats, "X"), ("U", ["tensor(float)", "tensor(double)"], "stats"),
                          ("V", floats, "scale and Y")],
        attributes=[S.Attribute("axis", onnx.helper.make_attribute("axis", -1), "first axis"),
                    S.Attribute("epsilon", onnx.helper.make_attribute("epsilon", 1e-5), "eps"),
                    S.Attribute("stash_type", onnx.helper.make_attribute("stash_type", 1),
                                "type of the statistics")])
    onnx.defs.register_schema(schema)


def main():
    try:
        import onnx
    except ImportError as e:
        sys.stderr.write(f"onnx_checker.py: cannot import onnx: {e}\n")
        return 4
    register_ort_onnx_domain_schemas(onnx)
    if sys.argv[1:] == ["--version"]:
        print(onnx.__version__, onnx.IR_VERSION, onnx.defs.onnx_opset_version())
        return 0
    with tempfile.TemporaryDirectory(prefix="infergap-onnx-") as folder:
        os.chdir(folder)
        open(LEFT_OUT, "wb").close()
        serve(onnx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
