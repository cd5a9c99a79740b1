"""Code actions: a fix per fixable problem, "fix all safe problems in this file", and "suppress
on this line", each a workspace edit the editor applies (the server writes nothing).

Every edit is computed as `--fix` and `--add-noqa` compute theirs (portlint.server.project:
the fix loop, the suppression code of `--add-noqa`), then turned into text edits of the
lines that change. An action's edit is computed when the editor resolves it (codeAction/resolve),
where the client can, so that listing the actions at the cursor costs nothing.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from lsprotocol import types

from portlint.model.problems import Problem
from portlint.server.diagnostics import Placed
from portlint.server.positions import Lines, changes
from portlint.server.project import Edited, Project, identity

FIX_ALL = "source.fixAll.portlint"
QUICKFIX = types.CodeActionKind.QuickFix.value


class Client(NamedTuple):
    """What the client said it can do with code actions and edits."""

    resolve: bool = False  # resolves an action's edit lazily (codeAction/resolve)
    document_changes: bool = False  # takes versioned document edits
    disabled: bool = False  # shows an action that cannot be applied, with why


class Editor(NamedTuple):
    """What an action needs to know of the editor and its documents."""

    uri_of: Callable[[str], str]  # a root-relative path's URI
    version_of: Callable[[str], int | None]  # an open document's version
    lines_of: Callable[[str, bytes], Lines]  # the lines of a file's bytes, in the agreed encoding
    path_of: Callable[[str], str | None]  # a URI's root-relative path (None: not under the root)
    shown: Callable[[Placed, int], types.Diagnostic]  # a problem's diagnostic at its `index`th place


def wanted(kind: str, only: Iterable[str] | None) -> bool:
    """The kind is one the request asks for (a kind covers its sub-kinds: `source` covers
    `source.fixAll.portlint`)."""
    if only is None:
        return True
    return any(kind == asked or kind.startswith(asked + ".") for asked in only)


def actions(project: Project, found: list[Placed], path: str, at: types.Range, only: list[str] | None,
            client: Client, editor: Editor, uri: str) -> list[types.CodeAction]:
    """The actions for the problems shown in `path` whose range meets `at`, then fix-all."""
    offered: list[types.CodeAction] = []
    for item in found:
        place = next((p for p in item.places if p.path == path and _meets(p.range, at)), None)
        if place is None:
            continue
        problem = item.problem
        diagnostic = [editor.shown(item, item.places.index(place))]
        if problem.fix is not None and wanted(QUICKFIX, only):
            offered.append(_action(_fix_title(project, problem), QUICKFIX, "fix", problem, uri, problem.fix.safe, diagnostic))
        if project.suppressible(problem) and wanted(QUICKFIX, only):
            own = place is item.places[0]
            title = f"Suppress {problem.code} on this line" if own else f"Suppress {problem.code} at {problem.path}:{problem.line}"
            offered.append(_action(title, QUICKFIX, "suppress", problem, uri, False, diagnostic))
    safe = [item.problem for item in found if item.problem.path == path and item.problem.fix is not None and item.problem.fix.safe]
    if safe and wanted(FIX_ALL, only):
        offered.append(_action("Fix all safe problems in this file", FIX_ALL, "fixAll", None, uri, False, []))
    if client.resolve:
        return offered
    return [action for action in (resolve(project, action, client, editor) for action in offered)
            if action.edit is not None or action.disabled is not None]


def _action(title: str, kind: str, what: str, problem: Problem | None, uri: str, preferred: bool,
            diagnostics: list[types.Diagnostic]) -> types.CodeAction:
    data = {"uri": uri, "action": what, "problem": list(identity(problem)) if problem else None}
    return types.CodeAction(title=title, kind=kind, diagnostics=diagnostics or None,
                            is_preferred=True if preferred else None, data=data)


def resolve(project: Project, action: types.CodeAction, client: Client, editor: Editor) -> types.CodeAction:
    """The action with its edit (or, where nothing can be changed, disabled with why: a client
    that cannot show that gets the action without an edit)."""
    data = _data(action.data)
    if data is None:
        return action
    path = editor.path_of(data["uri"])
    done = _edited(project, data, path)
    if done.changed:
        action.edit = workspace_edit(done.changed, client, editor)
    elif client.disabled:
        action.disabled = types.CodeActionDisabled(reason=done.reason)
    return action


def _edited(project: Project, data: dict[str, Any], path: str | None) -> Edited:
    if data["action"] == "fixAll":
        if path is None:
            return Edited({}, "the file is not checked")
        return project.fixed(lambda p: p.path == path and p.fix is not None and p.fix.safe, unsafe=False)
    named = data.get("problem")
    problem = project.find((named[0], named[1], named[2], named[3], named[4])) if isinstance(named, list) else None
    if problem is None:
        return Edited({}, "the problem is no longer reported")
    if data["action"] == "suppress":
        return project.suppressed(problem)
    return project.fixed(lambda p: identity(p) == identity(problem), unsafe=problem.fix is not None and not problem.fix.safe)


def _data(value: Any) -> dict[str, Any] | None:
    """An action's data as this server wrote it (a client may hand back anything)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, dict) or value.get("action") not in ("fix", "suppress", "fixAll"):
        return None
    if not isinstance(value.get("uri"), str):
        return None
    problem = value.get("problem")
    if problem is not None and not (isinstance(problem, list) and len(problem) == 5):
        return None
    return value


