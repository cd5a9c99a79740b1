"""A file as the per-file stage leaves it: its bytes and what its extractor found (plain data)."""
from __future__ import annotations

from portlint.model.extraction import Extraction
from portlint.model.frozen import Flat
from portlint.model.records import Struct


class FileState(Struct, frozen=True):
    """One file worth extracting, after the per-file stage (and after each fix applied to it)."""

    path: str
    kind: str
    data: bytes
    extraction: Extraction
    tree: Flat | None = None  # a frozen pair's side: its composed YAML, flattened
