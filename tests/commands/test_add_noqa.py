"""`portlint --add-noqa`: a suppression comment per problem where the file takes one, every other byte kept."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import copy_repo

from portlint.cli import main
from portlint.commands import noqa

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
RAY = (
    "ray start leaves 6 settings to their defaults: --dashboard-agent-listen-port 52365 in the ephemeral range "
    "(32768+); --node-manager-port, --object-manager-port, --runtime-env-agent-port, --dashboard-agent-grpc-port, "
    "--metrics-export-port picked at random, from the ephemeral range; set them"
)
LAYOUT = "bands:\n  master:\n    range: 1400-1999\n    sites: [master_port, MASTER_PORT]\n"


def _repo(root: Path, files: dict[str, bytes | str]) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def _run(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str):
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main([*args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_the_demo_gets_one_comment_per_line_and_then_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = tmp_path / "demo"
    copy_repo(DEMO, demo)
    subprocess.run(["git", "init", "-q", str(demo)], check=True)
    before = _snapshot(demo)
    code, out, err = _run(demo, monkeypatch, capsys, "--add-noqa")
    assert (code, out, err) == (0, "Added 6 suppression comments (8 problems) to 3 files.\n", "")
    after = _snapshot(demo)
    changed = {path for path in after if after[path] != before[path]}
    assert changed == {"examples/configs/evals/eval.yaml", "examples/configs/sft.yaml", "nemo_rl/distributed/ports.py"}
    eval_lines = after["examples/configs/evals/eval.yaml"].decode().splitlines()
    assert eval_lines[19] == "  port_range_low: 3000  # portlint: ignore[PL202]"  # the colliding group's first site
    assert eval_lines[55:57] == [
        "    port_range_low: 25000  # portlint: ignore[PL101,PL301]",
        "    port_range_high: 25999  # portlint: ignore[PL101,PL301]",
    ]
    ports = after["nemo_rl/distributed/ports.py"].decode().splitlines()
    assert ports[38:40] == [
        "DEFAULT_GENERATION_PORT_RANGE_LOW = 3000",
        "DEFAULT_GENERATION_PORT_RANGE_HIGH = 5499  # portlint: ignore[PL301]",
    ]
    for path in changed:  # only comments were added: the same lines, each a prefix of its new self
        for old, new in zip(before[path].splitlines(), after[path].splitlines(), strict=True):
            assert new == old or new.startswith(old + b"  # portlint: ignore[")
    assert _run(demo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")
    assert _run(demo, monkeypatch, capsys, "--add-noqa") == (0, "No suppression comment to add.\n", "")
    assert _snapshot(demo) == after  # idempotent


def test_crlf_bom_and_trailing_spaces_are_kept_and_an_existing_comment_takes_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    yaml = b"\xef\xbb\xbfcluster:\r\n  master_port: 40000   \r\n  master_port_b: 40001  # portlint: ignore[PL301]\r\n"
    repo = _repo(tmp_path, {
        ".portlint.yaml": "bands:\n  master:\n    range: 1400-1999\n    sites: [master_port, master_port_b]\n",
        "a.yaml": yaml,
        "b.py": "master_port = 40000  # the port\n",
    })
    code, out, err = _run(repo, monkeypatch, capsys, "--add-noqa")
    assert (code, out, err) == (0, "Added 3 suppression comments (5 problems) to 2 files.\n", "")
    assert (repo / "a.yaml").read_bytes() == (
        b"\xef\xbb\xbfcluster:\r\n  master_port: 40000  # portlint: ignore[PL101,PL301]   \r\n"
        b"  master_port_b: 40001  # portlint: ignore[PL301,PL101]\r\n"
    )
    assert (repo / "b.py").read_bytes() == b"master_port = 40000  # the port  # portlint: ignore[PL101,PL301]\n"
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")


def test_a_continued_command_takes_the_comment_on_its_last_line_and_a_heredoc_line_goes_to_the_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = "#!/bin/bash\nray start --head \\\n  --num-gpus=8\nsrun bash <<INNER\nray start --head\nINNER\n"
    repo = _repo(tmp_path, {"job.sh": script})
    code, out, err = _run(repo, monkeypatch, capsys, "--add-noqa")
    assert code == 0
    assert out == ("Added 1 suppression comment (1 problem) to 1 file. "
                   "Set aside 1 problem in .portlint-baseline (listed above).\n")
    assert err == (
        f"portlint: set aside in the baseline: job.sh:5:1: PL603 {RAY} (a comment at the end of its line would be "
        "inside a string or heredoc or break the line)\n"
    )
    assert (repo / "job.sh").read_text() == script.replace("--num-gpus=8\n", "--num-gpus=8  # portlint: ignore[PL603]\n")
    [entry] = _entries(repo)
    assert entry[:2] == ["PL603", "job.sh"] and entry[3] == RAY
    assert _run(repo, monkeypatch, capsys, "--no-color")[:2] == (0, "All checks passed!\n")


def test_a_command_inside_a_yaml_block_scalar_goes_to_the_baseline_not_edited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "spec:\n  command: |\n    ray start --head\n    sleep 1\n"
    repo = _repo(tmp_path, {"cluster.yaml": text})
    code, out, err = _run(repo, monkeypatch, capsys, "--add-noqa")
    assert code == 0 and (repo / "cluster.yaml").read_text() == text
    assert out == "No suppression comment to add. Set aside 1 problem in .portlint-baseline (listed above).\n"
    assert err == (
        f"portlint: set aside in the baseline: cluster.yaml:3:5: PL603 {RAY} (a comment at the end of its line "
        "would be inside a string or block scalar or break the line)\n"
    )
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")


def test_a_line_of_a_multi_line_plain_scalar_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A comment would end the plain scalar (`a  # c` then `  b` is another value, or no YAML at all)."""
    text = "master_port: 40000\nnote: starts on this line\n  and goes on here\n"
    repo = _repo(tmp_path, {"a.yaml": text})
    state = _state(repo, "a.yaml")
    assert noqa._commented(_engine(repo), state, 2, ("PL101",)) is None


