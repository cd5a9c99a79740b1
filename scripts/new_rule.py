"""Scaffold a new `portlint check` rule: `python scripts/new_rule.py PL701 name-of-rule [--summary TEXT]`.

Writes, in the repository this script belongs to:

* `portlint/rules/<name_of_rule>.py`: CODE, NAME, NEEDS_LAYOUT, NEEDS, the documentation
  with the headings tests/rules/test_registry.py checks, and a `check` that reports nothing yet;
* the registry lines: the import and the ALL entry in portlint/rules/__init__.py, the
  code in portlint/model/codes.py, both in code order;
* `fixtures/<CODE>-<name>/fails/` (expecting one problem of the rule) and
  `fixtures/<CODE>-<name>/passes/` (expecting none);
* the rule's row in the README's rule table.

Until the rule's logic is written, the suite fails at the `fails` case (the
problem it expects is not reported) and passes everything else. CONTRIBUTING.md,
"Add a rule", says what to fill in. Bad input (a malformed or taken code or
name) is a one-line error and exit status 2, before anything is written.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent.parent
CODE_FORM = re.compile(r"PL[0-9]{3}")
NAME_FORM = re.compile(r"[a-z]+(?:-[a-z]+)*")
TABLE_ROW = re.compile(r"^\| (PL[0-9]{3}) \| [a-z-]+ \| .+ \|$")


class Refused(Exception):
    """Bad input or a repository this script cannot edit: the one line it prints."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """A usage error in one line (argparse's own adds the usage above it)."""
        self.exit(2, f"new_rule.py: error: {message} (usage: python scripts/new_rule.py PL701 name-of-rule)\n")


MODULE = '''"""{summary}

What it does: (to be written: what the rule reports, where, and what it does not check).
Why: (to be written: what goes wrong at run time when this is left as it is).
Example (fails): (to be written: the smallest example, as in fixtures/{folder}/fails/).
Use instead: (to be written: the example fixed, as in fixtures/{folder}/passes/).
Options: (to be written: the config keys the rule reads, or none).
Fix: none; (to be written: what the user changes, or what --fix does and when it is safe).
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model import Layout
from portlint.model.problems import Problem

CODE = "{code}"
NAME = "{name}"
NEEDS_LAYOUT = False  # True when the rule needs declared bands (it is then idle in zero-config)
NEEDS: frozenset[str] = frozenset()  # facts of the layout beyond sites, bands and failures (portlint.stages.layout.build.FACTS)


def check(layout: Layout) -> Iterator[Problem]:
    """The problems of this rule in `layout` (none until its logic is written).

    Until then tests/rules/test_fixtures.py fails at fixtures/{folder}/fails/, which
    expects the problem this rule exists to report.
    """
    yield from ()
'''

FAILING_FILE = """# The smallest repository this rule fails on: replace this file (and write in
# ../expected.txt every line portlint prints for it, path:line:col: CODE message).
"""
PASSING_FILE = """# A repository close to the failing case that this rule must accept: replace
# this file (../expected.txt stays empty, or lists only other rules' lines when
# args.txt selects them).
"""


def main(argv: list[str]) -> int:
    parser = _Parser(prog="new_rule.py", description="Scaffold a new portlint check rule.")
    parser.add_argument("code", help="the rule's code, PL followed by three digits (PL701)")
    parser.add_argument("name", help="the rule's name: lowercase words joined by hyphens (port-reuse)")
    parser.add_argument("--summary", default="", help="the documentation's first line (also the README row)")
    args = parser.parse_args(argv)
    try:
        written = scaffold(ROOT, args.code, args.name, args.summary)
    except Refused as refusal:
        print(f"new_rule.py: error: {refusal}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    return 0


def scaffold(root: Path, code: str, name: str, summary: str) -> list[str]:
    """Check everything, then write everything; returns the paths written, relative to `root`."""
    if not CODE_FORM.fullmatch(code):
        raise Refused(f"expected a code like PL701 (PL and three digits), got {code!r}")
    if not NAME_FORM.fullmatch(name):
        raise Refused(f"expected a name of lowercase words joined by hyphens (port-reuse), got {name!r}")
    summary = " ".join(summary.split()) or f"(to be written: one line saying what is wrong, for {name})."
    if "|" in summary or '"""' in summary or "\\" in summary:
        raise Refused("expected a summary without |, \\ or triple quotes (it goes into a table row and a docstring)")
    module = name.replace("-", "_")
    folder = f"{code}-{name}"
    paths = {
        "registry": root / "portlint" / "rules" / "__init__.py", "codes": root / "portlint" / "model" / "codes.py",
        "readme": root / "README.md", "module": root / "portlint" / "rules" / f"{module}.py", "fixtures": root / "fixtures" / folder,
    }
    for key in ("registry", "codes", "readme"):
        if not paths[key].is_file():
            raise Refused(f"no {paths[key].relative_to(root)}: run the script of a portlint checkout")
    codes = _check_codes(paths["codes"])
    if code in codes:
        raise Refused(f"{code} is taken (portlint/model/codes.py)")
    if paths["module"].exists():
        raise Refused(f"{name} is taken: portlint/rules/{module}.py exists")
    taken = [p.name for p in (root / "fixtures").glob(f"{code}-*")] + [p.name for p in (root / "fixtures").glob(f"PL*-{name}")]
    if taken:
        raise Refused(f"{code} {name}: fixtures/{taken[0]} exists")
    used = _names(root / "portlint" / "rules")
    if name in used:
        raise Refused(f"{name} is taken by {used[name]}")

    position = sum(1 for known in codes if known < code)  # the registry is in code order
    registry = _registered(paths["registry"].read_text(encoding="utf-8"), module, position, len(codes))
    codes_text = _with_code(paths["codes"].read_text(encoding="utf-8"), code, position)
    readme = _with_row(paths["readme"].read_text(encoding="utf-8"), code, name, summary)

    files = {
        paths["module"]: MODULE.format(summary=summary, folder=folder, code=code, name=name),
        paths["registry"]: registry,
        paths["codes"]: codes_text,
        paths["readme"]: readme,
        paths["fixtures"] / "fails" / "repo" / "run.sh": FAILING_FILE,
        paths["fixtures"] / "fails" / "expected.txt": f"run.sh:1:1: {code} (the message {name} reports here: to be written)\n",
        paths["fixtures"] / "passes" / "repo" / "run.sh": PASSING_FILE,
        paths["fixtures"] / "passes" / "expected.txt": "",
    }
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise Refused(f"cannot write {error.filename}: {error.strerror}") from None
    return [path.relative_to(root).as_posix() for path in files]


def _check_codes(path: Path) -> list[str]:
    """CHECK_CODES as portlint/model/codes.py writes it."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "CHECK_CODES":
            value = ast.literal_eval(node.value) if node.value is not None else None
            if isinstance(value, tuple) and all(isinstance(item, str) for item in value):
                return list(value)
    raise Refused("portlint/model/codes.py has no CHECK_CODES tuple of strings")


def _names(rules: Path) -> dict[str, str]:
    """NAME -> module of every rule module (read, never imported)."""
    names = {}
    for path in sorted(rules.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["NAME"]
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                names[node.value.value] = f"portlint/rules/{path.name}"
    return names


def _registered(text: str, module: str, position: int, count: int) -> str:
    """portlint/rules/__init__.py with `module` imported (alphabetically) and in ALL at `position`."""
    lines = text.splitlines(keepends=True)
    imports = _block(lines, "from portlint.rules import (")
    names = [lines[i].strip().rstrip(",") for i in imports]
    at = imports[0] + sum(1 for existing in names if existing < module) if imports else -1
    entries = _block(lines, "ALL: tuple[ModuleType, ...] = (")
    if not imports or len(entries) != count:
        raise Refused(f"portlint/rules/__init__.py: expected the import block and ALL with {count} entries, one a line")
    entry = entries[position] if position < len(entries) else entries[-1] + 1
    # Insert the later line first: the earlier insertion would shift it.
    for index, line in sorted(((at, f"    {module},\n"), (entry, f"    {module},\n")), reverse=True):
        lines.insert(index, line)
    return "".join(lines)


def _block(lines: list[str], opener: str) -> list[int]:
    """Indices of the one-name lines of the parenthesized block that `opener` opens."""
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == opener), None)
    if start is None:
        return []
    found: list[int] = []
    for i in range(start + 1, len(lines)):
        if lines[i].startswith(")"):
            return found
        found.append(i)
    return []


def _with_code(text: str, code: str, position: int) -> str:
    lines = text.splitlines(keepends=True)
    entries = _block(lines, "CHECK_CODES: tuple[str, ...] = (")
    if not entries:
        raise Refused("portlint/model/codes.py: expected CHECK_CODES one code a line")
    index = entries[position] if position < len(entries) else entries[-1] + 1
    lines.insert(index, f'    "{code}",\n')
    return "".join(lines)


def _with_row(text: str, code: str, name: str, summary: str) -> str:
    """README.md with the rule's row in the rule table, in code order."""
    lines = text.splitlines(keepends=True)
    rows = [(i, match.group(1)) for i, line in enumerate(lines) if (match := TABLE_ROW.match(line.rstrip("\n")))]
    if not rows:
        raise Refused("README.md: no rule table (rows like | PL101 | name | summary | fix |)")
    later = [i for i, row_code in rows if row_code > code]
    lines.insert(later[0] if later else rows[-1][0] + 1, f"| {code} | {name} | {summary} | — |\n")
    return "".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
