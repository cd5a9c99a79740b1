"""The socket analysis's bound per function (analysis/sockets/flow.py, MAX_STEPS): a function whose
paths take too much work to follow is given up, and reports nothing, after a bounded count of steps,
whatever makes the work grow (branches times loops, or thousands of variables on every path). No
timing here: the count of steps the walks took is the measure."""
from __future__ import annotations

import ast

import pytest

from portlint.analysis.sockets import flow
from portlint.analysis.sockets.module import ModuleIndex


def _probe(branches: int = 0, loops: int = 0, variables: int = 0, body: int = 0) -> bytes:
    """A function that binds a socket, reads its port back, forks its paths `branches` times, holds
    `variables` numbers read again at its end, runs `body` statements inside `loops` nested loops,
    closes the socket and returns the port: a port handed on after its socket is released."""
    lines = ["import socket", "", "", "def probe(port):", "    s = socket.socket()", "    s.bind(('', port))",
             "    port = s.getsockname()[1]"]
    if variables:  # one statement makes them, one reads them: the statements are as many, whatever their number
        lines.append("    " + ", ".join(f"a{k}" for k in range(variables)) + f", = range(port, port + {variables})")
    for b in range(branches):
        lines += [f"    if port > {b}:", f"        v{b} = port + {b}", "    else:", f"        v{b} = {b}"]
    indent = "    "
    for loop in range(loops):
        lines += [f"{indent}for i{loop} in range(port):"]
        indent += "    "
    lines += [f"{indent}w{k} = port + {k}\n{indent}if w{k} > {k}:\n{indent}    port = w{k}" for k in range(body)]
    if variables:
        lines.append("    use(" + ", ".join(f"a{k}" for k in range(variables)) + ")")
    if branches:  # read again at the end: the paths stay apart
        lines.append("    use(" + ", ".join(f"v{b}" for b in range(branches)) + ")")
    lines += ["    s.close()", "    return port", ""]
    return "\n".join(lines).encode()


def _walked(data: bytes) -> tuple[int, int]:
    """(violations found, steps the walks took) of a module's analysis."""
    index = ModuleIndex(ast.parse(data), None, data)
    return len(index.violations()), index.spent


def test_a_small_function_is_followed_to_its_finding() -> None:
    found, steps = _walked(_probe(branches=3, variables=20, body=10))
    assert found > 0 and steps < flow.MAX_STEPS


@pytest.mark.parametrize("shape", [
    {"branches": 6, "loops": 6, "body": 200},  # 64 paths, loops in loops: each body runs many rounds
    {"branches": 6, "variables": 5000, "body": 60},  # 64 paths of thousands of variables each
], ids=["loops-in-loops", "wide-paths"])
def test_a_hostile_function_is_given_up_after_the_bound_and_reports_nothing(shape: dict[str, int]) -> None:
    found, steps = _walked(_probe(**shape))
    # The walk stops at the first statement past the bound: at most one statement's work more.
    assert found == 0 and flow.MAX_STEPS < steps < flow.MAX_STEPS + flow.MAX_PATHS * (1 + 6000 // flow.VARIABLES_PER_STEP)


def test_the_variables_paths_hold_count_in_the_steps() -> None:
    """The same function with more variables on each path takes more steps: the walk weighs them."""
    few, many = _walked(_probe(branches=4, body=20, variables=10))[1], _walked(_probe(branches=4, body=20, variables=2560))[1]
    assert many > few + 40 * 16  # ten more steps for each of the 16 paths, at each of the 40-odd statements


def test_a_module_of_many_costly_functions_is_bounded_as_a_whole() -> None:
    one = _probe(branches=6, body=60).decode()
    alone_found, alone_steps = _walked(one.encode())
    assert alone_found > 0 and 16 * alone_steps > flow.MAX_MODULE_STEPS  # each within the bound, not all sixteen
    found, steps = _walked("".join(one.replace("def probe(", f"def probe_{k}(") for k in range(16)).encode())
    assert steps < flow.MAX_MODULE_STEPS + flow.MAX_STEPS
    assert 0 < found < 16 * alone_found  # those walked before the module's bound report, the others nothing
