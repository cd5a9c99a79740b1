"""A file could not be read or parsed.

What it does: reports every candidate file portlint could not read (permissions,
a symlink loop, not UTF-8 such as Latin-1 or UTF-16, binary with NUL bytes, over
the 2 MiB limit while it may hold a port) or parse (invalid YAML including
duplicate keys, Python or shell syntax), with the reason and, where the parser
gives one, the position.
Why: a port written in a file portlint cannot parse is a port nobody checks;
the rest of the repository is still checked.
Example (fails): `port: "7000` (an unclosed quote in YAML).
Use instead: `port: "7000"` (the quote closed).
Options: `include` and `exclude` say which files are read.
Fix: none; repair the file by hand.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.problems import Problem

CODE = "PL001"
NAME = "parse-error"
NEEDS_LAYOUT = False
NEEDS = frozenset({"frozen"})  # a frozen pair's broken inheritance chain is a PL001


def check(layout: Layout) -> Iterator[Problem]:
    for failure in layout.failures:
        yield Problem(failure.path, failure.line, failure.column, CODE, f"cannot check this file: {failure.reason}")
