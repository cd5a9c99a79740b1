"""The end-to-end walkthrough of docs/getting-started.md: a layout change, its stale copy and docs, found and fixed."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from installed import PORTLINT

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "getting-started.md").read_text()


def _portlint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PORTLINT, *args], cwd=cwd, capture_output=True, text=True)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_a_layout_change_reports_the_stale_copy_and_docs_and_fix_repairs_them(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(ROOT / "fixtures" / "demo", demo)
    _portlint(demo, "--fix", "-q")
    layout = demo / ".portlint.yaml"
    layout.write_text(layout.read_text().replace("range: 3000-4999", "range: 3100-4999"))
    config = demo / "examples" / "configs" / "grpo_math_1B.yaml"
    config.write_text(config.read_text().replace("port_range_low: 3000", "port_range_low: 3100"))

    shown = PAGE.split("### A layout change, end to end", 1)[1].split("```text\n", 1)[1].split("```", 1)[0].rstrip("\n")
    result = _portlint(demo)
    assert result.returncode == 1
    assert result.stdout.rstrip("\n") == shown
    assert "PL401" in shown and "PL501" in shown

    only_the_copy = _portlint(demo, "examples/configs/grpo_math_1B.yaml", "--select", "PL401")
    assert "tests/unit/reference_configs/grpo_math_1B.yaml:93:21: PL401" in only_the_copy.stdout

    before = _snapshot(demo)
    _portlint(demo, "--fix", "--unsafe-fixes")
    after = _snapshot(demo)
    changed = {p for p in after if after[p] != before[p]}
    assert changed == {
        "docs/cluster.md", "examples/configs/evals/eval.yaml", "nemo_rl/distributed/ports.py",
        "tests/unit/reference_configs/grpo_math_1B.yaml",
    }
    for path in changed:  # only numbers changed: same lines, same non-digit bytes
        old, new = before[path].splitlines(), after[path].splitlines()
        assert len(old) == len(new)
        assert [bytes(c for c in line if not chr(c).isdigit()) for line in old] == \
               [bytes(c for c in line if not chr(c).isdigit()) for line in new]
    remaining = _portlint(demo)
    assert [line.split(": ")[1].split()[0] for line in remaining.stdout.splitlines() if ": PL" in line] == ["PL302"]
    _portlint(demo, "--fix", "--unsafe-fixes")
    assert _snapshot(demo) == after
