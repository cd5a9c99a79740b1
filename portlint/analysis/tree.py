"""Cheap walks over a libcst tree.

`CSTNode.children` and visitors rebuild every node they pass (libcst's
visit-and-replace); reading the dataclass fields directly is about ten times
faster, which matters on the large test modules that use sockets.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields

import libcst as cst

_SKIPPED = ("whitespace", "lpar", "rpar", "comma", "semicolon", "colon", "leading_lines", "lines_after_decorators",
            "header", "footer", "operator", "equal", "star", "dot", "lbracket", "rbracket", "lbrace", "rbrace",
            "newline", "indent", "trailing_whitespace", "empty_lines")
_FIELDS: dict[type, tuple[str, ...]] = {}

# Statements and the parts of statements that hold statements.
_BLOCKS = (cst.BaseCompoundStatement, cst.BaseSuite, cst.ExceptHandler, cst.ExceptStarHandler, cst.Else,
           cst.Finally, cst.MatchCase)


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in fields(node) if not f.name.startswith(_SKIPPED))
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from (item for item in value if isinstance(item, cst.CSTNode))


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier used under `node`."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        else:
            stack.extend(children(current))
    return found


def function_defs(node: cst.CSTNode) -> Iterator[cst.FunctionDef]:
    """Every function defined under `node`, at any depth of statements."""
    for child in children(node):
        if isinstance(child, cst.FunctionDef):
            yield child
        if isinstance(child, _BLOCKS):
            yield from function_defs(child)
