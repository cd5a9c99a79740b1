"""Which byte literals a file holds, all found in one pass over it.

The byte tests run before any parse (socket code that binds, a rendezvous start next to a
port, a tool of the defaults table) look for these literals in every Python, YAML and shell
file. `literal in data` is one pass over the file per literal, and a literal most files
lack costs a pass over all of it: some twenty passes over every byte of a repository's Python. RE2's
Set (google-re2) matches every literal in one pass; `holds` asks it once per file (the last
file's answer is kept) and tells whether one literal was among them. The prefilter's port
tokens are found in the same pass (`port_token`), and so are the words the Python extractor's
hot lines are made of (`holds`, and `holds_folded` for words in any case): a file is searched
for the places of only those it holds.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache, wraps
from typing import Any, TypeVar

from portlint.speed.switch import fast

# Every literal a byte test asks about, by the test that asks (`holds` answers for any other
# literal too, by a pass of its own: tests/speed/test_literals.py keeps this list complete).
NEEDLES = (
    # portlint.analysis.sockets.uses_sockets
    b"socket",
    # portlint.tables.port_helpers.mentioned: the words of the libraries' free-port helpers
    b"free_port", b"open_port", b"unused_port", b"UnusedPort", b"free_network_port", b"port_available",
    b"port_free", b"with_port", b"available_port", b"random_ports", b"and_port", b"init_method", b"tcp_uri",
    # portlint.analysis.rendezvous: a start ...
    b"init_process_group", b"LLM", b"Engine", b"spawn", b"torchrun", b"torch.distributed.",
    # portlint.tables.servers.mentioned: the words of the server and launcher commands
    b"vllm", b"sglang", b"uvicorn", b"tritonserver", b"text-generation-launcher", b"accelerate", b"deepspeed",
    b"port-forward",
    # ... next to a port written as a literal
    b"MASTER_PORT", b"VLLM_PORT", b"tcp://", b"--master", b"--rdzv", b"port",
    # portlint.tables.tool_defaults.mentions_tool
    b"rayStartParams", b"torch.distributed.run", b"torch.distributed.launch", b"MASTER_ADDR", b"start", b"ray",
    b"RAY",
    # portlint.stages.extract.python._hot_lines: the words of statements the site finder visits (_HOT_WORDS)
    b"click", b"typer",
)
# Words asked about in any case (`holds_folded`): portlint.stages.extract.python_commands._HOT_BYTES.
FOLDED = (b"cmd", b"command", b"script", b"subprocess", b"system", b"popen")
# The prefilter's port tokens (portlint.stages.discover) as RE2 reads them (it has no look-behind:
# the byte before is matched), found in the same pass as the literals (Prefilter.held);
# tests/speed/test_literals.py holds the two spellings together.
RE2_PORT_TOKENS = (rb"(?:^|[^A-Za-z])port", rb"(?:^|[^A-Z])Port", rb"(?:^|[^A-Z])PORT")
_INDEX = {needle: i for i, needle in enumerate(NEEDLES)}
_FOLDED_INDEX = {word: len(NEEDLES) + i for i, word in enumerate(FOLDED)}
_TOKENS_AT = len(NEEDLES) + len(FOLDED)  # the first port token's bit
K = TypeVar("K")
T = TypeVar("T")
_NOTHING = object()  # what no caller asks about


def of_last(compute: Callable[[K], T]) -> Callable[[K], T]:
    """`compute` whose answer for the object last asked about (by identity) is kept: the stages
    ask the same things of one file (its line starts, its searchable form, its byte tests) or of
    one layout in turn, and asking again is a cost (the byte tests alone: a measurable part of
    the per-file stage). Another object, even with equal bytes, is asked afresh."""
    last: list[Any] = [_NOTHING, None]

    @wraps(compute)
    def asked(argument: K) -> T:
        if last[0] is not argument:
            last[:] = [argument, compute(argument)]
        answer: T = last[1]
        return answer

    return asked


def port_token(data: bytes, which: int | None = None) -> bool:
    """Whether the bytes hold a port token (the prefilter's, portlint.stages.prefilter), or the `which`th of
    RE2_PORT_TOKENS, found in the same pass."""
    if not fast("needles"):
        return any(token.search(data) for token in _plain_tokens()[slice(None) if which is None else slice(which, which + 1)])
    if which is None:
        return _bits(data) >> _TOKENS_AT != 0
    return bool(_bits(data) >> (_TOKENS_AT + which) & 1)


def holds(data: bytes, literal: bytes) -> bool:
    """`literal in data`."""
    at = _INDEX.get(literal)
    if at is None or not fast("needles"):
        return literal in data
    return bool(_bits(data) >> at & 1)


def holds_any(data: bytes, literals: tuple[bytes, ...]) -> bool:
    """`any(literal in data for literal in literals)`: one test of the pass's answer where every
    literal is one of NEEDLES (a byte test asks about a table's words together)."""
    mask = _mask(literals)
    if mask is None or not fast("needles"):
        return any(literal in data for literal in literals)
    return bool(_bits(data) & mask)


@lru_cache(maxsize=32)
def _mask(literals: tuple[bytes, ...]) -> int | None:
    """The bits of the literals in the pass's answer; None where one is not a needle."""
    mask = 0
    for literal in literals:
        at = _INDEX.get(literal)
        if at is None:
            return None
        mask |= 1 << at
    return mask


def holds_folded(data: bytes, word: bytes) -> bool:
    """`word in data.lower()`, for a lower-case `word` (ASCII letters are matched in either case)."""
    at = _FOLDED_INDEX.get(word)
    if at is None or not fast("needles"):
        return word in data.lower()
    return bool(_bits(data) >> at & 1)


@of_last
def _bits(data: bytes) -> int:
    """A bit per needle the bytes hold, then one per folded word, then one per port token."""
    return sum(1 << i for i in _matcher().Match(data) or ())


@cache
def _plain_tokens() -> tuple[re.Pattern[bytes], ...]:
    """RE2_PORT_TOKENS for `re`, each searched on its own (the plain way)."""
    return tuple(re.compile(token) for token in RE2_PORT_TOKENS)


@cache
def _matcher() -> Any:
    """The needles, the folded words (in any case), then the port tokens, as one RE2 Set,
    compiled on first use."""
    import re2

    matcher = re2.Set.SearchSet(re2_options())
    for needle in NEEDLES:
        matcher.Add(re2.escape(needle))
    for word in FOLDED:
        matcher.Add(b"(?i)" + re2.escape(word))
    for token in RE2_PORT_TOKENS:
        matcher.Add(token)
    matcher.Compile()
    return matcher


def re2_options() -> Any:
    """RE2's options for patterns over bytes, whatever their encoding (RE2 reads UTF-8 otherwise)."""
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    return options
