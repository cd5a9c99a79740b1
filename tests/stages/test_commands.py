"""Commands the extractors keep for the code-pattern rules: shell scripts, heredoc bodies,
YAML `command:`/`args:` and KubeRay `rayStartParams`."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import needs_sparse

from portlint.config.load import load_config
from portlint.engine import Options, session
from portlint.model.naming import NameFilter
from portlint.model.sites import Command
from portlint.model.source import Source, line_starts
from portlint.speed.switch import fast
from portlint.stages.extract import shell, yaml


def shell_commands(data: bytes) -> tuple[Command, ...]:
    return shell.extract(Source("x.sh", data), NameFilter()).commands


def yaml_commands(data: bytes) -> tuple[Command, ...]:
    extraction = yaml.extract(Source("k.yaml", data), NameFilter())
    assert extraction.error == ""
    return extraction.commands


def words(commands: tuple[Command, ...]) -> list[tuple[str, ...]]:
    return [c.words for c in commands]


# --- shell ---------------------------------------------------------------------------------


def test_a_command_keeps_its_words_unquoted_and_its_expansions_as_written() -> None:
    data = b'#!/bin/bash\nray start --head "--port=${GCS_PORT:-6379}" \'--block\' --x=$((A + 1)) a\\ b\n'
    (command,) = shell_commands(data)
    assert command.words == ("ray", "start", "--head", "--port=${GCS_PORT:-6379}", "--block", "--x=$((A + 1))", "a b")
    assert (command.path, command.line, command.column, command.end_line, command.end_column) == ("x.sh", 2, 1, 2, 74)
    assert command.assignments == () and command.via == ""


def test_assignments_in_front_are_kept_apart_from_the_words() -> None:
    command, hostname = shell_commands(b'MASTER_ADDR=$(hostname) NCCL_DEBUG="INFO x" torchrun train.py\n')
    assert hostname.words == ("hostname",)
    assert command.assignments == (("MASTER_ADDR", "$(hostname)"), ("NCCL_DEBUG", "INFO x"))
    assert command.words == ("torchrun", "train.py")
    assert (command.line, command.column) == (1, 1)


def test_a_bare_assignment_is_a_command_without_words() -> None:
    first, second = shell_commands(b"MIN_WORKER_PORT=${MIN_WORKER_PORT:-2000}\nexport MASTER_ADDR=head\n")
    assert (first.words, first.assignments) == ((), (("MIN_WORKER_PORT", "${MIN_WORKER_PORT:-2000}"),))
    assert (second.words, second.assignments) == (("export", "MASTER_ADDR=head"), ())


def test_reserved_words_and_closers_are_not_part_of_commands() -> None:
    data = b"if ray start --head; then\n  echo up\nfi\nwhile true; do sleep 1; done\n"
    assert words(shell_commands(data)) == [("ray", "start", "--head"), ("echo", "up"), ("true",), ("sleep", "1")]


def test_a_command_continued_over_lines_ends_at_its_last_word() -> None:
    data = b"srun -w node \\\n  ray start \\\r\n    --block\n"
    (command,) = shell_commands(data)
    assert command.words == ("srun", "-w", "node", "ray", "start", "--block")
    assert (command.line, command.column, command.end_line, command.end_column) == (1, 1, 3, 12)


def test_commands_inside_substitutions_and_bash_dash_c_are_kept_at_their_file_positions() -> None:
    data = b'X=$(ray start --head)\nsrun bash -c "ray start --address=$HEAD"\nY=`torchrun a.py`\n'
    found = [(c.words, c.line, c.column) for c in shell_commands(data)]
    assert found == [
        ((), 1, 1),
        (("ray", "start", "--head"), 1, 5),
        (("srun", "bash", "-c", "ray start --address=$HEAD"), 2, 1),
        (("ray", "start", "--address=$HEAD"), 2, 15),
        ((), 3, 1),
        (("torchrun", "a.py"), 3, 4),
    ]


def test_a_heredoc_body_gives_commands_but_no_sites() -> None:
    data = b"cat <<EOF > worker.sh\nray start --min-worker-port=2000\nPORT=9999\nEOF\nHTTP_PORT=8080\n"
    extraction = shell.extract(Source("x.sh", data), NameFilter())
    assert [(s.name, s.value) for s in extraction.sites] == [("HTTP_PORT", 8080)]
    assert [(c.words, c.assignments, c.line) for c in extraction.commands] == [
        (("cat",), (), 1),
        (("ray", "start", "--min-worker-port=2000"), (), 2),
        ((), (("PORT", "9999"),), 3),
        ((), (("HTTP_PORT", "8080"),), 5),
    ]


def test_a_doubled_backslash_in_an_unquoted_heredoc_continues_the_written_script() -> None:
    data = b'cat <<EOF >w.sh\nexec ray start --address="$ip" \\\\\n    --min-worker-port=${MIN} \\\\\n    --block\nEOF\n'
    ray = shell_commands(data)[1]
    assert ray.words == ("exec", "ray", "start", "--address=$ip", "--min-worker-port=${MIN}", "--block")
    assert (ray.line, ray.end_line) == (2, 4)


def test_a_quoted_heredoc_body_is_read_literally() -> None:
    data = b"cat <<'EOF' >w.sh\nray start --head \\\\\n--block\nEOF\n"
    assert words(shell_commands(data))[1:] == [("ray", "start", "--head", "\\"), ("--block",)]


def test_the_ray_sub_head_command_two_heredocs_deep() -> None:
    data = (
        b"head_cmd=$(cat <<EOF\n"
        b"cat <<EOFINNER | tee -a /launch-head.sh\n"
        b"ray start --head \\\\\n"
        b"    --port=${GCS_PORT} --dashboard-port=8265\n"
        b"EOFINNER\n"
        b"EOF\n"
        b")\n"
    )
    (ray,) = [c for c in shell_commands(data) if c.words[:1] == ("ray",)]
    assert ray.words == ("ray", "start", "--head", "--port=${GCS_PORT}", "--dashboard-port=8265")
    assert (ray.line, ray.column, ray.end_line) == (3, 1, 4)


def test_commands_before_a_scan_error_are_kept() -> None:
    extraction = shell.extract(Source("x.sh", b"ray start --head\necho 'unterminated\n"), NameFilter())
    assert extraction.error and words(extraction.commands) == [("ray", "start", "--head")]


def test_non_ascii_words_are_decoded() -> None:
    (command,) = shell_commands("echo 'héllo' ✓\n".encode())
    assert command.words == ("echo", "héllo", "✓")


# --- YAML ----------------------------------------------------------------------------------


def test_a_block_scalar_under_args_is_scanned_as_a_script_at_its_file_positions() -> None:
    data = (
        b"spec:\n"
        b"  containers:\n"
        b"    - name: head\n"
        b"      command: [/bin/bash, -lc, --]\n"
        b"      args:\n"
        b"        - |\n"
        b"          ulimit -n 65536\n"
        b"          ray start --head \\\n"
        b"            --port=6379\n"
    )
    first, ray = yaml_commands(data)
    assert first.words == ("ulimit", "-n", "65536") and (first.line, first.column) == (7, 11)
    assert ray.words == ("ray", "start", "--head", "--port=6379")
    assert (ray.line, ray.column, ray.end_line, ray.end_column) == (8, 11, 9, 24)


def test_command_and_args_lists_are_one_argument_vector() -> None:
    data = b"containers:\n  - command: [torchrun, --nproc-per-node=8]\n    args: [\"train.py\", \"--lr\", \"1e-4\"]\n"
    (command,) = yaml_commands(data)
    assert command.words == ("torchrun", "--nproc-per-node=8", "train.py", "--lr", "1e-4")
    assert (command.line, command.column) == (2, 15)


def test_a_one_line_command_string_is_placed_on_its_line() -> None:
    data = b'services:\n  head:\n    command: "ray start --head --block"\n'
    (command,) = yaml_commands(data)
    assert command.words == ("ray", "start", "--head", "--block")
    assert (command.line, command.column, command.end_column) == (3, 15, 39)


def test_a_folded_script_points_at_its_start() -> None:
    data = b"job:\n  command: >\n    ray start\n    --head\n"
    (command,) = yaml_commands(data)
    assert command.words == ("ray", "start", "--head")
    assert (command.line, command.column) == (2, 12)


def test_kuberay_ray_start_params_are_the_ray_start_the_operator_runs() -> None:
    data = (
        b"spec:\n"
        b"  headGroupSpec:\n"
        b"    rayStartParams:\n"
        b"      dashboard-host: '0.0.0.0'\n"
        b"      min-worker-port: \"2000\"\n"
        b"  workerGroupSpecs:\n"
        b"    - groupName: gpu\n"
        b"      rayStartParams: {}\n"
    )
    head, worker = yaml_commands(data)
    assert head.words == ("ray", "start", "--head", "--dashboard-host=0.0.0.0", "--min-worker-port=2000")
    assert (head.line, head.column, head.via) == (3, 5, "kuberay")
    assert (worker.words, worker.line, worker.column, worker.via) == (("ray", "start"), 8, 7, "kuberay")


def test_a_kuberay_pod_keeps_its_own_network_unless_its_template_sets_host_network() -> None:
    data = (
        b"spec:\n"
        b"  headGroupSpec:\n"
        b"    rayStartParams: {}\n"
        b"    template:\n"
        b"      spec: {hostNetwork: true}\n"
        b"  workerGroupSpecs:\n"
        b"    - rayStartParams: {}\n"
        b"      template: {spec: {hostNetwork: false}}\n"
        b"    - rayStartParams: {}\n"
    )
    head, worker, other = yaml_commands(data)
    assert (head.pod_network, worker.pod_network, other.pod_network) == (False, True, True)


def test_a_crd_schema_describing_ray_start_params_runs_nothing() -> None:
    data = (
        b"properties:\n"
        b"  headGroupSpec:\n"
        b"    properties:\n"
        b"      rayStartParams:\n"
        b"        additionalProperties: {type: string}\n"
        b"        type: object\n"
    )
    assert yaml_commands(data) == ()


def test_yaml_without_command_keys_has_no_commands() -> None:
    assert yaml_commands(b"policy:\n  port_range_low: 3000\n  commands: [ray start]\n") == ()


# --- engine --------------------------------------------------------------------------------


def test_a_script_running_ray_start_without_any_port_token_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "start.sh").write_bytes(b"#!/bin/bash\nray start --head --block\n")
    (tmp_path / "other.sh").write_bytes(b"#!/bin/bash\necho hello\n")
    current = session(load_config(None, tmp_path), Options())
    assert list(current.files) == ["start.sh"]
    assert words(current.layout(current.files).commands) == [("ray", "start", "--head", "--block")]


def test_the_quoted_command_of_ssh_is_read_in_place_past_ssh_options() -> None:
    data = b"ssh -p 22 -o X=no -tt \"$node\" 'cd /w && ray start --head'\nssh host ray start\nssh host 'a' 'b'\n"
    commands = shell_commands(data)
    assert words(commands) == [
        ("ssh", "-p", "22", "-o", "X=no", "-tt", "$node", "cd /w && ray start --head"), ("cd", "/w"),
        ("ray", "start", "--head"), ("ssh", "host", "ray", "start"), ("ssh", "host", "a", "b"),
    ]
    ray = commands[2]
    assert data.splitlines()[0][ray.column - 1:ray.end_column - 1] == b"ray start --head"


def test_skypilot_run_and_setup_scripts_are_read_where_they_are_written() -> None:
    """A script that names no tool of the table (`setup: pip install ray`) runs none: the fast path
    `commands` does not read it; the plain way reads every script."""
    data = b"num_nodes: 2\nsetup: pip install ray\nrun: |\n  echo go\n  ray start --head\nenvs:\n  run: ray start\n"
    every = [(("pip", "install", "ray"), 2, 8), (("echo", "go"), 4, 3), (("ray", "start", "--head"), 5, 3)]
    commands = yaml_commands(data)
    assert [(c.words, c.line, c.column) for c in commands] == (every[1:] if fast("commands") else every)


def python_commands(data: bytes) -> tuple[Command, ...]:
    from portlint.stages.extract import python

    extraction = python.extract(Source("m.py", data), NameFilter())
    assert extraction.error == ""
    return extraction.commands


def test_a_python_command_string_is_scanned_where_its_literals_are_written() -> None:
    data = (
        b"def ray_cmd(port):\n"
        b"    extra = '--block'\n"
        b"    return ('ulimit -n 1 && '\n"
        b"            f'ray start --head --port={port} {extra}')\n"
    )
    ulimit, ray = python_commands(data)
    assert ray.words == ("ray", "start", "--head", "--port=${__}", "--block")
    assert (ulimit.line, ulimit.column, ray.line, ray.column) == (3, 14, 4, 15)
    assert (ray.end_line, ray.end_column) == (4, 53)  # after the placeholder it ends with
    assert data.splitlines()[3][ray.column - 1:].startswith(b"ray start")


def test_only_strings_that_are_commands_are_read() -> None:
    data = (
        b"import subprocess\nsubprocess.run('ray start --head', shell=True)\n"
        b"help_text = 'run ray start --head'\nprint('ray start --head')\n"
        b"launch_cmd = 'ray start'\nscript = b'ray start'\nescaped_cmd = 'ray start\\\\n'\n"
    )
    assert [(c.words, c.line) for c in python_commands(data)] == [(("ray", "start", "--head"), 2), (("ray", "start"), 5)]


def test_statements_without_a_command_word_or_runner_still_give_their_constants_and_returns() -> None:
    """Only statements whose lines hold a command word or a runner are read for commands; the
    others still give the string constants placeholders read (module, class body, an `if`;
    not another function's), and a function named like a command has every return read."""
    data = (
        b"import subprocess\n"
        b"HEAD = '--head'\n"
        b"class Settings:\n"
        b"    port_flag = '--port=6379'\n"
        b"if True:\n"
        b"    extra = '--block'\n"
        b"def build_script(head):\n"
        b"    if head:\n"
        b"        return f'ray start {HEAD} {port_flag}'\n"
        b"    return 'ray stop'\n"
        b"launch = (\n"
        b"    subprocess\n"
        b"    .Popen(\n"
        b"        f'ray start {extra}', shell=True))\n"
        b"def helper():\n"
        b"    HEAD = '--address=x'\n"
        b"ray_cmd = (\n"
        b"    f'ray start {HEAD}'\n"
        b")\n"
    )
    assert [(c.words, c.line, c.column) for c in python_commands(data)] == [
        (("ray", "start", "--head", "--port=6379"), 9, 18),
        (("ray", "stop"), 10, 13),
        (("ray", "start", "--block"), 14, 11),
        (("ray", "start", "--head"), 18, 7),
    ]


# Modules whose commands read what the command reader takes from statements that hold no command
# word: a constant a placeholder names (in a class body, an `elif`, written in another form NFKC
# reads as it, assigned again to something else), and every return of a function named like a
# command, at any depth.
SPARSE_SHAPES = {
    "constants and returns": (
        "import subprocess\nHEAD = '--head'\nclass Settings:\n    port_flag = '--port=6379'\n    other = 1\n"
        "if True:\n    extra = '--block'\nelif False:\n    late = '--late'\nelse:\n    pass\n"
        "def build_script(head):\n    if head:\n        unrelated = 2\n        return f'ray start {HEAD} {port_flag}'\n"
        "    return f'ray stop {late}'\n"
        "launch = (\n    subprocess\n    .Popen(\n        f'ray start {extra}', shell=True))\n"
        "def helper():\n    HEAD = '--address=x'\n    return HEAD\n"
        "ray_cmd = (\n    f'ray start {HEAD}'\n)\n"
    ),
    "a name assigned again, another spelling": (
        "ｅｘｔｒａ = '--block'\nflag = '--head'\nvalue = 3\nflag = compute()\n"
        "def run():\n    x = 1\n    # the cmd\n    y = 2\n    cmd = (\n        f'ray start {extra} {flag!s} {value:>4}'\n    )\n    return cmd\n"
    ),
    "placeholders and the scopes that assign their names": (
        "extra = '--block'\nport = 1\n"
        "def other():\n    extra = '--other'\n    (port) = 2\n    return extra\n"
        "def launch(head):\n    extra = (  # the flags\n        '--head')\n    mode \\\n        = '--verbose'\n"
        "    def later():\n        mode = '--late'\n        return mode\n"
        "    ( port  # the port\n    ) = '--port=6379'\n    if head:\n        x = 1\n"
        "    launch_cmd = f'ray start {extra} {mode} {port}'\n    return launch_cmd\n"
        "class Config:\n    extra = '--address=x'\n    def run(self):\n"
        "        subprocess.run(f'ray start {extra}', shell=True)\n"
    ),
    "targets among other spellings": (
        "import subprocess\nclass Job:\n    def __init__(self):\n        self.cmd = 'ray start'\n"
        "    def build_cmdline(self):\n        return 'ray start --head'\n"
        "def launch(c):\n    run(\n        cmd='ray stop',\n        script=f'ray start {c}',\n    )\n"
        "    if c: run_cmd = 'ray start --block'\n    a = launch_cmd = 'ray start --address=x'\n"
        "    b = \\\n        other_cmd = 'ray start --num-cpus=1'\n    d = (\n        last_cmd) = 'ray start --num-gpus=2'\n"
        "    x = 1; semi_cmd = 'ray start --verbose'\n    print(run_cmd, 'a script')\n    return run_cmd\n"
    ),
    "command functions inside others": (
        "def outer():\n    a = 1\n    b = 2\n    async def make_command(port):\n        note = 'x'\n"
        "        def inner():\n            return 'ray stop'\n        return f'ray start --port={port} {note}'\n"
        "    return make_command\n"
        "class Launcher:\n    @staticmethod\n    def to_cmdline(self):\n        if self:\n            return 'ray start --head'\n"
        "        return 'ray start'\n    def other(self):\n        return 'ray start'\n"
    ),
}


@pytest.mark.parametrize("name", sorted(SPARSE_SHAPES))
def test_the_hot_lines_lose_no_command_of_the_whole_module(name: str) -> None:
    """What the reader reads with only its hot lines hot is what it reads with every line hot."""
    import ast

    from portlint.stages.extract import python
    from portlint.stages.extract import python_commands as reader

    data = SPARSE_SHAPES[name].encode()
    source = Source("m.py", data)
    every_line = list(range(1, data.count(b"\n") + 2))
    whole = reader.commands(source, ast.parse(data), lambda line, column: python._offset(source, line, column), every_line)
    assert whole
    assert python_commands(data) == whole


def test_the_hot_lines_are_those_that_spell_a_command_name_or_a_runner() -> None:
    from portlint.stages.extract import python_commands as reader

    data = (
        "description = 'a transcript'\n"  # 1: "script" inside another word
        "system_prompt = 'x'\n"  # 2: a word of a name, but no runner is named so
        "scripts = ['ray start']\n"  # 3: "scripts" is no command word
        "launchCmd = 'ray start'\n"  # 4: camel case
        "RAY_START_SCRIPT = 'ray start'\n"  # 5
        "os.system('ray start')\n"  # 6
        "proc = await asyncio.create_subprocess_shell(x)\n"  # 7
        "out = (subprocess\n"  # 8
        "       .run(x))\n"  # 9: the call's other line
        "def build_cmdline(): pass\n"  # 10
        "ｃｍｄ = 'ray start'\n"  # 11: read as `cmd`
        "Subprocess = Popen = 1\n"  # 12: not `subprocess`; `Popen` alone is no runner
    ).encode()
    assert reader.hot_lines(data) == [4, 5, 6, 7, 8, 10, 11]


def test_the_hot_lines_are_those_found_when_every_needle_is_looked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """In ASCII bytes a needle is looked for only where the one pass of portlint.speed.needles finds
    it, in any case: the lines, and the spellings read_lines asks about again, are those a search
    for every needle finds (CR line ends, non-ASCII and NFKC spellings, no newline at the end)."""
    import random

    from portlint.stages.extract import python_commands as reader

    pieces = [b"\n", b"\r\n", b"\r", b"cmd", b"CMD", b"Cmd", b"launchScript", b"command", b"SUBPROCESS", b"subprocess.run(",
              b"os.system", b"Popen", b"popen", b"description", b"x", b" = ", b"'ray start'", b"\xc3\xa9",
              b"\xef\xbd\x83\xef\xbd\x8d\xef\xbd\x84", b"def "]
    rng = random.Random(11)
    cases = [bytes(bytearray(b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))))) for _ in range(3000)]
    found = [(reader.hot_lines(data), reader._spellings(data)) for data in cases]
    monkeypatch.setattr(reader, "holds_folded", lambda data, word: True)
    assert found == [(reader.hot_lines(data), reader._spellings.__wrapped__(data)) for data in cases]
    assert any(lines for lines, _ in found) and any(not lines for lines, _ in found)


