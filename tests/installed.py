"""The portlint installed beside the interpreter running the tests, never one found on PATH.

`pip install -e ".[test]"` (or CI's `pip install ".[test]"`) puts the `portlint`
entry point in the same bin/ as `sys.executable`; a test that runs it as a user
would uses that file, so the suite passes whether or not the virtualenv is
activated, and never runs some other portlint that PATH happens to hold.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

BIN = Path(sys.executable).parent
PORTLINT = str(BIN / "portlint")


def env_with_portlint(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment whose PATH starts with BIN: for a shell command that says `portlint …`."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = os.pathsep.join(p for p in (str(BIN), env.get("PATH", "")) if p)
    return env
