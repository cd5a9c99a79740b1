"""`portlint server` as an editor drives it: initialize, open, edit, save, code actions, a config
change, bad input, shutdown; the real server process over stdio, through pytest-lsp's client."""
from __future__ import annotations

import asyncio
import concurrent.futures
import shutil
import subprocess
from pathlib import Path

import pytest
from lspclient import (
    DOCS,
    NEOVIM,
    VSCODE,
    applied,
    change,
    client,  # noqa: F401 - the fixture
    codes,
    edit,
    edits_of,
    full,
    open_file,
    repo,
    shown,
    start,
    until,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

from portlint.cli import main

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
SFT_DRIFT = "cluster.master_port_range_low=1500 drifted from the layout: band master gives 1400"
LAYOUT = "bands:\n  master:\n    range: 1400-1999\n    sites: [master_port_range_low, master_port_range_high]\n"
FROZEN = 'frozen:\n  - copies: ref/*.yaml\n    source: ["src/{name}"]\n'
pytestmark = pytest.mark.asyncio


async def raw_request(client: LanguageClient, method: str, params: object) -> object:
    """A request as a careless client writes it: the JSON sent as it is, whatever the method's
    types say (the typed client would refuse to write it)."""
    ident = f"raw-{method}"
    future: concurrent.futures.Future[object] = concurrent.futures.Future()
    client.protocol._request_futures[ident] = future  # where the client matches the response
    client.protocol._send_data({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    return await asyncio.wrap_future(future)


def saved(client: LanguageClient, file: Path, version: int, text: str) -> None:
    """The editor's buffer changed to `text`, then saved: the change, the file written, the save."""
    change(client, file.as_uri(), version, text)
    file.write_text(text)
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(file.as_uri())))


def demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".portlint_cache"))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


async def test_a_problem_shows_with_its_code_its_rule_page_its_severity_and_the_literal_range(
    client: LanguageClient, tmp_path: Path,
) -> None:
    root = demo(tmp_path)
    result = await start(client, root)
    assert result.capabilities.position_encoding == "utf-16"
    sft = (root / "examples/configs/sft.yaml").as_uri()
    await until(lambda: client.diagnostics.get(sft), "the workspace's diagnostics")
    drift = next(d for d in client.diagnostics[sft] if d.code == "PL301")
    assert drift.message == SFT_DRIFT
    assert (drift.range.start.line, drift.range.start.character, drift.range.end.line, drift.range.end.character) == (92, 25, 92, 29)
    assert drift.code_description is not None and drift.code_description.href == DOCS + "_generated/rules/PL301.html"
    assert drift.severity == types.DiagnosticSeverity.Error and drift.source == "portlint"
    line = (root / "examples/configs/sft.yaml").read_text().splitlines()[92]
    assert line[25:29] == "1500"
    # The whole workspace is published, as `portlint` reports it: every file with a problem.
    assert codes(client, (root / "examples/configs/evals/eval.yaml").as_uri()) == ["PL101", "PL101", "PL202", "PL301", "PL301"]


async def test_an_overlap_shows_on_every_file_it_names(client: LanguageClient, tmp_path: Path) -> None:
    root = demo(tmp_path)
    await start(client, root)
    files = ("examples/configs/evals/eval.yaml", "examples/configs/grpo_math_1B.yaml", "nemo_rl/distributed/ports.py")
    uris = [(root / name).as_uri() for name in files]
    await until(lambda: all("PL202" in codes(client, uri) for uri in uris), "PL202 on each file")
    [own] = [d for d in client.diagnostics[uris[0]] if d.code == "PL202"]
    others = [d for uri in uris[1:] for d in client.diagnostics[uri] if d.code == "PL202"]
    assert own.message.startswith("ports 3000-5999 written by 2 services: ")
    assert all(d.message == f"examples/configs/evals/eval.yaml:20: {own.message}" for d in others)
    assert len(others) == 4  # each literal the problem names: two in grpo_math_1B.yaml, two in ports.py
    assert all(d.related_information and d.related_information[0].location.uri == uris[0] for d in others)
    [ports] = [d for d in client.diagnostics[uris[2]] if d.code == "PL202" and d.range.start.line == 38]
    assert (ports.range.start.character, ports.range.end.character) == (36, 40)


