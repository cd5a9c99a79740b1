"""How fast `portlint check` is next to just reading the repository (the performance log, docs/performance.md). Not a test.

    python tests/bench/bench.py [DIR]              # every git repository under DIR (default /work/corpus)
    python tests/bench/bench.py --replica trl      # linearity: a replica of one of them (--times copies) against 1x
    python tests/bench/bench.py --copies N         # synthetic: N copies of fixtures/demo plus filler files
    python tests/bench/bench.py --tree N           # synthetic: an N-file tree with few ports, one demo among filler
    python tests/bench/bench.py --plain outline    # also the same installation taking a fast path's plain way

Each repository is copied to a temporary directory first (portlint writes its
cache at the root). Per repository it prints the median of RUNS rounds, each
round whole fresh processes in turn: the read floor (git ls-files, read every
file, portlint's byte prefilter, in one process), portlint cold (a fresh cache:
`.portlint_cache/` removed first) and portlint warm (nothing changed since the
cold run just before). Alternating the three spreads a neighbour's load over
all of them alike. `--portlint PATH` measures another installation; `--before
PATH` measures a second one in the same rounds, and `--plain NAME` (repeatable)
the same installation with PORTLINT_PLAIN=NAME (portlint/speed/switch.py): each
variant's cold and warm run in every round, the variants taking turns at going
first, each against the same floor. `--markdown` prints the tables in Markdown,
for the performance log. Peak memory is the largest resident set of a run's
processes (the pool's workers included).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
CORPUS = Path("/work/corpus")
RUNS = 5
CACHE = ".portlint_cache"
FLOOR = """import subprocess
try:
    from portlint.stages.prefilter import prefilter
except ImportError:  # an installation from before the prefilter was a stage of its own
    from portlint.stages.discover import prefilter
pattern = prefilter()
listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, check=True).stdout
for name in filter(None, listing.split(b"\\0")):
    try:
        with open(name, "rb") as handle:
            pattern.search(handle.read())
    except OSError:
        pass
"""

# Filler files hold no port. Each is a header and a block repeated `blocks + index % 24`
# times, formatted with c (copy), i (index), k (block), k1 = k + 1, k10 = 10 * k, b = 2 ** (k % 8).
PY_HEAD = '"""Training utilities (stage {c}-{i}); support code for the report writers."""\nimport logging\n\nimport torch\n'
PY_BLOCK = '''

def stage_{c}_{i}_step_{k}(batch: dict[str, torch.Tensor], scale: float = {k1}.0) -> torch.Tensor:
    """Step {k}: normalise, mask and reduce the batch."""
    values = batch["logits"].float() / scale
    mask = batch["mask"].to(values.dtype)
    logging.debug("stage {c}-{i} step {k}: %s", tuple(values.shape))
    return (values * mask).sum(dim=-1) / mask.sum(dim=-1).clamp(min=1.0)
'''
YAML_HEAD = "# Recipe {c}-{i}: defaults for this experiment\nexperiment:\n  name: recipe-{c}-{i}\n"
YAML_BLOCK = '''stage_{k}:
  learning_rate: {k1}.0e-6
  warmup_steps: {k10}
  batch_size: {b}  # global batch
  datasets: ["math-{k}", "code-{k}"]
  scheduler: {{name: cosine, min_lr_ratio: 0.05}}
'''
SH_HEAD = '#!/bin/bash\nset -euo pipefail\n# Launch helper {c}-{i}\nEXP_NAME="run-{c}-{i}"\n'
SH_BLOCK = '''if [[ -d "$CKPT_DIR/step_{k}" ]]; then
  export RESUME_STEP={k}
  uv run python -m tools.convert --step {k} --out "$OUT_DIR/{k}" >>"$LOG_DIR/convert.log" 2>&1
fi
'''
MD_HEAD = "# Guide {c}-{i}\n"
MD_BLOCK = '''
## Step {k}

Run `uv run examples/run_{k}.py` and compare the report with the reference. The loss
should fall below {k1}.5 within {k1}00 steps; if it does not, lower the learning rate
(`policy.optimizer.kwargs.lr`) and check the data mix.
'''
# (path, header, block, blocks, files per copy): 12 Python, 7 YAML, 8 shell, 3 Markdown.
FILLERS = (
    ("nemo_rl/algorithms/stage_{i}.py", PY_HEAD, PY_BLOCK, 24, 12),
    ("examples/configs/recipes/recipe_{i}.yaml", YAML_HEAD, YAML_BLOCK, 36, 7),
    ("tools/launch_{i}.sh", SH_HEAD, SH_BLOCK, 36, 8),
    ("docs/guides/guide_{i}.md", MD_HEAD, MD_BLOCK, 20, 3),
)


def filler(header: str, block: str, blocks: int, copy: int, index: int) -> str:
    body = "".join(
        block.format(c=copy, i=index, k=k, k1=k + 1, k10=10 * k, b=2 ** (k % 8)) for k in range(blocks + index % 24)
    )
    return header.format(c=copy, i=index) + body


def root_config(copies: int) -> str:
    """The demo's layout, once at the root, with file globs that reach into every copy."""
    from ruamel.yaml import YAML

    config = YAML(typ="safe", pure=True).load(DEMO / ".portlint.yaml")
    for band in config["bands"].values():
        for site in band.get("sites", ()):
            if isinstance(site, dict) and "files" in site:
                site["files"] = "**/" + site["files"]
    config["frozen"] = [
        {**pair, "copies": f"demo-{c:03d}/{pair['copies']}", "source": [f"demo-{c:03d}/{s}" for s in pair["source"]]}
        for c in range(copies) for pair in config.get("frozen", ())
    ]
    return json.dumps(config, indent=2) + "\n"  # JSON is YAML


