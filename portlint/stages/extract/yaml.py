"""YAML sites: integer scalars (and integer-looking quoted strings) under port-like keys.

Parsed with ruamel.yaml's composer, which builds nodes with positions and never
constructs Python objects from tags. A file with `{{ … }}` template syntax (a
Helm chart's `templates/`) that is not YAML as written is read with its
template actions blanked (`portlint.stages.extract.template`); one that is still not
YAML is skipped with a note, never reported as PL001. The C-backed composer is used when
ruamel.yaml.clib is installed (several times faster than the pure one, same marks).

Composing is most of the cost, so `worth_composing` first reads the bytes for
what the extractor could yield (a port-like key whose value may be a number, a
comment naming a port, a suppression, a command key that runs something): a
Kubernetes CRD, which says "port" in thousands of schema keys and describes
`command:` and `rayStartParams:` without running any, is not composed at all (the
fast path `yaml`). Of a stream of many documents (a release's manifest: its CRDs
beside its deployments), the documents the same test rejects are blanked before
the rest is composed (the fast path `documents`). A file or document dropped there
is not checked for YAML errors either, as any file the byte prefilter skips.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any, NamedTuple

from portlint.model.extraction import Extraction, Suppression
from portlint.model.naming import NameFilter, is_port_name, role_of
from portlint.model.naming import words as key_words
from portlint.model.ports import host_kind
from portlint.model.sites import Site
from portlint.model.source import Source
from portlint.speed import yaml_stream
from portlint.speed.switch import fast
from portlint.stages.extract import prose, suppression_in, template, yaml_commands, yaml_compose

_MERGE_KEY = "<<"


@lru_cache(maxsize=1)
def _resolver() -> Any:
    from ruamel.yaml import resolver

    class TagsAsWritten(resolver.VersionedResolver):
        """Skip implicit tag resolution (two thirds of compose time): a plain scalar
        of decimal digits is an integer in YAML 1.2's core schema, checked below."""

        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:  # a ruamel Tag
            if kind is resolver.ScalarNode:
                return self.DEFAULT_SCALAR_TAG
            return self.DEFAULT_SEQUENCE_TAG if kind is resolver.SequenceNode else self.DEFAULT_MAPPING_TAG

    return TagsAsWritten


@lru_cache(maxsize=1)
def _c_composer() -> Any:
    """ruamel.yaml.clib's parser with the resolver hooks it calls while composing (as
    ruamel.yaml.cyaml's loaders have them, without a constructor); None when the C
    extension is not installed. Made once: `YAML().compose_all` builds a loader class
    and a resolver on every call, a cost of every file."""
    try:
        from ruamel.yaml.cyaml import CParser
    except ImportError:
        return None
    from ruamel.yaml import nodes

    tags = _resolver()
    tag_of = {nodes.ScalarNode: tags.DEFAULT_SCALAR_TAG, nodes.SequenceNode: tags.DEFAULT_SEQUENCE_TAG,
              nodes.MappingNode: tags.DEFAULT_MAPPING_TAG}

    class Composer(CParser):
        def descend_resolver(self, parent: Any, index: Any) -> None:
            return None  # no path resolvers

        def ascend_resolver(self) -> None:
            return None

        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            return tag_of[kind]  # tags as written: what TagsAsWritten resolves

    return Composer