async def test_unsaved_edits_refresh_a_cross_file_finding_on_both_files(client: LanguageClient, tmp_path: Path) -> None:
    root = repo(tmp_path / "r", {".portlint.yaml": FROZEN, "src/a.yaml": "server:\n  port: 3000\n",
                                 "ref/a.yaml": "server:\n  port: 2000\n"})
    await start(client, root)
    copy, source = (root / "ref/a.yaml").as_uri(), (root / "src/a.yaml").as_uri()
    await until(lambda: codes(client, copy) == ["PL401"] and codes(client, source) == ["PL401"], "PL401 on both sides")
    assert shown(client, copy) == [("PL401", 1, 8, 1, 12)] and shown(client, source) == [("PL401", 1, 8, 1, 12)]
    assert client.diagnostics[source][0].message == "ref/a.yaml:2: server.port=2000 differs from src/a.yaml:2 (server.port=3000)"
    open_file(client, root / "src/a.yaml")
    edit(client, source, 2, 1, 8, 12, "2000")  # the source now says what the copy says: nothing to report
    await until(lambda: not codes(client, copy) and not codes(client, source), "both sides cleared")
    assert (root / "src/a.yaml").read_text() == "server:\n  port: 3000\n"  # the server never writes
    edit(client, source, 3, 1, 8, 12, "3001")
    await until(lambda: codes(client, copy) == ["PL401"], "the copy drifted again")
    assert client.diagnostics[copy][0].message == "server.port=2000 differs from src/a.yaml:2 (server.port=3001)"
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(source)))
    await until(lambda: "3000" in (client.diagnostics.get(copy) or [types.Diagnostic(range=types.Range(
        types.Position(0, 0), types.Position(0, 0)), message="")])[0].message, "the disk's text again once closed")


async def test_positions_count_utf16_code_units_on_lines_with_non_ascii_text(client: LanguageClient, tmp_path: Path) -> None:
    text = 'cluster: {name: "é😀中", master_port_range_low: 1500, master_port_range_high: 1999}\n'
    root = repo(tmp_path / "r", {".portlint.yaml": LAYOUT, "a.yaml": text})
    await start(client, root)
    uri = (root / "a.yaml").as_uri()
    await until(lambda: codes(client, uri), "the drift")
    at = text.index("1500")  # characters (code points); the emoji before it is two UTF-16 units
    assert shown(client, uri) == [("PL301", 0, at + 1, 0, at + 5)]
    open_file(client, root / "a.yaml")
    moved = text.replace('"é😀中"', '"é😀中😀"')
    change(client, uri, 2, moved)
    await until(lambda: shown(client, uri) == [("PL301", 0, at + 3, 0, at + 7)], "the range after another emoji")


async def test_positions_are_bytes_when_the_client_prefers_utf8(client: LanguageClient, tmp_path: Path) -> None:
    text = 'cluster: {name: "é😀中", master_port_range_low: 1500, master_port_range_high: 1999}\n'
    root = repo(tmp_path / "r", {".portlint.yaml": LAYOUT, "a.yaml": text})
    capabilities = client_capabilities(VSCODE)
    capabilities.general = types.GeneralClientCapabilities(position_encodings=["utf-8", "utf-16"])
    result = await start(client, root, capabilities=capabilities)
    assert result.capabilities.position_encoding == "utf-8"
    uri = (root / "a.yaml").as_uri()
    await until(lambda: codes(client, uri), "the drift")
    at = text.encode().index(b"1500")
    assert shown(client, uri) == [("PL301", 0, at, 0, at + 4)]


@pytest.mark.parametrize("editor, resolves", [(VSCODE, True), (NEOVIM, True), (NEOVIM, False)])
async def test_a_quick_fix_applies_the_fix_and_the_check_agrees(
    client: LanguageClient, tmp_path: Path, editor: str, resolves: bool,
) -> None:
    root = demo(tmp_path)
    capabilities = client_capabilities(editor)
    if not resolves:  # a client that cannot resolve an action gets its edit with it
        assert capabilities.text_document and capabilities.text_document.code_action
        capabilities.text_document.code_action.resolve_support = None
    await start(client, root, capabilities=capabilities)
    file = root / "examples/configs/sft.yaml"
    text = file.read_text()
    uri = open_file(client, file)
    await until(lambda: "PL301" in codes(client, uri), "the drift")
    at = types.Range(types.Position(92, 27), types.Position(92, 27))
    found = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri), range=at, context=types.CodeActionContext(diagnostics=[])))
    assert found is not None
    titles = [(a.title, a.kind, a.is_preferred) for a in found if isinstance(a, types.CodeAction)]
    assert titles == [
        ('Fix PL301 (layout-drift): "1500" -> "1400"', "quickfix", True),
        ("Suppress PL301 on this line", "quickfix", None),
        ("Fix all safe problems in this file", "source.fixAll.portlint", None),
    ]
    fix = found[0]
    assert isinstance(fix, types.CodeAction) and fix.diagnostics and fix.diagnostics[0].message == SFT_DRIFT
    if resolves:  # the edit is computed when the action is chosen
        assert fix.edit is None
        fix = await client.code_action_resolve_async(fix)
    edits = edits_of(fix.edit)
    assert list(edits) == [uri]
    fixed = applied(text, edits[uri])
    assert fixed == text.replace("master_port_range_low: 1500", "master_port_range_low: 1400")
    change(client, uri, 2, fixed)
    await until(lambda: "PL301" not in codes(client, uri), "the drift fixed")
    assert codes(client, uri) == ["PL302"]


