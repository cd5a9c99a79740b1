"""What the config's file-level entries matched in the repository (PL003's facts), as records."""
from __future__ import annotations

from collections.abc import Mapping

from portlint.model.records import Struct, field

Key = tuple[str | int, ...]  # a key path in a config file: ("bands", "gym", "range")


class Dropped(Struct, frozen=True):
    """A kind of file the repository has, which include/exclude leave with no file to check."""

    kind: str
    count: int  # files of the kind in the repository
    example: str
    key: Key  # the include or exclude entry responsible
    by: str  # "include" or "exclude"
    pattern: str  # that entry's glob


class Idle(Struct, frozen=True):
    """A --select item none of whose rules can run: (item, rules that need a layout, rules that need frozen:)."""

    item: str
    need_layout: tuple[str, ...] = ()
    need_frozen: tuple[str, ...] = ()


class Usage(Struct, frozen=True):
    """What the engine saw of the config's file-level entries; the rule judges it."""

    config_path: str  # "" in zero-config
    positions: Mapping[Key, tuple[int, int]] = field(default_factory=dict)
    unmatched_copies: tuple[tuple[int, str], ...] = ()  # (index in frozen:, copies glob)
    dropped: tuple[Dropped, ...] = ()
    idle: tuple[Idle, ...] = ()
