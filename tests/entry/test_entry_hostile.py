"""The entry points run none of the scanned code.

Each test reproduces a defect an adversarial campaign found (issue 39) in a fresh repository.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_python_dash_m_portlint_imports_no_module_of_the_repository_it_checks(tmp_path: Path) -> None:
    """`python -m` puts the working directory first on sys.path: a repository's `click.py` or
    `json.py` was imported in place of the real module (the `portlint` script never did)."""
    marker = tmp_path / "imported.marker"
    repo = tmp_path / "repo"
    repo.mkdir()
    trap = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for module in ("click", "json", "re2", "msgspec", "fastjsonschema", "pathspec"):
        (repo / f"{module}.py").write_text(trap)
    (repo / "ports.yaml").write_text("master_port: 1500\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    done = subprocess.run([sys.executable, "-m", "portlint", "--no-cache"], cwd=repo, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    assert not marker.exists(), f"imported from the repository: {marker.read_text().split()}"
