"""docs/PYTHON.md's example runs as printed."""
import os
import re

from conftest import ROOT


def test_python_md_example_runs(tmp_path, capsys):
    text = (ROOT / "docs" / "PYTHON.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(blocks[0], "docs/PYTHON.md", "exec"), {})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "largest error against the oracle" in out and "ref:acc=pairwise" in out
