"""Unknown codes are errors with a suggestion wherever they are written; config is found from a subdirectory."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import copy_repo

from portlint.cli import main
from portlint.config.load import load_config
from portlint.config.locate import ConfigError

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
LAYOUT = "bands:\n  web:\n    port: 8080\n    sites: [server.port]\n"


def _repo(tmp_path: Path, config: str) -> Path:
    (tmp_path / ".portlint.yaml").write_text(config)
    (tmp_path / "serve.yaml").write_text("server:\n  port: 8080\n")
    return tmp_path


def test_an_unknown_code_in_per_file_ignores_is_a_config_error_with_a_suggestion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _repo(tmp_path, LAYOUT + 'per_file_ignores:\n  "docs/**": [PL302, PL31]\n')
    monkeypatch.chdir(tmp_path)
    assert main([]) == 2
    assert capsys.readouterr().err == (
        'portlint: error: .portlint.yaml: per_file_ignores."docs/**"[1]: unknown rule PL31; did you mean PL301?\n'
    )


def test_an_unknown_code_in_a_toml_config_names_the_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.portlint.per_file_ignores]\n"a/**" = ["PL999"]\n')
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "pyproject.toml", tmp_path)
    assert error.value.key_path == 'tool.portlint.per_file_ignores."a/**"[0]'
    assert error.value.message.startswith("unknown rule PL999")


@pytest.mark.parametrize("code", ["PL3", "PL30", "PL302", "PL001"], ids=["family", "prefix", "rule", "parse-error"])
def test_known_codes_and_prefixes_in_per_file_ignores_load(tmp_path: Path, code: str) -> None:
    _repo(tmp_path, LAYOUT + f'per_file_ignores:\n  "docs/**": [{code}]\n')
    config = load_config(tmp_path / ".portlint.yaml", tmp_path)
    assert config.per_file_ignores == (("docs/**", (code,)),)


def test_per_file_ignores_silence_only_their_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _repo(tmp_path, LAYOUT + 'per_file_ignores:\n  "legacy/**": [PL3]\n')
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.yaml").write_text("server:\n  port: 8081\n")
    (tmp_path / "new.yaml").write_text("server:\n  port: 8082\n")
    monkeypatch.chdir(tmp_path)
    assert main(["--output-format", "json"]) == 1
    assert {p["path"] for p in json.loads(capsys.readouterr().out)} == {"new.yaml"}


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_an_unknown_code_on_the_command_line_is_a_usage_error_with_a_suggestion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], option: str,
) -> None:
    _repo(tmp_path, LAYOUT)
    monkeypatch.chdir(tmp_path)
    assert main([option, "PL31"]) == 2
    assert "unknown rule PL31; did you mean PL301?" in capsys.readouterr().err


def test_an_unknown_code_in_a_suppression_comment_is_reported_with_a_suggestion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _repo(tmp_path, LAYOUT)
    (tmp_path / "serve.yaml").write_text("server:\n  port: 8080  # portlint: ignore[PL31]\n")
    monkeypatch.chdir(tmp_path)
    assert main([]) == 1
    assert "serve.yaml:2:15: PL002 [*] unknown rule PL31 in suppression; did you mean PL301?" in capsys.readouterr().out


def test_the_config_is_found_from_a_subdirectory_of_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = tmp_path / "repo"
    copy_repo(DEMO, repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    main(["--output-format", "json"])
    everything = json.loads(capsys.readouterr().out)
    monkeypatch.chdir(repo / "examples" / "configs")
    assert main(["--output-format", "json"]) == 1
    below = json.loads(capsys.readouterr().out)
    # The same layout applies (band names in messages), only problems below the directory are shown,
    # and their paths are relative to it.
    expected = [dict(p, path=p["path"].removeprefix("examples/configs/"))
                for p in everything if p["path"].startswith("examples/configs/")]
    # Paths named inside a message (PL202 names every member's place) are relative to it too.
    relative = [dict(p, message=p["message"].replace("examples/configs/", "").replace(
        " nemo_rl/", " ../../nemo_rl/")) for p in expected]
    assert below == relative and any("band gym gives 5000" in p["message"] for p in below)
    assert any("at evals/eval.yaml:20" in p["message"] for p in below if p["code"] == "PL202")


def test_a_subdirectory_config_wins_over_the_repository_root_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _repo(tmp_path, LAYOUT)
    service = tmp_path / "service"
    service.mkdir()
    (service / ".portlint.yaml").write_text("bands:\n  web:\n    port: 9090\n    sites: [server.port]\n")
    (service / "serve.yaml").write_text("server:\n  port: 8080\n")
    monkeypatch.chdir(service / ".")
    assert main([]) == 1
    assert "band web gives 9090" in capsys.readouterr().out
