"""`--statistics`: how many problems of each code, instead of the problems themselves.

Text (like ruff): `count  code  [*] name`, most frequent first, `[*]` when every
problem of that code has a fix --fix would apply. JSON: a list of
`{"code", "name", "count", "fixable"}` objects in the same order.
"""
from __future__ import annotations

import json
from collections import Counter

from portlint.model.problems import Problem
from portlint.model.records import Struct, structs
from portlint.report import Context


class Row(Struct, frozen=True):
    code: str
    name: str
    count: int
    fixable: int  # how many of them --fix (with --unsafe-fixes if given) would fix


def rows(problems: list[Problem], context: Context) -> list[Row]:
    counts = Counter(p.code for p in problems)
    fixable = Counter(p.code for p in problems if context.applicable(p))
    names = {p.code: p.name for p in problems}
    ordered = sorted(counts, key=lambda code: (-counts[code], code))
    return [Row(code, names[code], counts[code], fixable[code]) for code in ordered]


def render(problems: list[Problem], context: Context) -> str:
    table = rows(problems, context)
    width = max((len(str(row.count)) for row in table), default=1)
    lines = []
    for row in table:
        mark = "[*]" if row.fixable == row.count else "[-]" if row.fixable else "   "
        lines.append(f"{row.count:>{width}}  {row.code}  {mark} {row.name}")
    return "".join(line + "\n" for line in lines)


def render_json(problems: list[Problem], context: Context) -> str:
    return json.dumps([structs.asdict(row) for row in rows(problems, context)], indent=2) + "\n"
