"""`portlint server`: the language server an editor starts, speaking LSP over stdio.

It shows portlint's problems where they are written, as the files are edited (before they
are saved), with quick fixes that apply `--fix`'s and `--add-noqa`'s edits. It sits on
the engine as the commands do: a `Session` per repository (portlint/server/project.py),
its files overlaid with the editor's unsaved text (`Session.revised`), the fix loop for
fixes and `--add-noqa`'s code for suppressions; problems become diagnostics
(diagnostics.py, positions in the client's encoding: positions.py) and code actions
(actions.py); lsp.py wires them to pygls.

pygls (the Python LSP framework of the Open Law Library, typed by lsprotocol, the LSP's
own generated types) does the protocol: the JSON-RPC framing, document sync, capability
negotiation and error responses. It is imported only by this command.
"""
from __future__ import annotations

import logging
import os
import sys
from importlib import metadata
from typing import BinaryIO

DEFAULT_DOCS = "https://OWNER.github.io/portlint/"


def docs_url() -> str:
    """The docs site the package names (its `Documentation` URL), where each rule has a page."""
    try:
        for entry in metadata.metadata("portlint").get_all("Project-URL") or ():
            label, _, url = entry.partition(",")
            if label.strip().lower() == "documentation" and url.strip():
                return str(url).strip().rstrip("/") + "/"
    except metadata.PackageNotFoundError:
        pass
    return DEFAULT_DOCS


def serve(docs: str | None = None) -> int:
    """Serve one client on stdin and stdout until it exits (`docs`: the docs site's base URL):
    0 when it asked for a shutdown first, 1 otherwise (as LSP says)."""
    from portlint.server.lsp import build

    _log_in_one_line()
    server = build((docs.rstrip("/") + "/") if docs else docs_url())
    server.start_io(sys.stdin.buffer, _protocol_output())
    return 0 if server.shut_down else 1


class _OneLine(logging.Formatter):
    """A record as one printable line, its exception's type and message in place of the
    traceback: what reaches the editor's log of a message the server could not read."""

    def format(self, record: logging.LogRecord) -> str:
        from portlint.report import printable

        text = record.getMessage()
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            text += f": {type(error).__name__}: {error}"
        return printable(f"portlint server: {text}")


def _log_in_one_line() -> None:
    """pygls logs what it cannot handle (a body that is not JSON, say) with its traceback on
    standard error; the editor's log gets one line of it instead, and the server goes on."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    log = logging.getLogger("pygls")
    log.addHandler(handler)
    log.setLevel(logging.WARNING)
    log.propagate = False


def _protocol_output() -> BinaryIO:
    """Standard output for the protocol alone: a descriptor of its own, and descriptor 1 made
    standard error, so that nothing else this process (or a child) prints can corrupt the
    protocol's stream, and closing the stream at exit closes only the protocol's."""
    sys.stdout.flush()
    output = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return output
