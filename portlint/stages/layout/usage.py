"""What the config's file-level entries matched in this repository, for PL003 (unused-config).

The rule itself (portlint/rules/unused_config.py) reads sites and bands from the layout;
this gathers what only discovery knows: which `frozen.copies` globs matched a
file, which kinds of file `include`/`exclude` left with none, and which
`--select` items name only rules that cannot run (the engine passes its rules:
the config imports no rule). Computed once per run: fixes change numbers, never
which files there are.
"""
from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping
from types import ModuleType

from portlint.config.build import DEFAULT_INCLUDE, Config
from portlint.model.frozen import FrozenPair
from portlint.model.globs import matcher
from portlint.model.usage import Dropped, Idle, Usage
from portlint.stages import discover

NEEDS_FROZEN = ("PL401", "PL402")  # rules that read `frozen:` pairs and nothing else


def usage(
    config: Config, listed: Mapping[str, str], pairs: Iterable[FrozenPair], select: Iterable[str], config_path: str,
    rules: Mapping[str, ModuleType],
) -> Usage:
    """`rules`: the registry (code -> rule module), as the engine has it."""
    matched = {id(pair.spec) for pair in pairs}
    unmatched = tuple((i, spec.copies) for i, spec in enumerate(config.frozen) if id(spec) not in matched)
    return Usage(
        config_path, config.positions, unmatched, dropped_kinds(config, listed, config_path),
        tuple(idle_selections(config, select, rules)),
    )


def idle_selections(config: Config, select: Iterable[str], rules: Mapping[str, ModuleType]) -> Iterable[Idle]:
    for item in select:
        codes = sorted(code for code in rules if item == "ALL" or code.startswith(item))
        need_layout = tuple(code for code in codes if rules[code].NEEDS_LAYOUT and not config.bands)
        need_frozen = tuple(code for code in codes if code in NEEDS_FROZEN and not config.frozen)
        if codes and len(need_layout) + len(need_frozen) == len(codes):
            yield Idle(item, need_layout, need_frozen)


def dropped_kinds(config: Config, listed: Mapping[str, str], config_path: str) -> tuple[Dropped, ...]:
    """Kinds of file zero-config would check here, that include/exclude leave with none.

    A kind counts when the include list asks for it: the include takes some of
    those files (then the exclude drops them all), or one of its patterns names
    the kind's suffix and matches none of them (`**/*.yml` where the files are
    `*.yaml`). An include list that does not mention a kind leaves it out on purpose.
    """
    if not config.declared or (config.include == DEFAULT_INCLUDE and not config.exclude):
        return ()  # the defaults drop nothing
    def matching(patterns: Iterable[str], paths: Iterable[str]) -> list[str]:
        matches = matcher(tuple(patterns))
        return [path for path in paths if matches(path)]

    checked = set(listed.values())
    everything: dict[str, list[str]] = defaultdict(list)
    for candidate in discover.candidates(config.root, DEFAULT_INCLUDE, ()):
        if candidate.path != config_path:
            everything[candidate.kind].append(candidate.path)
    found = []
    for kind, paths in sorted(everything.items()):
        if kind in checked:
            continue
        taken = set(matching(config.include, paths))
        included = [p for p in paths if p in taken or not posixpath.splitext(posixpath.basename(p))[1]]  # scripts by shebang: always
        if included:
            index = next((i for i, pattern in enumerate(config.exclude) if matching([pattern], included)), 0)
            found.append(Dropped(kind, len(paths), paths[0], ("exclude", index), "exclude", config.exclude[index]))
            continue
        declaring = [i for i, pattern in enumerate(config.include) if _pattern_kind(pattern) == kind]
        if declaring:
            found.append(Dropped(kind, len(paths), paths[0], ("include", declaring[0]), "include", config.include[declaring[0]]))
    return tuple(found)


def _pattern_kind(pattern: str) -> str:
    """The kind a glob's suffix names (`**/*.yml`: yaml), "" when it names none (`scripts/**`)."""
    return discover.kind_of(pattern.rstrip("/").rsplit("/", 1)[-1])
