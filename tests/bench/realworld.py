"""portlint on real repositories, as a new user runs it (issue 10). Not a test.

`python tests/bench/realworld.py [DIR] [--out FILE] [--repos a,b] [--keep DIR] [--triage VERDICTS]`

DIR holds one git repository per project (default: the corpus `shared/corpus/unpack.sh`
unpacks, found beside an ancestor of this checkout). For every repository, on a
temporary copy (DIR is never written), it runs three modes:

- `zero`: `portlint --output-format json` without a config;
- `init`: `portlint init --force`, then the same check with the config it wrote;
- `fix`:  then `portlint --fix`, and every line it changed (path, line, before -> after).

It prints the counts per repository and rule for each mode and the lines/files `--fix`
changed, and writes every finding and every edit to a TSV triage file (`--out`, default
realworld.tsv): mode, repo, path, line, code, message (for an edit: `before → after`, and
the code of the init-mode problem whose fix touches that line, `-` if none). A mode that
fails (exit 2, a crash, a timeout, output that is not JSON) is reported and the others run.

portlint runs as a subprocess: the `portlint` console script beside `sys.executable`, else
`sys.executable -c "from portlint.cli import main; main()"`, so that one interpreter's
install is measured (not whatever PATH finds). Only long-standing options are used
(`--output-format json`, `init --force`, `--fix`), so any portlint version can be measured:
run it before and after a change and compare.

`--triage VERDICTS` joins the findings with a verdict file (TSV with header
`repo path line code mode verdict reason`, verdict `true`/`false`) and prints the
precision per rule and mode and every finding without a verdict. `--from FILE` reads the
findings of an earlier run's triage file instead of running portlint.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

MODES = ("zero", "init", "fix")
TIMEOUT = 900  # seconds per portlint run; a hang is reported as that mode's error
HEADER = ("mode", "repo", "path", "line", "code", "message")
VERDICT_HEADER = ("repo", "path", "line", "code", "mode", "verdict", "reason")


@dataclass
class Row:
    """One finding (mode zero/init) or one changed line (mode fix) of one repository."""

    mode: str
    repo: str
    path: str
    line: int
    code: str
    message: str

    @property
    def key(self) -> tuple[str, str, int, str, str]:
        return (self.repo, self.path, self.line, self.code, self.mode)


@dataclass
class RepoResult:
    repo: str
    rows: list[Row] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)  # mode -> what went wrong
    fix_files: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


def portlint_command() -> list[str]:
    """The portlint of this interpreter: its console script, else its module's main()."""
    bindir = Path(sys.executable).parent
    for name in ("portlint", "portlint.exe"):
        script = bindir / name
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
    return [sys.executable, "-c", "import sys; from portlint.cli import main; sys.exit(main())"]


def default_corpus() -> Path:
    """Run shared/corpus/unpack.sh (idempotent) from the nearest ancestor that has it; its destination."""
    for ancestor in Path(__file__).resolve().parents:
        unpack = ancestor / "shared" / "corpus" / "unpack.sh"
        if unpack.is_file():
            done = subprocess.run(["bash", str(unpack)], capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"realworld.py: error: {unpack} failed: {done.stderr.strip()[-300:]}")
            paths = [Path(line) for line in done.stdout.splitlines() if line.strip()]
            if not paths:
                sys.exit(f"realworld.py: error: {unpack} printed no repository")
            return paths[0].parent
    sys.exit("realworld.py: error: no DIR given and no shared/corpus/unpack.sh above this checkout")


def escape(text: str) -> str:
    """One TSV field: backslash, tab, CR and LF escaped so that every row stays one line."""
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def tracked_files(root: Path) -> list[str]:
    """The files portlint would consider: git's cached and untracked-not-ignored files (else every file)."""
    done = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, capture_output=True,
    )
    if done.returncode == 0:
        return sorted({name.decode("utf-8", "surrogateescape") for name in done.stdout.split(b"\0") if name})
    return sorted(
        str(path.relative_to(root)) for path in root.rglob("*") if path.is_file() and ".git" not in path.parts
    )


def snapshot(root: Path) -> dict[str, bytes]:
    """Contents of every file git lists (and of .portlint.yaml), to diff what --fix wrote."""
    contents = {}
    for name in tracked_files(root):
        path = root / name
        if path.is_file() and not path.is_symlink():
            try:
                contents[name] = path.read_bytes()
            except OSError:
                continue
    return contents


