"""One selector matcher: a selector names a site whole or by a dotted suffix, and the first
band in declaration order claims it (its selectors before its `ports:` names)."""
from __future__ import annotations

from portlint.model.layout import Band, Claims, Selector
from portlint.model.naming import NameFilter
from portlint.model.selectors import name_matches, suffixes
from portlint.model.sites import Site


def _site(name: str, path: str = "a.yaml", kind: str = "yaml") -> Site:
    return Site(path, 1, 1, 0, 4, kind, name, 8000)


def test_a_selector_matches_a_name_whole_or_a_dotted_suffix_at_a_dot() -> None:
    assert name_matches("generation.port_range_low", "policy.generation.port_range_low")
    assert name_matches("port", "port")
    assert not name_matches("port", "master_port") and not name_matches("eration.port", "generation.port")
    assert name_matches("--min-worker-port", "min-worker-port") and name_matches("min-worker-port", "--min-worker-port")
    assert suffixes("--a.b.c") == ["a.b.c", "b.c", "c"]


def test_the_name_filter_and_the_claims_agree_with_the_matcher() -> None:
    names = ["policy.generation.range_low", "generation.slot", "--min-worker", "x.gcs_slot"]  # none port-like
    selectors = ["generation.range_low", "range_low", "gcs_slot", "min-worker", "slot", "--min-worker"]
    for selector in selectors:
        band = Band("b", 1000, 1999, sites=(Selector(selector),))
        claims = Claims((band,))
        wants = NameFilter([selector])
        for name in names:
            expected = name_matches(selector, name)
            assert (claims.claim(_site(name)) is not None) == expected, (selector, name)
            assert wants.wants(name) == expected, (selector, name)


def test_the_first_band_claims_a_site_and_its_selectors_come_before_its_ports() -> None:
    first = Band("first", 1000, 1099, ports=(("MASTER_PORT", 1000),), sites=(Selector("other"),))
    second = Band("second", 2000, 2099, sites=(Selector("MASTER_PORT", role="base"),))
    assert Claims((first, second)).claim(_site("MASTER_PORT")) == (first, "port")
    scoped = Band("scoped", 3000, 3099, sites=(Selector("MASTER_PORT", files=("launch/**",), kind="shell"),))
    claims = Claims((scoped, second))
    assert claims.claim(_site("MASTER_PORT", "launch/run.sh", "shell")) == (scoped, "port")
    assert claims.claim(_site("MASTER_PORT", "launch/run.yaml")) == (second, "base")
    assert Claims(()).claim(_site("MASTER_PORT")) is None
