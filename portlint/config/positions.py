"""Where each entry of a config file is written: key path -> 1-based (line, column).

Problems about the config itself (PL201 at a band, PL003 at a selector, a glob, a
port name) point at the entry's line. A mapping entry is located at its key, a
list item at the item. YAML positions come from ruamel.yaml's round-trip nodes;
tomllib gives none, so TOML is read by `toml_positions`, a small tokenizer of
the TOML grammar (tables, arrays of tables, dotted keys, strings of the four
kinds, arrays, inline tables, comments). It runs only on text tomllib has
already accepted, and a shape it does not follow just leaves entries out: the
caller falls back to the enclosing entry, or to line 1.
"""
from __future__ import annotations

import contextlib
from typing import Any

Key = tuple[str | int, ...]
Positions = dict[Key, tuple[int, int]]


def yaml_positions(loaded: Any) -> Positions:
    """Positions of every entry of a ruamel.yaml round-trip document."""
    positions: Positions = {}
    seen: set[int] = set()  # an alias is the object of its anchor: walk it once

    def walk(node: Any, path: Key) -> None:
        if not isinstance(node, (dict, list)) or id(node) in seen or not hasattr(node, "lc"):
            return
        seen.add(id(node))
        if isinstance(node, dict):
            for key, value in node.items():
                place((*path, str(key)), node.lc.key, key)
                walk(value, (*path, str(key)))
        else:
            for index, value in enumerate(node):
                place((*path, index), node.lc.item, index)
                walk(value, (*path, index))

    def place(path: Key, where: Any, key: Any) -> None:
        try:
            line, column = where(key)
        except (TypeError, KeyError, IndexError):  # a node ruamel kept no position for
            return
        positions.setdefault(path, (line + 1, column + 1))

    walk(loaded, ())
    return positions


def toml_positions(text: str) -> Positions:
    """Positions of the entries of a TOML document tomllib accepted (best effort, never raises)."""
    scanner = _Toml(text)
    with contextlib.suppress(IndexError, ValueError):  # keep what was found before the shape it did not follow
        scanner.document()
    return scanner.positions


_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _Toml:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line = 1
        self.line_start = 0
        self.positions: Positions = {}
        self.array_tables: dict[Key, int] = {}

    # -- characters ------------------------------------------------------------
    def peek(self, ahead: int = 0) -> str:
        at = self.i + ahead
        return self.text[at] if at < len(self.text) else ""

    def advance(self, count: int = 1) -> None:
        for _ in range(count):
            if self.text[self.i] == "\n":
                self.line += 1
                self.line_start = self.i + 1
            self.i += 1

    def here(self) -> tuple[int, int]:
        return self.line, self.i - self.line_start + 1

    def blank(self, newlines: bool) -> None:
        """Skip spaces and comments (and newlines, where the grammar allows them)."""
        while self.i < len(self.text):
            char = self.peek()
            if char in " \t\r" or (newlines and char == "\n"):
                self.advance()
            elif char == "#":
                while self.i < len(self.text) and self.peek() != "\n":
                    self.advance()
            else:
                return

    # -- the grammar -----------------------------------------------------------
    def document(self) -> None:
        table: Key = ()
        while True:
            self.blank(newlines=True)
            if self.i >= len(self.text):
                return
            if self.peek() == "[":
                table = self.header()
            else:
                self.key_value(table)

    def header(self) -> Key:
        double = self.peek(1) == "["
        self.advance(2 if double else 1)
        parts = self.key(())
        self.advance(2 if double else 1)
        key = tuple(part for part, _ in parts)
        for depth, (_, where) in enumerate(parts, start=1):
            self.positions.setdefault(key[:depth], where)
        if not double:
            return key
        index = self.array_tables.get(key, 0)
        self.array_tables[key] = index + 1
        self.positions.setdefault((*key, index), parts[-1][1])
        return (*key, index)

    def key(self, table: Key) -> list[tuple[str, tuple[int, int]]]:
        """A dotted key: its parts and where each starts."""
        parts = []
        while True:
            self.blank(newlines=False)
            where = self.here()
            if self.peek() in "\"'":
                where = (where[0], where[1] + 1)  # a quoted key: where its name starts
                part = self.string()
            else:
                start = self.i
                while self.peek() and self.peek() in _BARE:
                    self.advance()
                if start == self.i:
                    raise ValueError("expected a key")
                part = self.text[start:self.i]
            parts.append((part, where))
            self.blank(newlines=False)
            if self.peek() != ".":
                return parts
            self.advance()

    def key_value(self, table: Key) -> None:
        parts = self.key(table)
        path = table
        for part, where in parts:
            path = (*path, part)
            self.positions.setdefault(path, where)
        if self.peek() != "=":
            raise ValueError("expected =")
        self.advance()
        self.blank(newlines=False)
        self.value(path)

    def value(self, path: Key) -> None:
        char = self.peek()
        if char in "\"'":
            self.string()
        elif char == "[":
            self.advance()
            index = 0
            while True:
                self.blank(newlines=True)
                if self.peek() == "]":
                    self.advance()
                    return
                self.positions.setdefault((*path, index), self.here())
                self.value((*path, index))
                index += 1
                self.blank(newlines=True)
                if self.peek() == ",":
                    self.advance()
        elif char == "{":
            self.advance()
            while True:
                self.blank(newlines=False)
                if self.peek() == "}":
                    self.advance()
                    return
                self.key_value(path)
                self.blank(newlines=False)
                if self.peek() == ",":
                    self.advance()
        else:  # a number, boolean or date: up to the next delimiter
            start = self.i
            while self.peek() and self.peek() not in ",]}#\n":
                self.advance()
            if start == self.i:
                raise ValueError("expected a value")

    def string(self) -> str:
        quote = self.peek()
        multi = self.text.startswith(quote * 3, self.i)
        delimiter = quote * 3 if multi else quote
        self.advance(len(delimiter))
        start = self.i
        while not self.text.startswith(delimiter, self.i):
            if self.i >= len(self.text):
                raise ValueError("unterminated string")
            if quote == '"' and self.peek() == "\\":
                self.advance()
            self.advance()
        body = self.text[start:self.i]
        self.advance(len(delimiter))
        if multi:  # up to two more quotes may close the string (`""""` ends with a quote)
            while self.peek() == quote:
                self.advance()
        return body if quote == "'" else _unescape(body)


def _unescape(body: str) -> str:
    """A basic string's common escapes (keys are rarely escaped; good enough to name them)."""
    if "\\" not in body:
        return body
    import json

    try:
        return str(json.loads(f'"{body}"'))
    except ValueError:
        return body
