"""Facts every rule shares, each computed in one place: the written ranges, the port bounds and
how spans are written (portlint/model.py), PL301's drift decision (portlint/stages/layout/bind.py), the
did-you-mean wording (portlint/config/suggest.py) and when a fix applies (portlint/model/problems.py)."""
from __future__ import annotations

import pytest

from portlint.config.suggest import closest, did_you_mean
from portlint.model.edits import Edit, Fix
from portlint.model.layout import Band, Layout
from portlint.model.ports import HIGH, LOW, MAX_PORT, MIN_PORT, PORT, is_port, span
from portlint.model.problems import Problem
from portlint.model.sites import Site
from portlint.rules import frozen_drift, layout_drift
from portlint.stages.layout.bind import drift


def _site(name: str, value: int, line: int, *, role: str = PORT, band: str = "", derived: str = "",
          kind: str = "yaml", path: str = "a.yaml") -> Site:
    return Site(path, line, 1, line * 10, line * 10 + 4, kind, name, value, role, band=band, derived=derived)


def test_ports_are_1_to_65535_and_spans_are_written_one_way() -> None:
    assert (MIN_PORT, MAX_PORT) == (1, 65535)
    assert [is_port(n) for n in (0, 1, 65535, 65536)] == [False, True, True, False]
    assert (span(8080, 8080), span(8000, 8999)) == ("8080", "8000-8999")
    assert (Band("a", 8265, 8265).span, Band("b", 7000, 8999).span) == ("8265", "7000-8999")


def test_the_layout_s_written_ranges_pair_lows_with_highs_and_leave_computed_ports_and_docs_out() -> None:
    low = _site("workers.port_range_low", 25000, 1, role=LOW)
    high = _site("workers.port_range_high", 25999, 2, role=HIGH)
    lone = _site("server.port", 8080, 3)
    computed = _site("NEXT", 8081, 4, derived="$((PORT + 1))", kind="shell", path="run.sh")
    doc = _site("server.port", 8080, 5, kind="markdown", path="README.md")
    written = Layout(32768, sites=(low, high, lone, computed, doc)).written
    assert [(w.name, w.span, w.is_range, w.sites) for w in written] == [
        ("workers.port_range_*", "25000-25999", True, (low, high)),
        ("server.port", "8080", False, (lone,)),
    ]


def test_drift_is_pl301_s_decision_and_pl401_reads_it() -> None:
    band = Band("engine", 7000, 7000)
    drifted = _site("engine.port", 7001, 1, band="engine")
    zero = _site("engine.port", 0, 2, band="engine")  # the kernel's pick: PL102's, not a drift
    kept = _site("engine.port", 7000, 3, band="engine")
    computed = _site("engine.port", 7002, 4, band="engine", derived="$((BASE + 2))")
    layout = Layout(32768, bands=(band,), sites=(drifted, zero, kept, computed))
    assert [drift(layout, s) for s in (drifted, zero, kept, computed)] == [7000, None, None, None]
    assert [p.line for p in layout_drift.check(layout)] == [1]
    assert frozen_drift._drifted_from_layout(layout) == {("a.yaml", 10)}


def test_one_did_you_mean_wording() -> None:
    assert did_you_mean("PL31", ["PL301", "PL302"]) == "; did you mean PL301?"
    assert did_you_mean("rnage", ["range", "port"], quoted=True) == '; did you mean "range"?'
    assert did_you_mean("zzz", ["range"]) == "" and closest("zzz", ["range"]) is None
    assert closest("MASTER_PORT_LO", ["MASTER_PORT_LOW"], cutoff=0.8) == "MASTER_PORT_LOW"


@pytest.mark.parametrize(("safe", "unsafe_fixes", "applies"), [(True, False, True), (False, False, False), (False, True, True)])
def test_a_fix_applies_when_safe_or_unsafe_fixes_are_on(safe: bool, unsafe_fixes: bool, applies: bool) -> None:
    fixed = Problem("a.yaml", 1, 1, "PL301", "m", Fix((Edit(0, 1, b"1"),), safe))
    assert fixed.applicable(unsafe_fixes) is applies
    assert not Problem("a.yaml", 1, 1, "PL301", "m").applicable(unsafe_fixes=True)
