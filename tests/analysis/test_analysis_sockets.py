"""The socket analysis behind PL601/PL602, on short inline modules."""
from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from types import SimpleNamespace
from typing import NamedTuple

import pytest
from conftest import needs_sparse
from msgspec import structs

from portlint.analysis.sockets import analyse
from portlint.model.extraction import CodeFile, Facts
from portlint.rules import ephemeral_fallback, toctou_probe
from portlint.rules.common.handoffs import anchor


class Finding(NamedTuple):
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    message: str


def judged(data: bytes, facts: Facts) -> tuple[Finding, ...]:
    """What PL601 and PL602 report of one module's facts."""
    layout = SimpleNamespace(code_files=(CodeFile("m.py", "python", data, facts),))
    problems = [*toctou_probe.check(layout), *ephemeral_fallback.check(layout)]  # type: ignore[arg-type]
    return tuple(sorted(Finding(p.line, p.column, p.end_line, p.end_column, p.code, p.message) for p in problems))


def findings(data: bytes) -> tuple[Finding, ...]:
    return judged(data, analyse(data))


def found(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in findings(textwrap.dedent(source).encode())]


def only(source: str) -> Finding:
    (finding,) = findings(textwrap.dedent(source).encode())
    return finding


def test_a_port_returned_from_inside_a_with_block_is_released_before_the_caller_gets_it() -> None:
    finding = only("""\
        import socket
        def free_port():
            with socket.socket() as s:
                s.bind(("", 0))
                return s.getsockname()[1]
    """)
    assert (finding.line, finding.column, finding.end_line, finding.end_column) == (4, 9, 4, 24)
    assert finding.code == "PL602"
    assert "free_port() binds port 0 here" in finding.message
    assert "keep the bound socket or server and hand it over" in finding.message
    assert "bind port 0 in the process that serves and publish the port afterwards" in finding.message


def test_columns_count_characters() -> None:
    source = 'import socket\ns = socket.socket(); x = "éé"; s.bind(("", 0))\nPORT = s.getsockname()[1]\ns.close()\n'
    assert only(source).column == 32  # 34 in bytes


def test_close_del_closing_finally_and_scope_all_release() -> None:
    assert found("""\
        import socket
        from contextlib import closing
        def closed():
            s = socket.socket(); s.bind(("", 0)); port = s.getsockname()[1]; s.close(); return port
        def deleted():
            s = socket.socket(); s.bind(("", 0)); port = s.getsockname()[1]; del s; return port
        def wrapped():
            with closing(socket.socket()) as s:
                s.bind(("", 0))
                port = s.getsockname()[1]
            return port
        def final():
            s = socket.socket()
            try:
                s.bind(("", 0))
                return s.getsockname()[1]
            finally:
                s.close()
        def dropped():
            s = socket.socket(); s.bind(("", 0)); return s.getsockname()[1]
    """) == [(4, "PL602"), (6, "PL602"), (9, "PL602"), (15, "PL602"), (20, "PL602")]


def test_the_socket_kept_with_its_port_is_bind_and_hold() -> None:
    assert found("""\
        import socket
        def returned():
            s = socket.socket(); s.bind(("", 0)); return s, s.getsockname()[1]
        def stored(self):
            s = socket.socket(); s.bind(("", 0)); self.sock = s; self.port = s.getsockname()[1]
        def handed(app):
            s = socket.socket(); s.bind(("", 0)); port = s.getsockname()[1]; app.run(sockets=[s]); return port
    """) == []


def test_a_port_stored_or_passed_on_after_the_release_escapes() -> None:
    assert found("""\
        import os, socket, subprocess
        def stored():
            with socket.socket() as s:
                s.bind(("", 0))
                os.environ["MASTER_PORT"] = str(s.getsockname()[1])
        def passed():
            s = socket.socket(); s.bind(("", 0)); port = s.getsockname()[1]; s.close()
            subprocess.Popen(["server", f"--port={port}"])
    """) == [(4, "PL602"), (7, "PL602")]


def test_a_port_used_while_the_socket_is_still_open_is_not_handed_on() -> None:
    assert found("""\
        import socket
        def occupied(start):
            with socket.socket() as s:
                s.bind(("", 0))
                assert start(s.getsockname()[1]) is None
        def logged():
            s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1]); s.close()
    """) == []


def test_a_scan_loop_of_binds_is_a_probe_and_a_port_checked_once_is_not() -> None:
    assert found("""\
        import socket
        def scan(low, high):
            for port in range(low, high):
                with socket.socket() as s:
                    try:
                        s.bind(("", port))
                    except OSError:
                        continue
                return port
        def checked(port):
            with socket.socket() as s:
                s.bind(("", port))
            return port
    """) == [(6, "PL601")]


