"""Which rules run: `select`, `extend_select` and `ignore`, layered as ruff layers them.

Each config file of an `extend` chain (the inherited file first) and then the command
line is one layer. A layer with `select` starts the selection afresh; one without
adds its `extend_select` to what is in force and drops its `ignore`. Within a layer
the more specific selector wins (`select: [PL3]` with `ignore: [PL302]` runs PL301;
`select: [PL301]` with `ignore: [PL3]` runs PL301 too), and at equal specificity the
ignore does. "ALL" is the least specific, a full code the most. Without any layer,
every rule runs.

The result is what the engine takes: the selectors in force (as written, so that a
`select` item that checks nothing can be reported under its own name, PL003) and the
codes they cover that are not to run.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from portlint.model.records import Struct


class Selection(Struct, frozen=True):
    """One layer: None for `select` when the layer does not set it."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def empty(self) -> bool:
        return self.select is None and not self.extend_select and not self.ignore


def specificity(selector: str) -> int:
    """ALL 0, PL 1, PL3 2, PL30 3, PL301 4."""
    return 0 if selector == "ALL" else len(selector) - 1


def covers(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def enabled(layers: Iterable[Selection], codes: Sequence[str]) -> set[str]:
    """The codes that run after every layer, in order."""
    running = set(codes)
    for layer in layers:
        chosen = [*(layer.select or ()), *layer.extend_select]
        updates: dict[str, bool] = {}
        for level in sorted({specificity(s) for s in (*chosen, *layer.ignore)}):
            for selector in chosen:
                if specificity(selector) == level:
                    updates.update((code, True) for code in codes if covers(selector, code))
            for selector in layer.ignore:
                if specificity(selector) == level:
                    updates.update((code, False) for code in codes if covers(selector, code))
        if layer.select is not None:
            running = {code for code, on in updates.items() if on}
        else:
            running = (running | {c for c, on in updates.items() if on}) - {c for c, on in updates.items() if not on}
    return running


def resolve(layers: Sequence[Selection], codes: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(select, ignore) for the engine: a code runs when a select item covers it (or there is
    none) and no ignore item does. The ignore items are the layers' own when they say the
    same; otherwise the codes left out, one by one."""
    layers = [layer for layer in layers if not layer.empty()]
    running = enabled(layers, codes)
    select: tuple[str, ...] = ()
    for layer in layers:
        if layer.select is not None:
            select = layer.select
        if select:
            select = (*select, *(s for s in layer.extend_select if s not in select))
    as_written = tuple(dict.fromkeys(s for layer in layers for s in layer.ignore))
    if _running(select, as_written, codes) == running:
        return select, as_written
    left_out = tuple(code for code in codes if code not in running and (not select or any(covers(s, code) for s in select)))
    if _running(select, left_out, codes) != running:  # pragma: no cover - every code is covered or left out
        raise AssertionError("a selection the engine cannot express")
    return select, left_out


def _running(select: Sequence[str], ignore: Sequence[str], codes: Sequence[str]) -> set[str]:
    return {
        code for code in codes
        if (not select or any(covers(s, code) for s in select)) and not any(covers(s, code) for s in ignore)
    }
