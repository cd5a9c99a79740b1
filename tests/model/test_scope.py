"""Test scope beyond paths: values given to mocks and fakes (portlint.model.scope.mocked, the extractor's Site.mock)."""
from __future__ import annotations

from portlint.model.layout import Layout
from portlint.model.naming import NameFilter
from portlint.model.scope import mocked
from portlint.model.sites import Site
from portlint.model.source import Source
from portlint.stages.extract import python

CODE = b'''from unittest import mock
import requests

router = mock.MagicMock(router_port=8500)
mocker.patch.object(Server, "start", side_effect=OSError(port=8501))


@mock.patch.dict("os.environ", {"MASTER_PORT": "29500"})
def run():
    requests.patch(url, json=dict(port=8502))
    serve(port=8503)


def fake_gateway(gateway_port=8700):
    return gateway_port


class FakeEngine:
    engine_port = 8750


mock_server.port = 8760
'''


def _sites() -> dict[int, Site]:
    found = python.extract(Source("serving/dev.py", CODE), NameFilter()).sites
    return {site.value: site for site in found}


def test_a_value_given_to_a_mock_or_a_patcher_is_marked_and_an_http_patch_is_not() -> None:
    marked = {value: (site.name, site.mock) for value, site in _sites().items()}
    assert {value: marked[value] for value in (8500, 8501, 29500, 8502, 8503)} == {
        8500: ("router_port", True), 8501: ("port", True), 29500: ("MASTER_PORT", True),
        8502: ("port", False), 8503: ("port", False),
    }


def test_a_fake_helper_class_or_object_is_test_scope_wherever_the_file_is() -> None:
    sites = _sites()
    assert sorted(site.name for site in sites.values() if mocked(site)) == [
        "FakeEngine.engine_port", "MASTER_PORT", "fake_gateway.gateway_port", "mock_server.port", "port", "router_port",
    ]
    assert [sites[8760].mock, sites[8700].mock] == [False, False]  # test scope by name, not by a mock call
    layout = Layout(32768, sites=tuple(sites.values()))
    assert layout.in_tests(sites[8500]) and not layout.in_tests(sites[8503])
    assert layout.in_tests("tests/test_dev.py") and not layout.in_tests("serving/dev.py")
