"""The rendezvous analysis behind PL604, on short inline modules."""
from __future__ import annotations

import ast
import textwrap

import pytest

from conftest import SPARSE, needs_sparse

from portlint.analysis import rendezvous, scripts
from portlint.model.source import line_starts
from portlint.rules.per_cell_rendezvous import message
from portlint.speed import outline as python_outline


def found(source: str) -> list[tuple[int, str]]:
    """The findings of the whole tree, which a tree of only what `rendezvous.kept` keeps (the
    Python extractor's) must give too."""
    data = textwrap.dedent(source).encode()
    whole = [(start.at.line, message(start)) for start in rendezvous.starts(data, ast.parse(data))]
    if not SPARSE:
        return whole
    sparse = kept_tree(data)
    assert sparse is not None
    assert [(start.at.line, message(start)) for start in rendezvous.starts(data, ast.parse(sparse))] == whole
    return whole


def kept_tree(data: bytes) -> bytes | None:
    lines = python_outline.outline(data)
    assert lines is not None
    kept = rendezvous.kept(data, python_outline.definitions(data, lines))
    if kept is None:
        return None
    functions, kept_lines = kept
    return python_outline.sparse(data, [], line_starts(data), lines=lines, whole=functions, whole_lines=kept_lines)


def lines(source: str) -> list[int]:
    return [line for line, _ in found(source)]


def test_a_group_per_iteration_on_a_fixed_master_port_names_port_loop_and_teardown() -> None:
    ((line, message),) = found("""\
        import os
        import torch.distributed as dist
        os.environ["MASTER_PORT"] = "29500"
        for cell in cells:
            dist.init_process_group("nccl", rank=0, world_size=1)
    """)
    assert line == 5
    assert message == (
        "module code starts a process group on the fixed rendezvous port 29500 (MASTER_PORT at line 3) in the "
        "`for cell` loop of line 4, and nothing ends it before the next iteration: no destroy_process_group(); "
        "the next one fails with EADDRINUSE on port 29500 while this one still holds it; tear it down in every "
        "iteration, or give each one a fresh port that is bound and held"
    )


def test_teardown_in_the_iteration_or_in_the_helper_passes() -> None:
    assert lines("""\
        import os, torch.distributed as dist
        os.environ.setdefault("MASTER_PORT", "29500")
        def cell():
            dist.init_process_group("gloo")
            dist.destroy_process_group()
        def teardown():
            dist.destroy_process_group()
        for c in cells:
            cell()
        for c in cells:
            dist.init_process_group("gloo")
            teardown()
        while True:
            dist.init_process_group("gloo")
            try:
                work()
            finally:
                dist.destroy_process_group()
    """) == []


def test_a_port_fresh_per_iteration_a_store_or_a_blocking_launch_is_not_fixed() -> None:
    assert lines("""\
        import os, subprocess, torch.distributed as dist
        for c in cells:
            os.environ["MASTER_PORT"] = str(pick_port())
            dist.init_process_group("gloo")
        for c in cells:
            dist.init_process_group("gloo", store=dist.TCPStore("h", 0, is_master=True))
        for c in cells:
            subprocess.run(["torchrun", "--master-port", "29400", "t.py"])
        for c in cells:
            dist.init_process_group("gloo", init_method=f"tcp://{host}:{port}")
        dist.init_process_group("gloo", init_method="tcp://h:29500")
    """) == []


def test_the_env_of_a_caller_fixes_the_port_of_a_helper_and_a_with_block_waits() -> None:
    assert lines("""\
        import os, subprocess, torch.distributed as dist
        def start():
            dist.init_process_group("gloo", init_method="env://")
        def sweep():
            os.environ["MASTER_PORT"] = "29500"
            for c in cells:
                start()
        def launch():
            for c in cells:
                with subprocess.Popen("torchrun --master_port=29400 t.py", shell=True) as p:
                    pass
                q = subprocess.Popen(["python", "-m", "torch.distributed.run", "--rdzv-endpoint", "h:29401", "t.py"])
    """) == [7, 12]


