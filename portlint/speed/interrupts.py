"""^C held back while a file is written: the command exits at once on SIGINT (portlint.entry.command),
so a write is never left half-done, nor its temporary beside it."""
from __future__ import annotations

import _signal  # `signal`'s C module, loaded with the interpreter: importing `signal` costs more
import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def held_interrupts() -> Iterator[None]:
    """SIGINT held back (blocked, not lost) while a file is written and put in place, delivered
    when the block ends: the command's ^C exits at once (portlint.entry.command), and a file is
    then never left half-written, nor a temporary beside it. Where signals cannot be blocked (not
    POSIX), the block runs as it is."""
    try:
        held = _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT})
    except (AttributeError, OSError, ValueError):
        held = None
    try:
        yield
    finally:
        if held is not None:
            _signal.pthread_sigmask(_signal.SIG_SETMASK, held)
