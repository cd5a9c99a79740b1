"""The language server: LSP over stdio, on pygls.

Documents are synchronised incrementally (pygls keeps each open document's text). Every
open, change, save and close lays the document's text over its project's files
(`Project.edit`: the edited file is extracted again) and asks for a check, which runs once
the messages already received are handled: the project is laid out again, the rules run,
and the diagnostics of every file whose diagnostics changed are published, the edited file's
first. A file's diagnostics come from the deepest project whose root holds it.

A save of the config (or of a file it extends, or a new config where the CLI would find
one) loads the project again; so does a watched-file event for one, where the client lets
the server register a watcher. Bad input (text that does not parse, a file outside every
project, a request for a file never opened) gives a diagnostic, an empty result or an error
response; a bug in a check is logged to the client and the server goes on.
"""
from __future__ import annotations

import asyncio
import functools
import gc
import os
import traceback
from pathlib import Path
from typing import Any, NamedTuple

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from portlint import __version__
from portlint.report import printable
from portlint.server import actions as coding
from portlint.server.diagnostics import Memo, Placed, broken, diagnostic, placed
from portlint.server.positions import UTF16, Lines
from portlint.server.project import Project
from portlint.stages import discover

WATCHED = "portlint-watched-files"
# A check's collections are rare (portlint.GC_THRESHOLDS: the oldest generation almost never),
# which suits a run that ends; a server that checks again and again would keep every earlier
# check's cycles. A full collection, once the diagnostics are out, every so many checks.
COLLECT_EVERY = 50


class Located(NamedTuple):
    project: Project
    path: str  # relative to the project's root


