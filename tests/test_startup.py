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
