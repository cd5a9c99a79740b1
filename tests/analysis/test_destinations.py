"""Where a parameter's default port goes (portlint.analysis.destinations): proven to end at a connect side, or not."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from portlint.analysis.destinations import Destinations
from portlint.analysis.tree import statements
from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.stages.extract import python

DIALLED = {
    "a socket's connect": "def ping(host='h', port=50051):\n    s.connect((host, int(port)))\n",
    "create_connection": "def ping(host='h', port=50051):\n    socket.create_connection((host, port))\n",
    "a gRPC channel": "def dial(host='h', port=50051):\n    return grpc.insecure_channel(f'{host}:{port}')\n",
    "an HTTP URL on self": (
        "class C:\n    def __init__(self, host='h', port=50051):\n        self.url = f'http://{host}:{port}/v1'\n"
        "    def get(self):\n        return requests.get(self.url)\n"),
    "a client library": "def dial(host='h', port=50051):\n    return riva.client.Auth(None, False, f'{host}:{port}')\n",
    "a log and a test beside it": (
        "def dial(host='h', port=50051):\n    if not port:\n        raise ValueError(f'no port {port}')\n"
        "    LOG.info(f'dialling {host}:{port}')\n    return grpc.secure_channel(f'{host}:{port}', creds)\n"),
    "through a helper's returned tuple": (
        "def tunnel(h, p):\n    return h, p, None\n\n"
        "def dial(host='h', port=50051):\n    host, port, t = tunnel(host, port)\n    s.connect((host, port))\n"),
}

BOUND = {
    "a bind": "def serve(port=50051):\n    s.bind(('', port))\n",
    "a JSON body": "def sync(host='h', port=50051):\n    requests.post(f'http://{host}:8000/', json={'port': port})\n",
    "a zmq bind on a tcp URL": "def pub(port=50051):\n    sock.bind(f'tcp://*:{port}')\n",
    "an unknown call": "def serve(port=50051):\n    uvicorn.run(app, port=port)\n",
    "returned to callers": "def default_port(port=50051):\n    return port\n",
    "a helper that binds": "def _bind(p):\n    s.bind(('', p))\n\ndef serve(port=50051):\n    _bind(port)\n",
    "super().__init__": "class S(Base):\n    def __init__(self, port=50051):\n        super().__init__(port=port)\n",
    "a repository class named like a client": (
        "class EngineClient:\n    def __init__(self, port):\n        s.bind(('', port))\n\n"
        "def start(port=50051):\n    return engines.EngineClient(port=port)\n"),
    "connect and bind": "def both(port=50051):\n    s.connect(('h', port))\n    s.bind(('', port))\n",
    "an attribute a subclass reads": (
        "class Base:\n    def __init__(self, host='h', port=50051):\n        self.port = port\n"
        "        self.url = f'http://{host}:{port}'\n\n"
        "class Server(Base):\n    def start(self):\n        s.bind(('', self.port))\n"),
}


def _proof(code: str, path: str = "pkg/mod.py") -> bool:
    data = code.encode()
    site = next(s for s in python.extract(Source(path, data), NameFilter()).sites if s.value == 50051)
    return Destinations({path: data}).connect_only(site)


@pytest.mark.parametrize("code", DIALLED.values(), ids=DIALLED.keys())
def test_a_default_only_dialled_is_proven(code: str) -> None:
    assert _proof(code)


@pytest.mark.parametrize("code", BOUND.values(), ids=BOUND.keys())
def test_a_default_that_may_be_bound_is_not(code: str) -> None:
    assert not _proof(code)


def test_a_constant_or_a_keyword_argument_is_never_proven() -> None:
    assert not _proof("PORT = 50051\ns.connect(('h', PORT))\n")
    assert not _proof("grpc.insecure_channel('h', port=50051)\n")


def test_a_helper_of_another_module_is_followed_through_its_import() -> None:
    helper = b"def tunnel(h, p):\n    return h, p\n"
    code = b"from .net import tunnel\n\ndef dial(host='h', port=50051):\n    host, port = tunnel(host, port)\n" \
           b"    s.connect((host, port))\n"
    site = next(s for s in python.extract(Source("pkg/mod.py", code), NameFilter()).sites if s.value == 50051)
    assert Destinations({"pkg/mod.py": code, "pkg/net.py": helper}).connect_only(site)
    assert not Destinations({"pkg/mod.py": code}).connect_only(site)  # the helper unseen: not proven


# -- the walks the proofs stand on: parents found by going down, statements without expressions --
OF_311 = pytest.mark.skipif(sys.version_info < (3, 11), reason="the shapes use `except*`, Python 3.11's")
SHAPES = '''\
import os
from . import net as n


@decorate(
    option=1,
)
class Server(Base, metaclass=Meta):
    """A long class: a parent inside one method is found without walking the others."""

    @staticmethod
    def make(host="h", port=50051, *args, key=lambda v: v + 1, **kwargs):
        url = f"http://{host}:{port}/{ {'a': [x for x in args if x]} }"
        try:
            with open(url) as handle, other() as (a, b):
                return handle.read(), port
        except* (OSError, ValueError) as error:
            raise RuntimeError(f"{error!r:>{width}}") from error
        else:
            pass
        finally:
            del url

    async def run(self):
        async for item in self.items:
            match item:
                case {"port": int(port)} if port > 0:
                    await self.serve(port)
                case [first, *rest]:
                    yield first
                case _:
                    return
        while (x := next(self.it, None)) is not None:
            global counter
            counter += x
        else:
            assert counter, "none"


def outer():
    def inner(port=1):
        class Local:
            value = port
        return Local
    return inner
'''


def _shapes_and_sources() -> list[tuple[str, bytes]]:
    import portlint

    here = Path(portlint.__file__).parent
    return [("shapes", SHAPES.encode())] + [(str(p), p.read_bytes()) for p in sorted(here.rglob("*.py"))]


@OF_311
def test_a_parent_found_by_going_down_is_the_parent_a_full_walk_finds() -> None:
    """Every node and every node above it: of the shapes, each asked first of a module that has
    mapped nothing; of portlint's own modules, deepest first of one module per file."""
    from portlint.analysis.destinations import _Module

    checked = 0
    for name, data in _shapes_and_sources():
        tree = ast.parse(data)
        truth = {child: above for above in ast.walk(tree) for child in ast.iter_child_nodes(above)}
        module = _Module(name, tree)
        for node in reversed([n for n in ast.walk(tree) if isinstance(n, (ast.stmt, ast.expr))]):
            if name == "shapes":
                module = _Module(name, tree)
            current = node
            while current is not tree:
                parent = module.parent(current)
                assert parent is truth[current], (name, ast.dump(current)[:80])
                current = parent
            checked += 1
    assert checked > 20000


@OF_311
def test_statements_are_those_of_a_full_walk_in_its_order() -> None:
    for name, data in _shapes_and_sources():
        tree = ast.parse(data)
        assert list(statements(tree)) == [n for n in ast.walk(tree) if isinstance(n, ast.stmt)], name
    assert len(list(statements(ast.parse(SHAPES)))) == 28