class Protocol(LanguageServerProtocol):
    """pygls's protocol, answering a request whose params do not fit its method with an error
    response (pygls reports it to the client as a message and sends no response: a client
    would wait for one forever)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], None, error.to_response_error())
            raise


class PortlintServer(LanguageServer):
    """The server's state: the projects (one per workspace folder, one per root), what was
    published, and the check waiting to run."""

    def __init__(self, docs_url: str) -> None:
        super().__init__("portlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=Protocol)
        self.docs_url = docs_url
        self.folders: list[Path] = []
        self.projects: list[Project] = []
        self.found: dict[int, list[Placed]] = {}  # id(project) -> its problems, placed
        self.places: dict[int, Memo] = {}  # id(project) -> what placing them worked out, for the next check
        # (id of a problem's places, index, code, message, line) -> (the places, the diagnostic): the
        # diagnostics of the last check, taken again for problems placed the same
        self.shown: dict[tuple[int, int, str, str, int], tuple[tuple[object, ...], types.Diagnostic]] = {}
        self.showing: dict[tuple[int, int, str, str, int], tuple[tuple[object, ...], types.Diagnostic]] = {}
        self.at: dict[int, dict[str, list[tuple[Placed, int]]]] = {}  # id(project) -> path -> (problem, place index)
        self.published: dict[str, list[types.Diagnostic]] = {}  # uri -> what the client holds
        self.dirty: set[int] = set()  # id(project) of the projects to check
        self.first: set[str] = set()  # uris to publish first (and always: just edited or saved)
        self.scheduled = False
        self.client = coding.Client()
        self.watching = False  # the client registers file watchers
        self.lines: dict[tuple[int, str], tuple[bytes, Lines]] = {}
        self.unlisted: set[tuple[int, str]] = set()  # files looked for in a new listing already
        self.opened: dict[tuple[int, str], str] = {}  # (id(project), path) -> the open document's URI
        self.uris: dict[tuple[int, str], str] = {}  # (id(project), path) -> the file's URI, once worked out
        self.reported_bug = False
        self.checks = 0  # checks published: a full collection every COLLECT_EVERY
        self.shut_down = False  # the client asked for a shutdown before it said exit (LSP: exit 0, else 1)

    # -- projects and documents --------------------------------------------------------------
    @property
    def encoding(self) -> str:
        capabilities = self.protocol.server_capabilities
        encoding = getattr(capabilities, "position_encoding", None) if capabilities is not None else None
        return str(encoding) if encoding else UTF16

    def open_projects(self) -> None:
        """A project for each workspace folder, one per root."""
        for folder in self.folders:
            self.project_for(folder)

    def project_for(self, folder: Path) -> Project:
        for project in self.projects:
            if project.start == folder:
                return project
        project = Project(folder)
        same = next((p for p in self.projects if p.root == project.root and p.broken is None and project.broken is None), None)
        if same is not None:
            return same
        self.projects.append(project)
        self.dirty.add(id(project))
        return project

    def locate(self, uri: str) -> Located | None:
        """The project and root-relative path of a document: the deepest project root holding
        it; without workspace folders, a project for the file's folder. None for a file under
        no project (outside the workspace) or a URI that is no file."""
        try:
            name = to_fs_path(uri)
        except (ValueError, TypeError):
            return None
        if not name or not uri.startswith("file:"):
            return None
        file = Path(name)
        found = [(len(p.root.parts), p, path) for p in self.projects if (path := p.relative(file)) is not None]
        if not found and not self.folders and file.parent.is_dir():
            project = self.project_for(file.parent)
            path = project.relative(file)
            return Located(project, path) if path is not None else None
        if not found:
            return None
        _, project, path = max(found, key=lambda item: item[0])
        return Located(project, path)

    def path_in(self, project: Project, uri: str) -> str | None:
        """A document's path in this project (None: another's, or none)."""
        located = self.locate(uri)
        return located.path if located is not None and located.project is project else None

    def uri_of(self, project: Project, path: str) -> str:
        """A path's URI: the open document's own (a client may spell it its way), else the file's."""
        key = (id(project), path)
        uri = self.opened.get(key) or self.uris.get(key)
        if uri is None:
            full = Path(path) if os.path.isabs(path) else project.root / path
            uri = self.uris[key] = from_fs_path(str(full)) or full.as_uri()
        return uri

    def version_of(self, uri: str) -> int | None:
        document = self.workspace.text_documents.get(uri)
        return document.version if document is not None else None

    def lines_of(self, project: Project, path: str, data: bytes | None = None) -> Lines | None:
        """The lines of a path's bytes as positions refer to them (cached while they are the same)."""
        from_disk = path not in project.texts
        if data is None:
            known = project.data(path)
            if known is None:
                return None
            data, from_disk = known
        key = (id(project), path)
        cached = self.lines.get(key)
        if cached is not None and cached[0] is data and cached[1].encoding == self.encoding:
            return cached[1]
        lines = Lines(data, self.encoding, bom_hidden=from_disk)
        self.lines[key] = (data, lines)
        return lines

    def text_of(self, uri: str) -> bytes | None:
        document = self.workspace.text_documents.get(uri)
        return document.source.encode("utf-8", "surrogatepass") if document is not None else None

    # -- checking and publishing ---------------------------------------------------------------
    def edited(self, uri: str, data: bytes | None, saved: bool = False) -> None:
        """A document's text changed (None: the editor let go of it), or it was saved."""
        located = self.locate(uri)
        if located is None:
            return
        project, path = located
        if saved and project.configures(Path(to_fs_path(uri) or "")):
            self.reload(project)
            self.first.add(uri)
            return
        if not project.checked(path) and self.listable(project, path):
            self.reload(project)  # a file the listing did not hold yet: list again
        project.edit(path, data)
        if data is None:
            self.opened.pop((id(project), path), None)
        else:
            self.opened[(id(project), path)] = uri
        if saved:
            project.reground()
        self.dirty.add(id(project))
        self.first.add(uri)
        self.schedule()

    def listable(self, project: Project, path: str) -> bool:
        """A file the project's listing may hold once listed again (once per file)."""
        key = (id(project), path)
        if key in self.unlisted or project.session is None or not discover.may_read(path):
            return False
        self.unlisted.add(key)
        return (project.root / path).is_file()

    def reload(self, project: Project) -> None:
        project.load()
        self.lines = {key: value for key, value in self.lines.items() if key[0] != id(project)}
        self.unlisted = {key for key in self.unlisted if key[0] != id(project)}
        self.dirty.add(id(project))
        self.schedule()

    def schedule(self) -> None:
        """Check once the messages already received are handled (a burst of changes: one check)."""
        if not self.scheduled:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Check the projects that changed and publish what changed."""
        self.scheduled = False
        try:
            self._flush()
        except Exception as error:  # noqa: BLE001 - the one place a bug lands: told, and the server goes on
            self.bug(error)

    def _flush(self) -> None:
        if not self.dirty:
            return
        for project in self.projects:
            if id(project) in self.dirty:
                project.check()
                kept: Memo = {}
                found = placed(project.problems, functools.partial(self.lines_of, project),
                               self.places.get(id(project)), kept)
                self.places[id(project)] = kept
                at: dict[str, list[tuple[Placed, int]]] = {}
                for item in found:
                    for index, place in enumerate(item.places):
                        at.setdefault(place.path, []).append((item, index))
                self.found[id(project)], self.at[id(project)] = found, at
        self.dirty.clear()
        first, self.first = self.first, set()
        for uri in sorted(first):  # the files just edited or saved, whatever else changed: first
            self.publish(uri, self.diagnostics_of(uri))
        wanted = self.everything()
        for uri in sorted(set(wanted) | set(self.published)):
            now = wanted.get(uri, [])
            if uri not in first and now != self.published.get(uri, []):
                self.publish(uri, now)
        self.shown, self.showing = self.showing, {}
        self.checks += 1
        if self.checks % COLLECT_EVERY == 0:
            gc.collect()

    def publish(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=self.version_of(uri)))
        if diagnostics:
            self.published[uri] = diagnostics
        else:
            self.published.pop(uri, None)

    def diagnostics_of(self, uri: str) -> list[types.Diagnostic]:
        """One file's diagnostics: its project's problems' (or its config's error)."""
        for project in self.projects:
            if project.broken is not None and uri in self.broken_of(project):
                return self.broken_of(project)[uri]
        located = self.locate(uri)
        if located is None or located.project.broken is not None:
            return []
        project, path = located
        return [self.diagnostic(project, item, index) for item, index in self.at.get(id(project), {}).get(path, ())]

    def everything(self) -> dict[str, list[types.Diagnostic]]:
        """Every file's diagnostics, each from the deepest project holding it."""
        wanted: dict[str, list[types.Diagnostic]] = {}
        for project in self.projects:
            if project.broken is not None:
                wanted.update(self.broken_of(project))
                continue
            for path, places in self.at.get(id(project), {}).items():
                uri = self.uri_of(project, path)
                owner = self.locate(uri) if len(self.projects) > 1 else None
                if owner is None or owner.project is project:
                    wanted.setdefault(uri, []).extend(self.diagnostic(project, item, index) for item, index in places)
        return wanted

    def diagnostic(self, project: Project, item: Placed, index: int) -> types.Diagnostic:
        problem = item.problem
        key = (id(item.places), index, problem.code, problem.message, problem.line)
        known = self.showing.get(key) or self.shown.get(key)
        if known is None or known[0] is not item.places:
            known = (item.places, diagnostic(item, index, functools.partial(self.uri_of, project), self.docs_url))
        self.showing[key] = known
        return known[1]

    def broken_of(self, project: Project) -> dict[str, list[types.Diagnostic]]:
        """A config that cannot be used, on its file."""
        broken_config = project.broken
        if broken_config is None or broken_config.file is None:
            return {}
        file = broken_config.file
        relative = project.relative(file)
        lines = self.lines_of(project, relative if relative is not None else str(file))
        uri = from_fs_path(str(file)) or file.as_uri()
        return {uri: [broken(broken_config.message, lines, broken_config.line, broken_config.column)]}

    def bug(self, error: Exception) -> None:
        """A bug: its traceback in the client's log, a message once; the server goes on."""
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=f"portlint: {text}"))
        if not self.reported_bug:
            self.reported_bug = True
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error,
                message=printable(f"portlint: internal error: {type(error).__name__}: {error} (details in the log)")))

    def editor(self, project: Project) -> coding.Editor:
        return coding.Editor(
            uri_of=lambda path: self.uri_of(project, path),
            version_of=lambda path: self.version_of(self.uri_of(project, path)),
            lines_of=lambda path, data: self.lines_of(project, path, data) or Lines(data, self.encoding),
            path_of=lambda uri: self.path_in(project, uri),
            shown=functools.partial(self.diagnostic, project),
        )