def test_an_availability_check_counts_where_a_scan_hands_on_a_free_candidate() -> None:
    source = """\
        import socket
        def is_free(port):
            with socket.socket() as s:
                try:
                    s.bind(("", port))
                    return True
                except OSError:
                    return False
        def pick(port):
            while not is_free(port):
                port += 1
            return port
        def busy(ports):
            return [p for p in ports if not is_free(p)]
        def preflight(port):
            if not is_free(port):
                raise SystemExit("busy")
            return port
    """
    assert found(source) == [(10, "PL601")]
    assert "pick() probes a scanned port with is_free() here" in only(source).message


def test_a_probe_answering_true_for_a_busy_port_is_read_the_other_way() -> None:
    assert found("""\
        import socket
        def in_use(port):
            with socket.socket() as s:
                try:
                    s.bind(("", port))
                except OSError:
                    return True
            return False
        def free_ones(ports):
            return [p for p in ports if not in_use(p)]
        def busy_ones(ports):
            return [p for p in ports if in_use(p)]
    """) == [(10, "PL601")]


def test_helpers_of_the_module_are_followed() -> None:
    assert found("""\
        import socket
        def _bind(sock):
            sock.bind(("", 0))
        def _close(sock):
            sock.close()
        def _pair():
            s = socket.socket(); s.bind(("", 0)); return s.getsockname()[1], s
        def split():
            s = socket.socket()
            _bind(s)
            port = s.getsockname()[1]
            _close(s)
            return port
        def dropped():
            port, sock = _pair()
            sock.close()
            return port
        def kept():
            port, sock = _pair()
            return port, sock
    """) == [(10, "PL602"), (15, "PL602")]


def test_a_socket_kept_on_self_and_closed_by_another_method_is_reported_at_the_release() -> None:
    finding = only("""\
        import socket, subprocess
        class Reservation:
            def __init__(self):
                self.sock = socket.socket()
                self.sock.bind(("", 0))
                self.port = self.sock.getsockname()[1]
            def url(self):
                return f"http://localhost:{self.port}"
            def start(self):
                self.sock.close()
                return subprocess.Popen(["server", str(self.port)])
    """)
    assert (finding.line, finding.code) == (10, "PL602")
    assert "Reservation.start() releases here the socket __init__() bound to port 0 at line 5" in finding.message


def test_port_0_as_the_fallback_of_a_preferred_port_is_both_codes() -> None:
    assert found("""\
        import socket
        def port(preferred=8000):
            s = socket.socket()
            try:
                s.bind(("", preferred))
            except OSError:
                s.bind(("", 0))
            number = s.getsockname()[1]
            s.close()
            return number
    """) == [(5, "PL601"), (7, "PL602")]


def test_servers_that_serve_are_live_and_servers_closed_before_the_hand_over_are_not() -> None:
    assert found("""\
        import os, threading
        from http.server import HTTPServer, BaseHTTPRequestHandler as H
        def live():
            server = HTTPServer(("", 0), H)
            threading.Thread(target=server.serve_forever).start()
            return server.server_port
        def served(count):
            server = HTTPServer(("", 0), H)
            os.environ["PORT"] = str(server.server_address[1])
            try:
                for _ in range(count):
                    server.handle_request()
            finally:
                server.server_close()
        def closed():
            with HTTPServer(("", 0), H) as server:
                port = server.server_address[1]
            return port
    """) == [(16, "PL602")]


def test_a_descriptor_handed_to_a_child_keeps_the_socket_alive() -> None:
    assert found("""\
        import socket, subprocess
        def spawn():
            s = socket.socket(); s.bind(("", 0)); port = s.getsockname()[1]
            child = subprocess.Popen(["worker"], pass_fds=[s.fileno()])
            s.close()
            return child, port
    """) == []


def test_binds_that_are_not_socket_addresses_and_family_tests_are_ignored() -> None:
    assert found("""\
        import socket
        def zmq_like(ctx):
            sock = ctx.socket(1); sock.bind("tcp://*:5555"); return sock
        def tk_like(widget, callback):
            widget.bind("<Return>", callback)
        def has_ipv6():
            try:
                with socket.socket(socket.AF_INET6) as s:
                    s.bind(("::1", 0))
                return True
            except OSError:
                return False
    """) == []


def test_module_code_and_globals_count_as_stores() -> None:
    assert found("""\
        import socket
        PORT = None
        def init():
            global PORT
            with socket.socket() as s:
                s.bind(("", 0))
                PORT = s.getsockname()[1]
        _s = socket.socket()
        _s.bind(("", 0))
        OTHER = _s.getsockname()[1]
        _s.close()
    """) == [(6, "PL602"), (9, "PL602")]


def test_recursive_helpers_and_unparsable_files_give_no_crash() -> None:
    assert found("""\
        import socket
        def a(n):
            return b(n - 1) if n else socket.socket()
        def b(n):
            return a(n)
        def c():
            s = a(3); s.bind(("", 0)); p = s.getsockname()[1]; s.close(); return p
    """) == [(7, "PL602")]
    assert findings(b"import socket\ndef f(:\n    s.bind(('', 0))\n") == ()


