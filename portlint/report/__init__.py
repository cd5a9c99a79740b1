"""Reporters: one module per output format, each `render(problems, context) -> str`."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from portlint.problem import Problem


@dataclass(frozen=True)
class Context:
    root: Path  # problems' paths are relative to it
    cwd: Path
    unsafe_fixes: bool = False
    color: bool = False  # style the text output (the CLI decides: a terminal, no NO_COLOR)
    _files: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)  # read once per report
    _lines: dict[str, list[str]] = field(default_factory=dict, compare=False, repr=False)

    def display(self, path: str) -> str:
        """A problem's path as the user should see it: relative to the working directory."""
        if not path:
            return path
        return Path(os.path.relpath(self.root / path, self.cwd)).as_posix()

    def applicable(self, problem: Problem) -> bool:
        return problem.fix is not None and (problem.fix.safe or self.unsafe_fixes)

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
