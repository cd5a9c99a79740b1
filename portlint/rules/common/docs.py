"""Paragraphs of the rules' documentation that several rules share, written once: a rule's module
docstring names one as `{name}` on a line of its own, and `expand` puts it there (what
`portlint rule`, the SARIF rules and the docs site print)."""
from __future__ import annotations

SHARED = {
    "whose-port": """Whose port: a value is this repository's port only where the repository
binds or serves it, or hands it to something that does. Not judged: test scope
(`test_paths:`, values given to mocks), a port bound inside a container's own
network namespace (a Kubernetes pod without `hostNetwork: true`: `containerPort`,
a Service's ports, a container's keys, a Helm chart's values, the Kubernetes
client's models; a docker compose service without `network_mode: host`: its
keys but the host side of `ports:` ("8080:80" publishes 8080 on the host), and
the files it mounts through `volumes:`), a firewall or security-group rule's
port (a range over every port too), a range's exclusive end (`max_port = 65536`
read as `range(min_port, max_port)`), and a value the repository only dials (a
client's default for the server it connects to; a port whose name says it is the
far end, `remote_port`, `target_port`, `peer_port`; a port written beside a peer's
host in one mapping, `{host: redis-master, port: 6379}`, where a wildcard,
loopback or empty address beside it means a listener). Where portlint cannot
tell, it reports less.""",
    "library-helpers": """Helpers of other modules and libraries: a function of another module of the
repository that returns the number of a socket it bound (to 0, or to a scanned
port) and released is reported where it releases it, and each caller that
hands that number on is reported too (`port = free_port()` then
`Popen([..., str(port)])`, also through `os.environ.get("X", str(port))`); a
call through an instance (`batch.init_new()`) is followed only where the
call names the helper's class. A call of a helper of the table
portlint/tables/port_helpers.yaml (each entry says where its behaviour comes
from) is judged the same way; the caller that hands the number on is reported:
  vllm: get_open_port, get_open_ports_list (a released port-0 number);
    get_distributed_init_method, get_tcp_uri (carry the number on)
  sglang: get_free_port, get_open_port, find_free_port (a released port-0
    number); get_free_port_below_ephemeral, find_available_port (a released
    scanned number); is_port_available (a probe: bind, close, bool)
  ray: find_free_port, get_address_and_port (a released port-0 number)
  portpicker: pick_unused_port, PickUnusedPort (a released number);
    is_port_free (a probe)
  lightning, lightning_fabric, pytorch_lightning: find_free_network_port (a
    released port-0 number)
  accelerate: get_free_port (a released port-0 number)
  torch: get_free_port, find_free_port, _get_free_port (a released port-0
    number); _get_socket_with_port, get_socket_with_port (a bound socket the
    caller must keep)
  jupyter_client: select_random_ports, LocalPortCache.find_available_port (a
    released port-0 number)""",
}


def expand(doc: str | None) -> str:
    """`doc` with every line `{name}` replaced by the shared paragraph of that name."""
    lines = (doc or "").split("\n")
    return "\n".join(SHARED[line[1:-1]].rstrip("\n") if line[1:-1] in SHARED and line.startswith("{")
                     and line.endswith("}") else line for line in lines)