def test_a_file_that_cannot_bind_is_not_analysed_and_no_run_imports_libcst(tmp_path) -> None:  # noqa: ANN001
    assert findings(b"import socket\nsocket.create_connection(('h', 1))\n") == ()
    (tmp_path / "client.py").write_text("import socket\nMASTER_PORT = 1400\nsocket.create_connection(('h', 1))\n")
    script = (
        "import sys; from portlint.cli import main; code = main(['--quiet', '--exit-zero', '.']);"
        "sys.exit(3 if {'libcst', 'portlint.analysis.sockets.flow'} & set(sys.modules) else code)"
    )
    assert subprocess.run([sys.executable, "-c", script], cwd=tmp_path).returncode == 0


def test_pl601_and_pl602_share_one_analysis_per_file_on_the_extractors_tree(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """70 socket files (past the 64 of the old per-rule cache): each is analysed once, never parsed again."""
    from portlint.analysis import sockets
    from portlint.cli import main

    for i in range(70):
        (tmp_path / f"free_{i}.py").write_text(textwrap.dedent("""\
            import socket
            def free_port():
                with socket.socket() as s:
                    s.bind(("", 0))
                    return s.getsockname()[1]
        """))
    calls: list[bool] = []
    real = sockets.analyse
    monkeypatch.setattr(sockets, "analyse", lambda data, tree=None, externals=None: calls.append(tree is not None)
                        or real(data, tree, externals))
    monkeypatch.setenv("PORTLINT_WORKERS", "1")  # every call in this process, where it is counted
    monkeypatch.chdir(tmp_path)
    assert main(["--quiet", "--select", "PL601,PL602", "."]) == 1
    assert calls == [True] * 70


def test_only_files_where_a_port_can_leave_are_walked(monkeypatch) -> None:  # noqa: ANN001
    from portlint.analysis.sockets import module

    def walked(self) -> list:  # noqa: ANN001
        raise AssertionError("walked")

    monkeypatch.setattr(module.ModuleIndex, "violations", walked)
    # Binds of literal ports only, and no port read back: no number can leave.
    assert findings(b"import socket\ns = socket.socket()\ns.bind(('', 8080))\ns.listen()\ns.close()\n") == ()
    assert findings(b"import zmq\nsock.bind('tcp://*:5555')\n") == ()


def test_inside_a_module_only_functions_where_a_bound_socket_can_appear_are_walked(monkeypatch) -> None:  # noqa: ANN001
    from portlint.analysis.sockets import flow

    walked: list[str] = []
    real = flow.Flow.run
    monkeypatch.setattr(flow.Flow, "run", lambda self, *a: walked.append(self.name) or real(self, *a))
    assert found("""\
        import socket
        def unrelated(sig, args):
            bound = sig.bind(*args)
            return bound
        def free_port():
            with socket.socket() as s:
                s.bind(("", 0))
                return s.getsockname()[1]
        def caller():
            return free_port()
        class Config:
            def server(self):
                return MetricsServer(self.config.port)
    """) == [(7, "PL602")]
    assert sorted(set(walked)) == ["caller", "free_port"]


def test_a_parameter_named_like_a_function_is_no_use_of_it_unless_called_or_read_where_defined(monkeypatch) -> None:  # noqa: ANN001
    """A pytest fixture's name is a parameter of the tests that use it: they are not walked for it.
    A call of the parameter is (the flow resolves calls by name), and so is a default that reads
    the function where the parameter is defined."""
    import ast

    from portlint.analysis.sockets import flow, module

    source = textwrap.dedent("""\
        import socket
        def free_port():
            with socket.socket() as s:
                s.bind(("", 0))
                return s.getsockname()[1]
        def test_uses_the_fixture(free_port):
            client.connect(free_port)
        def test_calls_it(free_port):
            server.start(free_port())
        def test_reads_it_by_default(port=free_port()):
            server.start(port)
        def test_passes_it_on(getter=free_port):
            server.start(getter())
        class TestServer:
            def test_method(self, free_port, *free, **more):
                self.client.connect(free_port, free, more)
    """).encode()
    hot, _ = module.ModuleIndex(ast.parse(source), None, source)._hot()
    assert sorted(node.name for node in hot) == [
        "free_port", "test_calls_it", "test_passes_it_on", "test_reads_it_by_default"]
    assert sorted(node.name for node in module.ModuleIndex(ast.parse(source))._hot()[0]) == [
        "free_port", "test_calls_it", "test_passes_it_on", "test_reads_it_by_default"]
    walked: list[str] = []
    real = flow.Flow.run
    monkeypatch.setattr(flow.Flow, "run", lambda self, *a: walked.append(self.name) or real(self, *a))
    assert found(source.decode()) == [(4, "PL602")]  # as when every test was walked
    assert "test_uses_the_fixture" not in walked and "TestServer.test_method" not in walked


def test_only_attributes_that_keep_a_bound_socket_make_other_methods_worth_walking(monkeypatch) -> None:  # noqa: ANN001
    from portlint.analysis.sockets import flow

    walked: list[str] = []
    real = flow.Flow.run
    monkeypatch.setattr(flow.Flow, "run", lambda self, *a: walked.append(self.name) or real(self, *a))
    assert found("""\
        import socket, subprocess
        class Server:
            def __init__(self, model):
                self.model = model
                self.sock = socket.socket()
                self.sock.bind(("", 0))
                self.port = self.sock.getsockname()[1]
            def generate(self, prompt):
                return self.model(prompt)
            def score(self, prompt):
                return len(self.model(prompt))
            def start(self):
                self.sock.close()
                return subprocess.Popen(["server", str(self.port)])
    """) == [(13, "PL602")]
    # `model` is stored beside the socket but holds none: generate() and score() are not walked
    assert sorted(set(walked)) == ["Server.__init__", "Server.start"]


def test_a_bool_probe_guarding_a_chosen_port_handed_to_a_subprocess_is_a_probe() -> None:
    finding = only("""\
        import socket, subprocess
        def free(port):
            with socket.socket() as s:
                try:
                    s.bind(("", port))
                except OSError:
                    return False
                return True
        def start(port=8000):
            if not free(port):
                raise RuntimeError("busy")
            return subprocess.Popen(["server", "--port", str(port)])
        def kept(port=8000):
            if not free(port):
                raise RuntimeError("busy")
            serve(port)
    """)
    assert (finding.line, finding.column, finding.code) == (10, 12, "PL601")
    assert finding.message == (
        "start() checks a chosen port with free() here; free() releases the socket it bound, then the port is "
        "passed to subprocess.Popen() at line 12: another process can bind the port first; keep the bound socket "
        "or server and hand it over, or bind in the process that serves and publish the port afterwards"
    )


def test_exports_are_plain_data_a_caller_in_another_module_follows() -> None:
    import ast
    import pickle

    from portlint.analysis.sockets import analyse
    from portlint.analysis.sockets.imports import External, Repository

    helper = textwrap.dedent("""\
        import socket
        def get_free_port():
            sock = socket.socket()
            sock.bind(("", 0))
            return sock.getsockname()[1], sock
        def unrelated(x):
            return x
    """).encode()
    facts = analyse(helper, ast.parse(helper))
    assert facts.handoffs == () and [e.name for e in facts.exports] == ["get_free_port"]
    assert pickle.loads(pickle.dumps(facts)) == facts
    assert not any(isinstance(v, ast.AST) for e in facts.exports for v in structs.asdict(e).values())
    caller = textwrap.dedent("""\
        from .net import get_free_port
        class Server:
            def __init__(self):
                self.port, _ = get_free_port()
    """).encode()
    repository = Repository({"pkg/net.py": facts.exports})
    assert repository.mentions(caller)
    externals = repository.externals("pkg/server.py", ast.parse(caller))
    assert set(externals) == {"get_free_port"} and isinstance(externals["get_free_port"], External)
    (finding,) = judged(caller, analyse(caller, ast.parse(caller), externals))
    assert (finding.line, finding.code) == (4, "PL602")
    assert finding.message.startswith("Server.__init__() binds port 0 through get_free_port() here; the port is "
                                      "stored in self.port at line 4 and the socket goes out of scope")


def test_a_method_nothing_seeds_reports_what_its_summary_found() -> None:
    """A class's method is run again with what the other methods keep on `self` only when they keep
    something and its summary met no summary still being computed; else its summary's own
    violations are the method's. Every socket-using file of the fixtures (the labelled set too)
    reports the same either way."""
    import ast
    from pathlib import Path

    from portlint.analysis import sockets as socket_analysis
    from portlint.analysis.sockets import module

    root = Path(__file__).resolve().parents[2] / "fixtures"
    sources = [p.read_bytes() for p in sorted(root.rglob("*.py")) if socket_analysis.uses_sockets(p.read_bytes())]
    assert len(sources) > 30
    sources += [RECURSIVE.encode()]
    reused, every, provisional = [], [], 0
    for data in sources:
        tree = ast.parse(data)
        first = module.ModuleIndex(tree)
        reused.append(repr(first.violations()))
        provisional += len(first._provisional)
        index = module.ModuleIndex(tree)
        index._provisional = _Everything()  # as if every summary met one being computed: run each again
        every.append(repr(index.violations()))
    assert reused == every
    assert any(r != "[]" for r in reused) and provisional >= 2


RECURSIVE = """\
import socket
class S:
    def free(self):
        s = socket.socket()
        s.bind(("", 0))
        port = s.getsockname()[1]
        s.close()
        return self.helper(port)
    def helper(self, p):
        if p < 10:
            return self.free()
        return p
"""


class _Everything(set):  # type: ignore[type-arg]
    def __contains__(self, item: object) -> bool:
        return True


@needs_sparse
def test_a_file_that_names_a_helper_is_parsed_whole_only_when_it_imports_it(monkeypatch) -> None:  # noqa: ANN001
    """resolve reads a caller's imports from a tree of its import statements alone; the whole file
    is parsed (and analysed again) only when it imports an exported helper, here inside a method."""
    import ast

    from portlint.analysis import sockets as socket_analysis

    helper = textwrap.dedent("""\
        import socket
        def get_free_port():
            sock = socket.socket()
            sock.bind(("", 0))
            return sock.getsockname()[1], sock
    """).encode()
    importer = textwrap.dedent("""\
        import os

        class Server:
            def __init__(self):
                from .net import get_free_port
                self.port, _ = get_free_port()

            def other(self):
                return os.getcwd()
    """).encode()
    namer = textwrap.dedent("""\
        import os
        # get_free_port is net's helper; this module has its own
        def get_free_port():
            return int(os.environ["PORT"])
    """).encode()
    files = [(path, data, socket_analysis.analyse(data, ast.parse(data))) for path, data in
             (("pkg/net.py", helper), ("pkg/server.py", importer), ("pkg/other.py", namer))]
    parsed: list[bytes] = []
    whole = socket_analysis._parse
    monkeypatch.setattr(socket_analysis, "_parse", lambda data: parsed.append(data) or whole(data))
    found = socket_analysis.resolve(files)
    assert list(found) == ["pkg/server.py"] and [(anchor(f).line, "PL602" if f.bound.port == "zero" else "PL601") for f in found["pkg/server.py"]] == [(6, "PL602")]
    assert importer in parsed and namer not in parsed and helper not in parsed
    assert len(parsed) == 4  # the three files' import trees (the helper names itself), then the importer whole
    assert all(len(data) < len(source) for data, source in zip(parsed, (helper, importer)))


def test_with_its_bytes_a_module_walks_for_names_only_the_functions_that_spell_a_word(monkeypatch) -> None:  # noqa: ANN001
    """The functions where a bound socket can appear are those found by walking every function for
    the names it uses; with the module's bytes only those whose lines spell a word asked about (a
    bind, a hot function's name, an attribute a hot method keeps a socket in) are walked. Both give
    the same functions on every file of the fixtures and tests that could bind."""
    import ast
    from pathlib import Path

    from portlint.analysis.sockets import module

    source = textwrap.dedent("""\
        import socket
        def free_port():
            with socket.socket() as s:
                s.bind(("", 0))
                return s.getsockname()[1]
        def caller():
            return free_port()
        def report(rows):
            return "\\n".join(str(r) for r in rows)
        class Table:
            def render(self, rows):
                return report(rows)
            def width(self):
                return 80
    """).encode()
    walked: list[str] = []
    real_of, real_uses = module._Usage.of, module._Usage.uses
    monkeypatch.setattr(module._Usage, "of", lambda self, node: walked.append(node.name) or real_of(self, node))
    monkeypatch.setattr(module._Usage, "uses", lambda self, node, words: walked.append(node.name) or real_uses(self, node, words))
    hot, module_hot = module.ModuleIndex(ast.parse(source), None, source)._hot()
    assert sorted(node.name for node in hot) == ["caller", "free_port"] and not module_hot
    assert sorted(set(walked)) == ["caller", "free_port"]  # report, render and width spell none of the words
    walked.clear()
    assert sorted(node.name for node in module.ModuleIndex(ast.parse(source))._hot()[0]) == ["caller", "free_port"]
    assert sorted(set(walked)) == ["caller", "free_port", "render", "report", "width"]  # without the bytes: all

    # Inside a function, only the statements on the lines that spell a word are walked for names.
    long = ast.parse(textwrap.dedent("""\
        def test_many(tmp_path):
            rows = build(tmp_path)
            for row in rows:
                check(row)
            port = free_port()
            assert port > 0
    """))
    function = long.body[0]
    assert module._names(list(module.children(function)), "", [5]) == {"tmp_path", "port", "free_port"}
    assert module._names(list(module.children(function)), "", [3]) == {"tmp_path", "row", "rows"}  # the loop's header
    assert module._names(list(module.children(function)), "") >= {"build", "check", "free_port", "row", "rows"}

    root = Path(__file__).resolve().parents[2]
    compared = 0
    for path in sorted([*root.glob("fixtures/**/*.py"), *root.glob("tests/**/*.py")]):
        data = path.read_bytes()
        if b"bind" not in data and b"Server" not in data and b"_server" not in data:
            continue
        try:
            tree = ast.parse(data)
        except SyntaxError:
            continue
        assert module.ModuleIndex(tree)._hot() == module.ModuleIndex(tree, None, data)._hot(), path
        compared += 1
    assert compared > 40


SPARSE = """\
import socket
from contextlib import closing

LIMIT = 3

def free_port():
    with closing(socket.socket()) as s:
        s.bind(("", 0))
        return s.getsockname()[1]

def launch():
    port = free_port()
    return serve(port)

def serve(port):
    return ["python", "-m", "http.server", str(port)]

def done(sock):
    sock.close()

def unrelated(rows):
    return [row for row in rows if row]

def also_unrelated():
    return LIMIT * 2

class Holder:
    def open(self):
        self.sock = socket.socket()
        self.sock.bind(("", 0))

    def port(self):
        p = self.sock.getsockname()[1]
        done(self.sock)
        return p

    def describe(self):
        return "a holder"

class Other:
    def size(self):
        return 10

if __name__ == "__main__":
    print(launch())
"""


# Shapes where a reading of the bytes and of the tree could part: fixtures given to tests as
# parameters, names that only contain a bind's word, a bind with nothing to bind, attributes read or
# stored on self (the sparse tree's analysis must still be the whole's).
BY_THE_WORD = """\
import socket

def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]

def test_fixture(free_port, other=None):
    client.connect(("localhost", free_port))
    check(free_port=free_port, key=lambda free_port: free_port)

def test_called(free_port):
    server.start(free_port())

def test_continued(free_port):
    server.start(free_port \\
                 ())

def test_default(port=free_port()):
    server.start(port)

def test_annotated(free_port: free_port):
    return free_port

def test_attribute(free_port):
    return registry.free_port

def test_global(free_port):
    def inner():
        global free_port
        return free_port
    return inner

def configure(bind_host, server_args: ServerArgs, rebind=None):
    return bind_host, server_args

class Bridge:
    def bind(self):
        self.adapter = Adapter()
        self.scheduler.bind()

class Holder:
    def open(self):
        self.sock = socket.socket()
        self.sock.bind(("", 0))
        self.seen = self.name

    def describe(self):
        return self.sock.getsockname()

    def other(self):
        return self.name, self.adapter
"""


@needs_sparse
def test_the_code_analyses_of_a_sparse_tree_are_those_of_the_whole_module(monkeypatch) -> None:  # noqa: ANN001
    """A file the socket analysis reads is parsed whole; one only the rendezvous analysis reads is
    parsed without the functions nothing reaches. What each extracts (sites, commands, facts,
    exports) is what the whole module gives, for every module of these tests and the fixtures
    that a code analysis reads (the site finder skips the cold statements of the functions kept
    whole, as in a whole tree)."""
    import ast
    from pathlib import Path

    from portlint.model.naming import NameFilter
    from portlint.speed import outline as python_outline
    from portlint.stages.extract import python
    from portlint.stages.perfile import extract_file

    parsed: list[bytes] = []
    real = python.ast.parse
    monkeypatch.setattr(python.ast, "parse", lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    sparse = extract_file("m.py", "python", SPARSE.encode(), NameFilter())
    assert parsed[-1] == SPARSE.encode()  # a module the socket analysis reads is parsed whole
    assert sparse.extraction.sockets is not None and sparse.extraction.sockets.handoffs  # the probe, found

    root = Path(__file__).resolve().parents[2]
    texts = [SPARSE.encode(), BY_THE_WORD.encode(), *(path.read_bytes() for path in sorted(root.glob("fixtures/**/*.py")))]
    for path in sorted(root.glob("tests/**/test_*.py")):
        texts += [node.value.encode() for node in ast.walk(ast.parse(path.read_bytes()))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and any(word in node.value for word in ("bind", "init_process_group", "LLM(", "spawn(", "torchrun"))]
    outline = python_outline.outline
    compared = 0
    for data in texts:
        from portlint import analysis

        if not analysis.worth_reading(data):
            continue
        for names in (NameFilter(), NameFilter(["MASTER_PORT", "server.port"])):
            monkeypatch.setattr(python_outline, "outline", outline)
            kept = extract_file("m.py", "python", data, names)
            monkeypatch.setattr(python_outline, "outline", lambda data, until=None: None)  # the whole module, always
            assert kept == extract_file("m.py", "python", data, names), data[:200]
        compared += 1
    assert compared > 60


def test_a_statements_first_line_is_its_first_decorators() -> None:
    """tree.first_line: the earliest of the statement's line and its decorators' (the first
    decorator, however they are laid out), on every statement of these tests' modules."""
    import ast
    from pathlib import Path

    from portlint.analysis.tree import first_line

    shape = ast.parse("x = 1\n@a\n@b(\n  2)\nclass C:\n    @staticmethod\n    def f(): pass\n")
    assert [first_line(node) for node in ast.walk(shape) if isinstance(node, ast.stmt)] == [1, 2, 6, 7]
    checked = 0
    for path in sorted(Path(__file__).resolve().parents[1].rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.stmt):
                assert first_line(node) == min((node.lineno, *(d.lineno for d in getattr(node, "decorator_list", [])))), path
                checked += 1
    assert checked > 5_000


def test_the_message_names_the_same_bind_whatever_order_the_analysis_meets_them() -> None:
    """Two binds reach one release: the message names the earliest, on every parse (the analysis
    walks sets of nodes, whose order follows their addresses; 8f03908 named either)."""
    import ast

    from portlint.analysis import facts

    source = textwrap.dedent("""\
        import socket
        class Holder:
            def open(self):
                self.sock = socket.socket()
                self.sock.bind(('', 0))
                self.sock = socket.socket()
                self.sock.bind(('', 0))
            def port(self):
                p = self.sock.getsockname()[1]
                self.sock.close()
                return p
    """).encode()
    trees = [ast.parse(source) for _ in range(30)]  # all alive: each tree's nodes at other addresses
    messages = {tuple((f.line, f.code, f.message) for f in judged(source, facts(source, tree))) for tree in trees}
    assert messages == {((10, "PL602", "Holder.port() releases here the socket open() bound to port 0 at line 5, then the port "
                          "is returned at line 11: the kernel may give that ephemeral port to another socket first; keep "
                          "the bound socket or server and hand it over, or bind port 0 in the process that serves and "
                          "publish the port afterwards"),)}


def test_a_class_defined_twice_is_read_as_one() -> None:
    """Two top-level classes of one name (the second replaces the first when the module runs):
    the analysis reads them as one class, the later method where both define one, and does not
    fail on the first's methods (8f03908 stopped the check with an internal error)."""
    twice = textwrap.dedent("""\
        import socket
        class Worker:
            def close_it(self):
                s = socket.socket()
                s.bind(('', 0))
                port = s.getsockname()[1]
                s.close()
                return port
        class Worker:
            def run(self):
                return self.close_it()
    """)
    assert found(twice) == [(5, "PL602")]
    assert found(twice) == found(twice.replace("class Worker:\n    def run", "class Other:\n    def run"))


def test_a_word_s_lines_are_those_that_spell_it_as_a_whole_identifier() -> None:
    """`lines_holding` finds a word where `spelled_at` does: not inside a longer identifier, and a
    non-ASCII character beside it is one of the identifier's (`ébind` is a name of its own)."""
    from portlint.analysis.tree import lines_holding
    from portlint.model.source import line_starts

    text = "x = ébind(1)\nbind(2)\n_bind = 3\ns.bind((h, p))\nrebind\n# bind: é bind\n".encode()
    assert lines_holding(text, line_starts(text), [b"bind"]) == {2, 4, 6}
    assert lines_holding(text, line_starts(text), [b"bind"], whole=False) == {1, 2, 3, 4, 5, 6}


def test_a_bind_of_a_variable_is_found_on_the_lines_that_spell_it_whatever_line_its_call_starts_on() -> None:
    from portlint.analysis.sockets import _binds_a_variable

    def binds(source: str) -> bool:
        data = textwrap.dedent(source).encode()
        return _binds_a_variable(ast.parse(data), data)

    # The call starts a line before the one that spells `bind`; the port is a variable.
    assert binds("""\
        import socket
        def serve(port):
            s = socket.socket()
            (s
                .bind(("", port)))
            return s
    """)
    # A server class named on the line after the call's start, and a `make_server` spelled on its own.
    assert binds("x = (\n    ThreadingHTTPServer\n)((host, port), Handler)\n")
    assert binds("httpd = wsgiref.simple_server.make_server(\n    host, port, app)\n")
    # Literal ports only: no bind of a variable, wherever the words are.
    assert not binds("""\
        import socket
        # bind, Server and _server in a comment are lines to walk, with no call on them
        s = socket.socket()
        s.bind(("", 8080))
        http = HTTPServer(("", 8000), Handler)
    """)


def test_variables_nothing_reads_again_are_dropped_so_the_paths_that_differ_only_in_them_are_one(monkeypatch) -> None:  # noqa: ANN001
    from portlint.analysis.sockets import flow
    from portlint.analysis.sockets.module import ModuleIndex
    from portlint.analysis.sockets.values import State

    def paths(source: str, upto: int | None = None) -> list:
        """The paths after the function's statements up to `upto`, walked as its run walks them."""
        tree = ast.parse(textwrap.dedent(source))
        function = tree.body[0]
        run = flow.Flow(ModuleIndex(tree), function, function.name)
        return run.exec_block(function.body[:upto], [State({}, {})])

    def loops(names: str) -> str:
        """A loop per name, each leaving its variable set (a round ran) or not (none did)."""
        return "".join(f"    for each_{name} in items_{name}:\n        {name} = each_{name}\n" for name in names.split())

    # Three loops whose variables are read at the end keep 8 paths apart; eight more whose
    # variables nothing reads again add nothing (without dropping them: 2048 paths, 64 kept).
    live = "def f():\n" + loops("a b c")
    many = live + loops("t0 t1 t2 t3 t4 t5 t6 t7") + "    done = 1\n    print(a, b, c)\n"
    assert len(paths(many, upto=-1)) == 8 == flow.FORGET_FROM
    with monkeypatch.context() as patched:
        patched.setattr(flow.Flow, "_forget", lambda self, statement, states: None)
        assert len(paths(many, upto=-1)) == flow.MAX_PATHS
    # Read by a statement still to come, a variable keeps its paths apart up to it, and no further.
    read_later = live + loops("t") + "    done = 1\n    print(t)\n    done = 2\n    print(a, b, c)\n"
    assert len(paths(read_later, upto=-3)) == 16
    assert len(paths(read_later, upto=-1)) == 8
    # Read by the next round of its loop: the port bound and released at the end of one round is
    # the one the next returns (were it dropped after the release, the next round returned nothing).
    assert found(live + """\
    port = None
    for _ in range(3):
        if port:
            return port
        s = socket.socket()
        s.bind(("", 0))
        port = s.getsockname()[1]
        s.close()
        tries = 1
    print(a, b, c)
""") == [(13, "PL602")]


def test_a_function_too_long_to_follow_is_left_out_and_the_others_are_still_judged(monkeypatch) -> None:  # noqa: ANN001
    """Nested loops run their body again for each round of each loop around it, on every path: a
    function whose walk passes flow.MAX_STEPS statements is left out (its findings missed, none
    invented), and so is what a module walks past MAX_MODULE_STEPS: no file costs seconds."""
    from portlint.analysis.sockets import flow

    lines = ["import socket", "def deep(items):", "    s = socket.socket()", "    s.bind(('', 0))",
             "    p = s.getsockname()[1]"]
    indent = "    "
    for depth in range(10):
        lines.append(f"{indent}for x{depth} in items:")
        indent += "    "
        for branch in range(4):
            lines.append(f"{indent}v{depth}_{branch} = p + {branch} if x{depth} > {branch} else {branch}")
            lines.append(f"{indent}if x{depth} > {branch}:\n{indent}    w{depth}_{branch} = 1")
    lines += [f"{indent}s.close()", "    return p", "def shallow():", "    with socket.socket() as s:",
              "        s.bind(('', 0))", "        return s.getsockname()[1]"]
    walked: list[int] = []
    real = flow.Flow.run
    monkeypatch.setattr(flow.Flow, "run", lambda self, *a: (real(self, *a), walked.append(self.steps))[0])
    source = "\n".join(lines) + "\n"
    shallow_bind = source.splitlines().index("        s.bind(('', 0))") + 1
    assert found(source) == [(shallow_bind, "PL602")]  # deep()'s race is missed, shallow()'s is not
    assert flow.MAX_STEPS < max(walked) <= flow.MAX_STEPS + 4 * flow.MAX_PATHS


def test_the_second_analysis_gives_the_same_hand_offs_with_workers_as_without(monkeypatch: pytest.MonkeyPatch) -> None:
    """Callers of another module's released number are analysed a second time at the layout; where
    the files are worth it, by forked workers: the same findings as one process."""
    from portlint.analysis import sockets

    helper = textwrap.dedent("""
        import socket

        def free_port():
            with socket.socket() as sock:
                sock.bind(("", 0))
                return sock.getsockname()[1]
    """).encode()
    caller = textwrap.dedent("""
        import subprocess
        from pkg.net import free_port

        def start{n}():
            port = free_port()
            return subprocess.Popen(["server", "--port", str(port)])
    """)
    files = [("pkg/net.py", helper, analyse(helper))]
    files += [(f"pkg/run{n}.py", caller.format(n=n).encode() + b"#" * 200_000, None) for n in range(4)]

    def found(workers: str) -> dict:
        monkeypatch.setenv("PORTLINT_WORKERS", workers)
        return {path: [(h.function, h.bound.at.line, h.handed.how, h.handed.text) for h in handed]
                for path, handed in sockets.resolve(files).items()}

    alone = found("1")
    assert sorted(alone) == ["pkg/net.py", "pkg/run0.py", "pkg/run1.py", "pkg/run2.py", "pkg/run3.py"]
    # passed to Popen, and returned inside the Popen object it made
    assert alone["pkg/run2.py"] == [("start2", 6, "return", ""), ("start2", 6, "pass", "subprocess.Popen")]
    assert found("2") == alone
