"""infergap.Store: a study store (SQLite file or postgresql:// URL) read through the CLI's own
analyses."""
import json

from . import _core, frames


class Store:
    """A study store. Each view reloads the store, so runs added meanwhile are seen."""

    def __init__(self, path):
        self._core = _core.Store(str(path))
        self.path = str(path)

    def __repr__(self):
        return f"infergap.Store({self.path!r})"

    # The CLI's JSON, for anything the DataFrames leave out.
    def compare_json(self, model="", layers=False, all_nodes=False):
        """What `infergap compare [--layers] --json` prints, as a dict."""
        return json.loads(self._core.compare_json(model, layers, all_nodes))

    def runs(self, model=""):
        """One row per stored run (compare --json's runs)."""
        return frames.runs_frame(self.compare_json(model))

    def classes(self, model=""):
        """Per case and platform: the output EQC and remaining precision (compare --json)."""
        return frames.classes_frame(self.compare_json(model))

    def remaining_precision(self, model=""):
        """Platform x platform: the bits of the outputs they agree to (compare's RP matrix)."""
        return frames.precision_frame(self.compare_json(model))

    def layers(self, model="", all_nodes=False):
        """Per case, node and platform: EQCs, remaining precision and error against the oracle
        (compare --layers --json)."""
        return frames.layers_frame(self.compare_json(model, layers=True, all_nodes=all_nodes))

    def origins(self, oracle=True, model="", a="", b=""):
        """oracle=True: per platform, where its error against the oracle is born (origins
        --oracle --json); else the operator-induced origins between pairs (origins --json)."""
        if oracle:
            return frames.oracle_origins_frame(json.loads(self._core.oracle_origins_json(model)))
        return frames.pair_origins_frame(json.loads(self._core.pair_origins_json(model, a, b)))

    def causes(self, model="", explain=True, max_trials=120):
        """For every EQC split, its causes (attribute --json)."""
        return frames.causes_frame(json.loads(self._core.attribute_json(model, explain,
                                                                        max_trials)))

    def tensor(self, run, node):
        """A stored node output of `run` (value name, node name or index) as a numpy array."""
        return self._core.tensor(int(run), str(node))
