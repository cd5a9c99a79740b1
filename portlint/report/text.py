"""`path:line:col: CODE [*] message`, one line a problem, then a summary."""
from __future__ import annotations

from portlint.problem import Problem
from portlint.report import Context


def render(problems: list[Problem], context: Context) -> str:
    lines = []
    for problem in problems:
        mark = " [*]" if context.applicable(problem) else ""
        where = f"{context.display(problem.path)}:{problem.line}:{problem.column}"
        lines.append(f"{where}: {problem.code}{mark} {problem.message}")
    return "".join(line + "\n" for line in lines)


def summary(problems: list[Problem], fixed: int = 0, written: bool = True) -> str:
    safe = sum(1 for p in problems if p.fix is not None and p.fix.safe)
    unsafe = sum(1 for p in problems if p.fix is not None and not p.fix.safe)
    parts = []
    if fixed:
        verb = "Fixed" if written else "Would fix"
        parts.append(f"{verb} {fixed} problem{'s' if fixed != 1 else ''}.")
    if not problems:
        parts.append("All checks passed!" if not fixed else "No problems would remain." if not written else "No problems remain.")
        return " ".join(parts)
    counts = []
    if safe:
        counts.append(f"{safe} fixable with --fix")
    if unsafe:
        counts.append(f"{unsafe} with --unsafe-fixes")
    detail = f" ({', '.join(counts)})" if counts else ""
    noun = "problem" if len(problems) == 1 else "problems"
    parts.append(f"Found {len(problems)} {noun}{detail}.")
    return " ".join(parts)
