"""What a plain check imports: none of the heavy modules it does not need (start-up is most of a small run)."""
from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from portlint.tables import tool_defaults

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
    schema = json.loads((files("portlint.tables") / "tool_defaults.schema.json").read_text(encoding="utf-8"))
    assert list(Draft202012Validator(schema).iter_errors(tool_defaults.table())) == []
    assert tool_defaults.load()


def test_the_command_writes_all_its_output_and_exit_code_before_its_fast_exit(tmp_path: Path) -> None:
    """`portlint` leaves without tearing the interpreter down (portlint.entry.command.run): what it printed
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



@pytest.mark.skipif(sys.version_info < (3, 11), reason="before 3.11 `re` reads no such pattern: the import is the test")
def test_no_module_but_the_outline_compiles_a_pattern_python_3_10_cannot_read() -> None:
    """Python 3.10's `re` has no possessive quantifiers nor atomic groups: a module-level pattern
    with one keeps portlint from importing there (93a20f7's command reader did, for a day). Only
    the outline's events use them, compiled from 3.11 on (python_outline declines before; its
    `_tail()` compiles the third when first asked for)."""
    import importlib
    import pkgutil
    import re

    parser, constants = re._parser, re._constants  # type: ignore[attr-defined]  # what `re.compile` reads a pattern with
    unreadable = {constants.POSSESSIVE_REPEAT, constants.ATOMIC_GROUP}

    def opcodes(pattern: object) -> set[object]:
        found, stack = set(), [pattern]
        while stack:
            item = stack.pop()
            if isinstance(item, parser.SubPattern):
                for opcode, argument in item:
                    found.add(opcode)
                    stack.append(argument)
            elif isinstance(item, (list, tuple)):
                stack.extend(item)
        return found

    import portlint

    using = []
    for module in pkgutil.walk_packages(portlint.__path__, "portlint."):
        if module.name.endswith("__main__"):
            continue  # runs a check when imported
        for name, value in vars(importlib.import_module(module.name)).items():
            if isinstance(value, re.Pattern) and unreadable & opcodes(parser.parse(value.pattern, value.flags)):
                using.append(f"{module.name}.{name}")
    from portlint.speed import outline as python_outline

    using += ["portlint.speed.outline._tail()"] * bool(unreadable & opcodes(parser.parse(python_outline._tail().pattern)))
    assert sorted(using) == [f"portlint.speed.outline.{name}" for name in ("_EVENTS", "_LEAD", "_tail()")]
