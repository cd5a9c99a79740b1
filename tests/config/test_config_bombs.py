"""A hostile config is refused quickly, in one line, before anything expands or recurses through it.

Each test reproduces a defect an adversarial campaign found (issue 39).
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from portlint.cli import main

BUDGET = 2.0  # seconds


def test_a_config_alias_bomb_under_sites_is_refused_before_expansion_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lists of lists of aliases under `sites:`: 8 levels of 9 took ~80 s and 1.7 GB to refuse."""
    lines = ["bands:", "  x:", "    range: 1400-1999", "    sites:", '      - &a0 ["A","A","A","A","A","A","A","A","A"]']
    lines += [f"      - &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    (tmp_path / ".portlint.yaml").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    began = time.perf_counter()
    code = main([])
    assert time.perf_counter() - began < BUDGET
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == "portlint: error: .portlint.yaml: bands.x.sites[5]: expected at most 100000 values once aliases are expanded\n"


@pytest.mark.parametrize("name", ["portlint.toml", "pyproject.toml"])
def test_a_toml_config_nested_past_tomllibs_recursion_is_a_one_line_config_error(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """tomllib recurses: arrays 100,000 deep were an internal error, not the config's."""
    table = "[tool.portlint]\n" if name == "pyproject.toml" else ""
    (tmp_path / name).write_text(f"{table}include = {'[' * 100_000}{']' * 100_000}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["--no-cache"]) == 2
    assert capsys.readouterr().err == f"portlint: error: {name}: expected TOML nested less deeply\n"
