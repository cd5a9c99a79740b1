"""Property tests: generated YAML, shell and Python files with port sites in random places.

For every generated file, under a layout that makes PL301 (and PL002) fixes happen:
checking never crashes; `--fix` writes exactly the reported edits spliced into the
original bytes (every other byte identical) and output that parses again; no
fixable problem remains; a second `--fix` changes nothing.

The default profile is bounded for CI (HYPOTHESIS_PROFILE=ci, 40 examples a test);
HYPOTHESIS_PROFILE=long runs thousands and keeps a failure database.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from portlint.cli import main
from portlint.model.edits import Edit, Fix
from portlint.stages.fix import apply, compatible

pytestmark = pytest.mark.slow  # hypothesis generates and fixes hundreds of files

settings.register_profile(
    "ci", max_examples=40, deadline=None, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "long", max_examples=3000, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

LAYOUT = b"""\
ephemeral_floor: 9000
bands:
  master:
    range: 1400-1999
    sites: [master_port_range_low, master_port_range_high, MASTER_PORT_RANGE_LOW, MASTER_PORT_RANGE_HIGH]
  gym:
    range: 5000-5999
    sites: [gym_port_low, gym_port_high, GYM_PORT_LOW, GYM_PORT_HIGH, --gym-port-low, --gym-port-high]
  dashboard:
    port: 8265
    sites: [dashboard_port, DASHBOARD_PORT, --dashboard-port]
