"""`path:line:col: CODE [*] message`, one line a problem, then a summary.

Styled (bold path, red code, cyan fix mark) only when `context.color` says so:
the CLI turns it on for a terminal unless NO_COLOR or --no-color.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict

import click

from portlint.model.edits import Edit
from portlint.model.problems import Problem
from portlint.report import Context, printable


def render(problems: list[Problem], context: Context, show_fixes: bool = False) -> str:
    lines = []
    for problem in problems:
        applicable = context.applicable(problem)
        mark = " " + _style(context, "[*]", fg="cyan") if applicable else ""
        where = _style(context, printable(context.display(problem.path)), bold=True)
        code = _style(context, problem.code, fg="red", bold=True)
        lines.append(f"{where}:{problem.line}:{problem.column}: {code}{mark} {printable(context.message(problem))}")
        if show_fixes and problem.fix is not None:
            lines += [_style(context, _fix_line(problem, edit, context), fg="green") for edit in problem.fix.edits]
    return "".join(line + "\n" for line in lines)


def _fix_line(problem: Problem, edit: Edit, context: Context) -> str:
    """`    fix: "1500" -> "1400"`: the bytes an edit replaces and what replaces them."""
    assert problem.fix is not None
    label = "fix"
    if not problem.fix.safe:
        label = "fix (unsafe)" if context.unsafe_fixes else "fix (unsafe, with --unsafe-fixes)"
    before = context.source_bytes(problem.path, edit.start, edit.end).decode("utf-8", "replace")
    after = edit.text.decode("utf-8", "replace")
    if not after:
        return f"    {label}: remove {_quoted(before)}"
    if not before:
        return f"    {label}: insert {_quoted(after)}"
    return f"    {label}: {_quoted(before)} -> {_quoted(after)}"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def fixed_report(problems: list[Problem], context: Context, written: bool = True) -> str:
    """What --fix changed (or --diff would change), per file and code (`--show-fixes`)."""
    if not problems:
        return ""
    by_path: dict[str, Counter[str]] = defaultdict(Counter)
    names = {problem.code: problem.name for problem in problems}
    for problem in problems:
        by_path[problem.path][problem.code] += 1
    noun = "problem" if len(problems) == 1 else "problems"
    lines = [f"{'Fixed' if written else 'Would fix'} {len(problems)} {noun}:"]
    for path in sorted(by_path):
        lines.append(f"- {_style(context, printable(context.display(path)), bold=True)}:")
        for code, count in sorted(by_path[path].items()):
            lines.append(f"    {count} × {code} ({names[code]})")
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


def _style(context: Context, text: str, **styles: object) -> str:
    return click.style(text, **styles) if context.color else text  # type: ignore[arg-type]
