"""Building a `Config` from validated data, and checking what a schema cannot say.

Range order and bounds, ports inside their band, `within`/`shares_with`
references, frozen-copy templates that stay in the repository, rule codes in
`select`, `extend_select`, `ignore` and `per_file_ignores` (portlint/model/codes.py),
and the ephemeral floor (`auto`: the host's, read through portlint/config/procfs.py).
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from portlint.config.errors import ConfigError, Invalid, describe, quoted
from portlint.config.locate import inside
from portlint.config.positions import Key
from portlint.config.read import Document
from portlint.config.schema import validate
from portlint.config.selection import Selection
from portlint.config.suggest import did_you_mean
from portlint.model.codes import CHECK_CODES
from portlint.model.layout import Band, FrozenSpec, Selector, Window
from portlint.model.ports import MAX_PORT, MIN_PORT, is_port
from portlint.model.records import Struct, field
from portlint.model.scope import DEFAULT_TEST_PATHS

DEFAULT_INCLUDE = (
    "**/*.yaml", "**/*.yml", "**/*.sh", "**/*.bash", "**/*.sub", "**/*.sbatch", "**/*.py", "**/*.md",
)
# Linux's default net.ipv4.ip_local_port_range is 32768-60999: without a config
# (or when the host's range cannot be read) that is where ephemeral ports begin.
STOCK_FLOOR = 32768

_RANGE = re.compile(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*")


class Config(Struct, frozen=True):
    path: Path | None  # the config file (absolute), None in zero-config
    root: Path  # repository root (absolute): the git work tree, wherever the config is (see root_of)
    ephemeral_floor: int
    floor_note: str  # why "auto" fell back to the stock floor, "" otherwise
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    bands: tuple[Band, ...]
    frozen: tuple[FrozenSpec, ...]
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...]
    declared: bool  # a config file was found, with or without bands
    positions: Mapping[Key, tuple[int, int]] = field(default_factory=dict)  # entry -> (line, column)
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS  # test-like paths: a scope of their own (portlint.model.scope)
    selections: tuple[Selection, ...] = ()  # select/extend_select/ignore of each file, inherited ones first
    extends: tuple[Path, ...] = ()  # the files the config extends (absolute), nearest first
    cache_dir: Path | None = None  # --cache-dir, else PORTLINT_CACHE_DIR, else None: .portlint_cache/ at the root

    def own_files(self) -> frozenset[str]:
        """The config file and the files it extends, as paths relative to the root (those below
        it): the layout's own numbers are the layout, not sites, so a check does not read them."""
        found = set()
        for path in (self.path, *self.extends):
            if path is None:
                continue
            try:
                found.add(path.resolve().relative_to(self.root.resolve()).as_posix())
            except ValueError:
                continue
        return frozenset(found)


def build(  # noqa: PLR0913
    path: Path | None, document: Document, override: int | str | None, proc_root: Path, root: Path,
    inherited: tuple[Selection, ...] = (), extends: tuple[Path, ...] = (), cache_dir: Path | None = None,
) -> Config:
    data = document.data
    if not isinstance(data, dict):
        where = "at the top level" if not document.prefix else "for [tool.portlint]"
        raise Invalid((), f"expected a mapping {where}, got {describe(data)}")
    validate(data)
    bands = tuple(
        _band(name, spec, document.positions.get(("bands", name), (1, 1))) for name, spec in data.get("bands", {}).items()
    )
    _check_references(bands)
    check_codes(data)
    own = Selection(
        None if data.get("select") is None else tuple(data["select"]),
        tuple(data.get("extend_select", ())), tuple(data.get("ignore", ())),
    )
    floor, note = resolve_floor(override or data.get("ephemeral_floor", STOCK_FLOOR), proc_root)
    return Config(
        path=path,
        root=root,
        ephemeral_floor=floor,
        floor_note=note,
        include=tuple(data.get("include", DEFAULT_INCLUDE)),
        exclude=tuple(data.get("exclude", ())),
        bands=bands,
        frozen=tuple(_frozen(index, spec, root) for index, spec in enumerate(data.get("frozen", ()))),
        per_file_ignores=tuple((glob, tuple(codes)) for glob, codes in data.get("per_file_ignores", {}).items()),
        declared=path is not None,
        positions=document.positions,
        test_paths=tuple(data.get("test_paths", DEFAULT_TEST_PATHS)),
        selections=tuple(layer for layer in (*inherited, own) if not layer.empty()),
        extends=extends,
        cache_dir=cache_dir,
    )


def _frozen(index: int, spec: dict[str, Any], root: Path) -> FrozenSpec:
    """A frozen-copy entry; a template that leaves the repository is refused."""
    sources = spec["source"] if isinstance(spec["source"], list) else [spec["source"]]
    for key, templates in (("copies", [spec["copies"]]), ("source", sources)):
        for template in templates:
            try:
                sample = template.format(name="x.yaml", stem="x")
            except (KeyError, IndexError, ValueError):
                raise Invalid(("frozen", index, key), f"expected a path template using {{name}} or {{stem}}, got {template!r}") from None
            if os.path.isabs(sample) or not inside(root, root / sample):
                raise Invalid(("frozen", index, key), f"resolves outside the repository root: {template!r}")
    return FrozenSpec(spec["copies"], tuple(sources), spec.get("compare", "ports"), spec.get("inferred", False))