def test_engines_need_a_fixed_port_and_a_missing_shutdown() -> None:
    assert lines("""\
        import gc, sglang
        from vllm import LLM
        for m in models:
            engine = sglang.Engine(model_path=m, port=30000)
        for m in models:
            engine = sglang.Engine(model_path=m, port=30000)
            engine.shutdown()
        for m in models:
            engine = sglang.Engine(model_path=m)
        for m in models:
            llm = LLM(model=m)
        for m in models:
            llm = LLM(model=m)
            del llm
    """) == [4]


def test_a_test_class_set_up_starts_per_test_and_its_tear_down_ends_it() -> None:
    assert lines("""\
        import unittest
        import torch.distributed as dist
        class TestLeaks(unittest.TestCase):
            def setUp(self):
                dist.init_process_group("gloo", init_method="tcp://localhost:12356", rank=0, world_size=1)
        class TestCleans(unittest.TestCase):
            def setUp(self):
                if not dist.is_initialized():
                    dist.init_process_group("gloo", init_method="tcp://localhost:12357", rank=0, world_size=1)
            def tearDown(self):
                if dist.is_initialized():
                    dist.destroy_process_group()
        class TestOnce(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                dist.init_process_group("gloo", init_method="tcp://localhost:12358", rank=0, world_size=1)
    """) == [5]


def test_starts_reached_through_helpers_comprehensions_and_nested_loops_are_all_read() -> None:
    """Only blocks whose lines hold a start name (or the name of a helper that may start) are
    read: a helper two calls away, a comprehension over several lines, an inner loop and a
    method reached through `self.` must still be found."""
    assert lines("""\
        import os, torch.distributed as dist
        os.environ["MASTER_PORT"] = "29500"
        def bring_up():
            dist.init_process_group("gloo")
        def prepare():
            bring_up()
        def sweep():
            for c in cells:
                prepare()
            groups = [
                dist.init_process_group(
                    "gloo",
                )
                for c in cells
            ]
            for row in rows:
                if row:
                    for c in row:
                        work(c)
                        dist.init_process_group("gloo")
        class Bench:
            def _up(self):
                bring_up()
            def run(self):
                for c in cells:
                    self._up()
    """) == [9, 11, 20, 26]


def test_a_start_spelled_with_compatibility_characters_is_the_name_python_reads() -> None:
    """Python reads identifiers NFKC-normalised: `ｉｎｉｔ_process_group` is init_process_group
    (the file's byte test passes on the ASCII spelling in the comment)."""
    assert lines("""\
        import torch.distributed as dist  # init_process_group
        for c in cells:
            dist.ｉｎｉｔ_process_group("gloo", init_method="tcp://localhost:29500")
    """) == [3]


def test_a_loop_in_a_nested_def_or_a_method_of_a_nested_class_is_its_own_scope() -> None:
    assert lines("""\
        import torch.distributed as dist
        def outer():
            def sweep():
                for c in cells:
                    dist.init_process_group("gloo", init_method="tcp://localhost:29500")
            class Bench:
                def run(self):
                    return [dist.init_process_group("gloo", init_method="tcp://h:29501") for c in cells]
            return sweep, Bench
    """) == [5, 8]


@needs_sparse
def test_the_extractor_parses_only_the_functions_a_start_or_a_teardown_can_reach() -> None:
    """A helper that ends a start, the callers of a start, a method named as a kept one and
    `tearDown` stay in the tree the Python extractor parses; a function none of them can reach
    is left out (the same findings either way: every test here compares both trees)."""
    data = textwrap.dedent("""\
        import os, torch.distributed as dist
        os.environ["MASTER_PORT"] = "29500"
        def cleanup():
            dist.destroy_process_group()
        def cell():
            dist.init_process_group("nccl")
        def run(cells):
            for c in cells:
                cell()
                cleanup()
        def report(rows):
            return len(rows)
        class Other:
            def unrelated(self):
                return 2
            def cell(self):
                return 1
        class T:
            def setUp(self):
                self.x = 1
            def tearDown(self):
                del self.x
            def test_one(self):
                pass
    """).encode()
    sparse = kept_tree(data)
    assert sparse is not None
    kept = [node.name for node in ast.walk(ast.parse(sparse)) if isinstance(node, ast.FunctionDef)]
    assert sorted(kept) == ["cell", "cell", "cleanup", "run", "tearDown"]  # Other.cell: named as a kept function
    assert not any(f"def {name}(".encode() in sparse for name in ("report", "unrelated", "setUp", "test_one"))
    assert rendezvous.starts(data, ast.parse(sparse)) == rendezvous.starts(data, ast.parse(data)) == ()


