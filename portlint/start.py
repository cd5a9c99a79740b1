"""The `portlint` command: a check whose inputs are unchanged replays its last output
(portlint/runcache.py) before click or the engine is imported; the rest is the CLI's."""
from __future__ import annotations

import os
import sys
from typing import NoReturn


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    from portlint import runcache

    warm = runcache.prepare(args)
    if warm is not None:
        code = warm.replay()
        if code is not None:
            return code
    from portlint.cli import main as cli_main

    if warm is None:
        return cli_main(args)
    return warm.record(lambda: cli_main(args))


def run() -> NoReturn:
    """The `portlint` command (and `python -m portlint`): `main`, then out without tearing the
    interpreter down, as mypy's fast exit does. A check leaves many objects (every file's
    extraction, its bytes): freeing them one by one at exit cost ~13 ms of a cold check of
    AReaL. Nothing is left to do at exit but the flushes done here (files are written and
    closed, workers reaped, and no exit handler is registered); a flush that fails exits 120,
    as the interpreter's own would."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`), a closed stream
            code = 120
    os._exit(code)