def _band(name: str, spec: dict[str, Any], position: tuple[int, int]) -> Band:
    low, high = _bounds(name, spec)
    window = spec.get("window")
    band = Band(
        name=name,
        low=low,
        high=high,
        description=spec.get("description", ""),
        within=spec.get("within", ""),
        shares_with=tuple(spec.get("shares_with", ())),
        ports=tuple(spec.get("ports", {}).items()),
        window=Window(window["stride"], window["count"]) if window else None,
        files=_globs(spec.get("files", ())),
        sites=tuple(_selector(site) for site in spec.get("sites", ())),
        privileged=spec.get("privileged", False),
        inferred=spec.get("inferred", False),
        line=position[0],
        column=position[1],
    )
    for port_name, port in band.ports:
        if not band.contains(port):
            raise Invalid(("bands", name, "ports", port_name), f"expected a port inside {band.span}, got {port}")
    return band


def _bounds(name: str, spec: dict[str, Any]) -> tuple[int, int]:
    if "port" in spec:
        return spec["port"], spec["port"]
    written = spec["range"]
    if isinstance(written, str):
        match = _RANGE.fullmatch(written)
        assert match is not None  # the schema's pattern
        low, high, form, shown = int(match[1]), int(match[2]), "LOW-HIGH", quoted(written)
    else:
        low, high = written
        form, shown = "[LOW, HIGH]", f"[{low}, {high}]"
    if not (is_port(low) and is_port(high)):
        raise Invalid(("bands", name, "range"), f"expected {form} with ports in {MIN_PORT}..{MAX_PORT}, got {shown}")
    if low > high:
        raise Invalid(("bands", name, "range"), f"expected {form} with LOW <= HIGH, got {shown}")
    return low, high


def _selector(site: str | dict[str, Any]) -> Selector:
    if isinstance(site, str):
        return Selector(site)
    return Selector(site["name"], _globs(site.get("files", ())), site.get("kind", ""), site.get("role", ""))


def _globs(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _check_references(bands: tuple[Band, ...]) -> None:
    """`within` and `shares_with` name other bands; a carve-out lies inside its parent."""
    by_name = {band.name: band for band in bands}
    for band in bands:
        for index, other in enumerate(band.shares_with):
            _known_band(other, by_name, ("bands", band.name, "shares_with", index))
        if not band.within:
            continue
        where = ("bands", band.name, "within")
        if band.within == band.name:
            raise Invalid(where, f'expected another band, got "{band.name}" itself')
        parent = _known_band(band.within, by_name, where)
        if not (parent.low <= band.low and band.high <= parent.high):
            raise Invalid(where, f'expected a range inside "{parent.name}" ({parent.span}), got {band.span}')


def _known_band(name: str, by_name: dict[str, Band], where: tuple[str | int, ...]) -> Band:
    if name not in by_name:
        raise Invalid(where, f'unknown band "{name}"' + did_you_mean(name, by_name, quoted=True))
    return by_name[name]


def check_codes(data: dict[str, Any]) -> None:
    """Every code in `per_file_ignores` and every `select`/`extend_select`/`ignore` item names a
    rule or a prefix of one (or ALL, to select): a typo would select or ignore nothing. Keys as
    written (ruff's spellings too), so that an error names the key the file holds."""
    for key in ("per_file_ignores", "per-file-ignores"):
        for glob, codes in data.get(key, {}).items():
            for index, code in enumerate(codes):
                _known((key, glob, index), code)
    for key in ("select", "extend_select", "extend-select", "ignore"):
        for index, code in enumerate(data.get(key) or ()):
            if code != "ALL":
                _known((key, index), code)


def _known(keys: tuple[str | int, ...], code: str) -> None:
    if not any(rule.startswith(code) for rule in CHECK_CODES):
        raise Invalid(keys, f"unknown rule {code}{did_you_mean(code, CHECK_CODES)}")


def parse_floor_override(text: str) -> int | str:
    """The CLI's `--ephemeral-floor N|auto`."""
    value = text.strip()
    if value == "auto":
        return value
    if re.fullmatch(r"[0-9]+", value) and is_port(int(value)):
        return int(value)
    raise ConfigError("--ephemeral-floor", "", f'expected an integer {MIN_PORT}..{MAX_PORT} or "auto", got {quoted(text)}')


def resolve_floor(value: int | str, proc_root: Path) -> tuple[int, str]:
    """The floor and, when "auto" could not read the host's range, a note saying so."""
    if value != "auto":
        return int(value), ""
    from portlint.config import procfs  # only for "auto"

    floor, why = procfs.ephemeral_floor(proc_root)
    if floor is not None:
        return floor, ""
    return STOCK_FLOOR, f"ephemeral_floor auto: {proc_root / procfs.PORT_RANGE} {why}; using {STOCK_FLOOR}"