@needs_sparse
def test_the_lines_read_are_those_where_a_command_name_may_be_a_target() -> None:
    """Of the hot lines, the reader reads those where a name may be an assignment's target or
    a function's, and a runner's: not an attribute, an argument, a string's word or a keyword
    argument on a line of its own."""
    from portlint.speed import outline as python_outline
    from portlint.stages.extract import python_commands as reader

    data = SPARSE_SHAPES["targets among other spellings"].encode()
    lines = python_outline.outline(data)
    assert lines is not None
    hot = reader.hot_lines(data)
    assert hot == [1, 4, 5, 9, 10, 12, 13, 15, 17, 18, 19, 20]
    assert reader.read_lines(data, line_starts(data), lines, hot) == [1, 5, 12, 13, 15, 17, 18]


def test_every_runner_has_a_part_that_makes_its_line_hot() -> None:
    from portlint.stages.extract import python_commands as reader

    assert all(reader._RUNNER_PARTS.intersection(runner.split(".")) for runner in reader._RUNNERS)


@needs_sparse
def test_a_placeholder_keeps_only_the_assignments_it_can_see() -> None:
    """The sparse tree keeps the statements that assign a placeholder's name where the lookup
    sees them (module level, a class body, a function around the placeholder), not in other
    functions."""
    import ast

    from portlint.stages.extract import python
    from portlint.stages.extract import python_commands as reader

    data = SPARSE_SHAPES["placeholders and the scopes that assign their names"].encode()
    parsed = python._parse(Source("m.py", data), [], [], reader.hot_lines(data), socket_code=False, starts=False)
    assert isinstance(parsed, tuple)
    assigned = sorted(node.lineno for node in ast.walk(parsed[0]) if isinstance(node, ast.Assign))
    assert assigned == [1, 2, 8, 10, 15, 19, 22]  # not in other() (4-5) nor in later() (13)


@needs_sparse
@pytest.mark.parametrize("name", sorted(SPARSE_SHAPES))
def test_the_commands_of_a_sparse_tree_are_those_of_the_whole_module(name: str) -> None:
    """The Python extractor parses only the statements the command reader reads (and the site
    finder's): its commands are those of the whole tree, and the tree it reads them from is not
    the whole module."""
    import ast

    from portlint.stages.extract import python
    from portlint.stages.extract import python_commands as reader

    data = SPARSE_SHAPES[name].encode()
    source = Source("m.py", data)
    hot = reader.hot_lines(data)
    whole = reader.commands(source, ast.parse(data), lambda line, column: python._offset(source, line, column), hot)
    assert whole  # each shape has commands to read
    assert python_commands(data) == whole
    parsed = python._parse(source, [], [], hot, socket_code=False, starts=False)
    assert isinstance(parsed, tuple)
    assert ast.dump(parsed[0], include_attributes=True) != ast.dump(ast.parse(data), include_attributes=True)
