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


def constant_index(node: cst.Subscript) -> int | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    if isinstance(value, cst.Integer):
        return literal_int(value)
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus) \
            and isinstance(value.expression, cst.Integer):
        number = literal_int(value.expression)
        return -number if number is not None else None
    return None


def dotted(node: cst.BaseExpression) -> str:
    """`subprocess.Popen` for a chain of names, "" for anything else."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return ""
    parts.append(node.value)
    return ".".join(reversed(parts))


def literal_int(node: cst.Integer) -> int | None:
    digits = node.value.replace("_", "")
    try:
        return int(digits, 0)
    except ValueError:  # "00": a valid literal that int() refuses with base 0
        return 0 if digits.strip("0") == "" else None
