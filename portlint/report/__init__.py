"""Reporters: one module per output format, each `render(problems, context) -> str`.

They serve every rule family alike (`portlint check`'s PL rules, `portlint host`'s H
rules): a problem carries its rule's code and name, and the context the rules of the
run (their documentation, for SARIF), so no reporter reads a registry.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from portlint.model.problems import Problem, Rule

# C0 controls (newline and tab too: a problem is one line), DEL, C1 controls (U+009B alone
# is a CSI), the line and paragraph separators (a line break to YAML and to some viewers), the
# bidirectional overrides and isolates of "Trojan Source" (CVE-2021-42574), and the bytes of a
# name that is not UTF-8 (held as lone surrogates, os.fsdecode's: written out, 0x9b is a CSI).
# A word of a message that may be a path: what a repository path is made of, no spaces (one with
# a `.` or a `/` is looked up: `_shown_path`). The whole word is the match: a pattern requiring
# the `.` or `/` was tried again from every character of a word without one (quadratic).
_PATH_WORD = re.compile(r"[\w.+@~/-]+")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\udc80-\udcff]")


def printable(text: str) -> str:
    """Text taken from files, made safe for a terminal or a CI log: control characters
    become visible escapes (`\\x1b`, `\\u202e`), so a file cannot clear the screen,
    set the title, fake or split an output line, or reorder what is displayed."""
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        code -= 0xDC00  # the byte it stands for
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def repository_root(root: Path) -> Path:
    """The git work tree holding `root`, else `root` itself: where code scanning and GitHub's
    annotations take paths from. They differ when the config sits in a subfolder of a monorepo."""
    for directory in (root, *root.parents):
        if (directory / ".git").exists():
            return directory
    return root


@dataclass(frozen=True)
class Context:
    root: Path  # problems' paths are relative to it
    cwd: Path
    unsafe_fixes: bool = False
    color: bool = False  # style the text output (the CLI decides: a terminal, no NO_COLOR)
    rules: tuple[Rule, ...] = ()  # the rules the run could report, in order (SARIF lists them all)
    _files: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)  # read once per report
    _lines: dict[str, list[str]] = field(default_factory=dict, compare=False, repr=False)
    _paths: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def display(self, path: str) -> str:
        """A problem's path as the user should see it: relative to the working directory."""
        if not path:
            return path
        return Path(os.path.relpath(self.root / path, self.cwd)).as_posix()

    def message(self, problem: Problem) -> str:
        """The problem's message, with each root-relative path it names (`at configs/a.yaml:3`)
        shown as `display` shows the problem's own path: a run from a subdirectory reads
        `configs/a.yaml:3` beside `configs/b.yaml:7:1`, not two paths from two places.

        A word is taken for a path when it names a file under the root, or a missing file
        with a suffix in a folder that exists (`missing parent: configs/base.yaml`)."""
        if self.root == self.cwd:
            return problem.message
        return _PATH_WORD.sub(self._shown_path, problem.message)

    def _shown_path(self, match: re.Match[str]) -> str:
        word = match.group()
        if "." not in word and "/" not in word:
            return word
        if word not in self._paths:
            self._paths[word] = self.display(word) if self._names_a_file(word) else word
        return self._paths[word]

    def _names_a_file(self, word: str) -> bool:
        if word.startswith("/") or word.startswith("../") or "/./" in word:
            return False
        full = self.root / word
        try:
            if full.is_file():
                return True
            return "/" in word and bool(Path(word).suffix) and not full.exists() and full.parent.is_dir()
        except OSError:  # a word no file can be named (too long): a word
            return False

    def applicable(self, problem: Problem) -> bool:
        return problem.applicable(self.unsafe_fixes)

    def source_line(self, path: str, line: int) -> str:
        """Line `line` (1-based) of a file as it is on disk now; "" when unreadable."""
        if path not in self._lines:
            self._lines[path] = self._data(path).decode("utf-8", "replace").splitlines()
        lines = self._lines[path]
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    def source_bytes(self, path: str, start: int, end: int) -> bytes:
        """Bytes `start:end` of a file as it is on disk now; b"" when unreadable."""
        return self._data(path)[start:end]

    def _data(self, path: str) -> bytes:
        if path not in self._files:
            try:
                self._files[path] = (self.root / path).read_bytes() if path else b""
            except OSError:
                self._files[path] = b""
        return self._files[path]