@lru_cache(maxsize=1)
def _pure_yaml() -> Any:
    """The pure composer: the same nodes and marks as the C one, several times slower."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.Resolver = _resolver()
    return yaml


# -- which files are worth composing (a byte test, no parser) ----------------------
# What the extractor can yield, each with the bytes it cannot do without:
# * a site: a port-like key (a port token in it; or a selector's last key) with a
#   value that does not start with a letter (a digit, a quote, `&`, `!`, `*`, `-`, `[`);
# * a comment statement or a suppression: a port token after a `#`, or `portlint:`;
# * a command: a `command`/`args`/`run`/`setup`/`rayStartParams` key, unless its value
#   is a block mapping (a CRD's schema of the field, which runs nothing);
# * a compose file's mounts: `services:` at the top and a `volumes:` key.
# Keys the token cannot be seen in (an alias as a key, an explicit `?` key, an escape
# in a quoted key) make the whole file worth composing.
# One literal-first pattern per key (`re` scans for the literal), the look-behind after it:
# a key, not the end of one (`kwargs:`).
_COMMAND_KEYS = tuple(
    re.compile(rb"(%s)(?<![\w-]%s)['\"]?[ \t]*:" % (key, key)) for key in sorted(k.encode() for k in yaml_commands.KEYS)
)
_BLANK = re.compile(rb"[ \t\r\n]*")
# The next non-blank line is a plain key deeper than `indent`: the value is a block mapping.
_NEXT_KEY = re.compile(rb"(?:[ \t]*\r?\n)*( *)[A-Za-z_][\w.-]*[ \t]*:(?:[ \t\r\n]|$)")
_EXPLICIT_KEY = re.compile(rb"\?(?=[ \t\r\n]|\Z)(?:(?<=^\?)|(?<=[ \t\[{,]\?))", re.M)  # `? key`: may span lines
# `*alias : value` where a key may start: after indentation (and `- `), `{` or `,`. The place is
# part of the pattern, so that a match is tried only there: tried after every `*`, a line of
# them cost a scan of the rest of the line each (quadratic in its length).
_ALIAS_KEY = re.compile(rb"(?:^[ \t-]*|[{,][ \t]*)\*[^ \t\r\n,\[\]{}]+[ \t]*:", re.M)
_ESCAPE = re.compile(rb"\\[xuU]")  # `"\x70ort": 1`: an escape may spell a key


# Large files read once per process: a Helm chart vendors its operator's CRDs (a repository may
# hold the same large CRD at two paths), and reading one costs ten scans of its bytes.
_LARGE = 1 << 18
_VERDICTS: dict[tuple[bytes, tuple[re.Pattern[bytes], ...], tuple[bytes, ...]], bool] = {}


def worth_composing(data: bytes, tokens: Iterable[re.Pattern[bytes]], keys: Iterable[bytes]) -> bool:
    """`_worth_composing`, remembered for a few large files (compared byte for byte)."""
    if len(data) < _LARGE:
        return _worth_composing(data, tokens, keys)
    key = (data, tuple(tokens), tuple(keys))
    verdict = _VERDICTS.get(key)
    if verdict is None:
        verdict = _VERDICTS[key] = _worth_composing(data, key[1], key[2])
        if len(_VERDICTS) > 8:
            del _VERDICTS[next(iter(_VERDICTS))]  # the oldest: at most 8 files' bytes held
    return verdict


def _worth_composing(data: bytes, tokens: Iterable[re.Pattern[bytes]], keys: Iterable[bytes]) -> bool:
    """Whether composing the file can yield anything: False proves it holds no site, comment
    statement, suppression or command (a file known not to be YAML aside: it is skipped as
    any file the byte prefilter skips). `tokens` are the prefilter's port tokens (each opens with a
    spelling of `port`), `keys` the last key of every selector name. A frozen copy's side is
    composed whatever this says."""
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return True  # reported as not UTF-8 (PL001)
    if any(key in data for key in _written(tuple(keys))):
        return True  # a selector's key (or a comment stating it as `x_low/high`)
    from portlint.stages.prefilter import mounts

    if mounts(data):
        return True  # a compose file's mounts (yaml_compose)
    lowered = data.lower()  # one scan finds every spelling of the token, and `portlint:`
    line: _Line | None = None
    at = lowered.find(b"port")
    while at != -1:
        if data.startswith(b"portlint:", at):
            return True  # a suppression
        if any(token.match(data, at) for token in tokens):
            if line is None or at > line.end:
                line = _Line(data, at)
            if line.may_hold_port(at):
                return True
        at = lowered.find(b"port", at + 4)
    if _EXPLICIT_KEY.search(data) or _ESCAPE.search(data):
        return True  # a key the token cannot be seen in
    if b"&" in data and _ALIAS_KEY.search(data):
        return True  # an alias as a key (what it names is anchored)
    return any(_may_run(data, match) for pattern in _COMMAND_KEYS for match in pattern.finditer(data))


_HIGH = re.compile(rb"(?:high|HIGH|max|MAX|hi|HI)$")


@lru_cache(maxsize=16)
def _written(keys: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """The selector keys to look for, as they may be written: as they are, or a high end
    as its low end's stem (a comment's `gcs_slot_low/high` states `gcs_slot_high`:
    prose.statements). A port-like key is left to the port token (it selects what the
    token's test keeps anyway: `WorkerConfig.port` would otherwise find `import`)."""
    kept = tuple(key for key in keys if not (key.isascii() and set(key) <= _KEY_BYTES and _port_named(key)))
    return kept + tuple(_HIGH.sub(b"", key) for key in kept if _HIGH.search(key) and _HIGH.sub(b"", key))


# Colons read on one line, past which the line is taken as worth composing: each costs a pass
# over the line, and a line holding thousands of them after port tokens (no YAML written by
# hand; a hostile file) would cost passes quadratic in its length. Composing it is linear.
_LINE_BUDGET = 32


class _Line:
    """The line around a port token, read once for every token on it (`may_hold_port`)."""

    def __init__(self, data: bytes, at: int) -> None:
        self.data = data
        self.start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        self.end = len(data) if end == -1 else end
        hash_at = data.find(b"#", self.start, self.end)
        # Where a comment holding a number starts: a token after it may be stated there.
        self.comment = hash_at if hash_at != -1 and prose.DIGIT.search(data, hash_at, self.end) else None
        self.budget = _LINE_BUDGET  # colons left to read
        self.last: int | None = None  # the last token read

    def may_hold_port(self, at: int) -> bool:
        """A port token at `at`: in a comment with a number, or in a port-like key whose value
        may be a number (a key whose words make it a count or an offset, `port_count: 2`, is none)."""
        if self.comment is not None and self.comment < at:
            return True  # a comment may state its port (prose.statements needs a digit)
        data = self.data
        # The key's words before the token (never past a space, quote or `&anchor`), read back
        # to the last token at most: each byte once.
        previous, self.last = self.last, at
        since = self.start if previous is None else previous
        words = data[since:at].rstrip(_KEY_CHARS)
        if previous is not None and not words:
            return False  # the last token's key, whose colons were read
        key_start = since + len(words)
        colon = data.find(b":", at, self.end)
        while colon != -1:  # every colon: a quoted key may hold one (`"port:a": 1`)
            self.budget -= 1
            if self.budget < 0:
                return True  # a line no one writes by hand: composing decides
            value = _BLANK.match(data, colon + 1).end()  # type: ignore[union-attr]  # matches the empty string
            if value < len(data) and not data[value:value + 1].isalpha() and _port_named(data[key_start:colon]):
                return True  # a number, a quote, `&`, `!`, `*`, `-`, `[`, `{`, `|`, a comment: may be a port
            colon = data.find(b":", colon + 1, self.end)
        return False


_KEY_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_KEY_BYTES = frozenset(_KEY_CHARS)


def _port_named(key: bytes) -> bool:
    """Whether a key (or the end of one: its words from the token on) is port-like. Words
    cut off before the token can only have made it a count, never a port, so a cut key
    says yes where the whole one may say no, never the other way round."""
    return is_port_name(key.decode("utf-8", "replace"))


def _may_run(data: bytes, match: re.Match[bytes]) -> bool:
    """A command key: False only where its value is a block mapping, and (rayStartParams)
    one under a CRD schema's `properties:` or (`run`/`setup`) one nested in another key."""
    line_start = data.rfind(b"\n", 0, match.start()) + 1
    indent = match.start() - line_start
    if data[line_start:match.start()].strip(b" "):
        return True  # `- command:`, a quoted or flow key: not read here
    line_end = data.find(b"\n", match.end())
    line_end = len(data) if line_end == -1 else line_end
    if data[match.end():line_end].strip(b" \t\r"):
        return True  # a value (or a comment) on the key's own line
    mapping = _NEXT_KEY.match(data, line_end + 1) if line_end < len(data) else None
    if mapping is None or len(mapping.group(1)) <= indent:
        return True
    if match.group(1) == b"rayStartParams":
        parent = _parent_line(data, line_start, indent)
        return parent is None or parent.strip(b" \t\r") != b"properties:"
    return False


def _parent_line(data: bytes, line_start: int, indent: int) -> bytes | None:
    """The nearest line above `line_start` indented less than `indent` (comments and blank
    lines aside): in block YAML, the key whose value holds the line."""
    end = line_start - 1
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        line = data[start:end]
        text = line.lstrip(b" ")
        if text.strip(b" \t\r") and not text.startswith(b"#") and len(line) - len(text) < indent:
            return line
        end = start - 1
    return None


# Nesting levels composed at most. ruamel.yaml.clib's composer recurses on the C stack: a small
# file of collections nested some tens of thousands deep overflows it, a SIGSEGV that ends the
# whole run. Far deeper than any YAML written by hand, and half of Python's recursion limit:
# the walks over the composed nodes (frozen copies' flattening) recurse a frame a level.
MAX_DEPTH = 500
_BRACKETS = re.compile(r"[\[\]{}]")
# A line indented past MAX_DEPTH columns (blanks, and the indicators `-`, `?`, `:` of compact
# collections): a block collection nested in another is indented further, or (a sequence as a
# mapping's value) as far: a line indented less nests less than twice as deep.
_INDENTED = re.compile(rf"\n[ \t?:-]{{{MAX_DEPTH + 1}}}")


class TooDeep(ValueError):
    """YAML nested deeper than MAX_DEPTH: refused before it is composed."""


def too_deep(text: str) -> bool:
    """Whether the text may nest deeper than MAX_DEPTH: its flow collections (brackets counted
    as they open and close, wherever they are) or its indentation. A bound, not a parse: one
    pass over the brackets where there are more than MAX_DEPTH of them, one search otherwise."""
    if len(text) <= MAX_DEPTH:
        return False
    if text.count("[") + text.count("{") > MAX_DEPTH:
        depth = 0
        for bracket in _BRACKETS.finditer(text):
            depth = depth + 1 if bracket.group() in "[{" else max(depth - 1, 0)
            if depth > MAX_DEPTH:
                return True
    return _INDENTED.search(text) is not None or _INDENTED.match("\n" + text[:MAX_DEPTH + 1]) is not None


def compose(text: str) -> list[Any]:
    """Every document's root node; raises ruamel.yaml.YAMLError on bad input, TooDeep on input
    nested deeper than any composer should recurse."""
    if too_deep(text):
        raise TooDeep(f"YAML nested deeper than {MAX_DEPTH} levels")
    return _composed(text)


def _composed(text: str) -> list[Any]:
    """compose, for a text known to nest no deeper than MAX_DEPTH. Where libyaml refuses what the
    YAML spec allows (a `:` inside a plain scalar of a flow sequence: `[arch:sm90]`), the pure
    composer decides: a file is broken only where both refuse it (the C parser's message then)."""
    composer = _c_composer()
    if composer is None:
        return _pure_composed(text)
    from ruamel.yaml import YAMLError  # loaded with the composer already

    parser = composer(text)
    try:
        roots = []
        while parser.check_node():
            root = parser.get_node()
            if root is not None:
                roots.append(root)
        return roots
    except YAMLError as refused:
        try:
            return _pure_composed(text)
        except YAMLError:
            raise refused from None
    finally:
        parser.dispose()


def _pure_composed(text: str) -> list[Any]:
    """The pure composer's documents; what it warns of (an anchor defined again, which YAML allows)
    is the file's business, not portlint's output."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [doc for doc in _pure_yaml().compose_all(text) if doc is not None]


def extract(source: Source, names: NameFilter) -> Extraction:
    if fast("documents"):
        extraction = _hot_documents(source, names)
        if extraction is not None:
            return extraction
    return extract_with_roots(source, names)[0]


def extract_with_roots(source: Source, names: NameFilter) -> tuple[Extraction, list[Any] | None]:
    """The extraction and the composed documents, for a caller that reads them again
    (frozen copies compare every scalar); None when the file did not compose."""
    from ruamel.yaml import YAMLError

    # A leading BOM is dropped before composing: the C composer leaves it out of
    # its marks' index, the pure one counts it; marks are shifted back below.
    bom = 1 if source.text.startswith("\ufeff") else 0
    body = source.text[bom:]
    try:
        roots = compose(body)
    except TooDeep as error:
        return Extraction(error=str(error)), None
    except YAMLError as error:
        if "{{" not in body:
            return _parse_error(error), None
        body = template.masked(body)  # a Helm/Go template: read it where it is plain YAML
        try:
            roots = compose(body)
        except (YAMLError, RecursionError, TooDeep):
            return Extraction(note=template.NOT_YAML), None
    except RecursionError:
        return Extraction(error="YAML nested too deeply to parse"), None
    tree = _tree(roots)
    if isinstance(tree, Extraction):  # a repeated key
        return (Extraction(note=template.NOT_YAML) if body is not source.text[bom:] else tree), None
    plain = body is source.text[bom:]  # a masked template's nodes are not the file's own for frozen copies
    return _read(source, names, body, bom, tree), (None if bom or not plain else roots)


def _hot_documents(source: Source, names: NameFilter) -> Extraction | None:
    """The extraction of a stream of documents, composed with those whose bytes can yield
    nothing (worth_composing) blanked (portlint.speed.yaml_stream): the same nodes at the same
    places for the others. None where that is not worth it (one document, none of them cold)
    or not sure: the stream is unsure where its documents are, or does not compose so, or
    repeats a key, or a document it composes nests too deep (then the whole stream says what
    is wrong, and where first). A blanked document is not composed, so its errors, and its
    depth, go unreported (portlint.speed.switch)."""
    from ruamel.yaml import YAMLError

    from portlint.stages.prefilter import prefilter

    bom = 1 if source.text.startswith("\ufeff") else 0
    body = source.text[bom:]
    spans = yaml_stream.documents(body)
    if spans is None or len(spans) < 2:
        return None
    pattern = prefilter(names.selector_names)
    cold, objects = [], []
    for start, end in spans:
        data = body[start:end].encode()
        # A cold document still decides two facts of the whole file (_PodScope): whether a
        # mapping sets hostNetwork (then it is composed), and whether it is a Kubernetes object.
        if _worth_composing(data, pattern.tokens, pattern.keys) or (b"hostNetwork" in data and _HOST_NETWORK.search(data)):
            if too_deep(body[start:end]):
                return None  # the whole stream says so
            continue
        kind = _object_written(data)
        if kind is None:
            return None
        if kind == "" and body.startswith("---", start - 3):
            kind = "other"  # after `---`, nothing is a document still: an empty scalar
        cold.append((start, end))
        objects.append(kind)
    if not cold:
        return None
    text = yaml_stream.blanked(body, cold)
    try:
        composed = _composed(text)  # blanks nest nothing: no deeper than the documents kept, bounded above
    except (YAMLError, RecursionError):
        return None
    # A blanked document after a `---` composes to an empty scalar: not one of the file's roots.
    roots = [root for root in composed if not (root.id == "scalar" and root.value == "" and _within(root, cold))]
    tree = _tree(roots)
    if isinstance(tree, Extraction):
        return None
    candidates, spanned, invoking, pods, beside = tree
    kubernetes = (bool(roots) or "object" in objects) and all(map(_kubernetes_object, roots)) \
        and "other" not in objects
    tree = candidates, spanned, invoking, pods._replace(kubernetes=kubernetes), beside
    return _read(source, names, text, bom, tree, [(start + bom, end + bom) for start, end in cold])


def _within(node: Any, spans: list[tuple[int, int]]) -> bool:
    """Whether a node starts in one of the spans (or at its end: where the next marker is)."""
    at = node.start_mark.index
    return any(start <= at <= end for start, end in spans)


def _read(source: Source, names: NameFilter, body: str, bom: int, tree: _Read,
          skipped: list[tuple[int, int]] | None = None) -> Extraction:
    """What the extractor finds in the composed text `body` (the file's text from `bom` on)
    that `_tree` read: sites, comments (none in the `skipped` character spans of the file's
    text), commands."""
    candidates, spanned, invoking, pods, beside = tree
    in_pod = _PodScope(source.path, pods)
    # An anchored literal is one site, under the first name that wants it: its aliases
    # refer to it, and two roles (`low: &p 1024`, `high: *p`) cannot both be fixed in it.
    literals, seen = [], set()
    for path, node in candidates:
        if id(node) not in seen and _is_port_literal(node) and names.wants(path):
            seen.add(id(node))
            literals.append((path, node))
    offsets = _byte_offsets(source, [_digits_index(body, node) + bom for _, node in literals])
    sites = [
        site for path, node in literals
        if (site := _site(source, offsets[_digits_index(body, node) + bom], path, node, in_pod(path),
                          beside.get(id(node), "")))
    ]
    if "#" in source.text:
        scalar_spans = [(n.start_mark.index + bom, n.end_mark.index + bom) for n in spanned]
        suppressions, doc_sites = _comments(source, [*scalar_spans, *(skipped or ())], names)
    else:
        suppressions, doc_sites = (), []
    commands = yaml_commands.find_in(source, invoking, names, in_pod) if invoking else ()
    mounts = yaml_compose.mounted(source.path, pods.services) if pods.services else ()
    return Extraction((*sites, *doc_sites), suppressions, commands=commands, mounts=mounts)


def _digits_index(text: str, node: Any) -> int:
    """Character index (in the composed text) of a scalar's first digit."""
    return scalar_index(text, node) + (node.style in ("'", '"'))


def scalar_index(text: str, node: Any) -> int:
    """Character index in `text` (what was composed) where a scalar's own text starts.

    The start mark includes the node's properties (`&anchor`, `!!tag`), which
    precede the scalar and are separated from it by spaces or line breaks; a
    quoted scalar's text starts at its opening quote.
    """
    start: int = node.start_mark.index
    end: int = node.end_mark.index
    while start < end and text[start] in "&!":
        while start < end and not text[start].isspace():
            start += 1
        while start < end and text[start].isspace():
            start += 1
    return start


def _byte_offsets(source: Source, indices: list[int]) -> dict[int, int]:
    """Character indices -> byte offsets, in one pass over the text.

    Marks' indices, not their line/column, locate nodes: YAML also breaks lines at
    a lone CR (and ruamel at U+2028/U+2029/NEL), which Source's lines do not count.
    """
    if source.ascii:
        return {index: index for index in indices}
    offsets, char, byte = {}, 0, 0
    for index in sorted(set(indices)):
        byte += len(source.text[char:index].encode("utf-8"))
        offsets[index], char = byte, index
    return offsets


def walk(roots: list[Any]) -> Iterator[tuple[str, Any]]:
    """(key path, node) for every node, each node once even when aliased.

    Aliases share their anchor's node object, so remembering visited collections
    keeps alias bombs and recursive anchors linear.
    """
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", root) for root in reversed(roots)]
    while stack:
        path, node = stack.pop()
        if node.id == "scalar":
            yield path, node
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield path, node
        stack.extend(reversed(list(_children(path, node))))


def _children(path: str, node: Any) -> Iterator[tuple[str, Any]]:
    if node.id == "sequence":
        for index, item in enumerate(node.value):
            yield f"{path}[{index}]", item
        return
    for key, value in node.value:
        if key.id != "scalar" or key.value == _MERGE_KEY:
            continue  # a merged mapping is walked where it is anchored
        yield (f"{path}.{key.value}" if path else str(key.value)), value


# A Helm chart's values (`values.yaml`, `values-prod.yaml`, `ci/values.dev.yaml`, `my-values.yaml`),
# and the folders charts live in.
_HELM_VALUES = re.compile(r"(?:.*[-_.])?values(?:[-_.].*)?\.ya?ml")
_HELM_FOLDERS = frozenset(("chart", "charts", "helm", "helm-chart", "helm-charts", "helmchart", "helmcharts"))
_CONTAINER_LISTS = ("containers", "initContainers")
_KIND_CLUSTER = "kind.x-k8s.io/"  # kind's own config: its ports are the host's (`apiServerPort`, port mappings)


class _Pods(NamedTuple):
    """The pod specs of a file (the key path of every mapping holding `containers:`, and whether it
    sets `hostNetwork: true`), whether any mapping of the file sets `hostNetwork: true`, whether
    every document of the file is a Kubernetes object (`apiVersion` and `kind` at its top), and
    its compose services (portlint.stages.extract.yaml_compose)."""

    specs: list[tuple[str, bool]]
    host_network: bool
    kubernetes: bool
    services: tuple[yaml_compose.Service, ...] = ()


class _PodScope:
    """Which key paths of a file are written for a container that keeps its own network namespace:
    a container of a pod spec without `hostNetwork: true` (its ports, environment and commands); a
    compose service without `network_mode: host`, but the host side of its `ports:`
    (portlint.stages.extract.yaml_compose); and, where no key of the file sets `hostNetwork: true`,
    every key of a file of Kubernetes objects (workloads run in pods; a Service's ports are behind
    its own address) and of a Helm chart's values (the chart's pods bind or dial them). A node's own
    ports (`nodePort`, `hostPort`) are told apart by their keys
    (portlint.stages.layout.services.kubernetes)."""

    def __init__(self, path: str, pods: _Pods) -> None:
        folders, name = path.split("/")[:-1], path.rsplit("/", 1)[-1]
        helm = _HELM_VALUES.fullmatch(name) is not None or any(part.lower() in _HELM_FOLDERS for part in folders)
        self.values = not pods.host_network and (pods.kubernetes or helm)
        self.prefixes = tuple(
            f"{spec}.{key}[" if spec else f"{key}[" for spec, host in pods.specs if not host for key in _CONTAINER_LISTS
        )
        self.services = tuple(service.path for service in pods.services if not service.host_network)

    def __call__(self, path: str) -> bool:
        return self.values or path.startswith(self.prefixes) or bool(self.services) \
            and yaml_compose.contained(path, self.services)


# candidates, spanned, invoking, pods, and the host written beside a port (`Site.host`) by id of its scalar
_Read = tuple[list[tuple[str, Any]], list[Any], list[tuple[str, Any]], _Pods, dict[int, str]]


def _tree(roots: list[Any]) -> _Read | Extraction:
    """What the extractor reads of the documents, in one walk (the order of `walk`):
    (key path, scalar) of every scalar that may be a port literal, the scalars whose
    span may hold a `#` (for comments), (key path, mapping) of every mapping with a
    key that may run a command, the pod specs and compose services, and the host written beside each
    port that has one (`_beside`); or the error of a mapping that repeats a key."""
    candidates: list[tuple[str, Any]] = []
    spanned: list[Any] = []
    invoking: list[tuple[str, Any]] = []
    specs: list[tuple[str, bool]] = []
    beside: dict[int, str] = {}
    host_network = False
    kubernetes = bool(roots) and all(map(_kubernetes_object, roots))
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", root) for root in reversed(roots)]
    pop, push = stack.pop, stack.append
    commands = yaml_commands.KEYS
    while stack:
        path, node = pop()
        kind = node.id
        if kind == "scalar":
            value = node.value
            if "#" in value or node.style in ("|", ">"):
                spanned.append(node)
            if path and value.isdigit():
                candidates.append((path, node))
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if kind == "sequence":
            items = node.value
            for index in range(len(items) - 1, -1, -1):
                push((f"{path}[{index}]", items[index]))
            continue
        lines: dict[str, int] = {}
        children = []
        runs = False
        pod = host = False
        hosts: list[tuple[str, Any]] | None = None
        for key, value in node.value:
            if key.id != "scalar":
                continue
            name = key.value
            if name == _MERGE_KEY:
                continue  # a merged mapping is walked where it is anchored
            if name in lines:
                return Extraction(
                    error=f'invalid YAML: duplicate key "{name}" (first at line {lines[name]})',
                    error_line=key.start_mark.line + 1, error_column=key.start_mark.column + 1,
                )
            lines[name] = key.start_mark.line + 1
            runs = runs or name in commands
            if name in _CONTAINER_LISTS and value.id == "sequence":
                pod = True
            elif name == "hostNetwork" and value.id == "scalar" and value.value.lower() == "true":
                host = True
            if value.id == "scalar" and _HOST_HINT.search(name):
                hosts = [*(hosts or ()), (name, value)]
            children.append((f"{path}.{name}" if path else str(name), value))
        if hosts:
            _beside(hosts, children, beside)
        if runs:
            invoking.append((path, node))
        if pod:
            specs.append((path, host))
        host_network = host_network or host
        children.reverse()
        stack += children
    return candidates, spanned, invoking, _Pods(specs, host_network, kubernetes, yaml_compose.services(roots)), beside


# Keys that name a host (`host`, `redis_host`, `address`, `master_addr`, `server_url`, `endpoint`),
# and the words a port's key adds to what it is for (`port`, `port_value`).
_HOST_HINT = re.compile(r"(?i)host|addr|ip|ur[li]|endpoint")
_HOST_WORDS = frozenset(("host", "hostname", "address", "addr", "ip", "url", "uri", "endpoint"))
_PORT_WORDS = frozenset(("port", "value", "number", "num"))


def _beside(hosts: list[tuple[str, Any]], children: list[tuple[str, Any]], beside: dict[int, str]) -> None:
    """Mark the ports of one mapping written beside a host for the same thing (`host` and `port`,
    `address` and `port_value`, `redis_host` and `redis_port`): LOCAL where the host is one a
    listener binds, REMOTE where it names a peer (`portlint.model.ports.host_kind`)."""
    said: dict[tuple[str, ...], str] = {}
    for name, value in hosts:
        split = key_words(name)
        if _HOST_WORDS & set(split):
            kind = host_kind(str(value.value))
            stem = tuple(word for word in split if word not in _HOST_WORDS)
            if kind and said.get(stem, kind) == kind:
                said[stem] = kind
            elif kind:
                said[stem] = ""  # two hosts that disagree say nothing
    for path, value in children:
        if value.id == "scalar" and value.value.isdigit() and is_port_name(path):
            kind = said.get(tuple(word for word in key_words(path) if word not in _PORT_WORDS), "")
            if kind:
                beside[id(value)] = kind


def _kubernetes_object(root: Any) -> bool:
    """A document that is a Kubernetes object (not kind's cluster config, whose ports are the host's)."""
    if root.id != "mapping":
        return False
    keys = {key.value: value for key, value in root.value if key.id == "scalar"}
    version, kind = keys.get("apiVersion"), keys.get("kind")
    return version is not None and kind is not None and version.id == "scalar" and kind.id == "scalar" \
        and not str(version.value).startswith(_KIND_CLUSTER)


# `hostNetwork:` where its value may be `true` (a CRD schema's describes the key: a mapping
# follows): next, past blanks and line breaks, `true` in any case, or anything but a letter.
_HOST_NETWORK = re.compile(rb"hostNetwork['\"]?[ \t]*:[ \t\r\n]*(?:[^ \t\r\nA-Za-z]|(?i:true))")
# A top-level `apiVersion:` or `kind:` whose value is a plain word on its line.
_TOP_API = re.compile(rb"^apiVersion:[ \t]+([^\s#'\"&*!|>%@`{}\[\],][^\s#]*)[ \t]*(?:#[^\r\n]*)?\r?$", re.M)
_TOP_KIND = re.compile(rb"^kind:[ \t]+[^\s#'\"&*!|>%@`{}\[\],][^\s#]*[ \t]*(?:#[^\r\n]*)?\r?$", re.M)
_CONTENT = re.compile(rb"^[ \t]*[^ \t\r\n#]", re.M)  # the start of the first line that is not blank or a comment


def _object_written(data: bytes) -> str | None:
    """What a document, by its bytes, is to `_kubernetes_object`: "" (nothing: blank lines and
    comments, no root), "other" (a root that is not a Kubernetes object: no `apiVersion` is
    written, or kind's own), "object" (a block mapping at the left margin whose `apiVersion` and
    `kind` are plain words on their lines), or None where the bytes do not tell."""
    content = _CONTENT.search(data)
    if content is None:
        return ""
    if b"apiVersion" not in data:
        return "other"
    version = _TOP_API.search(data)
    if version is None or _TOP_KIND.search(data) is None or content.group()[:1] in b" \t-[{?":
        return None
    return "other" if version.group(1).startswith(_KIND_CLUSTER.encode()) else "object"


def _site(source: Source, start: int, path: str, node: Any, pod: bool, host: str = "") -> Site | None:
    end = start + len(node.value)
    if source.data[start:end] != node.value.encode():
        return None  # an escaped or folded literal: no plain digits to point at
    line, column = source.position(start)
    end_line, end_column = source.position(end)
    scope = path.rsplit(".", 1)[0] if "." in path else ""
    return Site(
        source.path, line, column, start, end, "yaml", path, int(node.value),
        role=role_of(path), scope=scope, end_line=end_line, end_column=end_column, pod=pod, host=host,
    )


def _is_port_literal(node: Any) -> bool:
    value = node.value
    if not value.isascii() or not value.isdigit() or (value[0] == "0" and value != "0"):
        return False
    return node.style in ("'", '"', None, "")


_TEXT_DIGIT = re.compile(r"[0-9]")  # what a layout statement needs (prose.statements)


def _comments(source: Source, scalar_spans: list[tuple[int, int]], names: NameFilter) -> tuple[tuple[Suppression, ...], list[Site]]:
    """Suppressions and layout statements of every comment: a `#` after whitespace or at a
    line start, outside every scalar the composer delimited."""
    text = source.text
    suppressions: list[Suppression] = []
    doc_sites: list[Site] = []
    spans = sorted(scalar_spans)
    starts = [span[0] for span in spans]
    position = text.find("#")
    while position != -1:
        line_end = text.find("\n", position)
        line_end = len(text) if line_end == -1 else line_end
        if _TEXT_DIGIT.search(text, position, line_end) is None and text.find("portlint", position, line_end) == -1:
            position = line_end  # no comment from here to the line's end can suppress or state anything
        elif _starts_comment(text, position, spans, starts):
            comment = text[position:line_end].rstrip("\r")
            start = source.byte_offset(position)
            end = start + len(comment.encode())
            line, column = source.position(start)
            suppression = suppression_in(comment, line, column, start, end)
            if suppression is not None:
                suppressions.append(suppression)
            doc_sites += prose.statements(source, start, end, "comment", names)
            position = line_end  # the rest of the line is this comment
        position = text.find("#", position + 1)
    return tuple(suppressions), doc_sites


def _starts_comment(text: str, index: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    if index > 0 and text[index - 1] not in " \t\n":
        return False
    before = bisect_right(starts, index) - 1
    return before < 0 or not spans[before][0] <= index < spans[before][1]


def _parse_error(error: Any) -> Extraction:
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    mark = getattr(error, "problem_mark", None)
    if "end of stream" in problem:  # an unclosed quote or bracket: point where it opened
        mark = getattr(error, "context_mark", None) or mark
    if mark is None:
        return Extraction(error=f"invalid YAML: {problem}")
    return Extraction(error=f"invalid YAML: {problem}", error_line=mark.line + 1, error_column=mark.column + 1)
