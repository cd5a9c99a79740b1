"""What a plain check imports: none of the heavy modules it does not need (start-up is most of a small run)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

from jsonschema import Draft202012Validator

from portlint import tool_defaults

PROBE = """import sys
from portlint.cli import main
code = main(["check", "--exit-zero", "-q", "--no-cache"])
print("imported:", " ".join(sorted(name for name in sys.modules if name.split(".")[0] in ("libcst", "jsonschema", "rich"))))
"""


def test_a_zero_config_check_imports_neither_libcst_nor_jsonschema_nor_rich(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text("#!/bin/bash\nray start --head --port=6379\ntorchrun --nproc-per-node 8 train.py\n")
    (tmp_path / "serve.yaml").write_text("server:\n  port: 8080  # the API\n")
    (tmp_path / "app.py").write_text("import os\nPORT = int(os.environ.get('PORT', 8000))\n")
    (tmp_path / "probe.py").write_text(
        "import socket\n\ndef free_port():\n    s = socket.socket()\n    s.bind(('', 0))\n"
        "    port = s.getsockname()[1]\n    s.close()\n    return port\n"
    )
    (tmp_path / "README.md").write_text("Run `PORT=8000 python app.py`.\n")
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "imported: "


def test_the_packaged_tool_defaults_table_is_valid_against_its_schema() -> None:
    """Checked here once rather than on every run."""
    schema = json.loads((files("portlint") / "tool_defaults.schema.json").read_text(encoding="utf-8"))
    assert list(Draft202012Validator(schema).iter_errors(tool_defaults.table())) == []
    assert tool_defaults.load()


def test_the_command_writes_all_its_output_and_exit_code_before_its_fast_exit(tmp_path: Path) -> None:
    """`portlint` leaves without tearing the interpreter down (portlint.start.run): what it printed
    is all there, in a pipe and in a file, with its exit code; `python -m portlint` too."""
    from installed import PORTLINT

    for index in range(300):  # ~30 KB of problems: more than stdout buffers at once
        (tmp_path / f"launch_{index}.sh").write_text(f"MASTER_PORT={40000 + index}\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    piped = subprocess.run([PORTLINT, "--no-cache"], cwd=tmp_path, capture_output=True, text=True)
    assert piped.returncode == 1 and piped.stderr == ""
    assert len(piped.stdout.splitlines()) == 301 and piped.stdout.endswith("Found 300 problems.\n")
    with open(tmp_path / "out.txt", "w") as out:
        filed = subprocess.run([sys.executable, "-m", "portlint", "--no-cache"], cwd=tmp_path, stdout=out, stderr=subprocess.PIPE)
    assert filed.returncode == 1 and (tmp_path / "out.txt").read_text() == piped.stdout

