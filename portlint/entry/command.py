"""The `portlint` command: a check whose inputs are unchanged replays its last output
(portlint/entry/replay.py) before click or the engine is imported; one that is not runs its
per-file stage before click is imported (engine.scan_ahead); the rest is the CLI's."""
from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING, NoReturn

from portlint import GC_THRESHOLDS

if TYPE_CHECKING:
    from portlint.entry import replay as runcache


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    from portlint.entry import replay as runcache

    warm = runcache.prepare(args)
    if warm is None:
        from portlint.cli import main as cli_main

        return cli_main(args)
    code = warm.replay()
    if code is not None:
        return code
    return warm.record(lambda: _check(args, warm))


def _check(args: list[str], warm: runcache.Warm) -> int:
    """A plain check that was not replayed: its per-file stage runs before the CLI is imported,
    which this process imports while the pool's workers start on the files (engine.scan_ahead),
    then the CLI runs it as usual and takes those results."""
    from portlint.engine import drop_scanned_ahead, scan_ahead

    try:
        scan_ahead(warm.start, tuple(warm.parsed.config_args), warm.parsed.ephemeral_floor, _LATER)
    except KeyboardInterrupt:  # most of a cold check's time: ^C ends it as it ends the CLI's
        from portlint.cli import interrupted

        drop_scanned_ahead()
        return interrupted()
    try:
        from portlint.cli import main as cli_main

        return cli_main(args)
    finally:
        drop_scanned_ahead()


# What the CLI imports to report a check, and json, which the run cache stores its entry with.
_LATER = ("portlint.cli", "portlint.report", "portlint.report.text", "json")


def run() -> NoReturn:
    """The `portlint` command (and `python -m portlint`): `main`, then out without tearing the
    interpreter down, as mypy's fast exit does. A check leaves many objects (every file's
    extraction, its bytes): freeing them one by one at exit cost ~13 ms of a cold check of
    AReaL. Nothing is left to do at exit but the flushes done here (files are written and
    closed, workers reaped, and no exit handler is registered); a flush that fails exits 120,
    as the interpreter's own would. Collections are rare from the start (GC_THRESHOLDS): every
    700 allocations, importing portlint collected 28 times, ~7 ms of every run (a replayed one's
    too) before a cold check's pool forks."""
    gc.set_threshold(*GC_THRESHOLDS)
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`), a closed stream
            code = 120
    os._exit(code)