def test_a_file_is_read_for_a_call_of_a_start_s_own_name_not_of_a_longer_one() -> None:
    """The byte test before any parse: `_start` takes `Engine(`, `LLM(` and `spawn(` calls by their
    exact name, so `FSDPEngine(`, `AsyncLLM(` or `_spawn(` make no file worth reading."""
    port = "for c in cells:\n    run(port=29500)\n"
    worth = {
        call: rendezvous.worth_reading(f"{call}\n{port}".encode())
        for call in ("e = FSDPEngine(cfg)", "e = sglang.Engine(m)", "e = AsyncLLM(m)", "e = LLM (m)",
                     "mp._spawn(f)", "mp.spawn(f)", "x = reinit_process_group", "dist.init_process_group")
    }
    assert worth == {
        "e = FSDPEngine(cfg)": False, "e = sglang.Engine(m)": True, "e = AsyncLLM(m)": False, "e = LLM (m)": True,
        "mp._spawn(f)": False, "mp.spawn(f)": True, "x = reinit_process_group": False, "dist.init_process_group": True,
    }


@pytest.mark.parametrize(("source", "outlives"), [
    ("import subprocess\nfor m in ('a', 'b'):\n    subprocess.run(['vllm', 'serve', m, '--port', '8000'])\n", False),
    ("import os\nfor m in ('a', 'b'):\n    os.system(f'vllm serve {m} --port 8000 &')\n", True),
    ("import subprocess, threading\n\ndef serve(m):\n    subprocess.run(['vllm', 'serve', m, '--port', '8000'])\n\n"
     "for m in ('a', 'b'):\n    threading.Thread(target=serve, args=(m,)).start()\n", True),
    ("import subprocess\nfor m in ('a', 'b'):\n    p = subprocess.Popen(['vllm', 'serve', m, '--port', '8000'])\n    p.kill()\n", True),
])
def test_a_module_is_read_only_where_a_launch_may_outlive_its_call(source: str, outlives: bool) -> None:
    """The byte test passes over a module whose launches all run in the foreground: read anyway,
    it starts nothing that is still running at the next iteration."""
    data = source.encode()
    assert rendezvous.worth_reading(data) is outlives
    assert bool(rendezvous._repeated_starts(data, rendezvous._Module(data, ast.parse(data)))) is outlives


@pytest.mark.parametrize(("script", "read"), [
    (b"for m in a b; do\n  vllm serve $m --port 8000 &\n  sleep 60; kill $!\ndone\n", True),
    (b"nohup vllm serve model --port 8000 > log 2>&1 &\n", True),
    (b"for m in a b; do\n  vllm serve $m --port 8000 > log 2>&1 && echo done\ndone\n", False),
    (b"vllm serve model --port 8000 &> log\n", False),
    (b"echo starting && echo done\n", False),
])
def test_a_script_is_read_for_pl604_where_it_may_start_a_server_in_the_background(script: bytes, read: bool) -> None:
    assert scripts.worth_reading(script) is read


def test_a_module_with_threads_and_a_port_option_but_no_launch_is_not_read() -> None:
    data = b"import threading\nPARSER_HELP = '--port: where vllm serve listens'\nthreading.Thread(target=print).start()\n"
    assert not rendezvous.worth_reading(data)