def line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, max(0, offset)) + 1


def line_edits(before: bytes, after: bytes) -> list[tuple[int, str, str]]:
    """(line in `before`, old text, new text) of every changed line; an added/removed line has '' on one side."""
    old = before.decode("utf-8", "replace").splitlines()
    new = after.decode("utf-8", "replace").splitlines()
    if old == new:  # only line endings or a final newline differ
        return [(max(1, len(old)), "(line endings)", "(line endings)")]
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            line = i1 + k + 1 if i1 + k < i2 else i2 + 1 if i2 > i1 else i1 + 1
            edits.append((line, old[i1 + k] if i1 + k < i2 else "", new[j1 + k] if j1 + k < j2 else ""))
    return edits


def run_portlint(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*portlint_command(), *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=TIMEOUT, stdin=subprocess.DEVNULL,
    )


def failure(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in (done.stderr or "").splitlines() if line.strip()]
    return f"exit {done.returncode}: {lines[-1] if lines else '(no message)'}"[:400]


def check_json(repo: str, mode: str, cwd: Path, env: dict[str, str], result: RepoResult) -> list[dict] | None:
    """One `--output-format json` check; its problems, or None with the error recorded."""
    start = time.perf_counter()
    try:
        done = run_portlint(["--output-format", "json"], cwd, env)
    except subprocess.TimeoutExpired:
        result.errors[mode] = f"timeout after {TIMEOUT} s"
        return None
    finally:
        result.seconds[mode] = time.perf_counter() - start
    if done.returncode not in (0, 1):
        result.errors[mode] = failure(done)
        return None
    try:
        problems = json.loads(done.stdout or "[]")
    except json.JSONDecodeError as error:
        result.errors[mode] = f"output is not JSON ({error})"
        return None
    for problem in problems:
        result.rows.append(Row(
            mode, repo, str(problem.get("path", "?")), int(problem.get("line") or 0),
            str(problem.get("code", "?")), str(problem.get("message", "")),
        ))
    return problems


def fix_codes(problems: list[dict], contents: dict[str, bytes]) -> dict[tuple[str, int], set[str]]:
    """(path, line) -> codes of the init-mode problems whose safe fix edits that line (or sit on it)."""
    codes: dict[tuple[str, int], set[str]] = defaultdict(set)
    for problem in problems:
        fix = problem.get("fix")
        if not isinstance(fix, dict) or fix.get("applicability", "safe") != "safe":
            continue
        path = str(problem.get("path"))
        codes[(path, int(problem.get("line") or 0))].add(str(problem.get("code")))
        data = contents.get(path)
        for edit in fix.get("edits") or ():
            if data is not None and isinstance(edit, dict) and isinstance(edit.get("start"), int):
                codes[(path, line_of(data, edit["start"]))].add(str(problem.get("code")))
    return codes


def measure(source: Path, work: Path, env: dict[str, str]) -> RepoResult:
    """The three modes on a copy of `source` under `work`."""
    repo = source.name
    result = RepoResult(repo)
    copy = work / repo
    try:
        shutil.copytree(source, copy, symlinks=True)
    except (OSError, shutil.Error) as error:
        for mode in MODES:
            result.errors[mode] = f"copy failed: {error}"[:400]
        return result
    check_json(repo, "zero", copy, env, result)

    start = time.perf_counter()
    try:
        done = run_portlint(["init", "--force"], copy, env)
        init_error = None if done.returncode in (0, 1) else failure(done)
    except subprocess.TimeoutExpired:
        init_error = f"init: timeout after {TIMEOUT} s"
    result.seconds["init-write"] = time.perf_counter() - start
    if init_error is None and not any((copy / name).is_file() for name in (".portlint.yaml", ".portlint.yml")):
        init_error = "init wrote no .portlint.yaml"
    if init_error is not None:
        result.errors["init"] = result.errors["fix"] = f"init: {init_error}"
        return result
    problems = check_json(repo, "init", copy, env, result) or []

    before = snapshot(copy)
    start = time.perf_counter()
    try:
        done = run_portlint(["--fix", "-q"], copy, env)
        if done.returncode not in (0, 1):
            result.errors["fix"] = failure(done)
    except subprocess.TimeoutExpired:
        result.errors["fix"] = f"timeout after {TIMEOUT} s"
    result.seconds["fix"] = time.perf_counter() - start
    after = snapshot(copy)
    codes = fix_codes(problems, before)
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        result.fix_files += 1
        if old is None or new is None:
            state = "created" if old is None else "deleted"
            result.rows.append(Row("fix", repo, path, 0, "-", f"(file {state})"))
            continue
        for line, text_before, text_after in line_edits(old, new):
            code = ",".join(sorted(codes.get((path, line), ()))) or "-"
            result.rows.append(Row("fix", repo, path, line, code, f"{text_before.strip()} → {text_after.strip()}"))
    return result