def workspace_edit(changed: dict[str, tuple[bytes, bytes]], client: Client, editor: Editor) -> types.WorkspaceEdit:
    """The changed files as text edits of the lines that differ, versioned where the client takes it."""
    edits: dict[str, list[types.TextEdit]] = {}
    for path, (before, after) in sorted(changed.items()):
        lines = editor.lines_of(path, before)
        edits[path] = [
            types.TextEdit(range=types.Range(types.Position(*lines.position(change.start)),
                                             types.Position(*lines.position(change.end))),
                           new_text=change.text.decode("utf-8", "surrogatepass"))
            for change in changes(before, after)
        ]
    if client.document_changes:
        return types.WorkspaceEdit(document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=editor.uri_of(path), version=editor.version_of(path)),
                edits=list(text_edits),
            )
            for path, text_edits in edits.items()
        ])
    return types.WorkspaceEdit(changes={editor.uri_of(path): text_edits for path, text_edits in edits.items()})


def _fix_title(project: Project, problem: Problem) -> str:
    """`Fix PL301 (layout-drift): "1500" -> "1400"`, `(unsafe)` for an unsafe fix."""
    assert problem.fix is not None
    known = project.data(problem.path)
    data = known[0] if known else b""
    what = []
    for edit in problem.fix.edits[:1]:
        before = data[edit.start:edit.end].decode("utf-8", "replace")
        after = edit.text.decode("utf-8", "replace")
        what.append(f"remove {_quoted(before)}" if not after else f"insert {_quoted(after)}" if not before
                    else f"{_quoted(before)} -> {_quoted(after)}")
    if len(problem.fix.edits) > 1:
        what.append(f"and {len(problem.fix.edits) - 1} more")
    label = f"{problem.code} ({problem.name})" if problem.name else problem.code
    unsafe = " (unsafe)" if not problem.fix.safe else ""
    return f"Fix {label}{unsafe}: {' '.join(what)}"


def _quoted(text: str) -> str:
    from portlint.report import printable

    shown = text if len(text) <= 40 else text[:37] + "..."
    return printable(json.dumps(shown, ensure_ascii=False))


def _meets(one: types.Range, other: types.Range) -> bool:
    """The ranges overlap or touch (a cursor at either end of a literal is on it)."""
    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(one.start) <= key(other.end) and key(other.start) <= key(one.end)
