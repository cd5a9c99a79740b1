"""Bad input never crashes portlint, and never hides the rest of the repository.

Every case is a tiny repository: the layout in fixtures/bad-input/layout.yaml,
the good file fixtures/bad-input/good.yaml (one known problem) and the bad
input beside it. A broken file must come back as a PL001 problem that names the
file and the reason, an odd but valid one must be checked (and fixed) like any
other, and in both cases the good file's problem must still be reported.

Small static inputs live in fixtures/bad-input/files/; what cannot be committed
(a 50 MB file, symlink loops, an unreadable file, a directory named x.yaml,
10,000-deep nesting) is generated into tmp_path here.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_sparse

from portlint.cli import main
from portlint.model.edits import Edit
from portlint.stages import read
from portlint.stages.fix import apply

BAD_INPUT = Path(__file__).resolve().parents[2] / "fixtures" / "bad-input"
FILES = BAD_INPUT / "files"
GOOD_PROBLEM = ("good.yaml", 3, 26, "PL301")

# A broken file -> words its PL001 message must contain.
BROKEN = {
    "yaml-unclosed-quote.yaml": "invalid YAML",
    "yaml-tab-indentation.yaml": "invalid YAML",
    "yaml-duplicate-keys.yaml": "duplicate key",
    "yaml-not-utf8-latin1.yaml": "not UTF-8",
    "python-syntax-error.py": "invalid Python",
    "python2-print-statement.py": "invalid Python",
    "python-unknown-encoding.py": "unknown encoding",
    "shell-unterminated-quote.sh": "unterminated double quote",
    "shell-unterminated-heredoc.sbatch": "unterminated heredoc",
}

# An odd but valid file -> (line, column, code) of every problem planted in it.
ODD_BUT_VALID = {
    "yaml-alias-bomb.yaml": [(12, 26, "PL301")],
    "yaml-multi-document.yaml": [(5, 26, "PL301"), (10, 35, "PL301")],
    "yaml-bom-crlf.yaml": [(1, 35, "PL301"), (3, 28, "PL301")],
    "yaml-mixed-line-endings.yaml": [(2, 35, "PL301"), (4, 27, "PL301")],
    "yaml-unicode-line-separators.yaml": [(4, 26, "PL301")],
    "yaml-no-final-newline.yaml": [(2, 26, "PL301")],
    "yaml-anchors-and-tags.yaml": [(2, 31, "PL301"), (3, 33, "PL301"), (5, 40, "PL301"), (7, 5, "PL301")],
    "yaml-alias-in-two-roles.yaml": [(2, 30, "PL301")],  # one literal, one site: its first name
    "yaml-only-comments.yaml": [(1, 26, "PL501")],
    "empty.yaml": [],
    "empty.py": [],
    "empty.sh": [],
    "empty.md": [],
    "python-lone-cr-line-endings.py": [(1, 58, "PL301"), (2, 26, "PL301")],
    "python-bom-crlf.py": [(1, 26, "PL301"), (2, 27, "PL301")],
    "python-unicode.py": [(2, 40, "PL301")],
    "python-syntax-warnings.py": [(4, 25, "PL301")],
    "shell-crlf.sh": [(2, 30, "PL301"), (3, 50, "PL301")],
    "markdown-weird.md": [(5, 26, "PL501")],
}


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(BAD_INPUT / "layout.yaml", repo / ".portlint.yaml")
    shutil.copy(BAD_INPUT / "good.yaml", repo / "good.yaml")
    return repo


class Run:
    """One in-process `portlint --output-format json` run in a repository."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.err = code, err
        self.problems = json.loads(out) if out.strip() else []

    def positions(self, path: str | None = None) -> list[tuple[str, int, int, str]]:
        return sorted(
            (p["path"], p["line"], p["column"], p["code"]) for p in self.problems if path is None or p["path"] == path
        )

    def parse_errors(self, path: str) -> list[str]:
        return [p["message"] for p in self.problems if p["code"] == "PL001" and p["path"] == path]


