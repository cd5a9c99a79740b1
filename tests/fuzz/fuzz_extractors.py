"""On-demand fuzzing of the extractors and the fixer (not run by pytest or CI).

    pip install atheris                      # optional: coverage-guided (libFuzzer)
    python tests/fuzz/fuzz_extractors.py --target all --seconds 300
    python tests/fuzz/fuzz_extractors.py --target yaml -- -max_len=4096 corpus/

Targets: `yaml`, `shell`, `python`, `markdown` (one extractor's `extract(Source,
NameFilter)`), `edits` (`portlint.stages.fix.apply` / `compatible` on random edits),
`engine` (the engine's fix loop on one file of a random kind, in memory), `frozen`
(the fix loop on a YAML source and its frozen copy: the input's two halves), and
`all` (the input's first byte picks one). Without atheris a built-in mutation fuzzer
(seeds from fixtures/, byte flips, splices and port-shaped insertions) runs for
the time budget instead. Any exception, or a broken invariant, is a finding: the
input is saved under tests/fuzz/findings/ (git-ignored) and the run stops.

Invariants checked on every input:
* an extractor never raises; a file it cannot read comes back as `error` (PL001);
* every site's span lies inside the file, holds the digits of its value (unless
  computed), and its line/column are the span's position; suppressions' spans too;
* `apply` splices exactly (or refuses overlaps), `compatible` never overlaps;
* the fix loop never raises, a value fix (PL301, PL401) rewrites nothing but the
  digits of a literal, the output is exactly the reported edits spliced in round
  by round, it re-extracts without error, and fixing it again changes nothing.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = Path(__file__).resolve().parent / "findings"
KINDS = ("yaml", "shell", "python", "markdown")
SUFFIX = {"yaml": "yaml", "shell": "sh", "python": "py", "markdown": "md"}
LAYOUT = """\
ephemeral_floor: 9000
frozen:
  - copies: reference/*.yaml
    source: "{name}"
bands:
  master:
    range: 1400-1999
    sites: [master_port_range_low, master_port_range_high, MASTER_PORT_RANGE_LOW, MASTER_PORT_RANGE_HIGH]
  gym:
    range: 5000-5999
    sites: [gym_port_low, gym_port_high, GYM_PORT_LOW, GYM_PORT_HIGH, --gym-port-low]
  dashboard:
    port: 8265
    sites: [dashboard_port, DASHBOARD_PORT, --dashboard-port]
"""
# Port-shaped fragments the mutator inserts (the coverage-guided fuzzer finds its own).
TOKENS = [
    b"master_port_range_low: 1500", b"MASTER_PORT_RANGE_HIGH=2999", b"--dashboard-port 9000", b"gym_port_low = '5500'",
    b"${GYM_PORT_LOW:-5100}", b"$((${DASHBOARD_PORT} + 1))", b"# portlint: ignore[PL301]", b"<!-- portlint: ignore -->",
    b"&a 1500", b"*a", b"<<: *a", b"---\n", b'"', b"'", b"`", b"\\\n", b"<<EOF\n", b"\nEOF\n", b"\r\n", b"\r", b"\t",
    b"\xef\xbb\xbf", b"\xe2\x80\xa8", b"\x85", b"| `MASTER_PORT_RANGE_LOW=1500` |\n|---|\n", b"```\n", b"os.environ.get(",
    b"def f(dashboard_port=8000):\n", b"class C:\n    GYM_PORT_HIGH = 6001\n", b"{", b"}", b"[", b"]", b"(", b")",
]


class Finding(AssertionError):
    """A broken invariant (an uncaught exception is a finding too)."""


# -- targets ----------------------------------------------------------------------------
def fuzz_extractor(kind: str, data: bytes) -> None:
    from portlint.model.source import Source

    try:
        source = Source(f"fuzz.{SUFFIX[kind]}", data)
    except UnicodeDecodeError:
        return  # the engine reports it as PL001 before any extractor runs
    extraction = importlib.import_module(f"portlint.stages.extract.{kind}").extract(source, NAMES)
    for site in extraction.sites:
        if not 0 <= site.start <= site.end <= len(data):
            raise Finding(f"{kind}: span {site.start}-{site.end} outside the file ({len(data)} bytes): {site}")
        if not site.derived and data[site.start:site.end] != str(site.value).encode() and site.kind != "comment":
            raw = data[site.start:site.end].replace(b"_", b"")
            if not raw.isdigit() or int(raw) != site.value:
                raise Finding(f"{kind}: span {data[site.start:site.end]!r} does not hold {site.value}: {site}")
        if (site.line, site.column) != source.position(site.start):
            raise Finding(f"{kind}: {site.name} at {site.line}:{site.column}, its span at {source.position(site.start)}")
    for suppression in extraction.suppressions:
        if not 0 <= suppression.start < suppression.end <= len(data):
            raise Finding(f"{kind}: suppression span {suppression.start}-{suppression.end} outside the file")
    if extraction.error and (extraction.error_line < 1 or extraction.error_column < 1):
        raise Finding(f"{kind}: error at {extraction.error_line}:{extraction.error_column}: {extraction.error}")


def fuzz_edits(data: bytes) -> None:
    from portlint.model.edits import Edit, Fix
    from portlint.stages.fix import OverlappingEdits, apply, compatible

    rng = random.Random(data)
    source = data[: len(data) // 2]
    edits = []
    for _ in range(rng.randint(0, 6)):
        start = rng.randint(0, len(source) + 1)
        edits.append(Edit(start, start + rng.randint(-1, 4), bytes(rng.randint(48, 57) for _ in range(rng.randint(0, 4)))))
    try:
        result = apply(source, edits)
    except OverlappingEdits:
        ordered = sorted(edits)
        bad = any(e.end < e.start or e.end > len(source) for e in edits)
        bad = bad or any(b.start < a.end for a, b in zip(ordered, ordered[1:]))
        if not bad:
            raise Finding(f"apply refused disjoint edits {edits}") from None
    else:
        expected, cursor = b"", 0
        for edit in sorted(edits):
            expected += source[cursor:edit.start] + edit.text
            cursor = edit.end
        if result != expected + source[cursor:]:
            raise Finding(f"apply spliced {edits} wrongly")
    fixes = [Fix((e,)) for e in edits if e.start <= e.end]
    chosen = sorted(e for fix in compatible(fixes) for e in fix.edits)
    if any(b.start < a.end for a, b in zip(chosen, chosen[1:])):
        raise Finding(f"compatible kept overlapping fixes: {chosen}")


def fuzz_engine(kind: str, data: bytes) -> None:
    path = f"fuzz.{SUFFIX[kind]}"
    _fix_loop({path: (kind, data)})


def fuzz_frozen(data: bytes) -> None:
    half = len(data) // 2
    _fix_loop({"config.yaml": ("yaml", data[:half]), "reference/config.yaml": ("yaml", data[half:])})


def _engine(files: dict[str, tuple[str, bytes]]):  # noqa: ANN202 - a check's session whose repository is `files`
    return ENGINE(files)


class _Fixing:
    """A session over files in memory, with the engine's fix loop (`fix`)."""

    def __init__(self, session) -> None:  # noqa: ANN001
        self.session = session

    def extract(self, path: str, kind: str, data: bytes):  # noqa: ANN201
        return self.session.extract(path, kind, data)

    def check(self, files: dict):  # noqa: ANN201
        return self.session.check(files)

    def fix(self, files: dict):  # noqa: ANN201
        from portlint.stages.fix import fix_loop

        return fix_loop(files, self.session.check, self.session.extract, unsafe=False)


def _fix_loop(files: dict[str, tuple[str, bytes]]) -> None:
    """The engine's fix of in-memory files must be the reported edits, spliced in round by round."""
    from portlint.stages.fix import apply, compatible

    engine = _engine(files)
    outcome = engine.fix({path: engine.extract(path, kind, data) for path, (kind, data) in files.items()})
    current = {path: data for path, (_, data) in files.items()}
    refused: set[str] = set()
    for _ in range(10):
        engine = _engine(files)
        problems = engine.check({path: engine.extract(path, files[path][0], data) for path, data in current.items()})
        for problem in problems:  # a value fix rewrites the digits of one literal, nothing around them
            if problem.code in ("PL301", "PL401") and problem.fix is not None:
                for edit in problem.fix.edits:
                    replaced = current[problem.path][edit.start:edit.end].replace(b"_", b"")
                    if not (replaced.isdigit() and edit.text.isdigit()):
                        raise Finding(f"{problem.code} at {problem.path}:{problem.line} rewrites {replaced!r} as {edit.text!r}")
        todo = {
            path: fixes for path in current if path not in refused
            and (fixes := compatible(p.fix for p in problems if p.path == path and p.fix is not None and p.fix.safe))
        }
        if not todo:
            break
        for path, fixes in todo.items():
            candidate = apply(current[path], (edit for fix in fixes for edit in fix.edits))
            if engine.extract(path, files[path][0], candidate).extraction.error:
                refused.add(path)
            else:
                current[path] = candidate
    else:
        current.update({path: files[path][1] for path in todo})  # no convergence: left as they were
    for path, (kind, data) in files.items():
        fixed = outcome.changed.get(path, (data, data))[1]
        if fixed != current[path]:
            raise Finding(f"engine: wrote {fixed!r} to {path}, the reported edits give {current[path]!r}")
        if fixed != data and _engine(files).extract(path, kind, fixed).extraction.error:
            raise Finding(f"engine: {path} no longer parses once fixed")
    if outcome.changed:
        after = {path: (kind, outcome.changed.get(path, (data, data))[1]) for path, (kind, data) in files.items()}
        engine = _engine(after)
        again = engine.fix({path: engine.extract(path, kind, data) for path, (kind, data) in after.items()})
        if again.changed:
            raise Finding(f"engine: a second fix changed {sorted(again.changed)} again")


# -- plumbing -----------------------------------------------------------------------------
def _engine_factory() -> Callable[[dict[str, tuple[str, bytes]]], _Fixing]:
    """Sessions of the engine over files in memory: the stages before the rules are skipped (the
    files are given), the rest is the engine's (layout, check, fix loop)."""
    from portlint import engine, rules
    from portlint.config.load import load_config
    from portlint.config.locate import find_config
    from portlint.model.layout import Claims
    from portlint.stages import check, discover, perfile
    from portlint.stages.layout import build, frozen

    root = Path(tempfile.mkdtemp(prefix="portlint-fuzz-"))
    (root / ".portlint.yaml").write_text(LAYOUT)
    config = load_config(find_config(root), root)
    options = engine.Options(fix=True, unsafe_fixes=False, write=False)
    names = engine.names_of(config)
    chosen = check.selection(rules, options.select, options.ignore, bool(config.bands))
    needs = build.needs_of((*chosen.rules, *chosen.judges, *chosen.beyond)) - {"usage"}

    def session(files: dict[str, tuple[str, bytes]]) -> _Fixing:
        kinds = {path: kind for path, (kind, _) in files.items()}
        pairs = tuple(frozen.pairs(config.frozen, sorted(p for p, k in kinds.items() if k == "yaml"), kinds.__contains__))
        mirrored = frozenset(p for pair in pairs for p in (pair.copy, pair.source) if p)
        prepared = engine.Prepared(config, False, names, discover.Listing(root, [], True, {}), pairs, mirrored, None,
                                   perfile.Scanned({}, [], [], {}, {}))
        ground = build.Ground(config, "", kinds, pairs, needs, names, Claims(config.bands), (), {},
                              lambda path: files[path][1] if path in files else None)
        return _Fixing(engine.Session(prepared, options, chosen, ground, {}, []))

    return session


def one_input(target: str, data: bytes) -> None:
    if target == "all":
        if not data:
            return
        target, data = TARGETS[data[0] % len(TARGETS)], data[1:]
    if target in KINDS:
        fuzz_extractor(target, data)
    elif target == "edits":
        fuzz_edits(data)
    elif target == "frozen":
        fuzz_frozen(data)
    elif target.startswith("engine"):
        kind = target.partition("-")[2] or KINDS[data[0] % 4 if data else 0]
        fuzz_engine(kind, data)
    else:
        raise SystemExit(f"unknown target {target}")


def seeds() -> list[bytes]:
    found = []
    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.is_file() and not path.is_symlink() and path.suffix in (".yaml", ".yml", ".sh", ".sub", ".sbatch", ".py", ".md"):
            data = path.read_bytes()
            if len(data) < 64 * 1024:
                found.append(data)
    return found or [b""]


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        choice = rng.randint(0, 5)
        at = rng.randint(0, len(data))
        if choice == 0 and data:
            data[min(at, len(data) - 1)] = rng.randint(0, 255)
        elif choice == 1:
            data[at:at] = rng.choice(TOKENS)
        elif choice == 2 and data:
            del data[at:at + rng.randint(1, 16)]
        elif choice == 3:
            other = rng.choice(pool)
            start = rng.randint(0, len(other))
            data[at:at] = other[start:start + rng.randint(1, 200)]
        elif choice == 4 and data:
            end = min(len(data), at + rng.randint(1, 64))
            data[at:at] = data[at:end] * rng.randint(1, 8)
        else:
            data[at:at] = str(rng.choice([0, 1, 80, 1023, 1400, 1999, 8265, 9000, 65535, 65536, 10**12])).encode()
    return bytes(data[: 256 * 1024])


def save(data: bytes, target: str, error: BaseException) -> Path:
    FINDINGS.mkdir(exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()[:12]
    path = FINDINGS / f"{target}-{digest}.bin"
    path.write_bytes(data)
    (FINDINGS / f"{target}-{digest}.txt").write_text(f"{type(error).__name__}: {error}\n")
    return path


def run_builtin(target: str, seconds: float, seed: int) -> int:
    rng = random.Random(seed)
    pool = seeds()
    corpus = list(pool)
    targets = TARGETS if target == "all" else (target,)
    executions, deadline = 0, time.monotonic() + seconds
    per_target = dict.fromkeys(targets, 0)
    while time.monotonic() < deadline:
        chosen = rng.choice(targets)
        data = mutate(rng, rng.choice(corpus), pool)
        try:
            one_input(chosen, data)
        except Exception as error:  # noqa: BLE001 - every exception is a finding
            print(f"FINDING in {chosen} after {executions} inputs: {type(error).__name__}: {error}")
            print(f"input saved to {save(data, chosen, error)}")
            return 1
        executions += 1
        per_target[chosen] += 1
        if rng.random() < 0.05 and len(corpus) < 5000:
            corpus.append(data)  # keep some mutants to mutate further
    print(f"built-in mutator: {executions} inputs in {seconds:.0f} s, no finding; per target: {per_target}")
    return 0


def run_atheris(target: str, libfuzzer_args: list[str]) -> None:
    import atheris

    def test_one_input(data: bytes) -> None:
        try:
            one_input(target, data)
        except Exception as error:
            save(data, target, error)
            raise

    atheris.Setup([sys.argv[0], *libfuzzer_args], test_one_input)
    atheris.Fuzz()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="all", help="yaml, shell, python, markdown, edits, engine[-KIND], all")
    parser.add_argument("--seconds", type=float, default=60.0, help="time budget")
    parser.add_argument("--seed", type=int, default=0, help="seed of the built-in mutator")
    parser.add_argument("--builtin", action="store_true", help="use the built-in mutator even when atheris is installed")
    parser.add_argument("libfuzzer_args", nargs="*", help="after --: arguments and corpus directories for libFuzzer")
    args = parser.parse_args()
    global NAMES, ENGINE  # built once: the fuzz loop runs them thousands of times a second
    try:
        import atheris
    except ImportError:
        atheris = None
    if atheris is None or args.builtin:
        ENGINE = _engine_factory()
        NAMES = ENGINE({}).session.prepared.names
        return run_builtin(args.target, args.seconds, args.seed)
    with atheris.instrument_imports(include=["portlint"]):
        import portlint.engine  # noqa: F401
        import portlint.stages.fix  # noqa: F401
        for kind in KINDS:
            importlib.import_module(f"portlint.stages.extract.{kind}")
    ENGINE = _engine_factory()
    NAMES = ENGINE({}).session.prepared.names
    corpus = [a for a in args.libfuzzer_args if not a.startswith("-")]
    if not corpus:  # start from the fixtures
        seed_dir = Path(tempfile.mkdtemp(prefix="portlint-fuzz-corpus-"))
        for index, data in enumerate(seeds()):
            prefix = b"" if args.target != "all" else bytes([index % len(TARGETS)])
            (seed_dir / f"seed-{index:05}").write_bytes(prefix + data)
        args.libfuzzer_args.append(str(seed_dir))
    if not any(a.startswith("-max_total_time") for a in args.libfuzzer_args):
        args.libfuzzer_args.insert(0, f"-max_total_time={int(args.seconds)}")
    with contextlib.suppress(SystemExit):
        run_atheris(args.target, args.libfuzzer_args)
    return 0


NAMES = ENGINE = None
TARGETS = (*KINDS, "edits", *(f"engine-{k}" for k in KINDS), "frozen")

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
