"""Which names are ports, which role they carry, and which files are read at all."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from portlint.config import locate
from portlint.model.naming import NameFilter, is_port_name, range_stem, role_of, words
from portlint.model.source import line_starts
from portlint.stages import discover, prefilter


@pytest.mark.parametrize("name", [
    "port", "master_port", "MIN_WORKER_PORT", "--min-worker-port", "policy.generation.port_range_low",
    "containerPort", "DEFAULT_VLLM_PORT_RANGE_LOW", "servers[0].port",
])
def test_port_like_names(name: str) -> None:
    assert is_port_name(name)


@pytest.mark.parametrize("name", [
    "MAX_PORTS_PER_ENGINE", "num_ports", "port_offset", "support", "report_id", "import", "transport", "port_retries",
    "PORT_FORWARD_PROXY_CMD_VERSION", "port_protocol_version",
])
def test_names_that_count_or_merely_contain_port_are_not_ports(name: str) -> None:
    assert not is_port_name(name)


@pytest.mark.parametrize(("name", "role"), [
    ("cluster.master_port_range_low", "low"), ("DEFAULT_GYM_PORT_RANGE_HIGH", "high"),
    ("MIN_WORKER_PORT", "low"), ("--max-worker-port", "high"), ("start_port", "base"),
    ("base_port", "base"), ("dashboard_port", "port"),
])
def test_roles_come_from_the_name(name: str, role: str) -> None:
    assert role_of(name) == role


def test_low_and_high_names_share_a_stem() -> None:
    assert range_stem("cluster.master_port_range_low") == range_stem("cluster.master_port_range_high")
    assert range_stem("MIN_WORKER_PORT") == range_stem("MAX_WORKER_PORT")
    assert range_stem("--min-worker-port") == range_stem("--max-worker-port")


def test_a_selector_name_is_wanted_whole_or_as_a_dotted_suffix() -> None:
    names = NameFilter(["generation.gcs_slot", "--head-offset"])
    assert names.wants("policy.generation.gcs_slot") and names.wants("--head-offset")
    assert not names.wants("policy.xgeneration.gcs_slot")


@pytest.mark.parametrize(("text", "kept"), [
    (b"import os\nfrom x import y\n", False), (b"export FOO=1\n", False), (b"support: 1\nreport: 2\n", False),
    (b"MIN_WORKER_PORT=2000\n", True), (b"containerPort: 80\n", True), (b"  port: 1\n", True),
])
def test_the_prefilter_keeps_only_files_with_a_port_token(text: bytes, kept: bool) -> None:
    assert bool(prefilter.prefilter().search(text)) is kept


def test_the_prefilter_also_keeps_files_naming_a_selector() -> None:
    assert prefilter.prefilter(["gcs_slot"]).search(b"gcs_slot: 1200\n")


def test_the_prefilter_looks_for_a_dotted_selector_by_its_last_key() -> None:
    """`cluster.gcs_slot` is written as `gcs_slot:` under `cluster:`, never whole."""
    pattern = prefilter.prefilter(["cluster.gcs_slot", "hosts[0]"])
    assert pattern.search(b"cluster:\n  gcs_slot: 1200\n")
    assert pattern.search(b"hosts:\n  - 1200\n")
    assert not pattern.search(b"cluster:\n  workers: 4\n")


def test_the_prefilter_hits_are_every_offset_of_a_token_or_a_name() -> None:
    data = b"gcs_slot: 1\nMASTER_PORT=2\nsupport\nx.gcs_slot = MASTER_PORT\n"
    assert sorted(prefilter.prefilter(["cluster.gcs_slot"]).hits(data)) == [0, 19, 36, 54]  # gcs_slot twice, PORT of MASTER_PORT twice
    assert prefilter.prefilter().hits(b"support: 1\n") == []


@pytest.mark.parametrize(("path", "head", "kind"), [
    ("a.yml", b"", "yaml"), ("ray.sub", b"", "shell"), ("x.sbatch", b"", "shell"), ("m.py", b"", "python"),
    ("README.md", b"", "markdown"), ("launch", b"#!/usr/bin/env bash\n", "shell"), ("run", b"#!/bin/sh -e\n", "shell"),
    ("tool", b"#!/usr/bin/env python3\n", "python"), ("data.json", b"", ""), ("notes", b"plain\n", ""),
])
def test_kinds_by_suffix_or_shebang(path: str, head: bytes, kind: str) -> None:
    assert discover.kind_of(path, head) == kind


def test_git_view_skips_ignored_files_and_finds_untracked_and_shebang_scripts(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.yaml").write_text("port: 1\n")
    (tmp_path / "3rdparty").mkdir()
    (tmp_path / "3rdparty" / "x.py").write_text("PORT = 1\n")
    (tmp_path / "a.yaml").write_text("port: 1\n")
    (tmp_path / "launch").write_text("#!/bin/bash\nPORT=1\n")
    (tmp_path / "data.json").write_text("{}")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    found = list(discover.candidates(tmp_path, ["**/*.yaml", "**/*.py"], ["3rdparty/**"]))
    assert [(c.path, c.kind) for c in found] == [("a.yaml", "yaml"), ("launch", "shell")]


def test_outside_git_a_walk_is_used(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.sh").write_text("PORT=1\n")
    assert [c.path for c in discover.candidates(tmp_path, ["**/*.sh"], [])] == ["sub/b.sh"]


def test_inside_refuses_symlinks_leaving_the_root(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "secret.yaml").write_text("port: 1\n")
    (root / "out.yaml").symlink_to(tmp_path / "secret.yaml")
    (root / "loop.yaml").symlink_to(root / "loop.yaml")
    assert not locate.inside(root, root / "out.yaml")
    assert not locate.inside(root, root / "loop.yaml")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"\n", b"\r\n", b"\r", b"x", b"port = 1", b"\xff", b""]), max_size=30).map(b"".join))
def test_line_starts_are_the_offsets_after_each_newline(data: bytes) -> None:
    assert line_starts(data) == [0, *(i + 1 for i, byte in enumerate(data) if byte == 0x0A)]


def test_line_starts_kept_for_the_last_bytes_are_those_bytes_own() -> None:
    """The starts of the last bytes asked about are kept (the extractor and the analyses ask for
    them of one module): equal bytes in another object, and other bytes, get their own."""
    first = b"a\nbb\n"
    assert line_starts(first) is line_starts(first) == [0, 2, 5]
    assert line_starts(bytes(bytearray(b"a\nbb\nccc\n"))) == [0, 2, 5, 9]
    assert line_starts(b"\n\n") == [0, 1, 2] and line_starts(first) == [0, 2, 5]


_PARTS = ["port", "Port", "PORT", "ports", "Ports", "PORTS", "master", "Master", "MASTER", "x", "X", "2", "http",
          "HTTP", "_", "-", ".", "--", "pOrt", "portion", "import", "sup"]


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), min_size=1, max_size=6).map("".join))
def test_every_name_with_port_as_a_word_is_found_by_the_port_words(name: str) -> None:
    """The Python site finder looks at the lines holding `port` as a word of a name
    (prefilter.PORT_WORDS): every name naming.words splits a `port` from is found there, in any
    text around it."""
    import re

    patterns = [re.compile(word) for word in prefilter.PORT_WORDS]
    if "port" in words(name):
        for text in (name, f"x = {name}", f"'{name}'", f"self.{name}=1"):
            assert any(pattern.search(text.encode()) for pattern in patterns), text


def test_the_port_words_leave_out_what_names_no_port() -> None:
    import re

    patterns = [re.compile(word) for word in prefilter.PORT_WORDS]
    found = [text for text in ("ports = 1", "portion", "port2", "HTTPPort", "PORTS", "import x", "xport", "Ports")
             if any(pattern.search(text.encode()) for pattern in patterns)]
    assert found == []
    assert all(any(pattern.search(text) for pattern in patterns) for text in
               (b"MASTER_PORT", b"--port", b"containerPort", b"portX", b"x2Port", b"myPORT", b"port.x", b"PORT_RANGE"))


def test_git_is_asked_without_showing_its_errors_and_its_absence_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    assert discover.git(["--version"]) is not None and discover.git(["--version"]).startswith(b"git version")
    assert discover.git(["-C", str(tmp_path / "missing"), "status"]) is None  # git fails: nothing printed
    assert capfd.readouterr() == ("", "")
    (tmp_path / "a.sh").write_text("PORT=1\n")
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    assert discover.git(["--version"]) is None
    assert discover.git_files(tmp_path) is None and not discover.in_git(tmp_path)
    assert [c.path for c in discover.candidates(tmp_path, ["**/*.sh"], [])] == ["a.sh"]  # the walk instead
