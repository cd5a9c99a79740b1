"""A result taken from the per-file cache is verified against the bytes read before it is an
answer, and every edit is checked against the bytes once more before a file is written: the cache
may be stale, damaged or shipped by the repository.

Each test reproduces a defect an adversarial campaign found (issue 39) in a fresh repository.
"""
from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from portlint.cli import main
from portlint.model.frozen import Scalar
from portlint.model.sites import Site
from portlint.speed import cache

RECORDS = {"Site": Site, "Scalar": Scalar}  # a record of the index (msgspec's JSON: an object of its fields), by its class


def _forged(index: Path, tag: str, path: str, change: Callable[[dict[str, Any]], None]) -> int:
    """Every record of `tag` about `path` in a cache index changed in place; how many."""
    data = json.loads(index.read_bytes())
    fields = set(RECORDS[tag].__struct_fields__)
    count = 0

    def walk(value: Any) -> None:
        nonlocal count
        if isinstance(value, dict):
            if set(value) == fields and value["path"] == path:
                change(value)
                count += 1
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    index.write_text(json.dumps(data))
    return count


def _moved_to_the_key(record: dict[str, Any]) -> None:
    record["start"], record["end"] = 0, 4  # over `clus` of `cluster:`


def _garbage(record: dict[str, Any]) -> None:
    record["start"], record["end"] = "x", None


FORGERIES = {  # what is forged -> (the record's class, the file it is about, the change)
    "a site's span moved onto a key": ("Site", "conf.yaml", _moved_to_the_key),
    "a site's span of the wrong types": ("Site", "conf.yaml", _garbage),
    "a frozen copy's scalar moved onto a key": ("Scalar", "tests/conf.yaml", _moved_to_the_key),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_cache_entry_never_makes_fix_write_wrong_bytes(
    forgery: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The per-file index was trusted without checking that a span holds its literal: moving a span
    in the JSON made `--fix` overwrite part of a key with digits."""
    (tmp_path / "tests").mkdir()
    (tmp_path / ".portlint.yaml").write_text(
        "bands:\n  master:\n    range: 1400-1999\n    sites: [master_port_low]\n"
        'frozen:\n  - copies: "tests/*.yaml"\n    source: "{name}"\n    compare: all\n'
    )
    (tmp_path / "conf.yaml").write_bytes(b"cluster:\n  master_port_low: 2500\n  name: aaaa\n")  # PL301
    (tmp_path / "tests" / "conf.yaml").write_bytes(b"cluster:\n  master_port_low: 1400\n  name: bbbb\n")  # PL401
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    assert main([]) == 1  # the cache written
    (index,) = (p for p in (tmp_path / cache.DIRECTORY).glob("*/*") if not p.name.startswith("run-"))
    tag, path, change = FORGERIES[forgery]
    assert _forged(index, tag, path, change) >= 1
    capsys.readouterr()
    main(["--fix"])
    assert "internal error" not in capsys.readouterr().err
    fixed = b"cluster:\n  master_port_low: 1400\n  name: aaaa\n"
    assert [(tmp_path / name).read_bytes() for name in ("conf.yaml", "tests/conf.yaml")] == [fixed, fixed]


def test_the_fix_loop_writes_no_edit_at_a_span_that_does_not_hold_its_sites_literal() -> None:
    """Whatever handed a rule its sites, an edit at a site's span is made only where the bytes hold
    that site's literal: the file is left as it was, with a note."""
    from portlint.model.extraction import Extraction
    from portlint.model.files import FileState
    from portlint.model.naming import NameFilter
    from portlint.model.problems import Problem
    from portlint.stages.fix import fix_loop
    from portlint.stages.perfile import extract_file

    data = b"cluster:\n  master_port_low: 2500\n"
    forged = Site("conf.yaml", 1, 1, 0, 4, "yaml", "cluster.master_port_low", 2500)  # over `clus`
    state = FileState("conf.yaml", "yaml", data, Extraction(sites=(forged,)))

    def check(files: Any) -> list[Problem]:
        return [Problem.replacing(forged, "PL301", "drifted", 1400)] if files["conf.yaml"].data == data else []

    def extract(path: str, kind: str, data: bytes) -> FileState:
        return extract_file(path, kind, data, NameFilter())

    fixed = fix_loop({"conf.yaml": state}, check, extract, unsafe=False)
    assert fixed.changed == {} and fixed.fixed == 0
    assert fixed.notes == ["conf.yaml: fixes not applied: a site's span does not hold its literal "
                           "(a stale or damaged cache?); run with --no-cache"]
