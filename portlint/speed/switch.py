"""The one switch over the hand-written fast paths: each is taken unless `PORTLINT_PLAIN` names it.

A fast path is code that gives what a plainer way of doing the same thing gives, only sooner.
Each has a name here, and the plain way beside it where it is taken; `PORTLINT_PLAIN` lists
the names whose plain way a run takes (comma-separated; `all`: every one). The plain ways are
what the fast ones are tested against (tests/speed/test_plain.py: the fixtures and a generated
repository, output compared byte for byte) and measured against (`tests/bench/bench.py --plain
NAME`). The variable is read once, when this module is imported; `taking_plain` switches
within one process, for tests.

A plain way reports what the fast one does, with one exception: a file (or a YAML document) a
byte test proves to hold nothing is not parsed by the fast path, so a parse error in it goes
unreported, as in any file the prefilter drops; the plain way parses it and reports it (PL001).
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

# Each fast path, and what its plain way is.
FAST_PATHS = {
    "prefilter": "a file read is extracted only where its bytes can hold something to check (plain: every file listed)",
    "needles": "the byte tests' literals found in one RE2 pass over a file (plain: a search per literal)",
    "outline": "a Python module parsed with its cold statements blanked (plain: parsed whole)",
    "yaml": "a YAML file composed only where its bytes can yield something (plain: every YAML file the prefilter keeps)",
    "documents": "of a YAML stream, only the documents whose bytes can yield something composed (plain: every document)",
    "commands": "a YAML or Python file's commands read only where its bytes mention a tool, and of a YAML file's"
                " scripts only those that do (plain: every file's, every script)",
    "markdown": "a Markdown file parsed only where a line outside a code fence writes a wanted name and a number (plain: every one kept)",
    "replay": "a check whose inputs are all unchanged replays its last output (plain: every check runs)",
    "pool": "the per-file stage shared with forked workers (plain: one process)",
}
_plain: frozenset[str] = frozenset()


def _parse(value: str) -> frozenset[str]:
    names = {name.strip() for name in value.split(",") if name.strip()}
    return frozenset(FAST_PATHS) if "all" in names else frozenset(names & set(FAST_PATHS))


def fast(name: str) -> bool:
    """Whether a run takes the fast path `name` (one of FAST_PATHS)."""
    return name not in _plain


def plain() -> frozenset[str]:
    """The fast paths this run does not take."""
    return _plain


@contextmanager
def taking_plain(names: Iterable[str]) -> Iterator[None]:
    """Within the block, the plain way of each of `names` is taken (tests)."""
    global _plain
    saved = _plain
    _plain = _parse(",".join(names))
    try:
        yield
    finally:
        _plain = saved


_plain = _parse(os.environ.get("PORTLINT_PLAIN", ""))