def counts_line(rows: list[Row]) -> str:
    by_code = Counter(row.code for row in rows)
    return " ".join(f"{code}x{count}" for code, count in sorted(by_code.items(), key=lambda item: (-item[1], item[0])))


def report(results: list[RepoResult], width: int = 13) -> str:
    """Counts per repository and rule for each mode, the lines/files --fix changed, then totals."""
    out = []
    width = max([len(result.repo) for result in results] + [width])
    for result in results:
        for mode in MODES:
            rows = [row for row in result.rows if row.mode == mode]
            if mode in result.errors:
                text = f"ERROR {result.errors[mode]}"
            elif mode == "fix":
                text = f"{len(rows)} lines in {result.fix_files} files changed"
                if rows:
                    text += f" ({counts_line(rows)})"
            else:
                text = f"{len(rows)} problems" + (f": {counts_line(rows)}" if rows else "")
            seconds = result.seconds.get(mode)
            timing = f"  [{seconds:.1f} s]" if seconds is not None else ""
            out.append(f"{result.repo:<{width}}  {mode:<4}  {text}{timing}")
    out.append("")
    for mode in MODES:
        rows = [row for result in results for row in result.rows if row.mode == mode]
        failed = sum(mode in result.errors for result in results)
        unit = "lines changed" if mode == "fix" else "problems"
        text = f"{'total':<{width}}  {mode:<4}  {len(rows)} {unit}" + (f": {counts_line(rows)}" if rows else "")
        out.append(text + (f"  ({failed} repositories failed)" if failed else ""))
    return "\n".join(out)


