"""infergap.torch.verify on torchvision and torch.nn models: eager values reach the ONNX compute
nodes, a faithful export departs nowhere, and a wrong export departs at its node."""
import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")
pytest.importorskip("onnx")

import infergap.torch as igtorch  # noqa: E402

EAGER = igtorch.EAGER_PLATFORM


def check_faithful(store):
    mapping = store.mapping
    assert mapping["mapped"] >= 0.95 * mapping["compute_nodes"], mapping["unmapped"]
    runs = store.runs()
    assert EAGER in set(runs["platform"]) and set(runs["verdict"]) == {"ok"}
    origins = store.origins()
    assert origins.empty, origins[["platform", "node", "jump"]].to_string()
    # Eager's output is the export's, within float rounding.
    layers = store.layers()
    out = layers[(layers["platform"] == EAGER) & layers["oracle_error"].notna()]
    assert len(out) >= mapping["mapped"] * 0.5
    assert out["oracle_error"].max() < 1e-4


def test_resnet18(tmp_path):
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    store = igtorch.verify(model, torch.randn(1, 3, 32, 32), platforms=["ref"],
                           store=tmp_path / "r18.db")
    assert store.mapping["compute_nodes"] >= 60  # 20 Conv, 20 BN, 17 Relu, 8 Add, ...
    check_faithful(store)


def test_transformer_encoder(tmp_path):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0)
    model = torch.nn.TransformerEncoder(layer, 2)
    store = igtorch.verify(model, torch.randn(5, 1, 16), platforms=["ref"],
                           store=tmp_path / "enc.db")
    check_faithful(store)


class Recurrent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(8, 16)
        self.fc = torch.nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y)


def test_lstm(tmp_path):
    torch.manual_seed(0)
    store = igtorch.verify(Recurrent(), torch.randn(6, 1, 8), platforms=["ref"],
                           store=tmp_path / "lstm.db")
    check_faithful(store)


class Triple(torch.autograd.Function):
    """Triples in eager; its ONNX doubles: the export is wrong at this node."""

    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def symbolic(g, x):
        return g.op("Mul", x, g.op("Constant", value_t=torch.tensor(2.0)))


class Wrong(torch.nn.Module):
    def forward(self, x):
        return Triple.apply(x)


def test_wrong_export_is_found_at_its_node(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), Wrong(), torch.nn.ReLU(),
                                torch.nn.Linear(8, 4))
    store = igtorch.verify(model, torch.randn(2, 8), platforms=["ref"], store=tmp_path / "w.db")
    origins = store.origins()
    eager = origins[origins["platform"] == EAGER]
    assert len(eager) >= 1
    first = eager.iloc[0]
    assert first["node"] == "/1/Mul" and first["op_type"] == "Mul"
    # x*3 against x*2: half the oracle's magnitude off, from exact inputs.
    assert first["output_error"] == pytest.approx(0.5, rel=1e-3)
    # The platform runs the export as written: no origin of its own.
    assert "ref" not in set(origins["platform"])
