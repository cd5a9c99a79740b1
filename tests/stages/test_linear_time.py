"""Hostile input costs time linear in its size: every regular expression and byte scan that reads a
line of a repository's files, a message or a config's glob is linear in the line's length.

Each case reproduces a shape an adversarial campaign found quadratic (issue 39), on one line of
100,000 characters: linear work on it takes milliseconds, quadratic work took minutes.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from portlint.analysis import rendezvous
from portlint.commands import noqa
from portlint.config import locate
from portlint.model.extraction import Suppression
from portlint.model.globs import matcher
from portlint.model.naming import NameFilter
from portlint.model.problems import Problem
from portlint.report import Context
from portlint.rules import unused_suppression
from portlint.stages.extract.yaml import worth_composing
from portlint.stages.perfile import extract_file
from portlint.stages.prefilter import prefilter
from portlint.tables import tool_defaults

LONG = 100_000  # characters of one line: linear work on it takes milliseconds, quadratic took minutes
BUDGET = 2.0  # seconds, for work that is linear in LONG


def seconds(call: Callable[[], object]) -> float:
    began = time.perf_counter()
    call()
    return time.perf_counter() - began


PORT_TOKENS = prefilter(())
LONG_LINES: dict[str, Callable[[], object]] = {
    # the three the campaign found
    "a Python comment line of #": lambda: extract_file(
        "a.py", "python", b"MASTER_PORT = 1500\n" + b"#" * LONG + b"\n", NameFilter(["MASTER_PORT"])),
    "a YAML line of * in a file with an anchor": lambda: worth_composing(
        b"a: &x 1\n" + b"*" * LONG + b"\n", PORT_TOKENS.tokens, PORT_TOKENS.keys),
    "a long word in a message shown from a subfolder": lambda: Context(Path("/r"), Path("/r/sub")).message(
        Problem("a.yaml", 1, 1, "PL001", "x " + "a" * LONG + " y")),
    # the same shapes elsewhere
    "a YAML line of port tokens": lambda: worth_composing(
        b"x: 1\n" + b"_port" * (LONG // 5) + b"\n", PORT_TOKENS.tokens, PORT_TOKENS.keys),
    "a YAML line of port keys whose values are words": lambda: worth_composing(
        b"x: 1\n" + b"port_count: a " * (LONG // 14) + b"\n", PORT_TOKENS.tokens, PORT_TOKENS.keys),
    "a long path-like word in a message": lambda: Context(Path("/r"), Path("/r/sub")).message(
        Problem("a.yaml", 1, 1, "PL001", "x " + "a" * LONG + ".yaml y")),
    "a broken pyproject.toml of blank lines": lambda: locate._TOOL_PORTLINT_HEADER.search("\n" * LONG),
    "a word of tcp:// addresses": lambda: rendezvous.worth_reading(b"init_process_group " + b"tcp://" * (LONG // 6)),
    "a --master-port word of separators": lambda: rendezvous.worth_reading(
        b"init_process_group --master-port" + b"=," * (LONG // 2)),
    "a program path that is no path": lambda: tool_defaults._program("a" * LONG + "~"),
    "a glob of many * against a long name": lambda: matcher(("*" + "a*" * 20 + "b",))("a" * 250),
    "a Python boolean expression of port literals": lambda: extract_file(
        "a.py", "python", b"master_port = " + b"1 and " * (LONG // 6) + b"1\n", NameFilter()),
    "a Python keyword argument of port literals": lambda: extract_file(
        "a.py", "python", b"serve(port=" + b"1 or " * (LONG // 5) + b"1)\n", NameFilter()),
}


@pytest.mark.parametrize("case", sorted(LONG_LINES))
def test_a_line_of_100000_characters_is_read_in_linear_time(case: str) -> None:
    assert seconds(LONG_LINES[case]) < BUDGET


def test_a_stray_ignore_bracket_before_a_suppression_leaves_the_comment_whole() -> None:
    """A suppression's codes hold no `[`: the codes were matched from the comment's first `ignore[`
    to the suppression's `]`, so PL002's fix (and --add-noqa's merge) rewrote the text between."""
    comment = b"# see ignore[ in the docs  # portlint: ignore[PL101,PL301]"
    fix = unused_suppression._fix(comment, Suppression(1, 1, ("PL101", "PL301"), 0, len(comment)), ("PL301",))
    assert fix is not None
    assert fix.edits[0].text == b"# see ignore[ in the docs  # portlint: ignore[PL301]"
    assert noqa._CODES.search(comment).group(2) == b"PL101,PL301"  # type: ignore[union-attr]
