"""`portlint init`: a starter config that validates and, on the unchanged repository, reports only real problems."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import copy_repo

from portlint.cli import main
from portlint.commands.init.bands import group_name
from portlint.config.load import load_config
from portlint.config.locate import find_config
from portlint.model.sites import Site

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DEMO = FIXTURES / "demo"
CLEAN = FIXTURES / "init" / "clean-service" / "repo"

# What the demo plants (README, fixtures/demo/.portlint.yaml): drifted copies of the layout's values.
PLANTED = {
    ("examples/configs/evals/eval.yaml", 56, "PL301"),  # gym 25000-25999 where every other file says 5000-5999
    ("examples/configs/evals/eval.yaml", 57, "PL301"),
    ("examples/configs/sft.yaml", 93, "PL301"),  # master 1500 where every other file says 1400
    ("nemo_rl/distributed/ports.py", 40, "PL301"),  # generation up to 5499 where the configs say 4999
    ("examples/configs/evals/eval.yaml", 20, "PL202"),  # ... which runs into gym (one problem, at the group's first site)
}


def _repository(source: Path, target: Path, git: bool = True) -> Path:
    copy_repo(source, target)
    (target / ".portlint.yaml").unlink(missing_ok=True)
    if git:
        subprocess.run(["git", "init", "-q", str(target)], check=True)
    return target


def _problems(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    capsys.readouterr()
    main(["--output-format", "json", *args])
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = _repository(DEMO, tmp_path / "demo")
    monkeypatch.chdir(repo)
    return repo


def test_on_the_demo_the_starter_config_names_the_planted_disagreements_and_keeps_todays_values(
    demo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["init"]) == 0
    assert "Wrote .portlint.yaml:" in capsys.readouterr().out
    problems = _problems(capsys)
    # The planted drifts are disagreements among production sites: init picks no winner (no PL301),
    # it splits the band and says so for a person; generation's 3000-5499 still runs into gym (PL202,
    # at the sites: one service, generation, against gym), and tensorboard's 6006 lies in the range the
    # docs give the sandbox (PL201, at tensorboard's site): nothing is located in the config.
    assert sorted((p["path"], p["code"], p["message"].split(";")[0]) for p in problems) == [
        ("examples/configs/evals/eval.yaml", "PL202", "ports 3000-5999 written by 2 services: generation.port_range_*"
         " 3000-4999 (band generation) at examples/configs/evals/eval.yaml:20, examples/configs/grpo_math_1B.yaml:96,"
         " DEFAULT_GENERATION_PORT_RANGE_* 3000-5499 (band generation-2) at nemo_rl/distributed/ports.py:39"),
        ("examples/configs/sft.yaml", "PL201", "logger.tensorboard.port=6006 (band tensorboard) lies in band sandbox"
         " (6000-6999), beyond the ports its sites write"),
    ]
    text = (demo / ".portlint.yaml").read_text()
    for said in (  # one line each
        "\n  # production sites disagree: gym 5000-5999 (2 files), gym-2 25000-25999 (1 file); a person decides "
        "which is right\n",
        "\n  # production sites disagree: master 1400-1999 (2 files), master-2 1500-1999 (1 file); a person decides "
        "which is right\n",
        "\n  # production sites disagree: generation 3000-4999 (2 files), generation-2 3000-5499 (1 file); a person "
        "decides which is right\n",
    ):
        assert said in text
    bands = load_config(demo / ".portlint.yaml", demo).bands
    assert "\n    privileged: true" not in text and all(band.inferred for band in bands)
    assert main(["--fix"]) == 1 and (demo / "examples/configs/evals/eval.yaml").read_bytes() == (
        DEMO / "examples/configs/evals/eval.yaml").read_bytes()  # nothing inferred is a safe fix


def test_the_starter_config_validates_and_names_its_bands_from_the_keys(demo: Path) -> None:
    main(["init"])
    config = load_config(find_config(demo), demo)
    bands = {band.name: band for band in config.bands}
    master = bands["master"]
    assert (master.low, master.high) == (1400, 1999)
    assert {s.name for s in master.sites} == {
        "cluster.master_port_range_low", "cluster.master_port_range_high",
        "DEFAULT_MASTER_PORT_RANGE_LOW", "DEFAULT_MASTER_PORT_RANGE_HIGH",
    }
    assert (bands["gym"].low, bands["gym"].high) == (5000, 5999)
    assert (bands["generation"].low, bands["generation"].high) == (3000, 4999)
    assert (bands["worker"].low, bands["worker"].high) == (2000, 2999)
    ray = next(band for band in config.bands if dict(band.ports).get("NODE_MANAGER_PORT") == 1301)
    assert (ray.low, ray.high) == (1301, 1312)  # the head's `+ 1` ports are inside
    assert dict(ray.ports)["DASHBOARD_AGENT_LISTEN_PORT"] == 1311
    assert config.ephemeral_floor == 32768
    assert [(spec.copies, spec.sources) for spec in config.frozen] == [
        ("tests/unit/reference_configs/grpo_math_1B.yaml", ("examples/configs/grpo_math_1B.yaml",)),
    ]


def test_the_floor_given_to_init_is_written_and_used(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--ephemeral-floor", "9000"]) == 0
    assert load_config(find_config(demo), demo).ephemeral_floor == 9000
    found = {(p["path"], p["line"], p["code"]) for p in _problems(capsys)}
    assert ("examples/configs/evals/eval.yaml", 56, "PL101") in found


def test_on_a_clean_repository_the_starter_config_reports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repository(CLEAN, tmp_path / "clean")
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    assert main([]) == 0
    assert capsys.readouterr().out.endswith("All checks passed!\n")
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert main(["--fix", "--unsafe-fixes"]) == 0
    assert before == {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    config = load_config(find_config(repo), repo)
    assert [(spec.copies, spec.sources) for spec in config.frozen] == [
        ("tests/reference_configs/serve.yaml", ("configs/serve.yaml",)),
    ]


def test_neither_a_port_only_dialled_nor_a_mock_makes_a_band_and_a_client_of_a_server_here_keeps_its_band(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # speech/asr.py: the default port of an ASR server that runs elsewhere (only a gRPC channel reads
    # it); serving/client.py: the client's default for the server serving/server.py runs on --port;
    # serving/dry_run.py: values given to mocks and a fake, in a production-path file.
    repo = _repository(FIXTURES / "init" / "clients-and-mocks" / "repo", tmp_path / "clients")
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    config = load_config(find_config(repo), repo)
    assert [(band.name, band.low, band.high, sorted(s.name for s in band.sites)) for band in config.bands] == [
        ("model-client", 5000, 5000, ["--port", "ModelClient.__init__.port"]),
    ]
    assert _problems(capsys) == []  # neither PL101 (50051 is the ASR server's) nor PL302 (no band claims it)


def test_a_range_over_every_port_makes_no_band(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # cloud/rules.py: a firewall rule's port_min=1 / port_max=65535 ("any port") beside a dashboard port.
    repo = _repository(FIXTURES / "PL101-ephemeral-overlap" / "firewall-range-over-every-port-passes" / "repo",
                       tmp_path / "firewall")
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    config = load_config(find_config(repo), repo)
    assert [(band.name, band.low, band.high) for band in config.bands] == [("dashboard", 8265, 8265)]


def test_init_force_keeps_the_test_paths_of_the_config_it_replaces_and_learns_nothing_from_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repository(FIXTURES / "init" / "clients-and-mocks" / "repo", tmp_path / "kept")
    (repo / "e2e").mkdir()
    (repo / "e2e" / "smoke.py").write_text("SMOKE_SERVER_PORT = 7777\n")
    (repo / ".portlint.yaml").write_text("ephemeral_floor: 32768\ntest_paths: [e2e/, tests/]\n")
    monkeypatch.chdir(repo)
    assert main(["init", "--force"]) == 0
    config = load_config(find_config(repo), repo)
    assert config.test_paths == ("e2e/", "tests/")
    assert [band.name for band in config.bands] == ["model-client"]  # nothing from e2e/smoke.py's 7777
    assert _problems(capsys) == []


def test_a_stale_frozen_copy_is_caught_by_the_starter_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repository(CLEAN, tmp_path / "clean")
    monkeypatch.chdir(repo)
    main(["init"])
    source = repo / "configs" / "serve.yaml"
    source.write_text(source.read_text().replace("metrics_port: 9400", "metrics_port: 9401"))
    found = {(p["path"], p["code"]) for p in _problems(capsys)}
    assert ("tests/reference_configs/serve.yaml", "PL401") in found


def test_init_refuses_to_replace_a_config_without_force(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (demo / ".portlint.yaml").write_text("# mine\n")
    assert main(["init"]) == 2
    assert "a config already exists; pass --force" in capsys.readouterr().err
    assert (demo / ".portlint.yaml").read_text() == "# mine\n"
    assert main(["init", "--force"]) == 0
    assert "bands:" in (demo / ".portlint.yaml").read_text()


def test_init_refuses_when_pyproject_configures_portlint(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (demo / "pyproject.toml").write_text("[tool.portlint]\nephemeral_floor = 9000\n")
    assert main(["init"]) == 2
    assert "pyproject.toml [tool.portlint]: a config already exists" in capsys.readouterr().err
    assert not (demo / ".portlint.yaml").exists()


def test_init_from_a_subdirectory_writes_at_the_repository_root(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(demo / "examples" / "configs")
    assert main(["init"]) == 0
    assert (demo / ".portlint.yaml").is_file() and not (demo / "examples" / "configs" / ".portlint.yaml").exists()


# How bands are inferred, on tiny repositories


def _site(name: str, path: str = "a.yaml") -> Site:
    return Site(path, 1, 1, 0, 1, "yaml", name, 1)


@pytest.mark.parametrize(
    ("name", "band"),
    [
        ("cluster.master_port_range_low", "master"),
        ("DEFAULT_MASTER_PORT_RANGE_HIGH", "master"),
        ("env.gym.port_range_low", "gym"),
        ("--min-worker-port", "worker"),
        ("containerPort", "container"),
        ("servers[1].port", "servers-1"),
        ("SANDBOX_UWSGI_BASE_PORT", "sandbox-uwsgi"),
    ],
)
def test_a_band_is_named_after_what_the_key_says(name: str, band: str) -> None:
    assert group_name(_site(name)) == (band, False)


def test_a_name_that_says_nothing_is_named_after_its_file() -> None:
    assert group_name(_site("base_port", "pkg/virtual_cluster.py")) == ("virtual-cluster-base-port", True)


def _init_and_check(repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    load_config(repo / ".portlint.yaml", repo)  # validates
    return _problems(capsys)


def test_two_names_on_one_port_stay_two_bands_and_the_collision_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "svc.yaml").write_text("prometheus:\n  port: 9090\ngrafana:\n  port: 9090\n")
    problems = _init_and_check(tmp_path, monkeypatch, capsys)
    # The sites collide, and are reported there; the bands init inferred from them are not compared.
    assert [(p["path"], p["code"]) for p in problems] == [("svc.yaml", "PL202")]
    assert "grafana" in problems[0]["message"] and "prometheus" in problems[0]["message"]


def test_one_name_with_two_values_and_no_majority_is_two_bands_pinned_to_their_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "a.yaml").write_text("server:\n  port: 8000\n")
    (tmp_path / "b.yaml").write_text("server:\n  port: 8100\n")
    assert _init_and_check(tmp_path, monkeypatch, capsys) == []
    text = (tmp_path / ".portlint.yaml").read_text()
    assert "{name: server.port, files: a.yaml}" in text and "{name: server.port, files: b.yaml}" in text


def test_ports_a_step_apart_with_their_derived_neighbours_form_one_band(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "run.sh").write_text(
        "#!/bin/bash\nA_PORT=${A_PORT:-1301}\nB_PORT=${B_PORT:-1303}\n"
        "serve --a-port=$((${A_PORT} + 1)) --b-port=$((${B_PORT} + 1))\n"
    )
    assert _init_and_check(tmp_path, monkeypatch, capsys) == []
    [band] = load_config(tmp_path / ".portlint.yaml", tmp_path).bands
    assert (band.low, band.high, band.ports) == (1301, 1304, (("A_PORT", 1301), ("B_PORT", 1303)))


def test_a_listening_privileged_port_is_a_band_never_marked_privileged_and_odd_names_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "web.yaml").write_text("nginx:\n  listen_port: 80\nservers:\n  - port: 8443\n  - port: 8543\n")
    (tmp_path / "run.sh").write_text("#!/bin/sh\nexec serve --dashboard-port 8265\n")
    problems = _init_and_check(tmp_path, monkeypatch, capsys)
    assert [(p["path"], p["code"], p["message"]) for p in problems] == [  # a person says it may, at the site
        ("web.yaml", "PL103", "nginx.listen_port=80 is a privileged port (below 1024)"),
    ]
    bands = {b.name: b for b in load_config(tmp_path / ".portlint.yaml", tmp_path).bands}
    assert not bands["listen"].privileged
    assert [s.name for s in bands["dashboard"].sites] == ["--dashboard-port"]
    assert [s.name for s in bands["servers-0"].sites] == ["servers[0].port"]


def test_near_identical_files_of_one_name_become_a_frozen_pair_copy_under_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    body = "".join(f"key_{i}: value {i}\n" for i in range(30)) + "server:\n  port: 8000\n"
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "job.yaml").write_text("# the example config\n" + body)
    (tmp_path / "tests" / "snapshots").mkdir(parents=True)
    (tmp_path / "tests" / "snapshots" / "job.yaml").write_text(body.replace("value 3\n", "value three\n"))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "job.yaml").write_text("server:\n  port: 8000\n")  # same name, different content
    assert _init_and_check(tmp_path, monkeypatch, capsys) == []
    frozen = load_config(tmp_path / ".portlint.yaml", tmp_path).frozen
    assert [(spec.copies, spec.sources) for spec in frozen] == [("tests/snapshots/job.yaml", ("configs/job.yaml",))]


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_one_service_under_many_names_is_one_band_learned_from_production_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _write(tmp_path, {
        "skills/sandbox.py": 'import os\n\n\nclass Sandbox:\n'
                             '    def __init__(self, port: str = os.getenv("TOOLKIT_SANDBOX_PORT", "6000")):\n'
                             '        self.port = port\n',
        "toolkit/local_sandbox/local_sandbox_server.py": "app.run(port=6000)\n",
        "skills/pipeline/eval.py": "def f(r):\n    return dict(sandbox_port=None if r else 6000)\n",
        "skills/proxy.py": "def serve(port: int = 0):\n    pass\n",
        "tests/test_sandbox.py": "MASTER_PORT = 7777\n",
        "deploy/svc.yaml": "apiVersion: v1\nkind: Service\nspec:\n  ports:\n    - port: 80\n      targetPort: 8080\n",
        "net/probe.py": 'def gethostip(probe_port=80):\n    pass\n',
    })
    problems = _init_and_check(tmp_path, monkeypatch, capsys)
    assert problems == []
    [band] = load_config(tmp_path / ".portlint.yaml", tmp_path).bands
    assert (band.name, band.low, band.high, band.inferred) == ("sandbox", 6000, 6000, True)
    assert sorted((s.name, s.files) for s in band.sites) == [
        ("TOOLKIT_SANDBOX_PORT", ()), ("port", ("toolkit/local_sandbox/local_sandbox_server.py",)), ("sandbox_port", ()),
    ]


def test_names_that_write_one_port_apart_in_one_folder_share_a_band_with_a_note_and_elsewhere_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _write(tmp_path, {
        "a/strategy.py": "VLLM_PORT_START = 20000\n", "a/router.py": "make(listener_port=20000)\n",
        "b/gateway.py": "GATEWAY_PORT = 8080\n", "c/runner.py": "run(model_service_port=8080)\n",
    })
    assert _init_and_check(tmp_path, monkeypatch, capsys) == []
    text = (tmp_path / ".portlint.yaml").read_text()
    assert text.count("  # names that write this port only in different places, taken for one service") == 1
    bands = load_config(tmp_path / ".portlint.yaml", tmp_path).bands
    assert [(b.name, [s.name for s in b.sites]) for b in bands] == [
        ("gateway", ["GATEWAY_PORT"]), ("model-service", ["model_service_port"]),  # one number, two services
        ("vllm", ["VLLM_PORT_START", "listener_port"]),
    ]


SERVICES = FIXTURES / "init" / "services" / "repo"


def test_init_describes_services_and_its_config_holds_no_problem_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Four servers that each write `--port` and `XConfig.port` with values of their own are four bands
    named after their packages, not a disagreement; two example configs that give one key two values,
    and one module's two defaults for its service, are one; a port only dialled, a firewall's and a Helm chart's make no band; a bare `port` learned
    from examples is pinned to them, so the vendored tool's own `--port` default stays its own."""
    repo = _repository(SERVICES, tmp_path / "services")
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    bands = {band.name: band for band in load_config(repo / ".portlint.yaml", repo).bands}
    assert {name: (band.span, band.shares_with) for name, band in bands.items()} == {
        "agent-gateway": ("8080", ()), "agent-router": ("8081", ()),
        "data-gateway": ("8090", ()), "data-router": ("8091", ()),
        "master": ("29500", ("master-2",)), "master-2": ("29600", ("master",)),
        "model-service": ("8080", ("model-service-2",)), "model-service-2": ("28080", ("model-service",)),
        "serve": ("8000", ()), "vendorlib-port": ("5000", ()),
    }
    assert [(s.name, s.files) for s in bands["serve"].sites] == [
        ("port", ("examples/serve.yaml",)), ("port", ("examples/serve_large.yaml",)),
    ]
    text = (repo / ".portlint.yaml").read_text()
    assert [line for line in text.splitlines() if "production sites disagree" in line] == [
        "  # production sites disagree: model-service 8080 (1 file), model-service-2 28080 (1 file); a person decides"
        " which is right",  # two defaults of one module's service
        "  # production sites disagree: master 29500 (1 file), master-2 29600 (1 file); a person decides which is right",
    ]
    assert _problems(capsys) == []  # nothing in the config, nothing in the code
    vendored = (repo / "vendorlib" / "cli.py").read_bytes()
    (repo / "examples" / "serve_large.yaml").write_text("model: large\nport: 8100\n")  # a drift of the example
    assert [(p["path"], p["code"]) for p in _problems(capsys)] == [("examples/serve_large.yaml", "PL301")]
    assert main(["--fix", "--unsafe-fixes"]) == 0
    assert (repo / "examples" / "serve_large.yaml").read_text() == "model: large\nport: 8000\n"
    assert (repo / "vendorlib" / "cli.py").read_bytes() == vendored  # its own `--port`: no example's band claims it


