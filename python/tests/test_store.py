"""Store's DataFrames are the CLI's --json on the same store; tensors are what `export` writes;
numpy inputs are the inputs the CLI makes of the same values in a .npy file."""
import numpy as np
import pandas as pd
import pytest

import infergap
from infergap import frames
from conftest import PLATFORMS, cli


def test_runs_are_the_cli_runs(store):
    runs = store.runs()
    pd.testing.assert_frame_equal(runs, frames.runs_frame(cli("compare", "--store", store.path,
                                                              "--json")))
    # One run per platform and one of the oracle, all ok, on the one case.
    assert sorted(runs["platform"]) == sorted(PLATFORMS + ["ref:acc=exact,dtype=fp64"])
    assert set(runs["verdict"]) == {"ok"}
    assert runs["run"].is_unique
    assert store.summary["runs_executed"] == 4


def test_classes_and_precision_are_compare_json(store):
    j = cli("compare", "--store", store.path, "--json")
    classes = store.classes()
    pd.testing.assert_frame_equal(classes, frames.classes_frame(j))
    pd.testing.assert_frame_equal(store.remaining_precision(), frames.precision_frame(j))
    # Summation order splits the three platforms (compare's EQC matrix says so too).
    assert classes["eqc_count"].iloc[0] == len(j["cases"][0]["classes"])
    assert list(classes["eqc"]) == [j["eqc_matrix"][p][0] for p in j["platforms"]]
    rp = store.remaining_precision()
    assert (np.diag(rp.values) == 23).all() and (rp.values <= 23).all()


def test_layers_are_compare_layers_json(store):
    layers = store.layers()
    j = cli("compare", "--store", store.path, "--layers", "--json")
    pd.testing.assert_frame_equal(layers, frames.layers_frame(j))
    # Every captured compute node, for every platform, with an error against the oracle.
    rows = j["cases"][0]["layers"]
    assert len(layers) == sum(len({p for c in r["classes"] for p in c} | set(r["oracle_errors"]))
                              for r in rows)
    conv = layers[(layers["node_index"] == 0) & (layers["platform"] == "ref")]
    assert len(conv) == 1 and 0 <= conv["oracle_error"].iloc[0] < 1e-5


def test_origins_are_origins_json(store):
    j = cli("origins", "--oracle", "--store", store.path, "--json")
    pd.testing.assert_frame_equal(store.origins(), frames.oracle_origins_frame(j))
    pairs = cli("origins", "--store", store.path, "--json")
    pd.testing.assert_frame_equal(store.origins(oracle=False), frames.pair_origins_frame(pairs))
    # Platforms that differ in summation order differ first at the first Conv.
    first = store.origins(oracle=False)
    assert first[first["first"]]["op_type"].iloc[0] == "Conv"


def test_causes_are_attribute_json(store):
    causes = store.causes(explain=False)
    j = cli("attribute", "--store", store.path, "--no-explain", "--json")
    pd.testing.assert_frame_equal(causes, frames.causes_frame(j))
    assert len(causes) == j["split_count"] > 0


def test_tensor_is_what_export_writes(store, work):
    runs = store.runs()
    run = int(runs[runs["platform"] == "xnnpack"]["run"].iloc[0])
    out = work / "probs.npy"
    cli("export", "--store", store.path, "--run", run, "--node", "probs", "-o", out)
    got = store.tensor(run, "probs")
    assert got.dtype == np.float32 and got.shape == (1, 10)
    np.testing.assert_array_equal(got, np.load(out))
    assert abs(got.sum() - 1) < 1e-5  # softmax


def test_numpy_inputs_hash_as_the_npy_file(store, work, model, image):
    np.save(work / "x.npy", image)
    cli_db = work / "cli.db"
    cli("study", "--model", model, "--input", f"x={work / 'x.npy'}", "-p", "ref", "--store",
        cli_db, "--no-report")
    from_cli = infergap.Store(cli_db).runs()
    from_numpy = store.runs()
    assert len(set(from_numpy["input"])) == 1
    assert set(from_cli["input"]) == set(from_numpy["input"])
    # The label names the file each was read from.
    assert all(label.endswith("/x.npy") for label in set(from_numpy["input_label"]))
    # The same outputs too: ref is deterministic.
    ref = lambda runs: int(runs[runs["platform"] == "ref"]["run"].iloc[0])  # noqa: E731
    np.testing.assert_array_equal(infergap.Store(cli_db).tensor(ref(from_cli), "probs"),
                                  store.tensor(ref(from_numpy), "probs"))


def test_errors_carry_the_cli_message(work, model):
    with pytest.raises(infergap.Error, match="nowhere.db: no such store"):
        infergap.Store(work / "nowhere.db")
    with pytest.raises(infergap.Error, match="no-such-platform"):
        infergap.study(model, platforms=["no-such-platform"], store=work / "bad.db")
    with pytest.raises(infergap.Error, match="no captured output named 'nope'"):
        infergap.Store(work / "study.db").tensor(1, "nope")
