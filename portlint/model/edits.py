"""The byte edits a fix is made of (applied by portlint/stages/fix.py, the one way bytes change)."""
from __future__ import annotations

from portlint.model.records import Struct


class Edit(Struct, frozen=True, order=True):
    start: int  # byte offset into the original file, inclusive
    end: int  # exclusive
    text: bytes


class Fix(Struct, frozen=True):
    edits: tuple[Edit, ...]
    safe: bool = True  # unsafe fixes apply only with --unsafe-fixes

    def applies(self, unsafe_fixes: bool) -> bool:
        """Whether --fix applies it (an unsafe one only with --unsafe-fixes)."""
        return self.safe or unsafe_fixes