def test_markdown_goes_to_the_baseline_as_formatters_rewrite_its_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = "bands:\n  ray-worker:\n    range: 2000-2999\n    sites: [MIN_WORKER_PORT]\n"
    doc = "# Ports\n\n| name | value |\n|---|---|\n| workers | `MIN_WORKER_PORT=1000` |\n"
    repo = _repo(tmp_path, {".portlint.yaml": layout, "ray.sub": "MIN_WORKER_PORT=2000\n", "docs/a.md": doc})
    code, out, err = _run(repo, monkeypatch, capsys, "--add-noqa", "--quiet")
    assert (code, out, err) == (0, "", "")
    assert (repo / "docs/a.md").read_text() == doc
    assert [entry[:2] for entry in _entries(repo)] == [["PL501", "docs/a.md"]]
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")


def test_problems_that_take_no_comment_go_to_the_baseline_and_the_next_check_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {
        ".portlint.yaml": LAYOUT + "  spare:\n    range: 1400-1500\n",
        "a.yaml": "master_port: 1400\n",
        "broken.yaml": "master_port: [1400\n",
        "b.yaml": "master_port: 1400  # portlint: ignore[PL101]\n",
        "gen/ports.py": "# Code generated by portgen. DO NOT EDIT.\nMASTER_PORT = 40000\n",
    })
    before = _snapshot(repo)
    code, out, err = _run(repo, monkeypatch, capsys, "--add-noqa")
    assert code == 0
    assert out == "No suppression comment to add. Set aside 6 problems in .portlint-baseline (listed above).\n"
    generated = "(the file says it is generated: a comment would be lost when it is made again)"
    assert [line.split(": ", 1)[1] for line in err.splitlines()] == [
        "set aside in the baseline: .portlint.yaml:2:3: PL201 2 bands overlap: master (1400-1999, line 2), "
        "spare (1400-1500, line 5); declare within/shares_with if intended (the config file takes no comment)",
        "set aside in the baseline: .portlint.yaml:5:3: PL003 band spare has no site: it names no sites and no "
        "ports (the config file takes no comment)",
        "set aside in the baseline: b.yaml:1:20: PL002 unused suppression of PL101: nothing on this line to ignore "
        "(an unused suppression takes no comment: `portlint --fix` removes it)",
        "set aside in the baseline: broken.yaml:2:1: PL001 cannot check this file: invalid YAML: did not find "
        "expected ',' or ']' (a file portlint cannot read or parse takes no comment)",
        f"set aside in the baseline: gen/ports.py:2:15: PL101 MASTER_PORT=40000 reaches the ephemeral range (32768+) {generated}",
        f"set aside in the baseline: gen/ports.py:2:15: PL301 MASTER_PORT=40000 lies outside band master (1400-1999) {generated}",
    ]
    after = _snapshot(repo)
    assert {path for path in after if after.get(path) != before.get(path)} == {".portlint-baseline"}
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")
    assert _run(repo, monkeypatch, capsys, "--add-noqa") == (0, "No suppression comment to add.\n", "")
    assert _snapshot(repo) == after  # idempotent


