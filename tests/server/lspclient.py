"""The language server under test: the real `portlint server` process, driven over stdio by
pytest-lsp's client (pygls), with the capabilities real editors announce (VS Code's and
Neovim 0.7's, as pytest-lsp records them). A test module imports the `client` fixture."""
from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

DOCS = "https://docs.example/portlint/"
SERVER = [sys.executable, "-m", "portlint", "server", "--docs-url", DOCS]
WAIT = 120  # seconds before a test gives up waiting (a failure, never a measurement)
VSCODE, NEOVIM = "visual-studio-code", "neovim@v0.7.0"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    lsp_client.registrations = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def registered(ls: LanguageClient, params: types.RegistrationParams) -> None:
        lsp_client.registrations.append(params)  # type: ignore[attr-defined]

    yield
    await lsp_client.shutdown_session()


def repo(root: Path, files: dict[str, str | bytes]) -> Path:
    """A git repository holding `files`."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


async def start(client: LanguageClient, root: Path | None, editor: str = VSCODE,
                capabilities: types.ClientCapabilities | None = None, options: Any = None) -> types.InitializeResult:
    """Initialize the server for the workspace folder `root`, as `editor` does."""
    capabilities = capabilities or client_capabilities(editor)
    folders = [types.WorkspaceFolder(uri=root.as_uri(), name=root.name)] if root is not None else None
    return await client.initialize_session(types.InitializeParams(
        capabilities=capabilities, workspace_folders=folders, root_uri=root.as_uri() if root else None,
        initialization_options=options,
    ))


async def until(condition: Callable[[], Any], what: str) -> Any:
    """Wait for `condition()` to be truthy (the server works as messages arrive); fail after WAIT."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while True:
        value = condition()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        await asyncio.sleep(0.02)


def shown(client: LanguageClient, uri: str) -> list[tuple[str, int, int, int, int]]:
    """(code, start line, start character, end line, end character) of a file's diagnostics."""
    return sorted((str(d.code), d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)
                  for d in client.diagnostics.get(uri, ()))


def full(client: LanguageClient, uri: str) -> list[tuple[str, int, int, int, int, str]]:
    """Each of a file's diagnostics in full: code, start line and character, end line and character, message."""
    return sorted((str(d.code), d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
                   d.message) for d in client.diagnostics.get(uri, ()))


def codes(client: LanguageClient, uri: str) -> list[str]:
    return sorted(str(d.code) for d in client.diagnostics.get(uri, ()))


def open_file(client: LanguageClient, file: Path, version: int = 1, text: str | None = None) -> str:
    uri = file.as_uri()
    language = {".yaml": "yaml", ".py": "python", ".md": "markdown", ".sh": "shellscript"}.get(file.suffix, "plaintext")
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id=language, version=version, text=file.read_text(encoding="utf-8") if text is None else text)))
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    """The whole text replaced, as a client without incremental sync sends it."""
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def edit(client: LanguageClient, uri: str, version: int, line: int, start: int, end: int, text: str) -> None:
    """One incremental change: characters start..end of `line` replaced by `text`."""
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, start), types.Position(line, end)), text=text)]))


def applied(text: str, edits: Sequence[types.TextEdit]) -> str:
    """The text with the edits applied, as an editor applies them (UTF-16 positions)."""
    encoded = text.encode("utf-16-le")
    starts, unit = [0], 0
    for line in text.splitlines(keepends=True):
        unit += len(line.encode("utf-16-le")) // 2
        starts.append(unit)

    def at(position: types.Position) -> int:
        return 2 * (starts[position.line] + position.character)

    for one in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        encoded = encoded[:at(one.range.start)] + one.new_text.encode("utf-16-le") + encoded[at(one.range.end):]
    return encoded.decode("utf-16-le")


def edits_of(edit: types.WorkspaceEdit | None) -> dict[str, list[types.TextEdit]]:
    """A workspace edit's text edits by URI, whichever way the server sent them."""
    assert edit is not None
    if edit.document_changes:
        return {change.text_document.uri: list(change.edits) for change in edit.document_changes}  # type: ignore[union-attr]
    return {uri: list(edits) for uri, edits in (edit.changes or {}).items()}
