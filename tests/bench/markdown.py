"""The Markdown extractor on a corpus' Markdown: what it finds and how long it takes. Not a test.

    python tests/bench/markdown.py [--repos A B ...] [--rounds N] [--save FILE] [--compare FILE]

For every `*.md` file git lists in each repository (default: the tuning half of the corpus
under /work/corpus), in one process: the extraction with the zero-config name filter and with
a name filter that wants every name (`forced`), the sites and suppressions each gives, and the CPU time of each pass (the
minimum of N rounds), and the time of reading every file whole (`whole files`: the parser's
cost, without the byte tests that skip most files before it). `--save` writes the findings as JSON; `--compare` reads such a file and
prints every file whose findings differ (the figures of docs/performance.md come from here).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.stages.extract import markdown

HALF_A = ("open-instruct", "prime-rl", "AReaL", "ROLL", "NeMo-Skills", "kuberay", "torchtitan", "trl", "kserve")


class _Everything(NameFilter):
    """A name filter that wants every name: the extractor's whole work on every file."""

    def wants(self, name: str) -> bool:
        return True


def files(repo: Path) -> list[tuple[str, bytes]]:
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "*.md"], capture_output=True, check=True).stdout
    found = []
    for name in filter(None, listed.decode().split("\0")):
        path = repo / name
        if path.is_file() and not path.is_symlink():
            found.append((f"{repo.name}/{name}", path.read_bytes()))
    return found


def findings(corpus: list[tuple[str, bytes]], names: NameFilter, run=markdown.extract) -> dict[str, list[str]]:  # noqa: ANN001
    found = {}
    for path, data in corpus:
        extraction = run(Source(path, data), names)
        shown = [f"{s.line}:{s.column} {s.name}={s.value} {s.role}" for s in extraction.sites]
        shown += [f"{s.line} ignore{list(s.codes) if s.codes else ''}" for s in extraction.suppressions]
        if shown:
            found[path] = shown
    return found


def whole(source: Source, names: NameFilter) -> object:
    """The extractor's reading of the whole file, without the tests that skip a file before it."""
    reader = getattr(markdown, "read", None)
    if reader is not None:
        return reader(source, names)
    scanner = markdown._Scanner(source, names)  # the hand-written scanner this replaced
    scanner.scan()
    return markdown.Extraction(tuple(scanner.sites), tuple(scanner.suppressions))


def cpu(corpus: list[tuple[str, bytes]], names: NameFilter, rounds: int, run=markdown.extract) -> float:  # noqa: ANN001
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for path, data in corpus:
            run(Source(path, data), names)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--repos", nargs="*", default=list(HALF_A))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    corpus = [item for repo in args.repos for item in files(args.corpus / repo)]
    size = sum(len(data) for _, data in corpus)
    zero, forced = NameFilter(), _Everything()
    markdown.extract(Source("warm.md", b"`PORT=1`\n"), forced)  # imports, compiled patterns
    print(f"{len(corpus)} files, {size / 1024 / 1024:.2f} MiB")
    for label, names in (("zero-config", zero), ("forced", forced)):
        print(f"{label}: {cpu(corpus, names, args.rounds) * 1000:.1f} ms CPU (min of {args.rounds})")
    print(f"whole files: {cpu(corpus, forced, args.rounds, whole) * 1000:.1f} ms CPU (min of {args.rounds})")
    found = {"zero-config": findings(corpus, zero), "forced": findings(corpus, forced),
             "whole files": findings(corpus, forced, whole)}
    for label, by_file in found.items():
        print(f"{label}: {sum(len(v) for v in by_file.values())} findings in {len(by_file)} files")
    if args.save:
        args.save.write_text(json.dumps(found, indent=1, sort_keys=True))
    if args.compare:
        before = json.loads(args.compare.read_text())
        for label, by_file in found.items():
            for path in sorted(set(by_file) | set(before[label])):
                if by_file.get(path) != before[label].get(path):
                    print(f"{label} {path}:\n  before {before[label].get(path)}\n  now    {by_file.get(path)}")


if __name__ == "__main__":
    main()