"""
BOUND_KEYS = ["master_port_range_low", "master_port_range_high", "gym_port_low", "gym_port_high", "dashboard_port"]
BOUND_NAMES = [key.upper() for key in BOUND_KEYS]
OPTIONS = ["--gym-port-low", "--gym-port-high", "--dashboard-port"]
UNBOUND_KEYS = ["port", "worker_port", "redis_port", "containerPort", "num_ports", "name", "timeout", "replicas"]

# Text that YAML, shell and Python all accept inside a comment or a quoted string:
# letters of several scripts, digits, punctuation, symbols and spaces, no controls.
TEXT = st.text(
    st.characters(categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x85\u2028\u2029\ufeff\\\"'`$#"),
    max_size=12,
)
PORTS = st.one_of(st.integers(1024, 9999), st.sampled_from([1400, 1999, 5000, 5999, 8265, 70000, 0, 80]))
COMMENTS = st.one_of(
    TEXT.map(lambda t: f"# {t}"),
    st.sampled_from(["# portlint: ignore", "# portlint: ignore[PL301]", "# portlint: ignore[PL102,PL999]"]),
)
NEWLINES = st.sampled_from(["\n", "\r\n", "mixed"])


@st.composite
def file_bytes(draw: st.DrawFn, lines: list[str]) -> bytes:
    """Lines joined with LF, CRLF or a mix, maybe a BOM, maybe no final newline."""
    newline = draw(NEWLINES)
    ends = [draw(st.sampled_from(["\n", "\r\n"])) if newline == "mixed" else newline for _ in lines]
    text = "".join(line + end for line, end in zip(lines, ends))
    if not draw(st.booleans()):
        text = text.rstrip("\r\n")
    data = text.encode()
    return (b"\xef\xbb\xbf" + data) if draw(st.booleans()) else data


def _maybe_comment(draw: st.DrawFn, line: str) -> str:
    return f"{line}  {draw(COMMENTS)}" if draw(st.booleans()) else line


# -- YAML ---------------------------------------------------------------------------
def _yaml_scalar(draw: st.DrawFn, anchors: list[str]) -> str:
    value = draw(PORTS)
    style = draw(st.sampled_from(["plain", "double", "single", "anchor", "alias", "text", "flow"]))
    if style == "double":
        return f'"{value}"'
    if style == "single":
        return f"'{value}'"
    if style == "anchor":
        anchors.append(f"a{len(anchors)}")
        return f"&{anchors[-1]} {value}"
    if style == "alias" and anchors:
        return f"*{draw(st.sampled_from(anchors))}"
    if style == "text":
        return json.dumps(draw(TEXT), ensure_ascii=False)
    if style == "flow":
        key = draw(st.sampled_from(BOUND_KEYS + UNBOUND_KEYS))
        return f"{{{key}: {value}}}"
    return str(value)


@st.composite
def yaml_documents(draw: st.DrawFn) -> bytes:
    lines: list[str] = []
    for document in range(draw(st.integers(1, 3))):
        if document:
            lines.append("---")
        anchors: list[str] = []
        sections = draw(st.lists(st.sampled_from(["cluster", "env.gym", "policy", "clé ☃", "ray"]), min_size=1, max_size=3, unique=True))
        for section in sections:
            if draw(st.booleans()):
                lines.append(draw(COMMENTS))
            key = json.dumps(section, ensure_ascii=False) if not section.isascii() else section
            lines.append(_maybe_comment(draw, f"{key}:"))
            keys = draw(st.lists(st.sampled_from(BOUND_KEYS + UNBOUND_KEYS), min_size=1, max_size=6, unique=True))
            for name in keys:
                if draw(st.integers(0, 5)) == 0:
                    lines.append("")
                lines.append(_maybe_comment(draw, f"  {name}: {_yaml_scalar(draw, anchors)}"))
            if draw(st.booleans()):
                lines.append("  workers:")
                for value in draw(st.lists(PORTS, min_size=1, max_size=3)):
                    lines.append(f"    - {{port: {value}, name: {json.dumps(draw(TEXT), ensure_ascii=False)}}}")
    return draw(file_bytes(lines))


# -- shell ----------------------------------------------------------------------------
@st.composite
def shell_scripts(draw: st.DrawFn) -> bytes:
    lines = ["#!/bin/bash"] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(1, 10))):
        name = draw(st.sampled_from(BOUND_NAMES + ["WORKER_PORT", "NUM_PORTS", "NAME"]))
        value = draw(PORTS)
        shape = draw(st.integers(0, 10))
        if shape == 0:
            line = f"{name}={value}"
        elif shape == 1:
            line = f"export {name}={value}"
        elif shape == 2:
            line = f"{name}=${{{name}:-{value}}}"
        elif shape == 3:
            line = f'{name}="${{OTHER_{name}:-{value}}}"'
        elif shape == 4:
            line = f': "${{{name}:={value}}}"'
        elif shape == 5:
            line = f"ray start {draw(st.sampled_from(OPTIONS))}={value} --block"
        elif shape == 6:
            lines.append(f"serve {draw(st.sampled_from(OPTIONS))} {value} \\")
            line = f"    --name {json.dumps(draw(TEXT), ensure_ascii=False)}"
        elif shape == 7:
            line = f"echo $((${{{name}}} + {draw(st.integers(0, 9))}))"
        elif shape == 8:
            lines += ["cat <<'EOF'", f"{name}={value}", "EOF"]
            continue
        elif shape == 9:
            line = f"echo '{draw(TEXT)}' \"{draw(TEXT)}\""
        else:
            line = draw(COMMENTS)
        lines.append(_maybe_comment(draw, line))
    return draw(file_bytes(lines))


# -- Python ----------------------------------------------------------------------------
@st.composite
def python_modules(draw: st.DrawFn) -> bytes:
    lines = [f'"""{draw(TEXT)}"""', "import os"]
    for _ in range(draw(st.integers(1, 10))):
        name = draw(st.sampled_from(BOUND_NAMES + ["WORKER_PORT", "NUM_PORTS"]))
        key = draw(st.sampled_from(BOUND_KEYS + ["worker_port"]))
        value = draw(PORTS)
        literal = draw(st.sampled_from([str(value), f'"{value}"', f"'{value}'"]))
        shape = draw(st.integers(0, 8))
        if shape == 0:
            new = [f"{name} = {literal}"]
        elif shape == 1:
            new = [f"{name}: int = {value}"]
        elif shape == 2:
            new = ["class Ports:", f"    {name} = {literal}"]
        elif shape == 3:
            new = [f"def serve(host, {key}={value}, *, name={json.dumps(draw(TEXT), ensure_ascii=False)}):", "    return host"]
        elif shape == 4:
            new = [f"{key} = base if base else {value}"]
        elif shape == 5:
            new = [f"launch({key}={value})"]
        elif shape == 6:
            new = [f'{key} = os.environ.get("{name}", {literal})']
        elif shape == 7:
            new = [f'os.environ["{name}"] = "{value}"']
        else:
            new = [draw(COMMENTS)]
        new[-1] = _maybe_comment(draw, new[-1])
        lines += new
    return draw(file_bytes(lines))


# -- Markdown docs and frozen copies ------------------------------------------------------
@st.composite
def markdown_docs(draw: st.DrawFn) -> bytes:
    lines = [f"# Ports {draw(TEXT)}", ""]
    for _ in range(draw(st.integers(1, 8))):
        name = draw(st.sampled_from(BOUND_NAMES + ["WORKER_PORT"]))
        value = draw(PORTS)
        shape = draw(st.integers(0, 5))
        if shape == 0:
            lines += ["| name | value |", "|---|---|", f"| `{name}={value}` | {draw(TEXT)} |", ""]
        elif shape == 1:
            lines.append(f"Set `{name}={value}` before {draw(TEXT)}.")
        elif shape == 2:
            lines += ["```bash", f"{name}={value}", "```"]  # fenced: an example, not a doc site
        elif shape == 3:
            lines.append(f"`{name}={value}` <!-- portlint: ignore[PL501] -->")
        elif shape == 4:
            lines.append(f"> {draw(TEXT)} `{name}={value}`")
        else:
            lines.append(draw(TEXT))
    return draw(file_bytes(lines))


@st.composite
def drifted_copy(draw: st.DrawFn, source: bytes) -> bytes:
    """A frozen copy: the source with some of its numbers replaced, maybe other line endings."""
    numbers = list(re.finditer(rb"(?<![\w.])\d{2,5}(?![\w.])", source))
    chosen = draw(st.sets(st.integers(0, max(len(numbers) - 1, 0)), max_size=4)) if numbers else set()
    pieces, cursor = [], 0
    for index, match in enumerate(numbers):
        if index in chosen:
            pieces += [source[cursor:match.start()], str(draw(PORTS)).encode()]
            cursor = match.end()
    copy = b"".join(pieces) + source[cursor:]
    return copy.replace(b"\r\n", b"\n") if draw(st.booleans()) else copy


# -- the properties ----------------------------------------------------------------------
FROZEN = b"""frozen:
  - copies: reference/*.yaml
    source: "{name}"
"""


@contextmanager
def repository(files: dict[str, bytes]):  # noqa: ANN201 - a context manager of a Path
    root = Path(tempfile.mkdtemp(prefix="portlint-property-"))
    try:
        layout = LAYOUT + (FROZEN if any(name.startswith("reference/") for name in files) else b"")
        (root / ".portlint.yaml").write_bytes(layout)
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def problems(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    """One in-process run in `root`; the problems it reports (capsys is shared by every example)."""
    cwd = os.getcwd()
    capsys.readouterr()
    os.chdir(root)
    try:
        code = main(["--output-format", "json", "--quiet", *args])
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    assert code in (0, 1) and "internal error" not in err, err
    return json.loads(out) if out.strip() else []


def applicable(problem: dict, unsafe: bool) -> bool:
    return bool(problem["fix"]) and (problem["fix"]["applicability"] == "safe" or unsafe)


def fixes_of(found: list[dict], name: str, unsafe: bool) -> list[Fix]:
    return [
        Fix(tuple(Edit(e["start"], e["end"], e["content"].encode()) for e in p["fix"]["edits"]))
        for p in found if p["path"] == name and applicable(p, unsafe)
    ]


def expected_fix(
    files: dict[str, bytes], unsafe: bool, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, bytes], int]:
    """What `--fix` must write: the reported edits spliced in, round after round, until none is
    left (a fix can make a suppression unused, a copy follows its fixed source); a file whose
    result would not parse keeps its last good bytes and takes no more fixes."""
    flags = ["--unsafe-fixes"] if unsafe else []
    current, refused, rounds = dict(files), set(), 0
    with repository(files) as scratch:
        for rounds in range(1, 11):
            found = problems(scratch, capsys, *flags)
            todo = {name: fixes for name in files if name not in refused and (fixes := fixes_of(found, name, unsafe))}
            if not todo:
                return current, rounds - 1
            for name, fixes in todo.items():
                candidate = apply(current[name], (edit for fix in compatible(fixes) for edit in fix.edits))
                (scratch / name).write_bytes(candidate)
                if any(p["code"] == "PL001" and p["path"] == name for p in problems(scratch, capsys, *flags)):
                    (scratch / name).write_bytes(current[name])
                    refused.add(name)
                else:
                    current[name] = candidate
    return {name: files[name] if name in todo else data for name, data in current.items()}, rounds


def check_fix_properties(files: dict[str, bytes], unsafe: bool, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--unsafe-fixes"] if unsafe else []
    with repository(files) as root:
        broken = {p["path"] for p in problems(root, capsys, *flags) if p["code"] == "PL001"}
        expected, rounds = expected_fix(files, unsafe, capsys)
        event("does not parse" if broken else f"fixed in {rounds} round{'s' if rounds != 1 else ''}")
        after_fix = problems(root, capsys, "--fix", *flags)
        fixed = {name: (root / name).read_bytes() for name in files}
        assert fixed == expected, "--fix wrote something else than the reported edits"
        assert {p["path"] for p in after_fix if p["code"] == "PL001"} <= broken, "a fixed file no longer parses"
        if broken:
            return
        assert not [p for p in after_fix if applicable(p, unsafe)], "a fixable problem survived --fix"
        problems(root, capsys, "--fix", *flags)
        assert {name: (root / name).read_bytes() for name in files} == fixed, "a second --fix changed something"


def _property(name: str, strategy: st.SearchStrategy[bytes]) -> Callable[..., None]:
    @PROFILE
    @given(data=strategy, unsafe=st.booleans())
    def test(data: bytes, unsafe: bool, capsys: pytest.CaptureFixture[str]) -> None:
        check_fix_properties({name: data}, unsafe, capsys)

    return test


test_generated_yaml_documents_fix_safely = _property("config.yaml", yaml_documents())
test_generated_shell_scripts_fix_safely = _property("launch.sbatch", shell_scripts())
test_generated_python_modules_fix_safely = _property("ports.py", python_modules())
test_generated_markdown_docs_fix_safely = _property("docs/ports.md", markdown_docs())


@PROFILE
@given(data=st.data(), unsafe=st.booleans())
def test_a_generated_frozen_copy_follows_its_source_safely(
    data: st.DataObject, unsafe: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    source = data.draw(yaml_documents(), label="source")
    copy = data.draw(drifted_copy(source), label="copy")
    docs = data.draw(markdown_docs(), label="docs")
    check_fix_properties({"config.yaml": source, "reference/config.yaml": copy, "docs/ports.md": docs}, unsafe, capsys)


@PROFILE
@given(data=st.binary(max_size=300), kind=st.sampled_from(["x.yaml", "x.sh", "x.py", "x.md"]))
@example(data=b"master_port_range_low: &a 1500\nb: *a\n", kind="x.yaml")
def test_arbitrary_bytes_never_crash_a_check_or_a_fix(data: bytes, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    payload = b"master_port_range_low: 1500\n" + data if kind == "x.yaml" else b"MASTER_PORT_RANGE_LOW=1500\n" + data
    with repository({kind: payload}) as root:
        problems(root, capsys)
        problems(root, capsys, "--fix", "--unsafe-fixes")
