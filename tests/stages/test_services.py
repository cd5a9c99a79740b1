"""One service under many names (portlint.stages.layout.services) and the group reports of PL202/PL201, over hand-built layouts."""
from __future__ import annotations

from portlint.model.layout import Band, Layout
from portlint.model.sites import Site
from portlint.rules import band_overlap, site_overlap
from portlint.stages.layout.services import NODE, POD, context_words, kubernetes, same_service, service_words


def _site(path: str, name: str, value: int, kind: str = "python", line: int = 1, **more: object) -> Site:
    return Site(path, line, 1, 0, len(str(value)), kind, name, value, **more)  # type: ignore[arg-type]


def _messages(layout: Layout) -> list[str]:
    return [f"{p.path}:{p.line}: {p.message}" for p in site_overlap.check(layout)]


def test_words_say_what_a_port_is_for_and_a_bare_port_speaks_through_its_context() -> None:
    assert service_words(_site("a.py", "TOOLKIT_SANDBOX_PORT", 6000)) == {"toolkit", "sandbox"}
    assert service_words(_site("a.sh", "--max-worker-port", 2999)) == {"worker"}
    assert service_words(_site("sandbox/local_sandbox_server.py", "port", 6000)) == {"sandbox", "server"}
    assert service_words(_site("x.py", "VLLMClient.__init__.port", 8000)) == {"vllm", "client"}
    assert context_words(_site("v.yaml", "prometheus.thanosServiceExternal.nodePort", 30901, "yaml")) == {
        "thanos", "external",
    }


def test_kubernetes_ports_are_pod_local_or_node_level() -> None:
    assert kubernetes(_site("d.yaml", "spec.template.spec.containers[0].ports[0].containerPort", 80, "yaml")) == POD
    assert kubernetes(_site("d.yaml", "spec.ports[0].port", 80, "yaml")) == POD
    assert kubernetes(_site("d.yaml", "metadata.annotations.prometheus.io/port", 80, "yaml")) == POD
    assert kubernetes(_site("v.yaml", "orchestrator.service.ncclPort", 29501, "yaml")) == POD
    assert kubernetes(_site("d.yaml", "spec.ports[0].nodePort", 31888, "yaml")) == NODE
    assert kubernetes(_site("k.yaml", "nodes[0].extraPortMappings[0].containerPort", 31888, "yaml")) == POD
    assert kubernetes(_site("c.yaml", "services[0].port", 2500, "yaml")) == ""
    assert kubernetes(_site("c.py", "spec.ports", 2500)) == ""


def test_one_value_under_many_names_is_one_service() -> None:
    chain = _site("run.sh", "ROUTER_PORT", 8080, "shell", aliases=("SERVER_PORT",))
    assert same_service(chain, _site("env.sh", "SERVER_PORT", 8080, "shell"))
    assert same_service(_site("a.py", "MCP_PORT", 8000), _site("b.py", "MCP_TRANSPORT_PORT", 8000))
    fed = _site("client.py", "TOOLKIT_SANDBOX_PORT", 6000, aliases=("Sandbox.__init__.port",))
    assert same_service(fed, _site("sandbox/local_sandbox_server.py", "port", 6000))
    assert not same_service(_site("a.yaml", "prometheus.port", 9090), _site("a.yaml", "grafana.port", 9090))
    assert not same_service(_site("a.py", "VLLM_PORT", 8000), _site("b.py", "METRICS_PORT", 8000))


def test_a_colliding_group_is_one_problem_at_its_first_site_naming_every_member() -> None:
    sites = (
        _site("serving/launch.sh", "VLLM_PORT", 8000, "shell", line=2),
        _site("serving/vllm.py", "VLLM_PORT", 8000),
        _site("configs/a.yaml", "vllm_port", 8000, "yaml"),
        _site("monitoring/exporter.py", "METRICS_PORT", 8000),
        _site("serving/launch.sh", "METRICS_PORT", 8000, "shell", line=3),
    )
    assert _messages(Layout(32768, sites=sites)) == [
        "configs/a.yaml:1: port 8000 written by 2 services: vllm_port=8000 at configs/a.yaml:1, serving/launch.sh:2, "
        "serving/vllm.py:1; METRICS_PORT=8000 at monitoring/exporter.py:1, serving/launch.sh:3",
    ]


