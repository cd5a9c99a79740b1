"""How fast `portlint server` answers an edit, and whether its memory stays flat. Not a test.

    python tests/bench/server.py                    # copies of fixtures/demo: 1,000+ files
    python tests/bench/server.py --corpus trl       # a half-A corpus repository, replicated to 1,000+ files
    python tests/bench/server.py --edits 1000 --file PATH

The repository is built in a temporary directory (a git work tree). The real server process
is started and driven over stdio by pygls's client, as an editor drives it: initialize with
the repository as the workspace folder, open one file, then change it EDITS times (an
incremental change of one port literal, alternating between two values), each time waiting
for the diagnostics of that version. Latency is from sending the change to receiving its
diagnostics, so it holds the JSON-RPC round trip, the re-extraction of the file, the layout,
the rules and the publishing. The server's resident memory (VmRSS) is read after the
workspace is loaded and every 100 edits. Then the same edits in this process, without the
protocol (portlint.server.project), split into re-extracting the file, checking, and
placing the problems (as the server does: what did not move is taken from the last check).
"""
from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  # the repository builders of the benchmark


def build(root: Path, corpus: str | None, files: int) -> None:
    if corpus is None:
        per_copy = sum(1 for f in bench.DEMO.rglob("*") if f.is_file() and ".portlint_cache" not in f.parts) - 1 \
            + sum(filler[4] for filler in bench.FILLERS)  # the demo's files but its config, and the fillers
        bench.build_demo(root, math.ceil(files / per_copy))
        return
    source = bench.CORPUS / corpus
    listed = subprocess.run(["git", "-C", str(source), "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    bench.build_replica(source, root, max(1, math.ceil(files / len(listed))))


def target(root: Path) -> tuple[str, int, int, int]:
    """A file to edit and the literal to change: (path, 0-based line, start and end character)."""
    from portlint.config.load import load_for
    from portlint.engine import Options, session

    current = session(load_for(root, ()), Options())
    for kind in ("yaml", "python", "shell"):
        for state in current.files.values():
            sites = [s for s in state.extraction.sites if s.kind == kind and state.data.isascii()]
            if sites:
                site = sites[0]
                return state.path, site.line - 1, site.column - 1, site.column - 1 + (site.end - site.start)
    raise SystemExit("no port literal to edit")


def rss(pid: int) -> int:
    """Resident memory of a process, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def drive(root: Path, path: str, line: int, start: int, end: int, edits: int) -> dict[str, object]:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "0")
    arrived: dict[int, float] = {}
    waiting: dict[int, asyncio.Future[None]] = {}
    uri = (root / path).as_uri()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri and params.version is not None:
            arrived[params.version] = time.perf_counter()
            future = waiting.pop(params.version, None)
            if future is not None and not future.done():
                future.set_result(None)

    await client.start_io(sys.executable, "-m", "portlint", "server", cwd=str(root))
    server = client._server
    assert server is not None
    began = time.perf_counter()
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)]))
    client.initialized(types.InitializedParams())
    await client.text_document_code_action_async(types.CodeActionParams(  # answered once the workspace is loaded
        types.TextDocumentIdentifier(uri), types.Range(types.Position(0, 0), types.Position(0, 0)), types.CodeActionContext([])))
    loaded = time.perf_counter() - began
    text = (root / path).read_text()
    value = text.splitlines()[line][start:end]
    other = str(int(value) + 1)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text)))
    memory = [("loaded", rss(server.pid))]
    latencies = []
    for version in range(2, edits + 2):
        written, replaced = (other, value) if version % 2 == 0 else (value, other)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiting[version] = future
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(line, start), types.Position(line, start + len(replaced))), text=written)]))
        await asyncio.wait_for(future, 60)
        latencies.append(arrived[version] - sent)
        if (version - 1) % 100 == 0:
            memory.append((f"{version - 1} edits", rss(server.pid)))
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.wait_for(server.wait(), 30)
    return {"loaded": loaded, "latencies": latencies, "memory": memory}


def in_process(root: Path, path: str, line: int, start: int, end: int, edits: int) -> dict[str, list[float]]:
    """The same edits without the protocol: extraction, check, diagnostics, each timed."""
    from portlint.server.diagnostics import placed
    from portlint.server.positions import Lines
    from portlint.server.project import Project

    project = Project(root)
    project.check()
    text = (root / path).read_text()
    lines = text.splitlines(keepends=True)
    value = lines[line][start:end]
    other = str(int(value) + 1)
    times: dict[str, list[float]] = {"extract": [], "check": [], "diagnostics": []}
    known: dict[str, tuple[bytes, Lines]] = {}
    memo: dict | None = None

    def lines_of(path: str) -> Lines | None:  # as the server keeps them: while the bytes are the same
        data = project.data(path)
        if data is None:
            return None
        if path not in known or known[path][0] is not data[0]:
            known[path] = (data[0], Lines(data[0]))
        return known[path][1]

    for number in range(edits):
        lines[line] = lines[line][:start] + (other if number % 2 == 0 else value) + lines[line][start + len(value):]
        data = "".join(lines).encode()
        first = time.perf_counter()
        project.edit(path, data)
        second = time.perf_counter()
        project.check()
        third = time.perf_counter()
        kept: dict = {}
        placed(project.problems, lines_of, memo, kept)
        memo = kept
        fourth = time.perf_counter()
        times["extract"].append(second - first)
        times["check"].append(third - second)
        times["diagnostics"].append(fourth - third)
    return times


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", help="a half-A corpus repository to replicate (default: copies of fixtures/demo)")
    parser.add_argument("--files", type=int, default=1000, help="at least this many files (default 1000)")
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--file", help="the file to edit (default: the first with a port literal)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        root.mkdir()
        build(root, args.corpus, args.files)
        count = len(subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split())
        path, line, start, end = target(root)
        if args.file:
            path = args.file
        print(f"{args.corpus or 'fixtures/demo copies'}: {count} files; editing {path}:{line + 1}:{start + 1}")
        found = asyncio.run(drive(root, path, line, start, end, args.edits))
        print(f"workspace loaded (initialize to the first answer): {found['loaded']:.2f} s")  # type: ignore[str-format]
        print(f"edit -> its diagnostics over {args.edits} edits: {quantiles(found['latencies'])}")  # type: ignore[arg-type]
        print("server RSS: " + ", ".join(f"{label} {kib / 1024:.1f} MiB" for label, kib in found["memory"]))  # type: ignore[attr-defined]
        split = in_process(root, path, line, start, end, min(args.edits, 200))
        for stage, values in split.items():
            print(f"in process, {stage}: {quantiles(values)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