async def test_suppress_writes_what_add_noqa_writes(client: LanguageClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = demo(tmp_path)
    await start(client, root, NEOVIM)
    file = root / "examples/configs/sft.yaml"
    text = file.read_text()
    uri = open_file(client, file)
    await until(lambda: "PL302" in codes(client, uri), "the unbound port")
    found = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri), range=types.Range(types.Position(83, 10), types.Position(83, 14)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix])))
    assert found is not None
    [suppress] = [a for a in found if isinstance(a, types.CodeAction) and a.title == "Suppress PL302 on this line"]
    suppress = await client.code_action_resolve_async(suppress)
    commented = applied(text, edits_of(suppress.edit)[uri])
    noqa = demo(tmp_path / "noqa")  # the CLI's baseline of the same problem: the same bytes
    monkeypatch.chdir(noqa)
    assert main(["--add-noqa", "--select", "PL302", "-q"]) == 0
    assert commented == (noqa / "examples/configs/sft.yaml").read_text()
    assert "logger.tensorboard" not in commented.splitlines()[83] and commented.splitlines()[83].endswith("  # portlint: ignore[PL302]")
    change(client, uri, 2, commented)
    await until(lambda: "PL302" not in codes(client, uri), "the problem suppressed")


async def test_fix_all_fixes_the_safe_problems_of_one_file_and_labels_unsafe_fixes(client: LanguageClient, tmp_path: Path) -> None:
    root = repo(tmp_path / "r", {
        ".portlint.yaml": LAYOUT,
        "a.yaml": "cluster:\n  master_port_range_low: 1500\n  master_port_range_high: 2500\n",
        "b.yaml": "cluster:\n  master_port_range_low: 1300\n",
        "docs.md": "# Ports\n\nThe master band starts at `master_port_range_low=1300`.\n",
    })
    await start(client, root)
    uri = open_file(client, root / "a.yaml")
    docs = (root / "docs.md").as_uri()
    await until(lambda: codes(client, uri) == ["PL301", "PL301"] and codes(client, docs), "the drifts")
    assert full(client, uri) == [
        ("PL301", 1, 25, 1, 29, "cluster.master_port_range_low=1500 drifted from the layout: band master gives 1400"),
        ("PL301", 2, 26, 2, 30, "cluster.master_port_range_high=2500 drifted from the layout: band master gives 1999"),
    ]
    assert full(client, docs) == [
        ("PL501", 2, 49, 2, 53, "doc states master_port_range_low=1300; band master gives 1400")]
    found = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri), range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])))
    assert found is not None
    [fix_all] = found
    assert isinstance(fix_all, types.CodeAction) and fix_all.kind == "source.fixAll.portlint"
    resolved = await client.code_action_resolve_async(fix_all)
    edits = edits_of(resolved.edit)
    assert list(edits) == [uri]  # this file's problems only: b.yaml keeps its drift
    assert applied((root / "a.yaml").read_text(), edits[uri]) == \
        "cluster:\n  master_port_range_low: 1400\n  master_port_range_high: 1999\n"
    open_file(client, root / "docs.md")
    assert shown(client, docs) == [("PL501", 2, 49, 2, 53)]
    found = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(docs), range=types.Range(types.Position(2, 50), types.Position(2, 50)),
        context=types.CodeActionContext(diagnostics=[])))
    assert found is not None
    titles = [(a.title, a.is_preferred) for a in found if isinstance(a, types.CodeAction)]
    assert titles[0] == ('Fix PL501 (doc-drift) (unsafe): "1300" -> "1400"', None)  # labelled, never preferred
    assert [t for t, _ in titles if t.startswith("Fix all")] == []  # an unsafe fix is not among the safe ones