def build_demo(root: Path, copies: int) -> None:
    for copy in range(copies):
        target = root / f"demo-{copy:03d}"
        shutil.copytree(DEMO, target, ignore=lambda d, names: [".portlint.yaml"] if Path(d) == DEMO else [])
        for pattern, header, block, blocks, count in FILLERS:
            for index in range(count):
                path = target / pattern.format(i=index)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(filler(header, block, blocks, copy, index))
    (root / ".portlint.yaml").write_text(root_config(copies))
    _git_init(root)


def build_tree(root: Path, files: int) -> None:
    """A tree of `files` files as a monorepo holds them, few of them with a port: one copy of
    the demo, then filler files of the four kinds in turn (a few blocks each, a kilobyte or
    three), a hundred to a folder. Every file's bytes are its own."""
    shutil.copytree(DEMO, root / "demo", ignore=lambda d, names: [".portlint.yaml"] if Path(d) == DEMO else [])
    listed = sum(1 for path in (root / "demo").rglob("*") if path.is_file())
    for index in range(max(files - listed, 0)):
        pattern, header, block, _, _ = FILLERS[index % len(FILLERS)]
        name = Path(pattern.format(i=index))
        path = root / f"part{index // 10000:02d}" / f"group{index // 100 % 100:02d}" / name.parent.name / name.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(filler(header, block, 1, index, index % 6))  # 1-6 blocks; `index` as the copy: bytes of its own
    _git_init(root)


def build_replica(source: Path, root: Path, times: int) -> None:
    """`times` copies of source's files under r00/, r01/, ...; copy k ends in k extra newlines,
    so no two copies share content (a cache or memo by content cannot make a copy free)."""
    listing = subprocess.run(["git", "-C", str(source), "ls-files", "-z"], capture_output=True, check=True).stdout
    names = [name.decode() for name in listing.split(b"\0") if name]
    for copy in range(times):
        for name in names:
            origin, target = source / name, root / f"r{copy:02d}" / name
            if origin.is_symlink() or not origin.is_file():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(origin.read_bytes() + b"\n" * copy)
    _git_init(root)


def _git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


# As a user runs it: bytecode cached (an environment that forbids writing it would make every
# run compile portlint from source), the cache not switched off.
ENV = {name: value for name, value in os.environ.items() if name not in ("PYTHONDONTWRITEBYTECODE", "PORTLINT_NO_CACHE")}