DEPLOYMENTS = FIXTURES / "init" / "deployments" / "repo"


def test_deployments_of_one_service_are_bands_of_their_own_and_a_value_left_out_is_not_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A proxy deployed three ways, each folder with its own config and script: 10080 for local runs,
    8080 standalone, 80 in a container. Each deployment's value is its own band, named after its
    folder, with no disagreement to settle; the container's 80 (a port below 1024 whose name does
    not say it listens) is left out, and no band claims it through its bare names."""
    repo = _repository(DEPLOYMENTS, tmp_path / "deployments")
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    bands = load_config(repo / ".portlint.yaml", repo).bands
    assert [(b.name, b.span, b.shares_with, [(s.name, s.files) for s in b.sites]) for b in bands] == [
        ("standalone-proxy", "8080", (), [("proxy.port", ("standalone/config.yaml",)), ("PROXY_PORT", ("standalone/run.sh",))]),
        ("local-proxy", "10080", (), [("proxy.port", ("local/config.yaml",)), ("PROXY_PORT", ("local/run.sh",))]),
    ]
    assert "disagree" not in (repo / ".portlint.yaml").read_text()
    assert _problems(capsys) == []
    (repo / "local" / "run.sh").write_text('#!/bin/bash\nPROXY_PORT=${PROXY_PORT:-10081}\n')  # a drift in one deployment
    assert [(p["path"], p["line"], p["code"]) for p in _problems(capsys)] == [("local/run.sh", 2, "PL301")]


def test_a_value_init_leaves_out_is_not_claimed_by_a_band_of_the_same_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """With the local and the container deployment only, the one band learned (10080) would claim the
    container's `PROXY_PORT=80` through its bare name, and the first check would call it drift: the
    selector is pinned to the files it was learned from instead."""
    repo = _repository(DEPLOYMENTS, tmp_path / "deployments")
    for name in ("config.yaml", "run.sh"):
        (repo / "standalone" / name).unlink()
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    bands = load_config(repo / ".portlint.yaml", repo).bands
    assert [(b.name, b.span, [(s.name, s.files) for s in b.sites]) for b in bands] == [
        ("proxy", "10080", [("proxy.port", ("local/config.yaml",)), ("PROXY_PORT", ("local/run.sh",))]),
    ]
    assert _problems(capsys) == []


def test_a_literal_added_to_an_unknown_is_no_band_and_a_band_never_claims_it_as_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """`int(job_id) + 15000` and `5000 + random.randint(0, 1000)` start runs of ports whose length is not
    written: init learns no band from them (only the fixed 12910 and 30000 make bands), and the band of
    the name that writes both in one file (`port`, pinned to it) cannot tell them apart, so it drops
    that name rather than call the run's base drift. No band is named that is not in the file."""
    _write(tmp_path, {
        "trainer/cluster.py": 'import os\n\n\ndef rendezvous_port() -> int:\n'
                              '    job_id = os.environ.get("JOB_ID")\n'
                              '    if job_id is not None:\n'
                              '        port = int(job_id[-4:]) + 15000\n'
                              '    else:\n'
                              '        port = 12910\n'
                              '    return port\n',
        "trainer/elastic.py": 'import os\n\nos.environ.setdefault("MASTER_PORT", "12910")\n',
        "server/args.py": 'import random\n\n\nclass ServerArgs:\n    port: int = 30000\n\n'
                          '    def settle(self) -> int:\n'
                          '        port = 5000 + random.randint(0, 1000)\n'
                          '        return port\n',
    })
    problems = _init_and_check(tmp_path, monkeypatch, capsys)
    bands = load_config(tmp_path / ".portlint.yaml", tmp_path).bands
    assert [(b.name, b.span, [(s.name, s.files) for s in b.sites], b.shares_with) for b in bands] == [
        ("cluster-port", "12910", [("MASTER_PORT", ())], ()),
        ("server-args", "30000", [("ServerArgs.port", ("server/args.py",))], ()),
    ]
    assert "disagree" not in (tmp_path / ".portlint.yaml").read_text()
    assert problems == []


