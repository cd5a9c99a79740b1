"""Precision and recall of the race rules (PL601, PL602, PL604) against labelled corpus code. Not a test.

`python tests/bench/race_labels.py LABELS.tsv [--corpus DIR] [--repos a,b] [--json DIR] [--save DIR]`

LABELS.tsv has a header row and one row per labelled unit: `repo path line end_line rule label
shape reason`, `label` being `race` (the rule must report it) or `safe` (a near miss it must
not report); `line..end_line` is the function, loop, test or setUp the unit is. For every
repository the labels name (or `--repos`), portlint runs as a new user runs it: zero-config,
`--output-format json`, in the repository's directory, without the cache (the corpus is
read-only; nothing is written into it). `--json DIR` reads `DIR/<repo>.json` instead of
running portlint (the output of an earlier run, e.g. `--save DIR`).

A finding matches a row when it has the row's repository, path and rule and its line lies in
`line..end_line`. Per rule it prints:

- recall: the `race` rows matched by at least one finding, over all `race` rows;
- precision: the findings that match a `race` row, over the findings that match a row
  (`race` or `safe`); and the same over every finding of the rule, counting the findings that
  match no row as false (a lower bound);
- every `race` row missed, every finding on a `safe` row, and every finding that matches no
  row (unlabelled: to be judged by reading the code).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

RULES = ("PL601", "PL602", "PL604")
TIMEOUT = 900


@dataclass(frozen=True)
class Label:
    repo: str
    path: str
    line: int
    end_line: int
    rule: str
    label: str  # race | safe
    shape: str

    def holds(self, repo: str, path: str, rule: str, line: int) -> bool:
        return (repo, path, rule) == (self.repo, self.path, self.rule) and self.line <= line <= self.end_line


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    line: int
    rule: str
    message: str


def read_labels(path: Path) -> list[Label]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [Label(row["repo"], row["path"], int(row["line"]), int(row["end_line"]), row["rule"], row["label"],
                  row.get("shape", "")) for row in rows]


def portlint_command() -> list[str]:
    """The portlint of this interpreter: its console script, else its module's main()."""
    script = Path(sys.executable).parent / "portlint"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-c", "import sys; from portlint.cli import main; sys.exit(main())"]


def run(repo: Path) -> list[dict]:
    """portlint zero-config on one repository: its JSON problems."""
    env = {**os.environ, "PORTLINT_NO_CACHE": "1"}
    done = subprocess.run([*portlint_command(), "check", "--exit-zero", "--output-format", "json", "."],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    if done.returncode not in (0, 1):
        sys.exit(f"race_labels.py: portlint failed on {repo}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout or "[]")


def findings(repos: list[str], corpus: Path, saved: Path | None, save: Path | None) -> list[Finding]:
    found = []
    for repo in repos:
        if saved is not None:
            problems = json.loads((saved / f"{repo}.json").read_text(encoding="utf-8") or "[]")
        else:
            problems = run(corpus / repo)
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                (save / f"{repo}.json").write_text(json.dumps(problems, indent=1), encoding="utf-8")
        found += [Finding(repo, p["path"], int(p["line"]), p["code"], p["message"])
                  for p in problems if p["code"] in RULES]
    return found


def score(labels: list[Label], found: list[Finding], rule: str) -> dict[str, object]:
    rows = [label for label in labels if label.rule == rule]
    matched: dict[Label, list[Finding]] = defaultdict(list)
    unlabelled = []
    on_race = on_safe = 0
    for finding in (f for f in found if f.rule == rule):
        hits = [row for row in rows if row.holds(finding.repo, finding.path, rule, finding.line)]
        for row in hits:
            matched[row].append(finding)
        if any(row.label == "race" for row in hits):
            on_race += 1
        elif hits:
            on_safe += 1
        else:
            unlabelled.append(finding)
    races = [row for row in rows if row.label == "race"]
    caught = [row for row in races if matched.get(row)]
    total = on_race + on_safe + len(unlabelled)
    return {
        "races": len(races), "caught": len(caught), "safe_rows": len(rows) - len(races),
        "on_race": on_race, "on_safe": on_safe, "unlabelled": unlabelled, "findings": total,
        "recall": len(caught) / len(races) if races else None,
        "precision": on_race / (on_race + on_safe) if on_race + on_safe else None,
        "precision_bound": on_race / total if total else None,
        "missed": [row for row in races if not matched.get(row)],
        "false": [(row, f) for row in rows if row.label == "safe" for f in matched.get(row, ())
                  if not any(r.label == "race" and r.holds(f.repo, f.path, rule, f.line) for r in rows)],
    }


def _ratio(value: object) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels", type=Path)
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--repos", default="", help="comma-separated repositories (default: those the labels name)")
    parser.add_argument("--json", type=Path, default=None, help="read DIR/<repo>.json instead of running portlint")
    parser.add_argument("--save", type=Path, default=None, help="write each repository's JSON to DIR/<repo>.json")
    args = parser.parse_args(argv)
    labels = read_labels(args.labels)
    repos = [r for r in args.repos.split(",") if r] or sorted({label.repo for label in labels})
    labels = [label for label in labels if label.repo in repos]
    found = findings(repos, args.corpus, args.json, args.save)
    for rule in RULES:
        result = score(labels, found, rule)
        print(f"{rule}: {result['races']} race rows, {result['safe_rows']} safe rows, {result['findings']} findings; "
              f"recall {_ratio(result['recall'])} ({result['caught']}/{result['races']}), "
              f"precision {_ratio(result['precision'])} ({result['on_race']} on races, {result['on_safe']} on safe rows), "
              f"{len(result['unlabelled'])} unlabelled (precision counting them false: "
              f"{_ratio(result['precision_bound'])})")
        for row in result["missed"]:
            print(f"  missed: {row.repo}/{row.path}:{row.line}-{row.end_line} ({row.shape})")
        for row, finding in result["false"]:
            print(f"  on a safe row: {row.repo}/{row.path}:{finding.line} ({row.shape}): {finding.message[:160]}")
        for finding in result["unlabelled"]:
            print(f"  unlabelled: {finding.repo}/{finding.path}:{finding.line}: {finding.message[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