def test_select_ignore_and_paths_choose_the_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"a/x.yaml": "master_port: 40000\nport: 0\n", "b/y.yaml": "master_port: 40000\n"})
    code, out, _ = _run(repo, monkeypatch, capsys, "--add-noqa", "--select", "PL101", "a")
    assert (code, out) == (0, "Added 1 suppression comment (1 problem) to 1 file.\n")
    assert (repo / "a/x.yaml").read_text() == "master_port: 40000  # portlint: ignore[PL101]\nport: 0\n"
    assert (repo / "b/y.yaml").read_text() == "master_port: 40000\n"


def test_it_writes_through_the_atomic_writer_and_refuses_with_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"a.yaml": "master_port: 40000\n"})
    calls = []
    real = noqa.writer.write_atomic
    monkeypatch.setattr(noqa.writer, "write_atomic", lambda path, data, expected=None, **more: (
        calls.append((path.name, data, expected)), real(path, data, expected=expected, **more)))
    assert _run(repo, monkeypatch, capsys, "--add-noqa")[0] == 0
    assert calls == [("a.yaml", b"master_port: 40000  # portlint: ignore[PL101]\n", b"master_port: 40000\n")]
    code, _, err = _run(repo, monkeypatch, capsys, "--add-noqa", "--fix")
    assert code == 2 and "--add-noqa writes comments only: it cannot be combined with --fix or --diff" in err


def test_a_read_only_file_is_a_write_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"a.yaml": "master_port: 40000\n"})
    (repo / "a.yaml").chmod(0o444)
    code, out, err = _run(repo, monkeypatch, capsys, "--add-noqa")
    assert code == 1 and err == "portlint: a.yaml: not written: file is read-only\n"
    assert out == "No suppression comment added. 1 file not written (listed above).\n"
    assert (repo / "a.yaml").read_text() == "master_port: 40000\n"


def test_the_summary_counts_only_the_comments_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"a.yaml": "master_port: 40000\n", "b.yaml": "worker_port: 50000\n"})
    (repo / "a.yaml").chmod(0o444)
    code, out, err = _run(repo, monkeypatch, capsys, "--add-noqa")
    assert code == 1 and err == "portlint: a.yaml: not written: file is read-only\n"
    assert out == "Added 1 suppression comment (1 problem) to 1 file. 1 file not written (listed above).\n"
    assert (repo / "b.yaml").read_text() == "worker_port: 50000  # portlint: ignore[PL101]\n"


def _entries(repo: Path) -> list[list[str]]:
    return [line.split("\t") for line in (repo / ".portlint-baseline").read_text().splitlines() if not line.startswith("#")]


def _engine(repo: Path):
    from portlint.config.load import load_config
    from portlint.config.locate import find_config
    from portlint.engine import Options, session

    return session(load_config(find_config(repo), repo), Options())


def _state(repo: Path, path: str):
    return _engine(repo).files[path]
