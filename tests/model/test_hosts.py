"""What the host written beside a port says: a listener's own address, or a peer's."""
from __future__ import annotations

import pytest

from portlint.model.ports import LOCAL, REMOTE, host_kind


@pytest.mark.parametrize("text", ["", "0.0.0.0", "::", "[::]", "::1", "127.0.0.1", "127.0.1.1", "localhost",
                                  "LOCALHOST", ":8080", "0.0.0.0:8080", "[::1]:8000", "http://localhost:8000/v1"])
def test_a_wildcard_loopback_or_empty_address_is_a_listeners(text: str) -> None:
    assert host_kind(text) == LOCAL


@pytest.mark.parametrize("text", ["gateway", "redis-master", "svc.default.svc.cluster.local", "10.0.0.5",
                                  "svc:50052", "http://svc:50052", "grpc://model-server:8001", "fe80::1"])
def test_a_name_or_address_of_another_host_is_a_peers(text: str) -> None:
    assert host_kind(text) == REMOTE


@pytest.mark.parametrize("text", ["${HOST}", "{{ .Values.host }}", "%(host)s", "null", "auto", "two words",
                                  "http://${HOST}:8000"])
def test_a_template_a_variable_or_a_word_says_nothing(text: str) -> None:
    assert host_kind(text) == ""
