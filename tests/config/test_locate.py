"""Finding the config (portlint/config/locate.py): the byte test before the TOML parser gives the parser's answers."""
from __future__ import annotations

from pathlib import Path

import pytest

from portlint.config import locate


@pytest.mark.parametrize(("text", "declares"), [
    ("[tool.portlint]\nbands = {}\n", True),
    ('[tool."port\\u006cint"]\nbands = {}\n', True),  # an escape hides the word from a byte test
    ("[tool]\nportlint = { bands = {} }\n", True),
    ("[tool.ruff]\nline-length = 100\n", False),
    ('[project]\ndescription = "uses portlint"\n', False),  # the word, but no table: the parser decides
    ("[tool.portlint]\nbands =\n", True),  # broken, but meant for portlint: loading it reports the error
    ("[tool.ruff\n", False),
])
def test_a_pyproject_declares_portlint_as_its_toml_says(tmp_path: Path, text: str, declares: bool) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(text)
    assert locate.declares_portlint(pyproject) is declares

