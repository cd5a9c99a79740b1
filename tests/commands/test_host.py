"""`portlint host` against fake proc roots: the machine is never consulted."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft4Validator, FormatChecker

from portlint.cli import main
from portlint.config import procfs

ROOT = Path(__file__).resolve().parents[2]
PROC = ROOT / "fixtures" / "host"
ABOVE_9000 = "fixtures/host/repo-above-9000"
SARIF_SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text())


@pytest.fixture(autouse=True)
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _host(repo: str, proc: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    code = main(["host", repo, "--proc-root", str(PROC / proc)])
    out = capsys.readouterr()
    lines = out.out.splitlines()
    return code, [line.split(" ", 2)[:2] for line in lines[:-1]], lines[-1] + out.err


def test_a_stock_node_has_nothing_to_say_about_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    code, findings, summary = _host("fixtures/demo", "stock", capsys)
    assert (code, findings) == (0, [])
    # ssh on 22 and an outgoing connection to 127.0.0.1:5000 are not listeners on the layout
    assert summary == "No host problems (ephemeral range 32768-60999, 0 reserved ports, 1 listening TCP port)."


def test_a_9000_65000_node_meets_the_range_written_at_25000(capsys: pytest.CaptureFixture[str]) -> None:
    code, findings, _ = _host("fixtures/demo", "gb200-node", capsys)
    assert code == 1
    assert findings == [["fixtures/demo/examples/configs/evals/eval.yaml:56:21:", "H101"]]


def test_a_9000_65000_node_meets_every_band_above_9000(capsys: pytest.CaptureFixture[str]) -> None:
    code, findings, summary = _host(ABOVE_9000, "gb200-node", capsys)
    assert code == 1
    assert findings == [[f"{ABOVE_9000}/.portlint.yaml:{line}:3:", "H101"] for line in (7, 9, 11)]
    assert summary.startswith("Found 3 host problems (ephemeral range 9000-65000")


def test_reserved_ports_cover_a_band_or_leave_a_gap(capsys: pytest.CaptureFixture[str]) -> None:
    main(["host", ABOVE_9000, "--proc-root", str(PROC / "reserved")])
    out = capsys.readouterr().out
    assert "band metrics" not in out  # 9000-9999 is reserved whole
    assert f"{ABOVE_9000}/.portlint.yaml:9:3: H102 band rpc 12000-12099 relies on" in out
    assert "but 12050-12099 is not reserved" in out
    assert f"{ABOVE_9000}/.portlint.yaml:11:3: H101 band scratch 20000-20099" in out


def test_the_layout_above_9000_is_fine_on_a_stock_node(capsys: pytest.CaptureFixture[str]) -> None:
    assert _host(ABOVE_9000, "stock", capsys)[:2] == (0, [])


def test_listeners_on_layout_ports_are_reported_where_the_port_is_declared(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["host", "fixtures/demo", "--proc-root", str(PROC / "listener")]) == 1
    out = capsys.readouterr().out
    assert "fixtures/demo/.portlint.yaml:41:3: H201 port 5000 of band gym 5000-5999 is held by a listening socket " \
           "(tcp 0.0.0.0:5000, tcp6 [::]:5000)" in out
    assert "H201 port 8265 of band ray-dashboard 8265 is held by a listening socket (tcp6 [::]:8265)" in out
    assert "port 8265 of band engine" not in out  # the carve-out owns it
    assert "fixtures/demo/examples/configs/sft.yaml:84:11: H201 port 6006 of logger.tensorboard.port 6006" in out
    assert " 22 " not in out


def test_without_proc_the_message_is_one_clear_line_and_exit_2(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["host", "fixtures/demo", "--proc-root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == (f"portlint: error: no {tmp_path}/sys/net/ipv4/ip_local_port_range: "
                   "portlint host needs Linux's /proc (use --proc-root)\n")


def test_a_missing_tcp6_table_is_a_note_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "sys/net/ipv4").mkdir(parents=True)
    (tmp_path / "sys/net/ipv4/ip_local_port_range").write_text("32768\t60999\n")
    kernel = procfs.read_kernel(tmp_path)
    assert kernel.ephemeral == (32768, 60999) and kernel.listening == () and kernel.reserved == ()
    assert len(kernel.notes) == 3


def test_reserved_ports_are_parsed_and_merged() -> None:
    assert procfs._port_list("8265,9000-9099,9100-9199,\n") == ((8265, 8265), (9000, 9199))
    with pytest.raises(ValueError):
        procfs._port_list("9000-abc")


def test_listen_rows_decode_to_addresses_and_ports() -> None:
    table = (PROC / "listener" / "net" / "tcp6").read_text()
    assert sorted(procfs._listening("tcp6", table)) == [
        (22, "tcp6 [::]:22"), (5000, "tcp6 [::]:5000"), (8265, "tcp6 [::]:8265"),
    ]


def test_the_documented_example_is_what_host_prints(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "docs" / "map.md").read_text(encoding="utf-8")
    command = "$ portlint host fixtures/demo --proc-root fixtures/host/gb200-node\n"
    shown = readme.split(command, 1)[1].split("```", 1)[0]
    assert main(command[2:].split()[1:]) == 1
    assert capsys.readouterr().out == shown


# -- host problems are Problems: every reporter prints them ------------------------------

LISTENER = ["host", "fixtures/demo", "--proc-root", str(PROC / "listener")]


def _formatted(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main([*LISTENER, *args]) == 1
    return capsys.readouterr().out


def test_host_problems_as_json_carry_their_rule_s_name(capsys: pytest.CaptureFixture[str]) -> None:
    problems = json.loads(_formatted(capsys, "--output-format", "json"))
    tensorboard = next(p for p in problems if p["path"] == "fixtures/demo/examples/configs/sft.yaml")
    assert tensorboard == {
        "code": "H201", "name": "port-in-use",
        "message": "port 6006 of logger.tensorboard.port 6006 is held by a listening socket (tcp 127.0.0.1:6006)",
        "path": "fixtures/demo/examples/configs/sft.yaml", "line": 84, "column": 11,
        "end_line": 84, "end_column": 11, "fix": None,
    }
    assert {(p["code"], p["name"]) for p in problems} == {("H201", "port-in-use")}


def test_host_sarif_validates_and_lists_the_host_rules(capsys: pytest.CaptureFixture[str]) -> None:
    log = json.loads(_formatted(capsys, "--output-format", "sarif"))
    errors = sorted(Draft4Validator(SARIF_SCHEMA, format_checker=FormatChecker()).iter_errors(log), key=str)
    assert not errors, errors[0]
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["H101", "H102", "H201"]
    assert run["tool"]["driver"]["rules"][0]["help"]["text"].endswith("More: `portlint rule H101`.")
    assert run["results"] and all(r["ruleId"] == "H201" and r["ruleIndex"] == 2 for r in run["results"])


def test_host_problems_as_github_annotations(capsys: pytest.CaptureFixture[str]) -> None:
    out = _formatted(capsys, "--output-format", "github")
    assert "::error file=fixtures/demo/examples/configs/sft.yaml,line=84,col=11,endLine=84,endColumn=11,title=H201::" \
           "port 6006 of logger.tensorboard.port 6006 is held by a listening socket (tcp 127.0.0.1:6006)\n" in out
    assert "Found" not in out  # the summary line is the text format's


def test_host_statistics_count_per_code(capsys: pytest.CaptureFixture[str]) -> None:
    text_lines = _formatted(capsys, "--statistics").splitlines()
    assert text_lines[0].split() == [text_lines[0].split()[0], "H201", "port-in-use"]
    assert text_lines[-1].startswith("Found ") and text_lines[-1].endswith("listening TCP ports).")
    rows = json.loads(_formatted(capsys, "--statistics", "--output-format", "json"))
    assert [(r["code"], r["name"], r["fixable"]) for r in rows] == [("H201", "port-in-use", 0)]


def test_host_statistics_with_sarif_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*LISTENER, "--statistics", "--output-format", "sarif"]) == 2
    assert "--statistics prints text or json, not sarif" in capsys.readouterr().err


def test_a_host_problem_says_what_it_is_about() -> None:
    from portlint.commands.host import check
    from portlint.commands.scan import scan
    from portlint.config import procfs

    found = scan(ROOT / "fixtures" / "demo")
    problems = check.compare(found.layout, procfs.read_kernel(PROC / "listener"))
    gym = next(p for p in problems if "band gym" in p.message)
    assert (gym.code, gym.name, gym.band, gym.sites) == ("H201", "port-in-use", "gym", ())
    tensorboard = next(p for p in problems if "tensorboard" in p.message)
    assert tensorboard.band == "" and [s.name for s in tensorboard.sites] == ["logger.tensorboard.port"]
