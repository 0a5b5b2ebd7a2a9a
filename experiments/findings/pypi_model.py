#!/usr/bin/env python3
"""A trained model from a PyPI package (scripts/pypi-models) made ready for a campaign: its one
input's open dims fixed, so that every variant runs at the size the package's runtime feeds.

    experiments/findings/pypi_model.py NAME@DIMS OUT.onnx    (the venv's python)

NAME is a model file's name without .onnx under .venv/share/pypi-models/, e.g.
ch_ppocr_mobile_v2.0_cls_mobile@1x3x48x192.
"""
import os
import sys

import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, ".venv", "share", "pypi-models")


def main():
    spec, out = sys.argv[1], sys.argv[2]
    name, _, dims = spec.partition("@")
    found = [os.path.join(base, f) for base, _, files in os.walk(MODELS) for f in files
             if f == name + ".onnx"]
    if not found:
        sys.exit(f"pypi_model: no {name}.onnx under {MODELS} (scripts/setup --tests)")
    model = onnx.load(found[0])
    inputs = [i for i in model.graph.input
              if i.name not in {t.name for t in model.graph.initializer}]
    if dims:
        if len(inputs) != 1:
            sys.exit(f"pypi_model: {name} has {len(inputs)} inputs; @DIMS fixes one")
        sizes = [int(d) for d in dims.split("x")]
        shape = inputs[0].type.tensor_type.shape
        if len(sizes) != len(shape.dim):
            sys.exit(f"pypi_model: {name}'s input '{inputs[0].name}' has rank {len(shape.dim)}, "
                     f"@{dims} gives {len(sizes)} sizes")
        for d, size in zip(shape.dim, sizes):
            d.Clear()
            d.dim_value = size
    onnx.save(model, out)
    print(f"pypi_model: {found[0]} -> {out}")


if __name__ == "__main__":
    main()