def run(repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> Run:
    monkeypatch.chdir(repo)
    capsys.readouterr()
    code = main(["--output-format", "json", *args])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    assert code in (0, 1), err
    return Run(code, out, err)


def run_subprocess(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """portlint as a user runs it: a separate process, so a traceback would show on stderr."""
    env = {**os.environ, "PORTLINT_TRACEBACK": "1"}  # let a bug escape as a traceback, not exit 2
    return subprocess.run(
        [sys.executable, "-m", "portlint.cli", *args], cwd=repo, capture_output=True, text=True, env=env, timeout=300
    )


def safe(problem: dict) -> bool:
    return bool(problem["fix"]) and problem["fix"]["applicability"] == "safe"


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- the static corpus ----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_file_is_one_parse_error_naming_the_reason_and_the_rest_is_checked(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    shutil.copy(FILES / name, repo / name)
    result = run(repo, capsys, monkeypatch)
    messages = result.parse_errors(name)
    assert len(messages) == 1 and BROKEN[name] in messages[0], result.problems
    assert all(p["line"] >= 1 and p["column"] >= 1 for p in result.problems)
    assert GOOD_PROBLEM in result.positions()
    assert result.code == 1


@pytest.mark.parametrize("name", sorted(ODD_BUT_VALID))
def test_an_odd_but_valid_file_is_checked_and_fixed_in_place(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    shutil.copy(FILES / name, repo / name)
    before = (repo / name).read_bytes()
    result = run(repo, capsys, monkeypatch)
    assert result.positions(name) == [(name, *where) for where in ODD_BUT_VALID[name]]
    assert GOOD_PROBLEM in result.positions()
    edits = [
        Edit(e["start"], e["end"], e["content"].encode())
        for p in result.problems if p["path"] == name and safe(p) for e in p["fix"]["edits"]
    ]
    fixed = run(repo, capsys, monkeypatch, "--fix")
    assert (repo / name).read_bytes() == apply(before, edits), "bytes outside the reported edits changed"
    assert not [p for p in fixed.problems if safe(p)], "a fixable problem survived --fix"
    assert not fixed.parse_errors(name), "the fixed file no longer parses"
    after = snapshot(repo)
    run(repo, capsys, monkeypatch, "--fix")
    assert snapshot(repo) == after, "a second --fix changed something"


def test_python_that_compiles_with_warnings_prints_none_of_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    shutil.copy(FILES / "python-syntax-warnings.py", repo / "warns.py")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(repo, capsys, monkeypatch)
    assert [str(w.message) for w in caught if w.filename.endswith("warns.py")] == []
    done = run_subprocess(repo)
    assert "Warning" not in done.stderr, done.stderr


@pytest.mark.slow
def test_the_whole_corpus_at_once_in_a_subprocess_prints_no_traceback(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    for path in FILES.iterdir():
        shutil.copy(path, repo / path.name)
    done = run_subprocess(repo, "--output-format", "json")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    problems = json.loads(done.stdout)
    assert {p["path"] for p in problems if p["code"] == "PL001"} == set(BROKEN)
    found = {(p["path"], p["line"], p["column"], p["code"]) for p in problems}
    assert found >= {GOOD_PROBLEM} | {(name, *where) for name, planted in ODD_BUT_VALID.items() for where in planted}


@pytest.mark.slow
def test_the_corpus_under_a_layout_using_every_feature_with_frozen_copies_of_each_yaml(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    shutil.copy(BAD_INPUT / "layout-rich.yaml", repo / ".portlint.yaml")
    (repo / "reference").mkdir()
    for path in FILES.iterdir():
        shutil.copy(path, repo / path.name)
        if path.suffix == ".yaml":
            shutil.copy(path, repo / "reference" / path.name)
    done = run_subprocess(repo, "--output-format", "json")
    assert done.returncode == 1 and "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    broken = {p["path"] for p in json.loads(done.stdout) if p["code"] == "PL001"}
    assert broken >= set(BROKEN) | {f"reference/{name}" for name in BROKEN if name.endswith(".yaml")}
    done = run_subprocess(repo, "--fix", "--unsafe-fixes")
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr and "internal error" not in done.stderr
    before = snapshot(repo)
    run_subprocess(repo, "--fix", "--unsafe-fixes")
    assert snapshot(repo) == before, "a second --fix changed something"


# -- frozen copies of odd files ----------------------------------------------------
FROZEN = """\
frozen:
  - copies: reference/*.yaml
    source: "{name}"
"""
# (source, drifted copy, the copy once fixed): line breaks YAML counts but Source does not,
# a BOM before the first key, and a value behind an anchor that an alias refers to.
FROZEN_CASES = {
    "lone-cr": (
        b"a: 1\rcluster:\r  master_port_range_low: 1400\n",
        b"a: 1\rcluster:\r  master_port_range_low: 1500\n",
        b"a: 1\rcluster:\r  master_port_range_low: 1400\n",
    ),
    "bom": (
        b"\xef\xbb\xbfmaster_port_range_low: 1400\n",
        b"\xef\xbb\xbfmaster_port_range_low: 1500\n",
        b"\xef\xbb\xbfmaster_port_range_low: 1400\n",
    ),
    "anchor": (
        b"x:\n  master_port_range_high: &h 1999\n",
        b"x:\n  master_port_range_high: &h 1500\ny: *h\n",
        b"x:\n  master_port_range_high: &h 1999\ny: *h\n",
    ),
    # one literal under two keys the source gives different values: fixed for the first key only
    # (it used to flip between 1400 and 1999 for ten rounds, then leave the file as it was)
    "alias-in-two-roles": (
        b"c:\n  master_port_range_low: 1400\n  master_port_range_high: 1999\n",
        b"c:\n  master_port_range_low: &p 1500\n  master_port_range_high: *p\n",
        b"c:\n  master_port_range_low: &p 1400\n  master_port_range_high: *p\n",
    ),
}


@pytest.mark.parametrize("case", sorted(FROZEN_CASES))
def test_a_frozen_copy_of_an_odd_file_is_fixed_in_place(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source, copy, fixed = FROZEN_CASES[case]
    repo = make_repo(tmp_path)
    (repo / ".portlint.yaml").write_text((BAD_INPUT / "layout.yaml").read_text() + FROZEN)
    (repo / "reference").mkdir()
    (repo / "odd.yaml").write_bytes(source)
    (repo / "reference" / "odd.yaml").write_bytes(copy)
    result = run(repo, capsys, monkeypatch)
    assert {p["code"] for p in result.problems if p["path"] == "reference/odd.yaml"} == {"PL301", "PL401"}
    fixed_run = run(repo, capsys, monkeypatch, "--fix")
    assert (repo / "reference" / "odd.yaml").read_bytes() == fixed
    assert (repo / "odd.yaml").read_bytes() == source
    assert "did not converge" not in fixed_run.err


# -- inputs generated here (too big, or not committable) -------------------------
DEEP = 10_000

GENERATED_BROKEN = {  # name -> (bytes, words its PL001 message must contain)
    "nul-byte.yaml": (b"cluster:\n  master_port_range_low: 1500\n\0\n", "NUL byte at offset 39"),
    "nul-byte-after-8k.yaml": (b"cluster:\n  master_port_range_low: 1500\n" + b"#" * 9000 + b"\0\n", "invalid YAML"),
    "nul-byte-after-8k.py": (b"MASTER_PORT_RANGE_LOW = 1500\n" + b"#" * 9000 + b"\0\n", "null bytes"),
    "utf16-le.yaml": ("cluster:\n  master_port_range_low: 1500\n".encode("utf-16"), "UTF-16"),
    "utf16-be.py": ("MASTER_PORT_RANGE_LOW = 1500\n".encode("utf-16-be").join([b"\xfe\xff", b""]), "UTF-16"),
    "deep-parentheses.py": (b"MASTER_PORT_RANGE_LOW = " + b"(" * DEEP + b"1500" + b")" * DEEP + b"\n", "invalid Python"),
    "deep-sum.py": (  # Python 3.11+ refuses the tree; 3.10 builds it, and the walks cannot read it
        b"MASTER_PORT_RANGE_LOW = 1500\nport = " + b"+".join([b"1"] * 100_000) + b"\n",
        "invalid Python" if sys.version_info >= (3, 11) else "Python nested too deeply to read",
    ),
    # A tree Python builds, deeper than the walks' recursion reads: the file is one PL001, not an internal error.
    "long-sum.py": (b"MASTER_PORT_RANGE_LOW = 1500\nport = " + b"+".join([b"1"] * 2_000) + b"\n", "Python nested too deeply to read"),
    "conflict-markers.py": (
        b"def serve():\n    pass\n<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> other\nMASTER_PORT_RANGE_LOW = 1500\n",
        "invalid Python",
    ),
    "deep-command-substitution.sh": (
        b"MASTER_PORT_RANGE_LOW=1500\necho " + b"$(" * DEEP + b")" * DEEP + b"\n", "nested too deep"
    ),
}

GENERATED_VALID = {  # name -> bytes; each holds the drift `master_port_range_low: 1500` on line 1
    "deep-flow-sequence.yaml": b"cluster: {master_port_range_low: 1500}\ndeep: " + b"[" * DEEP + b"]" * DEEP + b"\n",
    "deep-flow-mapping.yaml": b"cluster: {master_port_range_low: 1500}\ndeep: " + b"{a: " * DEEP + b"1" + b"}" * DEEP + b"\n",
    "deep-block-sequence.yaml": b"cluster: {master_port_range_low: 1500}\ndeep:\n" + b"- " * DEEP + b"1\n",
    "deep-quotes.md": b"`MASTER_PORT_RANGE_LOW=1400` " + b"> " * DEEP + b"x\n" + b"`" * DEEP + b"\n",
    "deep-arithmetic.sh": b"MASTER_PORT_RANGE_LOW=1500\necho $((" + b"(" * DEEP + b"1" + b")" * DEEP + b"))\n",
}


@pytest.mark.parametrize("name", sorted(GENERATED_BROKEN))
def test_a_generated_broken_file_is_one_parse_error_and_the_rest_is_checked(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    data, reason = GENERATED_BROKEN[name]
    (repo / name).write_bytes(data)
    result = run(repo, capsys, monkeypatch)
    messages = result.parse_errors(name)
    assert len(messages) == 1 and reason in messages[0], result.problems
    assert GOOD_PROBLEM in result.positions()


@needs_sparse
def test_a_syntax_error_in_a_statement_that_holds_no_port_is_not_parsed_so_not_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the statements that can hold a site are parsed (portlint/speed/outline.py):
    an error elsewhere is no more portlint's to report than one in a file without a port."""
    repo = make_repo(tmp_path)
    (repo / "half.py").write_bytes(b"MASTER_PORT_RANGE_LOW = 1500\n\n\ndef helper():\n    return = 1\n")
    result = run(repo, capsys, monkeypatch)
    assert result.positions("half.py") == [("half.py", 1, 25, "PL301")]
    assert GOOD_PROBLEM in result.positions()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GENERATED_VALID))
def test_deep_nesting_that_parses_is_checked(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    (repo / name).write_bytes(GENERATED_VALID[name])
    result = run(repo, capsys, monkeypatch)
    assert GOOD_PROBLEM in result.positions()
    parse_errors = result.parse_errors(name)
    # A parser may refuse absurd depth (then it says so); it must never crash or hang.
    assert parse_errors == [] or "deep" in parse_errors[0], parse_errors
    if not parse_errors and not name.endswith(".md"):
        assert [p[1:] for p in result.positions(name)][0][0] == 1


def big_file(path: Path, head: bytes, megabytes: int = 50, tail: bytes = b"") -> None:
    line = b"  - " + b"x" * 60 + b"\n"
    with open(path, "wb") as handle:
        handle.write(head + b"filler:\n")
        handle.write(line * (megabytes * 1024 * 1024 // len(line)))
        handle.write(tail)


@pytest.mark.slow
def test_a_fifty_megabyte_file_that_may_hold_ports_is_a_parse_error_not_a_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    big_file(repo / "big.yaml", b"cluster:\n  master_port_range_low: 1500\n")
    big_file(repo / "big-without-ports.yaml", b"name: filler\n")
    result = run(repo, capsys, monkeypatch)
    assert "over the 2097152-byte limit" in result.parse_errors("big.yaml")[0]
    assert result.positions("big-without-ports.yaml") == []  # nothing in it to check: skipped silently
    assert GOOD_PROBLEM in result.positions()


def test_symlink_loops_are_parse_errors_and_links_out_of_the_repository_are_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    (repo / "loop-a.yaml").symlink_to("loop-b.yaml")
    (repo / "loop-b.yaml").symlink_to("loop-a.yaml")
    (repo / "self.yaml").symlink_to("self.yaml")
    (repo / "dangling.yaml").symlink_to("missing.yaml")
    secret = tmp_path / "outside.yaml"
    secret.write_bytes(b"cluster:\n  master_port_range_low: 1500\n")
    (repo / "outside.yaml").symlink_to(secret)
    (repo / "inside.yaml").symlink_to("good.yaml")
    result = run(repo, capsys, monkeypatch)
    for name in ("loop-a.yaml", "loop-b.yaml", "self.yaml"):
        assert result.parse_errors(name) == ["cannot check this file: cannot read: a symlink loop"]
    assert result.positions("outside.yaml") == [] and result.positions("dangling.yaml") == []
    assert "outside.yaml: skipped: a symlink leading outside the repository" in result.err
    assert ("inside.yaml", 3, 26, "PL301") in result.positions()
    assert GOOD_PROBLEM in result.positions()
    run(repo, capsys, monkeypatch, "--fix")
    assert secret.read_bytes() == b"cluster:\n  master_port_range_low: 1500\n", "--fix wrote outside the repository"


def test_an_unreadable_file_is_a_parse_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    locked = repo / "locked.yaml"
    locked.write_bytes(b"cluster:\n  master_port_range_high: 2999\n")
    locked.chmod(0)

    real_open = os.open

    def refusing_open(name: str, *args: Any, **kwargs: Any) -> Any:
        if os.path.basename(name) == "locked.yaml":  # what a non-root user meets; root reads mode 000 anyway
            raise PermissionError(13, "Permission denied", name)
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(read.os, "open", refusing_open)  # the read stage opens with os.open
    result = run(repo, capsys, monkeypatch)
    assert result.parse_errors("locked.yaml") == ["cannot check this file: cannot read: Permission denied"]
    assert GOOD_PROBLEM in result.positions()


_PR_CAPBSET_DROP, _CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 24, 1, 2  # linux/prctl.h, linux/capability.h


def _reading_anything_dropped() -> None:
    """In the child, before it runs portlint: root's power to read any file taken out of its
    bounding set, as `setpriv --bounding-set=-dac_override,-dac_read_search` does, so that the
    program it runs has neither capability (a refusal is an error of the test, not a skip)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


def test_a_mode_000_file_in_a_subprocess_that_cannot_read_it(tmp_path: Path) -> None:
    """The real thing: a mode-000 file and a portlint process the kernel refuses it to. Root
    reads anything, so as root the process runs without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH."""
    command = [sys.executable, "-m", "portlint.cli", "--output-format", "json"]
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    repo = make_repo(tmp_path)
    (repo / "locked.yaml").write_bytes(b"cluster:\n  master_port_range_high: 2999\n")
    (repo / "locked.yaml").chmod(0)
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120,
                          preexec_fn=_reading_anything_dropped if as_root else None)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    problems = json.loads(done.stdout)
    assert [p["message"] for p in problems if p["path"] == "locked.yaml"] == [
        "cannot check this file: cannot read: Permission denied"
    ]
    assert GOOD_PROBLEM in {(p["path"], p["line"], p["column"], p["code"]) for p in problems}


def test_a_directory_named_like_a_yaml_file_and_a_fifo_are_skipped_and_their_neighbours_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    (repo / "x.yaml").mkdir()
    (repo / "x.yaml" / "inner.yaml").write_bytes(b"cluster:\n  master_port_range_high: 2999\n")
    (repo / "link-to-dir.yaml").symlink_to("x.yaml")
    os.mkfifo(repo / "pipe.yaml")  # reading it would block forever; outside git, the walk lists it
    result = run(repo, capsys, monkeypatch)
    assert "pipe.yaml: skipped: not a regular file" in result.err
    subprocess.run(["git", "init", "-q", str(repo)], check=True)  # git lists a link to a directory as a file
    result = run(repo, capsys, monkeypatch)
    assert "link-to-dir.yaml: skipped: a directory" in result.err
    assert ("x.yaml/inner.yaml", 2, 27, "PL301") in result.positions()
    assert not [p for p in result.problems if p["code"] == "PL001"]
    assert GOOD_PROBLEM in result.positions()
    done = run_subprocess(repo, "x.yaml")  # a directory given as the path to check
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "x.yaml/inner.yaml:2:27: PL301" in done.stdout and "good.yaml" not in done.stdout


# -- bad configurations -------------------------------------------------------------
CONFIGS = BAD_INPUT / "configs"
CONFIG_ERRORS = {  # config file -> (the name it is installed as, the key path and expectation in its error)
    "not-a-mapping.yaml": (".portlint.yaml", "expected a mapping at the top level, got a list"),
    "only-a-scalar.yaml": (".portlint.yaml", "expected a mapping at the top level"),
    "wrong-type-floor.yaml": (".portlint.yaml", 'ephemeral_floor: expected an integer or "auto"'),
    "floor-negative.yaml": (".portlint.yaml", "ephemeral_floor: expected an integer 1..65535"),
    "wrong-type-bands.yaml": (".portlint.yaml", "bands: expected a mapping, got a list"),
    "wrong-type-range.yaml": (".portlint.yaml", "bands.master.range: expected"),
    "reversed-range.yaml": (".portlint.yaml", "bands.gym.range: expected LOW-HIGH with LOW <= HIGH"),
    "reversed-range-list.yaml": (".portlint.yaml", "bands.gym.range: expected [LOW, HIGH] with LOW <= HIGH"),
    "port-out-of-range.yaml": (".portlint.yaml", "bands.gym.range: expected LOW-HIGH with ports in 1..65535"),
    "unknown-top-level-key.yaml": (".portlint.yaml", 'unknown key "ephemeral_flor"'),
    "unknown-band-key.yaml": (".portlint.yaml", 'bands.gym: unknown key "sights"'),
    "unknown-within.yaml": (".portlint.yaml", 'bands.dash.within: unknown band "engine"'),
    "bad-include-type.yaml": (".portlint.yaml", "include: expected a list"),
    "per-file-ignores-wrong.yaml": (".portlint.yaml", "per_file_ignores: expected a mapping"),
    "invalid-yaml.yaml": (".portlint.yaml", "expected valid YAML"),
    "duplicate-band.yaml": (".portlint.yaml", "duplicate key"),
    "not-utf8.yaml": (".portlint.yaml", "expected UTF-8 text"),
    "nul-byte.yaml": (".portlint.yaml", "expected valid YAML"),
    "alias-bomb.yaml": (".portlint.yaml", "f: expected at most 100000 values once aliases are expanded"),
    "python-tag.yaml": (".portlint.yaml", "ephemeral_floor: expected"),
    "bad.toml": ("portlint.toml", "ephemeral_floor: expected an integer"),
    "invalid.toml": ("portlint.toml", "expected valid TOML"),
    "pyproject-wrong.toml": ("pyproject.toml", "tool.portlint.bands: expected a mapping, got 3"),
}


@pytest.mark.parametrize("name", sorted(CONFIG_ERRORS))
def test_a_bad_config_is_one_line_naming_the_file_and_key_and_exit_2(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    installed_as, expected = CONFIG_ERRORS[name]
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(BAD_INPUT / "good.yaml", repo / "good.yaml")
    shutil.copy(CONFIGS / name, repo / installed_as)
    monkeypatch.chdir(repo)
    code = main([])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"portlint: error: {installed_as}: "), err
    assert expected in err
    assert list(repo.iterdir()) == [repo / installed_as, repo / "good.yaml"] or sorted(repo.iterdir()) == sorted(
        [repo / installed_as, repo / "good.yaml"]
    )


@pytest.mark.slow
def test_recursive_and_absurdly_deep_configs_are_config_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for text in ("include: &a [*a]\n", "bands:\n  x:\n    description: " + "[" * DEEP + "]" * DEEP + "\n"):
        (tmp_path / ".portlint.yaml").write_text(text)
        assert main([]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("portlint: error: .portlint.yaml"), err


def test_an_empty_config_is_a_valid_config_without_a_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(CONFIGS / "empty.yaml", repo / ".portlint.yaml")
    (repo / "bad.yaml").write_bytes(b'master_port: "unclosed\n')
    monkeypatch.chdir(repo)
    assert main([]) == 1
    assert "bad.yaml:1:14: PL001" in capsys.readouterr().out


# -- memory --------------------------------------------------------------------------
RSS_LIMIT_KB = 500 * 1024

# Runs portlint in a fresh interpreter and reports that process's own high-water mark:
# ru_maxrss of a child is no use here, Linux carries it over from the forking pytest.
_MEASURED = """
import sys
from portlint.cli import main
code = main(sys.argv[1:])
with open("/proc/self/status") as status:
    peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
sys.stderr.write(f"peak-rss-kb {peak}\\n")
sys.exit(code)
"""


def peak_rss_kb(repo: Path, *args: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, "--quiet", *args], cwd=repo, capture_output=True, text=True, timeout=600
    )
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    return int(done.stderr.rsplit("peak-rss-kb ", 1)[1])


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
@pytest.mark.parametrize("case", ["alias bomb", "50 MB file"])
def test_memory_stays_bounded(case: str, tmp_path: Path) -> None:
    (tmp_path / "baseline").mkdir()
    baseline = peak_rss_kb(make_repo(tmp_path / "baseline"))
    repo = make_repo(tmp_path)
    if case == "alias bomb":
        shutil.copy(FILES / "yaml-alias-bomb.yaml", repo / "bomb.yaml")
        # and a wider one: 10 levels of 20 aliases each (20**10 leaves once expanded)
        lines = ["l0: &l0 [" + ", ".join(['"lol"'] * 20) + "]"]
        lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i-1}"] * 20) + "]" for i in range(1, 11)]
        (repo / "wide-bomb.yaml").write_text("\n".join(lines) + "\ncluster: {master_port_range_low: 1500}\n")
    else:  # the prefilter must look at every byte: the port is at the very end
        big_file(repo / "big.yaml", b"name: filler\n", tail=b"cluster:\n  master_port_range_low: 1500\n")
    check, fix = peak_rss_kb(repo), peak_rss_kb(repo, "--fix")
    print(f"\npeak RSS, {case}: check {check / 1024:.1f} MiB, --fix {fix / 1024:.1f} MiB "
          f"(the same run on the good file alone: {baseline / 1024:.1f} MiB)")
    assert check < RSS_LIMIT_KB and fix < RSS_LIMIT_KB
