"""PL203, PL204 and PL603 over hand-built layouts: the arithmetic and the defaults their messages show."""
from __future__ import annotations

from portlint.model.layout import Band, Layout, Window
from portlint.model.sites import Command, Site
from portlint.rules import derived_collision, implicit_tool_default, window_overflow


def site(name: str, value: int, line: int, *, derived: str = "", band: str = "", role: str = "port") -> Site:
    return Site("ray.sub", line, 1, 0, 1, "shell", name, value, role, derived=derived, band=band)


def ray(*words: str, line: int = 10, via: str = "") -> Command:
    return Command("ray.sub", line, 1, ("srun", "-w", "$head", "ray", "start", *words), (), line, 40, via)


def messages(rule, layout: Layout) -> list[str]:  # noqa: ANN001
    return [p.message for p in rule.check(layout)]


# --- PL203 -------------------------------------------------------------------------------------


def test_windows_that_fit_report_nothing_and_the_first_bad_one_is_reported_once() -> None:
    fits = Band("engine", 7000, 7799, window=Window(100, 8))
    assert messages(window_overflow, Layout(9000, (fits,), declared=True)) == []
    tight = Band("engine", 7000, 7549, window=Window(100, 8))
    assert messages(window_overflow, Layout(9000, (tight,), declared=True)) == [
        "band engine: window 6 of 8 (7000 + 5×100 = 7500-7599) ends past the band's high end 7549"
    ]


def test_a_window_over_a_carve_out_or_a_shared_band_is_allowed_but_not_over_a_stranger() -> None:
    engine = Band("engine", 7000, 8999, window=Window(100, 20), shares_with=("router",))
    bands = (engine, Band("dashboard", 8265, 8265, within="engine"), Band("router", 8600, 8799))
    assert messages(window_overflow, Layout(9000, bands, declared=True)) == []
    stranger = Band("metrics", 7150, 7150)
    assert messages(window_overflow, Layout(9000, (*bands, stranger), declared=True)) == [
        "band engine: window 2 of 20 (7000 + 1×100 = 7100-7199) takes ports of band metrics (7150)"
    ]


# --- PL204 -------------------------------------------------------------------------------------


def test_a_derived_port_colliding_with_a_port_of_its_file_names_both_and_the_line() -> None:
    sites = (
        site("NODE_MANAGER_PORT", 1301, 3),
        site("OBJECT_MANAGER_PORT", 1302, 4),
        site("--node-manager-port", 1302, 9, derived="NODE_MANAGER_PORT + 1"),
    )
    assert messages(derived_collision, Layout(32768, sites=sites)) == [
        "--node-manager-port = NODE_MANAGER_PORT + 1 = 1302 collides with OBJECT_MANAGER_PORT = 1302 (line 4)"
    ]


def test_the_same_computation_twice_and_a_base_it_starts_from_are_no_collisions() -> None:
    sites = (
        site("SGLANG_BASE_PORT", 20000, 2, role="base"),
        site("HTTP_PORT", 20000, 5, derived="SGLANG_BASE_PORT + RANK * 10"),
        site("SGLANG_BASE_PORT + RANK * 10", 20000, 8, derived="SGLANG_BASE_PORT + RANK * 10"),
    )
    assert messages(derived_collision, Layout(32768, sites=sites)) == []


def test_a_derived_port_leaves_the_band_of_its_base_and_hits_named_ports_of_the_layout() -> None:
    mgmt = Band("ray-mgmt", 1301, 1311, ports=(("NODE_MANAGER_PORT", 1301), ("LISTEN_PORT", 1311)))
    sites = (
        site("LISTEN_PORT", 1311, 2, band="ray-mgmt"),
        site("--listen", 1312, 9, derived="LISTEN_PORT + 1"),
        site("--other", 1301, 10, derived="X - 10"),
    )
    assert messages(derived_collision, Layout(9000, (mgmt,), sites, declared=True)) == [
        "--listen = LISTEN_PORT + 1 = 1312 leaves band ray-mgmt (1301-1311)",
        "--other = X - 10 = 1301 collides with NODE_MANAGER_PORT = 1301 (band ray-mgmt)",
    ]


# --- PL603 -------------------------------------------------------------------------------------

_ALL_BUT_WORKERS = (
    "--dashboard-agent-listen-port=1", "--node-manager-port=1", "--object-manager-port=1",
    "--runtime-env-agent-port=1", "--dashboard-agent-grpc-port=1", "--metrics-export-port=1",
)


def test_a_worker_range_given_by_half_shows_the_range_in_force() -> None:
    layout = Layout(9000, sites=(site("MIN_WORKER_PORT", 2000, 3, role="low"),),
                    commands=(ray("--min-worker-port=${MIN_WORKER_PORT}", *_ALL_BUT_WORKERS),))
    assert messages(implicit_tool_default, layout) == [
        "ray start leaves 1 setting to its default: --max-worker-port 19999 (2000-19999 in force) "
        "in the ephemeral range (9000+); set it"
    ]


def test_head_only_ports_count_on_the_head_and_a_disabled_dashboard_has_none() -> None:
    bands = (Band("low", 1000, 2999),)
    worker = Layout(32768, bands, commands=(ray("--min-worker-port=2000", "--max-worker-port=2999", *_ALL_BUT_WORKERS),),
                    declared=True)
    assert messages(implicit_tool_default, worker) == []
    head = Layout(32768, bands, declared=True, commands=(
        ray("--head", "--include-dashboard", "false", "--min-worker-port=2000", "--max-worker-port=2999",
            *_ALL_BUT_WORKERS),
    ))
    assert messages(implicit_tool_default, head) == [
        "ray start leaves 2 settings to their defaults: --port 6379, --ray-client-server-port 10001 "
        "outside every band of the layout; set them"
    ]


def test_kuberay_fills_in_the_metrics_port_and_the_rest_is_random() -> None:
    given = [w for w in _ALL_BUT_WORKERS if "metrics" not in w and "node-manager" not in w]
    layout = Layout(32768, commands=(Command("c.yaml", 5, 5, ("ray", "start", *given), via="kuberay"),))
    assert messages(implicit_tool_default, layout) == [
        "ray start (run by kuberay) leaves 1 setting to its default: --node-manager-port "
        "picked at random, from the ephemeral range; set it"
    ]


def test_master_addr_without_master_port_is_judged_once_per_file_unless_torchrun_runs() -> None:
    export = Command("job.sh", 2, 1, ("export", "MASTER_ADDR=$(hostname)"))
    again = Command("job.sh", 3, 1, ("python", "train.py"), (("MASTER_ADDR", "h"),))
    layout = Layout(9000, commands=(export, again))
    assert messages(implicit_tool_default, layout) == [
        "torch.distributed (MASTER_ADDR set) leaves 1 setting to its default: MASTER_PORT 29500 "
        "in the ephemeral range (9000+); set it"
    ]
    torchrun = Command("job.sh", 4, 1, ("torchrun", "--master-port=1400", "train.py"))
    assert messages(implicit_tool_default, Layout(9000, commands=(export, torchrun))) == []
    set_too = Command("job.sh", 1, 1, ("export", "MASTER_PORT=1400"))
    assert messages(implicit_tool_default, Layout(9000, commands=(set_too, export))) == []