def _run(command: list[str], cwd: Path, exit_codes: tuple[int, ...] = (0,), env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system, the process and its children) and the peak
    resident set in KiB (of the process or a child it waited for): on a machine others load,
    wall time says what a user waits, CPU time what the work costs."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env or ENV)
    assert process.stderr is not None
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in exit_codes:
        sys.exit(f"{command[0]} exited {process.returncode} in {cwd}: {stderr.decode(errors='replace')[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def portlint_command(path: str | None) -> list[str]:
    if path:
        return [path]
    portlint = Path(sys.executable).with_name("portlint")  # not a pyenv shim: ~70 ms of bash per run
    if not portlint.exists():
        portlint = Path(shutil.which("portlint") or sys.exit("portlint is not on PATH"))
    return [str(portlint)]


def floor_python(portlint: list[str]) -> str:
    """The interpreter of the portlint measured, so the floor uses that version's prefilter."""
    first = Path(portlint[0]).read_bytes()[:200].split(b"\n", 1)[0]
    if first.startswith(b"#!") and b"python" in first:
        return first[2:].decode().strip()
    return sys.executable


class Variant(NamedTuple):
    """One portlint measured: its label in the tables, its command, its environment."""

    label: str
    command: list[str]
    env: dict[str, str]


def measure(root: Path, variants: list[Variant], runs: int) -> list[dict[str, float]]:
    """Per variant, median floor, cold and warm seconds (wall, and CPU as `*_cpu`) and the
    largest peak memory of a cold run (`cold_kib`) over `runs` alternating rounds, after one
    warm-up round; the floor is the first variant's interpreter's. The variants take turns at
    going first (a round's order is the last one's reversed), so none always runs right after
    the floor."""
    python = floor_python(variants[0].command)
    times: list[dict[str, list[float]]] = [{} for _ in variants]
    for round_ in range(runs + 1):
        floor = _run([python, "-c", FLOOR], root)
        turns = list(zip(variants, times))
        for variant, kept in turns if round_ % 2 == 0 else reversed(turns):
            check = [*variant.command, "check", "--exit-zero", "-q"]
            shutil.rmtree(root / CACHE, ignore_errors=True)
            cold = _run(check, root, env=variant.env)
            warm = _run(check, root, env=variant.env)
            if round_:
                for name, (wall, cpu, kib) in (("floor", floor), ("cold", cold), ("warm", warm)):
                    kept.setdefault(name, []).append(wall)
                    kept.setdefault(f"{name}_cpu", []).append(cpu)
                    kept.setdefault(f"{name}_kib", []).append(kib)
        shutil.rmtree(root / CACHE, ignore_errors=True)
    return [{name: (max if name.endswith("_kib") else statistics.median)(values) for name, values in kept.items()}
            for kept in times]


def size(root: Path) -> tuple[int, float]:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout.split(b"\0")
    files = [name.decode() for name in files if name]
    return len(files), sum((root / name).stat().st_size for name in files if (root / name).is_file()) / 2**20


class Table:
    """The rows of a run, printed as they come (as text) or at the end (as Markdown)."""

    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown
        self.rows: list[dict] = []
        if not markdown:
            print(f"{'':<35} {'--------------- wall ---------------':>44}   {'---------------- CPU ----------------':>44}")
            columns = f"{'floor s':>8} {'cold s':>7} {'warm s':>7} {'cold/floor':>10} {'warm/floor':>10}"
            print(f"{'repository':<22} {'files':>6} {'MiB':>5} {columns}   {columns} {'cold MiB':>8}")

    def row(self, name: str, root: Path, figures: dict[str, float], variant: str = "") -> dict:
        files, mib = size(root)
        found = {"repository": name, "variant": variant, "files": files, "mib": round(mib, 2), **figures}
        self.rows.append(found)
        if not self.markdown:
            cells = []
            for suffix in ("", "_cpu"):
                floor, cold, warm = (figures[f"{n}{suffix}"] for n in ("floor", "cold", "warm"))
                cells.append(f"{floor:>8.3f} {cold:>7.3f} {warm:>7.3f} {cold / floor:>9.2f}x {warm / floor:>9.2f}x")
            label = f"{name} ({variant})" if variant else name
            print(f"{label:<22} {files:>6} {mib:>5.1f} {cells[0]}   {cells[1]} {figures['cold_kib'] / 1024:>8.0f}", flush=True)
        return found

    def print_markdown(self) -> None:
        variants = len({row["variant"] for row in self.rows}) > 1
        head = ["repository", *(["variant"] if variants else []), "files", "MiB", "floor", "cold", "warm", "cold/floor",
                "warm/floor", "CPU cold/floor", "CPU warm/floor", "cold peak MiB"]
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for row in self.rows:
            cells = [row["repository"], *([row["variant"] or "-"] if variants else []), str(row["files"]),
                     f"{row['mib']:.1f}", f"{row['floor']:.3f} s", f"{row['cold']:.3f} s", f"{row['warm']:.3f} s",
                     f"{row['cold'] / row['floor']:.2f}x", f"{row['warm'] / row['floor']:.2f}x",
                     f"{row['cold_cpu'] / row['floor_cpu']:.2f}x", f"{row['warm_cpu'] / row['floor_cpu']:.2f}x",
                     f"{row['cold_kib'] / 1024:.0f}"]
            print("| " + " | ".join(cells) + " |")
        print()


def summary(results: list[dict], variant: str = "", markdown: bool = False) -> None:
    for suffix, what in (("", "wall"), ("_cpu", "CPU")):
        cold = [r[f"cold{suffix}"] / r[f"floor{suffix}"] for r in results]
        warm = [r[f"warm{suffix}"] / r[f"floor{suffix}"] for r in results]
        label = f"{what} ({variant})" if variant else what
        line = (f"{label}: median cold/floor {statistics.median(cold):.2f}x (worst {max(cold):.2f}x), "
                f"median warm/floor {statistics.median(warm):.2f}x (worst {max(warm):.2f}x)")
        print(f"- {line}" if markdown else line)


def corpus(directory: Path, only: list[str], variants: list[Variant], runs: int, table: Table) -> list[dict]:
    repositories = sorted(p for p in directory.iterdir() if (p / ".git").exists() and (not only or p.name in only))
    if not repositories:
        sys.exit(f"no git repositories under {directory} (unpack the corpus with /work/shared/corpus/unpack.sh)")
    for repository in repositories:
        with tempfile.TemporaryDirectory(prefix="portlint-bench-") as temp:
            root = Path(temp) / repository.name
            shutil.copytree(repository, root, symlinks=True, ignore=shutil.ignore_patterns(CACHE))
            for variant, figures in zip(variants, measure(root, variants, runs)):
                table.row(repository.name, root, figures, variant.label)
    if table.markdown:
        table.print_markdown()
    for variant in variants:
        summary([r for r in table.rows if r["variant"] == variant.label], variant.label, table.markdown)
    return table.rows


def replica(source: Path, times: int, variant: Variant, runs: int, table: Table) -> list[dict]:
    results = []
    for copies in (1, times):
        with tempfile.TemporaryDirectory(prefix="portlint-bench-") as temp:
            root = Path(temp) / "repo"
            build_replica(source, root, copies)
            results.append(table.row(f"{source.name} x{copies}", root, measure(root, [variant], runs)[0]))
    if table.markdown:
        table.print_markdown()
    one, many = results
    for suffix, what in (("", "wall"), ("_cpu", "CPU")):
        line = (f"{times}x replica ({what}): cold {many['cold' + suffix] / one['cold' + suffix]:.2f}x the 1x time, "
                f"warm {many['warm' + suffix] / one['warm' + suffix]:.2f}x, floor {many['floor' + suffix] / one['floor' + suffix]:.2f}x")
        print(f"- {line}" if table.markdown else line)
    peak = f"peak memory of a cold run: {one['cold_kib'] / 1024:.0f} MiB at 1x, {many['cold_kib'] / 1024:.0f} MiB at {times}x"
    print(f"- {peak}" if table.markdown else peak)
    return results


def demo(copies: int, keep: Path | None, variant: Variant, runs: int, table: Table) -> list[dict]:
    def yamllint(root: Path, result: dict) -> None:
        if importlib.util.find_spec("yamllint") is None:
            return
        files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
        yaml_files = [name for name in files if name.endswith((".yaml", ".yml"))]
        lint = statistics.median(
            _run([sys.executable, "-m", "yamllint", "-f", "parsable", *yaml_files], root, (0, 1))[0] for _ in range(runs)
        )
        print(f"yamllint over {len(yaml_files)} YAML files: {lint:.3f} s (cold/yamllint {result['cold'] / lint:.2f})")

    return _synthetic(f"demo x{copies}", lambda root: build_demo(root, copies), keep, variant, runs, table, yamllint)


def tree(files: int, keep: Path | None, variant: Variant, runs: int, table: Table) -> list[dict]:
    return _synthetic(f"tree of {files} files", lambda root: build_tree(root, files), keep, variant, runs, table)


def _synthetic(label: str, build: Callable[[Path], None], keep: Path | None, variant: Variant, runs: int, table: Table,
               after: Callable[[Path, dict], None] = lambda root, result: None) -> list[dict]:
    """One row for a repository `build` makes (in `keep`, kept, or in a temporary folder)."""
    with tempfile.TemporaryDirectory(prefix="portlint-bench-") as temp:
        root = keep or Path(temp) / "repo"
        root.mkdir(parents=True)
        build(root)
        result = table.row(label, root, measure(root, [variant], runs)[0])
        if table.markdown:
            table.print_markdown()
        after(root, result)
        if keep:
            shutil.rmtree(root / CACHE, ignore_errors=True)
    return [result]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=CORPUS, help="a directory of git repositories (the corpus)")
    parser.add_argument("--only", default="", help="comma-separated repository names to measure")
    parser.add_argument("--replica", metavar="REPO", help="time a replica of DIR/REPO against the repository once")
    parser.add_argument("--times", type=int, default=10, help="copies in the --replica run (default 10)")
    parser.add_argument("--copies", type=int, help="synthetic: N copies of fixtures/demo instead of the corpus")
    parser.add_argument("--tree", type=int, metavar="N", help="synthetic: an N-file tree with few ports instead of the corpus")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="--copies, --tree: build in DIR (a new directory) and keep it")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"rounds per figure, median taken (default {RUNS})")
    parser.add_argument("--portlint", help="the portlint executable to measure (default: beside this Python)")
    parser.add_argument("--before", help="corpus: another portlint executable, measured in the same rounds")
    parser.add_argument("--plain", action="append", default=[], metavar="NAME",
                        help="corpus: also the same portlint with PORTLINT_PLAIN=NAME, in the same rounds (repeatable)")
    parser.add_argument("--markdown", action="store_true", help="print the tables in Markdown (for docs/performance.md)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    portlint = portlint_command(args.portlint)
    variants = [Variant("", portlint, ENV)]
    if args.before:
        variants.append(Variant("before", [args.before], ENV))
    variants += [Variant(f"plain {name}", portlint, {**ENV, "PORTLINT_PLAIN": name}) for name in args.plain]
    print(f"portlint: {' and '.join(v.label or v.command[0] for v in variants)}; {args.runs} rounds; "
          f"{os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    if args.markdown:
        print()
    table = Table(args.markdown)
    if args.copies:
        results = demo(args.copies, args.keep, variants[0], args.runs, table)
    elif args.tree:
        results = tree(args.tree, args.keep, variants[0], args.runs, table)
    elif args.replica:
        results = replica(args.directory / args.replica, args.times, variants[0], args.runs, table)
    else:
        results = corpus(args.directory, [n for n in args.only.split(",") if n], variants, args.runs, table)
    print(f"{chr(10) if args.markdown else ''}load at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
