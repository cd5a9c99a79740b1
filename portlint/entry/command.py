"""The `portlint` command: a check whose inputs are unchanged replays its last output
(portlint/entry/replay.py) before click or the engine is imported; one that is not hands what
the warm path learnt (the root, git's listing, the recorder) to the CLI, which runs it."""
from __future__ import annotations

import _signal  # the C module under `signal`, loaded with the interpreter: the handler imports nothing
import os
import sys

from portlint import EXIT_INTERRUPTED  # the package, loaded already


def _on_interrupt(signum: int, frame: object) -> NoReturn:
    """^C: one line on stderr, written by the descriptor, and out at once (exit 130, the shell's
    status for SIGINT). Raising KeyboardInterrupt instead could not be quiet at any moment: one
    lands in an import, or in a callback that prints it as "ignored" and goes on. Nothing is left
    half-written: a file is written with ^C held back until it is whole and in place
    (speed.interrupts.held_interrupts), and the pool's workers die with this process (speed.pool._dies_with)."""
    try:
        if os.getpid() == _COMMAND[0]:  # not a worker forked before it set its own (speed.pool._dies_with)
            os.write(2, b"\nportlint: aborted\n")
    finally:
        os._exit(EXIT_INTERRUPTED)


_COMMAND = [0]  # the command's own process


def _quiet_interrupts() -> None:
    _COMMAND[0] = os.getpid()
    _signal.signal(_signal.SIGINT, _on_interrupt)


# The command (its script, or `python -m portlint`) from its first statement on, before anything
# else is imported: an import is where an early ^C lands. A module imported only to be used
# (tests, a library) installs nothing; `run` installs it too.
if sys.argv and (os.path.basename(sys.argv[0]) == "portlint" or sys.argv[0].endswith(os.path.join("portlint", "__main__.py"))):
    _quiet_interrupts()

import gc  # noqa: E402
from typing import TYPE_CHECKING, NoReturn  # noqa: E402

from portlint import GC_THRESHOLDS  # noqa: E402 - after the handler, as gc and typing are

if TYPE_CHECKING:
    from portlint.entry.replay import Warm


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    from portlint.entry import replay

    warm = replay.prepare(args)
    if warm is None:
        from portlint.cli import main as cli_main

        return cli_main(args)
    code = warm.replay()
    if code is not None:
        return code
    return warm.record(lambda: _check(args, warm))


def _check(args: list[str], warm: Warm) -> int:
    """A plain check that was not replayed: the CLI parses the arguments and runs it, with what
    the warm path learnt (the root, git's listing, the recorder)."""
    from portlint.cli import main as cli_main
    from portlint.engine import Known

    return cli_main(args, Known(warm.root, warm.handed, confirm=warm.confirm))


def run() -> NoReturn:
    """The `portlint` command (and `python -m portlint`): `main`, then out without tearing the
    interpreter down, as mypy's fast exit does. A check leaves many objects (every file's
    extraction, its bytes), and freeing them one by one at exit is a cost of its own. Nothing is
    left to do at exit but the flushes done here (files are written and closed, workers reaped,
    and no exit handler is registered); a flush that fails exits 120, as the interpreter's own
    would. Collections are rare from the start (GC_THRESHOLDS): at the interpreter's default,
    importing portlint alone collects many times, in every run (a replayed one's too) and before
    a cold check's pool forks."""
    _quiet_interrupts()
    gc.set_threshold(*GC_THRESHOLDS)
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`), a closed stream
            code = 120
    os._exit(code)