def build(docs_url: str) -> PortlintServer:
    """The server with its features registered."""
    server = PortlintServer(docs_url)

    @server.feature(types.INITIALIZE)
    def initialize(ls: PortlintServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("docsUrl"), str) and options["docsUrl"]:
            ls.docs_url = options["docsUrl"].rstrip("/") + "/"
        folders = [folder.uri for folder in params.workspace_folders or ()]
        if not folders and params.root_uri:
            folders = [params.root_uri]
        elif not folders and params.root_path:
            folders = [from_fs_path(params.root_path) or ""]
        ls.folders = [Path(name) for uri in folders if uri.startswith("file:") and (name := to_fs_path(uri))]
        ls.client = _client(params.capabilities)
        ls.watching = bool(_capability(params.capabilities, "workspace", "did_change_watched_files", "dynamic_registration"))

    @server.feature(types.INITIALIZED)
    def initialized(ls: PortlintServer, params: types.InitializedParams) -> None:
        ls.open_projects()
        if ls.watching:
            ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
                id=WATCHED, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=_watchers()),
            )]))
        ls.schedule()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: PortlintServer, params: None) -> None:
        ls.shut_down = True

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PortlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.edited(params.text_document.uri, ls.text_of(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PortlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.edited(params.text_document.uri, ls.text_of(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PortlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.edited(params.text_document.uri, ls.text_of(params.text_document.uri), saved=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PortlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.edited(params.text_document.uri, None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: PortlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        reload: dict[int, Project] = {}
        for change in params.changes:
            name = to_fs_path(change.uri) if change.uri.startswith("file:") else None
            if not name:
                continue
            file = Path(name)
            for project in ls.projects:
                if project.configures(file):
                    reload[id(project)] = project
            located = ls.locate(change.uri)
            if located is None or id(located.project) in reload:
                continue
            project, path = located
            if change.type != types.FileChangeType.Changed and discover.may_read(path):
                reload[id(project)] = project  # a file made or removed: list again
            elif path not in project.texts:
                project.edit(path, None)  # changed on disk, not open: read again
                ls.dirty.add(id(project))
        for project in reload.values():
            ls.reload(project)
        ls.schedule()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: PortlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for removed in params.event.removed:
            name = to_fs_path(removed.uri)
            gone = [p for p in ls.projects if name and p.start == Path(name)]
            ls.projects = [p for p in ls.projects if p not in gone]
            ls.folders = [f for f in ls.folders if not name or f != Path(name)]
        for added in params.event.added:
            name = to_fs_path(added.uri)
            if name and added.uri.startswith("file:"):
                ls.folders.append(Path(name))
                ls.project_for(Path(name))
        ls.dirty.update(id(p) for p in ls.projects)
        ls.schedule()

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, coding.FIX_ALL], resolve_provider=True))
    def code_action(ls: PortlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        ls.flush()  # the edits received so far, checked
        located = ls.locate(params.text_document.uri)
        if located is None or located.project.session is None:
            return []
        project, path = located
        only = [str(kind) for kind in params.context.only] if params.context.only is not None else None
        found = ls.found.get(id(project), [])
        return coding.actions(project, found, path, params.range, only, ls.client, ls.editor(project),
                              params.text_document.uri)

    @server.feature(types.CODE_ACTION_RESOLVE)
    def resolve_code_action(ls: PortlintServer, action: types.CodeAction) -> types.CodeAction:
        ls.flush()
        data = action.data if isinstance(action.data, dict) else {}
        located = ls.locate(data["uri"]) if isinstance(data.get("uri"), str) else None
        if located is None or located.project.session is None:
            return action
        return coding.resolve(located.project, action, ls.client, ls.editor(located.project))

    return server


def _client(capabilities: types.ClientCapabilities) -> coding.Client:
    properties = _capability(capabilities, "text_document", "code_action", "resolve_support", "properties") or []
    return coding.Client(
        resolve="edit" in properties and bool(_capability(capabilities, "text_document", "code_action", "data_support")),
        document_changes=bool(_capability(capabilities, "workspace", "workspace_edit", "document_changes")),
        disabled=bool(_capability(capabilities, "text_document", "code_action", "disabled_support")),
    )


def _capability(capabilities: Any, *names: str) -> Any:
    for name in names:
        capabilities = getattr(capabilities, name, None)
        if capabilities is None:
            return None
    return capabilities


def _watchers() -> list[types.FileSystemWatcher]:
    """The config files, and every file kind a check reads."""
    from portlint.config.locate import CONFIG_NAMES

    suffixes = sorted({suffix.lstrip(".") for suffix in discover.SUFFIXES})
    return [types.FileSystemWatcher(glob_pattern=f"**/{{{','.join(CONFIG_NAMES)}}}"),
            types.FileSystemWatcher(glob_pattern=f"**/*.{{{','.join(suffixes)}}}")]

