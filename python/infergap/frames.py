"""The CLI's --json objects as DataFrames: one function per view, used by Store on the C++
functions' JSON and by the tests on the CLI's printed JSON, so the two are compared like for like."""
import pandas as pd


def _case_columns(case):
    return {"model": case["model"], "input": case["input"], "input_label": case["input_label"]}


def runs_frame(compare):
    """One row per stored run: case, platform, run id, repetition, verdict."""
    rows = []
    for case in compare["cases"]:
        for platform, reps in case["runs"].items():
            for r in reps:
                rows.append({**_case_columns(case), "platform": platform, "run": r["run"],
                             "repetition": r["repetition"], "verdict": r["verdict"],
                             "reason": r["reason"]})
    return pd.DataFrame(rows, columns=["model", "input", "input_label", "platform", "run",
                                       "repetition", "verdict", "reason"])


def classes_frame(compare):
    """One row per (case, platform): its output EQC (the compare matrix's cell: the class letter,
    `*` where it matches the oracle), the case's EQC count and remaining precision."""
    rows = []
    for i, case in enumerate(compare["cases"]):
        for platform in compare["platforms"]:
            cells = compare["eqc_matrix"].get(platform, [])
            rows.append({**_case_columns(case), "platform": platform,
                         "eqc": cells[i] if i < len(cells) else None,
                         "eqc_count": case["eqc_count"],
                         "remaining_precision": case["remaining_precision"]})
    return pd.DataFrame(rows, columns=["model", "input", "input_label", "platform", "eqc",
                                       "eqc_count", "remaining_precision"])


def precision_frame(compare):
    """compare's remaining-precision matrix: platform x platform, the bits they agree to."""
    platforms = compare["platforms"]
    return pd.DataFrame(compare["rp_matrix"], index=platforms, columns=platforms)


def _class_of(classes, platform):
    for k, members in enumerate(classes):
        if platform in members:
            return k
    return None


def layers_frame(compare):
    """compare --layers: one row per (case, node, platform) with the node's EQC count, remaining
    precision and split flag, the platform's class at the node and its error against the oracle."""
    rows = []
    for case in compare["cases"]:
        for layer in case.get("layers", []):
            platforms = sorted({p for c in layer["classes"] for p in c} |
                               set(layer["oracle_errors"]))
            for platform in platforms:
                rows.append({**_case_columns(case), "node_index": layer["node_index"],
                             "node": layer["node"], "op_type": layer["op_type"],
                             "eqc_count": layer["eqc_count"],
                             "remaining_precision": layer["remaining_precision"],
                             "split": layer["split"], "merge": layer["merge"],
                             "platform": platform,
                             "eqc": _class_of(layer["classes"], platform),
                             "oracle_error": layer["oracle_errors"].get(platform)})
    return pd.DataFrame(rows)


def oracle_origins_frame(origins):
    """origins --oracle --json: one row per origin (platform, case, node, errors, jump)."""
    return pd.json_normalize(origins["oracle_origins"], sep=".")


def pair_origins_frame(origins):
    """origins --json: one row per operator-induced origin of a pair, first origin first."""
    rows = []
    for pair in origins["pairs"]:
        for k, o in enumerate(pair["origins"]):
            rows.append({"a": pair["a"], "b": pair["b"], "case": pair["case"], "first": k == 0,
                         **{key: o[key] for key in ("node_index", "node", "op_type",
                                                    "remaining_precision")}})
    return pd.DataFrame(rows, columns=["a", "b", "case", "first", "node_index", "node", "op_type",
                                       "remaining_precision"])


def causes_frame(attribute):
    """attribute --json: one row per EQC split with its causes."""
    return pd.DataFrame(attribute["splits"], columns=["case", "node_index", "node", "op_type",
                                                      "side_a", "side_b", "a", "b", "causes",
                                                      "source"])
