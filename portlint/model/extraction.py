"""What the per-file stage gives of one file: its sites, suppression comments, commands,
what the code analyses found, or why it could not be parsed."""
from __future__ import annotations

from typing import Generic, TypeVar

from portlint.model.records import Struct
from portlint.model.sites import Command, Site

# What the code analyses export of a module for the modules that import it (the analysis's own
# record, portlint.analysis.imports.Export, which sits above the model): named where a result is
# decoded from the cache (portlint.stages.perfile.RESULT).
Export = TypeVar("Export")


class Finding(Struct, frozen=True):
    line: int  # 1-based
    column: int  # 1-based, in characters
    end_line: int
    end_column: int
    code: str  # PL601, PL602 (sockets) or PL604 (rendezvous)
    message: str


class Facts(Struct, Generic[Export], frozen=True):
    """What the code analyses found in one file: findings, and its helpers' summaries for other modules."""

    findings: tuple[Finding, ...] = ()
    exports: tuple[Export, ...] = ()


class Suppression(Struct, frozen=True):
    """`portlint: ignore` or `portlint: ignore[PL101,PL301]` inside one comment."""

    line: int
    column: int
    codes: tuple[str, ...]  # empty: every code
    start: int  # byte span of the whole comment, for PL002's fix
    end: int


class Extraction(Struct, Generic[Export], frozen=True):
    sites: tuple[Site, ...] = ()
    suppressions: tuple[Suppression, ...] = ()
    error: str = ""
    error_line: int = 1
    error_column: int = 1
    commands: tuple[Command, ...] = ()
    sockets: Facts[Export] | None = None  # Python: what the code analyses found, plain data
    note: str = ""  # the file is skipped, not broken: why (a template that is YAML only once rendered)


class CodeFile(Struct, frozen=True):
    """A Python file the code-pattern rules read (PL601/PL602/PL604): what the extraction found in it, and
    its bytes for the files that call helpers of other modules."""

    path: str
    kind: str
    data: bytes
    sockets: Facts | None = None  # what the code analyses found in it, computed by the extraction