def test_test_files_are_compared_with_themselves_only() -> None:
    sites = (
        _site("gateway_app/engine.py", "create_engine.port", 7777),
        _site("tests/test_engine.py", "MASTER_PORT", 7777),
        _site("tests/test_metrics.py", "metrics_port", 9100, line=3),
        _site("tests/test_metrics.py", "exporter_port", 9100, line=4),
        _site("tests/test_other.py", "rollout_port", 9100),
    )
    assert _messages(Layout(32768, sites=sites)) == [
        "tests/test_metrics.py:3: port 9100 written by 2 services: metrics_port=9100 at tests/test_metrics.py:3; "
        "exporter_port=9100 at tests/test_metrics.py:4",
    ]
    ranged = (*sites, _site("tests/test_engine.py", "WORKER_PORT_LOW", 7000, role="low", line=2),
              _site("tests/test_engine.py", "WORKER_PORT_HIGH", 7999, role="high", line=3))
    assert not any("gateway_app/engine.py" in m for m in _messages(Layout(32768, sites=ranged)))
    assert any("gateway_app/engine.py" in m for m in _messages(Layout(32768, sites=ranged, test_paths=())))


def test_pod_ports_are_not_compared_and_node_ports_are_per_manifest_entry() -> None:
    sites = (
        _site("a.yaml", "spec.template.spec.containers[0].ports[0].containerPort", 8888, "yaml", line=5),
        _site("a.yaml", "spec.ports[0].targetPort", 8888, "yaml", line=9, scope="spec.ports[0]"),
        _site("b.yaml", "spec.ports[0].port", 8888, "yaml", scope="spec.ports[0]"),
        _site("kind.yaml", "nodes[0].extraPortMappings[0].containerPort", 31888, "yaml", scope="nodes[0].extraPortMappings[0]"),
        _site("a.yaml", "spec.ports[0].nodePort", 31888, "yaml", line=10, scope="spec.ports[0]"),
        _site("b.yaml", "spec.ports[0].nodePort", 31888, "yaml", line=4, scope="spec.ports[0]"),
        _site("v.yaml", "prometheus.thanosService.nodePort", 30901, "yaml", line=3, scope="prometheus.thanosService"),
        _site("v.yaml", "prometheus.thanosServiceExternal.nodePort", 30901, "yaml", line=9,
              scope="prometheus.thanosServiceExternal"),
        _site("v.yaml", "grafana.service.nodePort", 30901, "yaml", line=20, scope="grafana.service"),
    )
    assert _messages(Layout(32768, sites=sites)) == [
        "v.yaml:3: port 30901 written by 2 services: prometheus.thanosService.nodePort=30901 at v.yaml:3, "
        "prometheus.thanosServiceExternal.nodePort=30901 at v.yaml:9; grafana.service.nodePort=30901 at v.yaml:20",
    ]


def test_overlapping_bands_are_one_problem_per_group_at_the_first_band() -> None:
    bands = (
        Band("generation", 3000, 4999, line=3), Band("gym", 4500, 5999, line=6),
        Band("sandbox", 5900, 6999, line=9), Band("apart", 9000, 9100, line=12),
    )
    problems = list(band_overlap.check(Layout(32768, bands=bands, config_path=".portlint.yaml")))
    assert [(p.line, p.message) for p in problems] == [(
        3, "3 bands overlap: generation (3000-4999, line 3), gym (4500-5999, line 6), sandbox (5900-6999, line 9); "
           "declare within/shares_with if intended",
    )]


def test_test_paths_must_be_a_list_of_globs(tmp_path) -> None:
    import pytest

    from portlint.config.load import load_config
    from portlint.config.locate import ConfigError

    config = tmp_path / ".portlint.yaml"
    config.write_text("test_paths: tests/\n")
    with pytest.raises(ConfigError) as error:
        load_config(config, tmp_path)
    assert (error.value.key_path, error.value.message) == ("test_paths", 'expected a list, got "tests/"')
    config.write_text("test_paths: [e2e/, '*_spec.py']\n")
    assert load_config(config, tmp_path).test_paths == ("e2e/", "*_spec.py")


def test_a_colliding_group_s_problem_is_about_every_site_of_its_services() -> None:
    sites = (
        _site("serving/launch.sh", "VLLM_PORT", 8000, "shell", line=2),
        _site("configs/a.yaml", "vllm_port", 8000, "yaml"),
        _site("serving/launch.sh", "METRICS_PORT", 8000, "shell", line=3),
    )
    [problem] = site_overlap.check(Layout(32768, sites=sites))
    assert (problem.path, problem.band) == ("configs/a.yaml", "")
    assert sorted((s.path, s.line) for s in problem.sites) == [
        ("configs/a.yaml", 1), ("serving/launch.sh", 2), ("serving/launch.sh", 3),
    ]


def test_a_band_overlap_is_about_its_first_band() -> None:
    bands = (Band("a", 5000, 5999, line=3), Band("b", 5500, 6500, line=5))
    [problem] = band_overlap.check(Layout(32768, bands=bands, config_path=".portlint.yaml"))
    assert (problem.path, problem.line, problem.band, problem.sites) == (".portlint.yaml", 3, "a", ())
