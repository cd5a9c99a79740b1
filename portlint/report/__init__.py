"""Reporters: one module per output format, each `render(problems, context) -> str`."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from portlint.problem import Problem


@dataclass(frozen=True)
class Context:
    root: Path  # problems' paths are relative to it
    cwd: Path
    unsafe_fixes: bool = False

    def display(self, path: str) -> str:
        """A problem's path as the user should see it: relative to the working directory."""
        if not path:
            return path
        return Path(os.path.relpath(self.root / path, self.cwd)).as_posix()

    def applicable(self, problem: Problem) -> bool:
        return problem.fix is not None and (problem.fix.safe or self.unsafe_fixes)
