"""Stage prefilter: whether a file read can hold anything to check, decided on its bytes alone.

A port token or a selector's name (a file without one writes no site), socket code
that binds or a rendezvous start (PL601/PL602/PL604), a tool whose default ports
matter (PL603), or a compose file's mounts: anything else is dropped before any
parser sees it. The extractors narrow it further where they can (the YAML
extractor's own byte test, applied by the per-file stage), and read the same
tokens to find the statements worth parsing.
"""
from __future__ import annotations

import mmap
import re
from collections.abc import Iterable
from functools import lru_cache

from portlint import analysis
from portlint.analysis import scripts
from portlint.speed.needles import port_token
from portlint.tables.tool_defaults import mentions_tool

# A word-boundary `port`: `_port`, `-port`, `.port`, `PORT`, camel-case `containerPort`,
# but not `import`, `export`, `support` or `report`. Each spelling is its own pattern that
# starts with its literal, the look-behinds after it: `re` then scans for the literal, many
# times faster than one pattern opening with an alternation or a look-behind (docs/performance.md).
_PORT_TOKENS = (
    rb"port(?<![A-Za-z]port)",
    rb"Port(?:(?<![A-Za-z]Port)|(?<=[a-z]Port))",
    rb"PORT(?:(?<![A-Za-z]PORT)|(?<=[a-z]PORT))",
)
# `port` as a word of a name, as naming.words splits one (underscores, other non-alphanumerics and
# a lower-to-upper case change): `MASTER_PORT`, `--port`, `containerPort`, `portX`, but not
# `ports`, `portion`, `port2` or `HTTPPort`. Every port-like name holds one (naming.is_port_name):
# a statement without one (or a selector's key) writes none. Each spelling starts with its literal,
# and matches only where the port token of RE2_PORT_TOKENS at its index does (a port word is one
# whose byte before is no letter, or no upper-case one): extract.python._hot_lines looks only for
# those the one pass of portlint.speed.needles finds.
PORT_WORDS = (
    rb"port(?<![A-Za-z0-9]port)(?![a-z0-9])",
    rb"Port(?<![A-Z]Port)(?![a-z0-9])",
    rb"PORT(?<![A-Z]PORT)(?![A-Za-z0-9])",
)


class Prefilter:
    """Port tokens and selector names: a file where `search` finds none holds no site."""

    def __init__(self, tokens: tuple[re.Pattern[bytes], ...], names: tuple[bytes, ...], keys: tuple[bytes, ...] = ()) -> None:
        self.tokens = tokens
        self.names = names  # plain substrings: `bytes.find` is faster than any regex for them
        self.keys = keys  # the last key of every selector name (`b` of `a.b`, `ports` of `ports[0]`)
        # The tokens are _PORT_TOKENS: `held` may take them from portlint.speed.needles.
        self.with_literals = tuple(token.pattern for token in tokens) == _PORT_TOKENS

    def search(self, data: bytes | mmap.mmap) -> re.Match[bytes] | bool | None:
        """Something truthy where a token or name occurs (a match of a token), else None."""
        for token in self.tokens:
            found = token.search(data)
            if found is not None:
                return found
        return True if any(data.find(name) != -1 for name in self.names) else None

    def held(self, data: bytes) -> bool:
        """Whether `search` finds something, the tokens taken from the pass that finds every
        literal a byte test asks about (portlint.speed.needles): for a file those tests read anyway
        (Python), no pass of their own."""
        if not self.with_literals:
            return bool(self.search(data))
        return port_token(data) or any(data.find(name) != -1 for name in self.names)

    def hits(self, data: bytes) -> list[int]:
        """Every offset where a token or a name occurs (unordered): where `search` could stop."""
        found = [match.start() for token in self.tokens for match in token.finditer(data)]
        for name in self.names:
            at = data.find(name)
            while at != -1:
                found.append(at)
                at = data.find(name, at + 1)
        return found


def prefilter(extra_names: Iterable[str] = ()) -> Prefilter:
    return _prefilter(tuple(sorted(set(extra_names))))


@lru_cache(maxsize=16)
def _prefilter(extra_names: tuple[str, ...]) -> Prefilter:
    """Port tokens and selector names, whose absence proves a file holds no site.

    Names the port token already finds are left out: every extra one is another
    search over every byte of every file.
    """
    tokens = tuple(re.compile(token) for token in _PORT_TOKENS)
    names = {name.lstrip("-").encode() for name in extra_names if name.strip("-")}
    # A selector's dotted path is never written whole: `cluster.gcs_slot` is the key
    # `gcs_slot` under `cluster:`, `Engine.port` an attribute in a class body. Its last key is.
    keys = {name.rsplit(b".", 1)[-1].split(b"[", 1)[0] for name in names} - {b""}
    kept = tuple(sorted(key for key in keys if not any(token.search(key) for token in tokens)))
    return Prefilter(tokens, kept, tuple(sorted(keys)))


def worth_parsing(kind: str, data: bytes, pattern: Prefilter) -> bool:
    """A port token or selector name, socket code (PL601/602), or a tool whose default
    ports matter (PL603): anything else holds nothing to check (frozen pairs aside)."""
    # A Python file is asked about the literals anyway (its extraction asks `mentions_tool`): its
    # tokens come from that pass. Any other file is asked only where no token is found, and
    # `search` stops at the first.
    found = pattern.held(data) if kind == "python" else pattern.search(data)
    return bool(found or uses_sockets(kind, data) or mentions_tool(kind, data) or kind == "yaml" and mounts(data))


# A compose file's `services:` at the top, and a `volumes:` key: the files its services mount
# are a fact of the layout (portlint.stages.extract.yaml_compose), whether or not it writes a port.
_SERVICES = re.compile(rb"^services[ \t]*:", re.M)


def mounts(data: bytes) -> bool:
    """Whether the bytes may be a compose file whose services mount files (a byte test, no parser)."""
    return b"volumes" in data and _SERVICES.search(data) is not None


def uses_sockets(kind: str, data: bytes) -> bool:
    """Python a code analysis reads (socket code that binds: PL601/PL602; rendezvous starts: PL604),
    or a shell script PL604 reads whatever runs it (analysis.scripts.worth_reading)."""
    return kind == "python" and analysis.worth_reading(data) or \
        kind == "shell" and scripts.worth_reading(data)