def write_rows(path: Path, rows: list[Row]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write("\t".join(HEADER) + "\n")
        for row in rows:
            handle.write("\t".join(escape(str(value)) for value in
                                   (row.mode, row.repo, row.path, row.line, row.code, row.message)) + "\n")


def read_rows(path: Path) -> list[Row]:
    rows = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, text in enumerate(lines[1:], start=2):
        parts = text.split("\t")
        if len(parts) != len(HEADER):
            sys.exit(f"realworld.py: error: {path}:{number}: expected {len(HEADER)} tab-separated fields")
        mode, repo, rel, line, code, message = parts
        rows.append(Row(mode, repo, rel, int(line), code, message))
    return rows


def read_verdicts(path: Path) -> dict[tuple[str, str, int, str, str], list[str]]:
    """Key (repo, path, line, code, mode) -> its verdicts in file order (one per finding of that key)."""
    verdicts: dict[tuple[str, str, int, str, str], list[str]] = defaultdict(list)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = tuple(lines[0].split("\t")) if lines else ()
    if header[: len(VERDICT_HEADER)] != VERDICT_HEADER:
        sys.exit(f"realworld.py: error: {path}: header must be {' '.join(VERDICT_HEADER)}")
    for number, text in enumerate(lines[1:], start=2):
        parts = text.split("\t")
        if len(parts) < len(VERDICT_HEADER) - 1:
            sys.exit(f"realworld.py: error: {path}:{number}: expected {len(VERDICT_HEADER)} tab-separated fields")
        repo, rel, line, code, mode, verdict = parts[:6]
        if verdict not in ("true", "false"):
            sys.exit(f"realworld.py: error: {path}:{number}: verdict must be true or false, got {verdict!r}")
        verdicts[(repo, rel, int(line), code, mode)].append(verdict)
    return verdicts


def precision(rows: list[Row], verdicts: dict[tuple[str, str, int, str, str], list[str]]) -> str:
    """Precision per rule and mode over the findings with a verdict, then the findings without one."""
    seen: Counter[tuple[str, str, int, str, str]] = Counter()
    tally: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    missing = []
    for row in rows:
        index = seen[row.key]
        seen[row.key] += 1
        given = verdicts.get(row.key, [])
        verdict = given[index] if index < len(given) else (given[0] if given and len(set(given)) == 1 else None)
        if verdict is None:
            missing.append(row)
            tally[(row.code, row.mode)]["none"] += 1
        else:
            tally[(row.code, row.mode)][verdict] += 1
    out = [f"{'code':<7} {'mode':<4} {'n':>5} {'true':>5} {'false':>5} {'none':>5}  precision"]
    for (code, mode), count in sorted(tally.items(), key=lambda item: (item[0][0], MODES.index(item[0][1])
                                                                           if item[0][1] in MODES else 9)):
        judged = count["true"] + count["false"]
        value = f"{100 * count['true'] / judged:.1f}%" if judged else "-"
        out.append(f"{code:<7} {mode:<4} {sum(count.values()):>5} {count['true']:>5} {count['false']:>5} "
                   f"{count['none']:>5}  {value}")
    for mode in MODES:
        judged = [c for (code, m), c in tally.items() if m == mode]
        true = sum(c["true"] for c in judged)
        false = sum(c["false"] for c in judged)
        if true + false:
            out.append(f"{'all':<7} {mode:<4} {true + false + sum(c['none'] for c in judged):>5} {true:>5} "
                       f"{false:>5} {sum(c['none'] for c in judged):>5}  {100 * true / (true + false):.1f}%")
    out.append(f"\n{len(missing)} findings without a verdict" + (":" if missing else ""))
    out.extend("\t".join(escape(str(v)) for v in (r.repo, r.path, r.line, r.code, r.mode, r.message)) for r in missing)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", nargs="?", type=Path, help="directory of git repositories (default: the corpus)")
    parser.add_argument("--out", type=Path, default=Path("realworld.tsv"), help="triage file to write")
    parser.add_argument("--repos", help="comma-separated repository names (default: all)")
    parser.add_argument("--keep", type=Path, help="keep the copies (with init's config and --fix's edits) here")
    parser.add_argument("--triage", type=Path, help="verdict file: print precision per rule and mode")
    parser.add_argument("--from", dest="from_file", type=Path,
                        help="read the findings of an earlier triage file instead of running portlint")
    args = parser.parse_args(argv)

    if args.from_file is not None:
        if not args.from_file.is_file():
            parser.error(f"--from {args.from_file}: no such file")
        rows = read_rows(args.from_file)
        if args.repos:
            wanted = {name.strip() for name in args.repos.split(",") if name.strip()}
            rows = [row for row in rows if row.repo in wanted]
    else:
        corpus = args.dir if args.dir is not None else default_corpus()
        if not corpus.is_dir():
            parser.error(f"{corpus}: not a directory")
        available = sorted(path.name for path in corpus.iterdir() if (path / ".git").exists())
        if args.repos:
            wanted = [name.strip() for name in args.repos.split(",") if name.strip()]
            unknown = [name for name in wanted if name not in available]
            if unknown:
                parser.error(f"no repository {', '.join(unknown)} in {corpus} (has: {', '.join(available)})")
            available = wanted
        if not available:
            parser.error(f"{corpus}: no git repository in it")
        work = Path(tempfile.mkdtemp(prefix="portlint-realworld-"))
        env = dict(os.environ, XDG_CACHE_HOME=str(work / ".cache"), NO_COLOR="1")
        env.pop("PORTLINT_CONFIG", None)
        results = []
        width = max(len(name) for name in available)
        try:
            for name in available:
                results.append(measure(corpus / name, work, env))
                print(report([results[-1]], width).split("\n\n")[0], flush=True)
            if args.keep is not None:
                args.keep.mkdir(parents=True, exist_ok=True)
                for name in available:
                    target = args.keep / name
                    if target.exists():
                        shutil.rmtree(target)
                    if (work / name).exists():
                        shutil.move(str(work / name), target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        rows = [row for result in results for row in result.rows]
        print()
        print(report(results, width).split("\n\n", 1)[1])
        write_rows(args.out, rows)
        print(f"wrote {len(rows)} rows to {args.out}")

    if args.triage is not None:
        if not args.triage.is_file():
            parser.error(f"--triage {args.triage}: no such file")
        print()
        print(precision(rows, read_verdicts(args.triage)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
