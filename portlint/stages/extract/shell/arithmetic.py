"""The arithmetic of `$((...))`: + - * and parentheses over integers and variables.

A derived site's value (`$((${BASE_PORT} + 1))`) is computed with the values the
script gave its variables (sites.py passes the lookup); anything else (division,
shifts, an unknown variable, a result past 2**63) is no site: None.
"""
from __future__ import annotations

from collections.abc import Callable

from portlint.stages.extract.shell.lexer import MAX_DIGITS, NAME_CHARS, NAME_START

_MAX_VALUE = 1 << 63


class _Unsupported(Exception):
    """Arithmetic beyond + - * and parentheses over integers and known variables."""


def evaluate(expression: str, lookup: Callable[[str], int | None]) -> tuple[int, str, frozenset[str]] | None:
    """(value, normalized text, variables) of `$((expression))`, or None when it cannot be computed."""
    tokens = _arithmetic_tokens(expression.replace("\\\r\n", " ").replace("\\\n", " "))
    if not tokens:
        return None
    arithmetic = _Arithmetic(tokens, lookup)
    try:
        value, text = arithmetic.parse()
    except (_Unsupported, RecursionError):  # RecursionError: thousands of nested parentheses
        return None
    return value, text, frozenset(arithmetic.variables)


def _arithmetic_tokens(text: str) -> list[str] | None:
    """Operators, integers and variable names (`$NAME`, `${NAME}` and bare `NAME` alike)."""
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c in "+-*()":
            tokens.append(c)
            i += 1
            continue
        braced = text.startswith("${", i)
        j = start = i + (2 if braced else 1 if c == "$" else 0)
        while j < n and text[j] in NAME_CHARS:
            j += 1
        if j == start or (c == "$" and text[start] not in NAME_START):
            return None
        if braced and not text.startswith("}", j):
            return None
        tokens.append(text[start:j])
        i = j + 1 if braced else j
    return tokens


class _Arithmetic:
    """Recursive descent: sum := product (+|- product)*; product := atom (* atom)*."""

    def __init__(self, tokens: list[str], lookup: Callable[[str], int | None]) -> None:
        self.tokens = tokens
        self.lookup = lookup
        self.pos = 0
        self.variables: set[str] = set()

    def parse(self) -> tuple[int, str]:
        value, text = self._sum()
        if self.pos != len(self.tokens):
            raise _Unsupported
        return value, text

    def _sum(self) -> tuple[int, str]:
        value, text = self._product()
        while self._peek() in ("+", "-"):
            op = self._next()
            right, right_text = self._product()
            value = _bounded(value + right if op == "+" else value - right)
            text = f"{text} {op} {right_text}"
        return value, text

    def _product(self) -> tuple[int, str]:
        value, text = self._atom()
        while self._peek() == "*":
            self._next()
            right, right_text = self._atom()
            value = _bounded(value * right)
            text = f"{text} * {right_text}"
        return value, text

    def _atom(self) -> tuple[int, str]:
        token = self._next()
        if token == "(":
            value, text = self._sum()
            if self._next() != ")":
                raise _Unsupported
            return value, f"({text})"
        if token.isdigit() and len(token) <= MAX_DIGITS and (token == "0" or token[0] != "0"):
            return int(token), token  # a leading 0 would make bash read it as octal
        if token[0] in NAME_START:
            known = self.lookup(token)
            if known is None:
                raise _Unsupported
            self.variables.add(token)
            return known, token
        raise _Unsupported

    def _peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def _next(self) -> str:
        token = self._peek()
        if not token:
            raise _Unsupported
        self.pos += 1
        return token


def _bounded(value: int) -> int:
    if abs(value) > _MAX_VALUE:
        raise _Unsupported
    return value
