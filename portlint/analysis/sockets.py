"""Sockets released before their port is used: the analysis behind PL601 and PL602.

`findings(data)` reads one Python file (parsed with libcst, never imported or
run) and returns where a function binds a socket to a port (or to 0), lets the
socket go — `close()`, the end of a `with` block, `contextlib.closing`, `del`,
or simply going out of scope — and still hands the port number on: returns it,
stores it (an attribute, a global, a container, `os.environ`) or passes it to a
call after the release. Availability checks (bind, close, return a bool) called
on the candidates of a port scan are such probes too.

Calls of the module's own functions are followed through summaries (flow.py):
the bind in one function and the close or the scan loop in another, a helper
returning `(port, sock)` whose caller drops the socket, a socket kept on `self`
by one method and closed by another before the port is handed on.

A finding is reported in the function that lets the port go: at the bind when
it binds there, else at the call of the module's helper the socket or the probe
came from, else (a socket kept on `self` by another method) at the release.
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from portlint.model import Layout
from portlint.problem import Problem

# Only a file that can bind is worth a concrete tree: `.bind(`, or a server constructor.
_BINDS = re.compile(rb"\.bind\s*\(|create_server|start_server|make_server|Server\s*\(")


@dataclass(frozen=True)
class Finding:
    line: int  # 1-based
    column: int  # 1-based, in characters
    end_line: int
    end_column: int
    code: str  # PL601 or PL602
    message: str


def of_code(data: bytes, code: str) -> Iterator[Finding]:
    return (finding for finding in findings(data) if finding.code == code)


def problems(layout: Layout, code: str) -> Iterator[Problem]:
    """PL601's or PL602's problems over the socket-using files of the layout."""
    for code_file in layout.code_files:
        for found in of_code(code_file.data, code):
            yield Problem(code_file.path, found.line, found.column, code, found.message, None,
                          found.end_line, found.end_column)


@lru_cache(maxsize=64)  # PL601 and PL602 read the same files one after the other
def findings(data: bytes) -> tuple[Finding, ...]:
    if not _BINDS.search(data):
        return ()
    with warnings.catch_warnings():  # libcst imports a metadata provider built on a deprecated mypy_extensions API
        warnings.simplefilter("ignore", DeprecationWarning)
        import libcst as cst  # only files that can bind pay for libcst

    try:
        module = cst.parse_module(data)
    except (cst.ParserSyntaxError, UnicodeDecodeError, RecursionError):
        return ()  # the Python extractor reports files that do not parse (PL001)
    from portlint.analysis.module import ModuleIndex

    violations = ModuleIndex(module).violations()
    return _report(module, violations) if violations else ()


def _report(module, violations: list) -> tuple[Finding, ...]:  # noqa: ANN001
    from libcst.metadata import MetadataWrapper, PositionProvider

    from portlint.analysis.messages import anchor_of, code_of, message, rank_of

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    chosen: dict[tuple[object, str], object] = {}
    for violation in violations:
        key = (anchor_of(violation), code_of(violation))
        if key not in chosen or rank_of(violation, positions) < rank_of(chosen[key], positions):
            chosen[key] = violation
    found = []
    for (anchor, code), violation in chosen.items():
        where = positions[anchor]
        found.append(Finding(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1,
                             code, message(violation, positions)))
    return tuple(sorted(found, key=lambda f: (f.line, f.column, f.code)))
