#!/usr/bin/env python3
"""Trained models that ship inside PyPI packages (scripts/pypi-models: Silero VAD, RapidOCR's
PaddleOCR models) against the fp64 oracle: every model loads (Paddle2ONNX's -1 and "?" dims
included) and runs on ref, ORT and oneDNN with ref's fallback, each platform within its measured
bound of the oracle, and study's origins name where each platform's error is born.
  tests/corpus/pypi_models_spec.py INFERGAP WORK_DIR
Exits 77 where scripts/setup --tests has not extracted the models.
"""
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, ".venv", "share", "pypi-models")
PLATFORMS = ["ref", "ort", "onednn:fallback=ref"]

VAD = ["--shape", "input=1x512", "--shape", "state=2x1x128", "--input", "sr=value:16000",
       "--input", "input=random:uniform,lo=-0.5,hi=0.5"]
OCR = "rapidocr/rapidocr/models/"
VAD_DIR = "silero_vad/silero_vad/data/"
# (model, study arguments, largest error against the oracle any platform may show: about 10x
# what was measured on the development host)
CASES = [
    (VAD_DIR + "silero_vad.onnx", VAD, 1e-5),
    (VAD_DIR + "silero_vad_op18_ifless.onnx", VAD, 1e-5),
    (VAD_DIR + "silero_vad_16k_op15.onnx", VAD, 1e-5),
    (OCR + "ch_ppocr_mobile_v2.0_cls_mobile.onnx", ["--shape", "x=1x3x48x192"], 1e-4),
    (OCR + "PP-OCRv6_det_small.onnx", ["--shape", "x=1x3x96x96"], 1e-4),
    (OCR + "PP-OCRv6_rec_small.onnx", ["--shape", "x=1x3x48x192"], 2e-3),
]


def cli(infergap, *args):
    r = subprocess.run([infergap, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"infergap {' '.join(args)}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return r.stdout


def main():
    infergap, work = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not os.path.exists(os.path.join(MODELS, "infergap-lock")):
        print(f"pypi_models_spec: skipped: no {MODELS} (scripts/setup --tests)")
        return 77
    shutil.rmtree(work, ignore_errors=True)  # no store of an earlier run to resume
    os.makedirs(work)
    worst = 0.0
    for model, extra, bound in CASES:
        name = os.path.basename(model)[:-5]
        store = os.path.join(work, name + ".db")
        cli(infergap, "study", "--model", os.path.join(MODELS, model), *extra,
            *sum((["-p", p] for p in PLATFORMS), []), "--store", store, "--no-report")
        report = json.loads(cli(infergap, "compare", "--store", store, "--json"))
        ranking = {r["platform"]: r for r in report["oracle_ranking"]}
        for p in PLATFORMS:
            if p not in ranking:
                sys.exit(f"{name}: {p} did not run ({sorted(ranking)})")
            err = ranking[p]["max_abs_error"]
            if not err <= bound:
                sys.exit(f"{name}: {p} is {err:.3g} off the oracle (bound {bound:g})")
            worst = max(worst, err / bound)
        print(f"pypi_models_spec: {name}: " + ", ".join(
            f"{p} {ranking[p]['max_abs_error']:.2g}" for p in PLATFORMS))
    print(f"pypi_models_spec: ok ({len(CASES)} models; the closest to a bound at {worst:.0%} of it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