async def test_a_saved_config_is_loaded_again_and_its_errors_show_on_it(client: LanguageClient, tmp_path: Path) -> None:
    root = repo(tmp_path / "r", {".portlint.yaml": LAYOUT, "a.yaml": "cluster:\n  master_port_range_low: 1500\n"})
    await start(client, root)
    config, data = (root / ".portlint.yaml"), (root / "a.yaml").as_uri()
    await until(lambda: codes(client, data) == ["PL301"], "the drift")
    assert full(client, data) == [("PL301", 1, 25, 1, 29, "cluster.master_port_range_low=1500 drifted from the layout: band master gives 1400")]
    uri = open_file(client, config)
    saved(client, config, 2, LAYOUT.replace("1400-1999", "banana"))
    await until(lambda: client.diagnostics.get(uri) and not codes(client, data), "the config error")
    [error] = client.diagnostics[uri]
    assert error.message == 'bands.master.range: expected "LOW-HIGH" or [LOW, HIGH], got "banana"'
    assert (error.range.start.line, error.range.start.character) == (2, 4) and error.severity == types.DiagnosticSeverity.Error
    saved(client, config, 3, LAYOUT + "  extra: [\n")  # a syntax error: at the line the parser names
    await until(lambda: client.diagnostics.get(uri) and "YAML" in client.diagnostics[uri][0].message, "the syntax error")
    assert client.diagnostics[uri][0].range.start.line == 5
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    config.write_text(LAYOUT.replace("1400-1999", "1500-1999"))  # changed on disk: valid, and 1500 is the layout
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=uri, type=types.FileChangeType.Changed)]))
    await until(lambda: codes(client, uri) == ["PL003"] and not codes(client, data), "the config loaded again")
    assert client.diagnostics[uri][0].message == "site selector master_port_range_high of band master matches no site"
    open_file(client, config, 4)
    saved(client, config, 5, LAYOUT)
    await until(lambda: codes(client, data) == ["PL301"], "the drift under the first layout again")
    [registered] = client.registrations  # type: ignore[attr-defined]
    assert registered.registrations[0].method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES


async def test_a_new_config_is_found_when_it_is_saved(client: LanguageClient, tmp_path: Path) -> None:
    root = repo(tmp_path / "r", {"a.yaml": "cluster:\n  master_port_range_low: 1500\n"})
    await start(client, root, NEOVIM)
    data = (root / "a.yaml").as_uri()
    open_file(client, root / "a.yaml")
    await until(lambda: data in client.diagnostics, "the zero-config check")
    assert codes(client, data) == []
    open_file(client, root / ".portlint.yaml", text="")  # a new buffer, then saved
    saved(client, root / ".portlint.yaml", 2, LAYOUT)
    await until(lambda: codes(client, data) == ["PL301"], "the layout's drift")
    assert full(client, data) == [("PL301", 1, 25, 1, 29, "cluster.master_port_range_low=1500 drifted from the layout: band master gives 1400")]


async def test_bad_input_gets_a_diagnostic_an_empty_result_or_an_error_never_a_crash(
    client: LanguageClient, tmp_path: Path,
) -> None:
    root = repo(tmp_path / "r", {".portlint.yaml": LAYOUT, "a.yaml": "cluster:\n  master_port_range_low: 1400\n"})
    outside = repo(tmp_path / "elsewhere", {"x.yaml": "cluster:\n  master_port_range_low: 1500\n"})
    await start(client, root)
    uri = open_file(client, root / "a.yaml")
    change(client, uri, 2, "cluster:\n  master_port_range_low: [1400\n")  # text that does not parse
    await until(lambda: codes(client, uri) == ["PL001"], "the parse error")
    assert full(client, uri) == [
        ("PL001", 2, 0, 2, 0, "cannot check this file: invalid YAML: did not find expected ',' or ']'")]
    change(client, uri, 3, "cluster:\n  master_port_range_low: '\ud800'\n")  # a lone surrogate: JSON carries it, UTF-8 cannot
    await until(lambda: codes(client, uri) == ["PL001"] and "UTF-8" in client.diagnostics[uri][0].message, "not UTF-8")
    stranger = open_file(client, outside / "x.yaml")  # outside the workspace: not checked
    unknown = (root / "missing.yaml").as_uri()  # never opened, not on disk
    for target in (stranger, unknown, "untitled:Untitled-1"):
        result = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(target), range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[])))
        assert not result  # an empty list
    junk = types.CodeAction(title="x", data={"uri": 5, "action": "format the disk"})
    assert (await client.code_action_resolve_async(junk)).edit is None
    with pytest.raises(JsonRpcException):  # params of the wrong shape: an error response
        await raw_request(client, types.TEXT_DOCUMENT_CODE_ACTION, {"textDocument": 5})
    with pytest.raises(JsonRpcException):  # a method the server does not know
        await client.protocol.send_request_async("portlint/unknown", None)
    assert client.protocol.writer is not None
    client.protocol.writer.write(b"Content-Length: 9\r\n\r\n{not json")  # not JSON at all
    assert stranger not in client.diagnostics
    change(client, uri, 4, "cluster:\n  master_port_range_low: 1500\n")
    await until(lambda: codes(client, uri) == ["PL301"], "the server still checking")
    assert full(client, uri) == [("PL301", 1, 25, 1, 29, "cluster.master_port_range_low=1500 drifted from the layout: band master gives 1400")]
    assert client.error is None
    await client.shutdown_session()
    assert client._server is not None and client._server.returncode == 0  # shut down, then exit: 0
    client.capabilities = None  # shut down already