def test_two_servers_of_one_script_are_not_one_service_and_one_name_in_one_file_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A script's `--port` belongs to the program it is given to: the cache server's 5555 and vLLM's 8000
    are two services, not one that disagrees. A selector names sites by name and files, so neither
    pair (nor the prefiller's and decoder's `--port` of one program) can be two bands without the
    first calling the second drift: init leaves them out, and names no band that is not there.
    Another script's lone `--port` is still a band."""
    _write(tmp_path, {
        "examples/offload.sh": "#!/bin/bash\nlmcache_server --host 0.0.0.0 --port 5555 &\nvllm serve m --port 8000 &\nwait\n",
        "examples/disagg.sh": "#!/bin/bash\nvllm serve m --port 8100 &\nvllm serve m --port 8200 &\nwait\n",
        "examples/router.sh": "#!/bin/bash\npython -m router.serve --port 9100\n",
    })
    problems = _init_and_check(tmp_path, monkeypatch, capsys)
    bands = load_config(tmp_path / ".portlint.yaml", tmp_path).bands
    assert [(b.name, b.span, [(s.name, s.files) for s in b.sites], b.shares_with) for b in bands] == [
        ("router-port", "9100", [("--port", ("examples/router.sh",))], ()),
    ]
    assert "disagree" not in (tmp_path / ".portlint.yaml").read_text()
    assert problems == []
