"""Per-file results kept by content between runs, as ruff keeps its own: `.portlint_cache/`.

The per-file stage (`portlint.stages.perfile.extract_file`) is a pure function of a file's path,
kind and bytes, the config's name filter, and whether the file is one side of a
frozen pair. A result is reused when all of these are the same and so is
portlint itself: the salt of a cache file is portlint's version, a hash of its
own source files (a development change invalidates everything) and the
selector names of the config (the only part of the config extraction reads).

One index file per salt under `.portlint_cache/<version>/`, written whole
through a temporary and a rename, so a concurrent run sees the old index or the
new one, never a half; the last writer wins. The index is JSON decoded into
portlint's own records (msgspec Structs) only (never pickle: a repository could ship a cache
file, and loading it must not run code). A corrupt or foreign index is ignored
and rewritten; a cache directory that cannot be written is a note, and the run
goes on without it.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from portlint import __version__

DIRECTORY = ".portlint_cache"
FORMAT = 2  # 2: sha256 digests, and the prefilter's decisions beside the results
_PACKAGES = ("portlint", "portlint.rules")  # whose source files make up the salt


def digest(data: bytes) -> str:
    """A file's content digest. sha256, not blake2b: OpenSSL's sha256 is ~2.5x faster on this
    kind of machine (0.024 s against 0.061 s over the 11 MiB of a real repository), and the warm
    path (portlint/entry/replay.py) hashes every file a check may read."""
    return hashlib.sha256(data).hexdigest()[:32]


def salt(selector_names: Iterable[str]) -> str:
    """What every cached result depends on beyond the file itself."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT}\0{__version__}\0{_source_hash()}\0".encode())
    for name in sorted(set(selector_names)):
        h.update(name.encode() + b"\0")
    return h.hexdigest()


_SOURCE_HASH: str | None = None


def _source_hash() -> str:
    """A fingerprint of portlint's own .py/.json/.yaml files (each one's path, size and
    modification time): editing or reinstalling portlint invalidates its cache. By stat, not
    by bytes: reading the ~100 files cost ~4 ms of every run, a warm one's too. One scandir
    per folder and one hash of it all (os.walk, relpath and a hash update per file cost
    ~2 ms more, before a cold check's pool forks)."""
    global _SOURCE_HASH
    if _SOURCE_HASH is None:
        parts = []
        for package in _PACKAGES:
            spec = importlib.util.find_spec(package)
            for directory in (spec.submodule_search_locations or []) if spec else []:
                folders = [("", directory)]
                while folders:
                    relative, folder = folders.pop()
                    for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
                        if entry.is_dir(follow_symlinks=False):
                            if entry.name != "__pycache__":
                                folders.append((f"{relative}{entry.name}/", entry.path))
                        elif entry.name.endswith((".py", ".json", ".yaml")):
                            status = entry.stat()
                            parts.append(f"{relative}{entry.name}\0{status.st_size}\0{status.st_mtime_ns}\0")
        _SOURCE_HASH = hashlib.blake2b("".join(parts).encode(), digest_size=16).hexdigest()
    return _SOURCE_HASH


class Cache:
    """The index of one salt: path -> (key, result), loaded once, saved once."""

    def __init__(self, root: Path, salt: str) -> None:
        self.directory = root / DIRECTORY
        self.path = self.directory / __version__ / salt
        self.salt = salt
        self._stored: dict[str, list[Any]] = {}  # path -> [key, encoded result]
        self._kept: dict[str, list[Any]] = {}  # what this run saw: the next index
        self._decided: dict[str, list[Any]] = {}  # path -> [key, worth parsing]
        self._decisions: dict[str, list[Any]] = {}  # what this run decided: the next index
        self.changed = False
        self._load()

    def _load(self) -> None:
        try:
            stored = self.path.read_bytes()
        except OSError:
            return  # none yet (a first run, and json is not imported for it)
        import json

        try:
            index = json.loads(stored)
            if index.get("format") == FORMAT and index.get("salt") == self.salt and isinstance(index.get("files"), dict):
                self._stored = index["files"]
                decided = index.get("decisions")
                self._decided = decided if isinstance(decided, dict) else {}
        except (ValueError, AttributeError, RecursionError):
            self._stored, self._decided = {}, {}  # unreadable or corrupt: start over

    def empty(self) -> bool:
        """Nothing stored for this salt: a first run (every file is read and extracted)."""
        return not self._stored and not self._decided

    def decision(self, path: str, key: str) -> bool | None:
        """Whether the prefilter kept this file with these bytes last time; None when unknown."""
        entry = self._decided.get(path)
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == key and isinstance(entry[1], bool)):
            return None
        self._decisions[path] = entry
        return entry[1]

    def decide(self, path: str, key: str, worth: bool) -> None:
        self._decisions[path] = [key, worth]
        self.changed = True

    def get(self, path: str, key: str) -> Any | None:
        """The result stored for this path under this key; None when absent, stale or undecodable."""
        entry = self._stored.get(path)
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == key):
            return None
        try:
            value = decode(entry[1])
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, ImportError, RecursionError):
            return None  # a foreign or damaged entry: computed again and rewritten
        self._kept[path] = entry
        return value

    def keep(self, path: str, key: str) -> None:
        """Keep the stored result in the next index (`get` found it, maybe in another process)."""
        entry = self._stored.get(path)
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == key:
            self._kept[path] = entry

    def put_encoded(self, path: str, key: str, encoded: Any) -> None:
        """`put` of a value `encode` gave (in another process of the pool)."""
        self._kept[path] = [key, encoded]
        self.changed = True

    def put(self, path: str, key: str, value: Any) -> None:
        try:
            self._kept[path] = [key, encode(value)]
        except TypeError:
            return  # a value the codec does not know: not cached
        self.changed = True

    def save(self) -> str:
        """Write the index when it changed; a note when it cannot be written, else ""."""
        if not self.changed and self._kept.keys() == self._stored.keys() and self._decisions.keys() == self._decided.keys():
            return ""
        try:
            prepare_directory(self.directory)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            index = {"format": FORMAT, "salt": self.salt, "files": self._kept, "decisions": self._decisions}
            write_atomic(self.path, _encoded(index))
        except OSError as error:
            return f"{DIRECTORY}: not written ({error.strerror or error}); the run went on without the cache"
        return ""


def _encoded(index: dict[str, Any]) -> bytes:
    """The index as JSON: by msgspec, ~10x json's speed (AReaL's in 0.2 ms against 2.1, after the
    check's output; imported here, as a replayed check imports this module and never msgspec),
    or by json where a path is not UTF-8 (a name git lists, kept as surrogates: msgspec refuses
    them, json escapes them)."""
    import msgspec.json

    try:
        return msgspec.json.encode(index)
    except UnicodeEncodeError:
        import json

        return json.dumps(index, separators=(",", ":")).encode()


def prepare_directory(directory: Path) -> None:
    """The cache folder, with the .gitignore that keeps it out of git (and so out of portlint's listing)."""
    directory.mkdir(parents=True, exist_ok=True)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        write_atomic(ignore, b"# Automatically created by portlint.\n*\n")


def write_atomic(path: Path, data: bytes) -> None:
    """Temporary beside the target, then rename: readers never see half a file. The temporary's
    name holds this process's id and the time, and is created only if new (tempfile's import,
    with shutil and random, is ~4 ms of a check that uses nothing else of it)."""
    temporary = str(path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def clean(root: Path) -> bool:
    """Remove the cache directory under root; True when there was one."""
    import shutil

    directory = root / DIRECTORY
    if not directory.is_dir() or directory.is_symlink():
        return False
    shutil.rmtree(directory)
    return True


# -- the codec: portlint's records and the builtin containers, as JSON ------------------
# A container is a list whose first item says what it is: ["t", ...] tuple, ["l", ...] list,
# ["f", ...] frozenset, ["s", ...] set, ["d", k, v, ...] dict, ["b", hex] bytes,
# ["@module:Class", field, ...] a record of portlint (its fields in order).
_CLASSES: dict[str, type] = {}


def encode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return ["t", *map(encode, value)]
    if isinstance(value, list):
        return ["l", *map(encode, value)]
    if isinstance(value, frozenset):
        return ["f", *map(encode, value)]
    if isinstance(value, set):
        return ["s", *map(encode, value)]
    if isinstance(value, dict):
        return ["d", *(encode(x) for item in value.items() for x in item)]
    if isinstance(value, bytes):
        return ["b", value.hex()]
    shape = _SHAPES.get(type(value)) or _shape(type(value))
    tag, names = shape
    return [tag, *(encode(getattr(value, name)) for name in names)]


_SHAPES: dict[type, tuple[str, tuple[str, ...]]] = {}


def _shape(cls: type) -> tuple[str, tuple[str, ...]]:
    """A portlint record's tag and field names; TypeError for anything else."""
    from msgspec import Struct  # here, not at the top: a replayed check never imports msgspec

    if not (isinstance(cls, type) and issubclass(cls, Struct) and cls.__module__.startswith("portlint.")):
        raise TypeError(f"not cacheable: {cls.__name__}")
    tag = f"@{cls.__module__}:{cls.__qualname__}"
    _CLASSES.setdefault(tag, cls)
    _SHAPES[cls] = tag, cls.__struct_fields__  # the order __init__ takes them in
    return _SHAPES[cls]


def decode(value: Any) -> Any:
    if type(value) is not list:
        if isinstance(value, dict):
            raise ValueError("a bare mapping")
        return value
    tag = value[0]
    items = [decode(x) if type(x) is list else x for x in value[1:]]  # most items are plain: no call
    if tag == "t":
        return tuple(items)
    if tag == "l":
        return items
    if tag == "f":
        return frozenset(items)
    if tag == "s":
        return set(items)
    if tag == "d":
        return dict(zip(items[::2], items[1::2]))
    if tag == "b":
        return bytes.fromhex(items[0])
    cls = _CLASSES.get(tag) or _class(tag)
    if len(_SHAPES[cls][1]) != len(items):
        raise ValueError(f"{tag}: {len(items)} fields, expected {len(_SHAPES[cls][1])}")
    return cls(*items)


def _class(tag: str) -> type:
    """A record of portlint named by a tag; anything else is refused (never arbitrary code)."""
    if not (isinstance(tag, str) and tag.startswith("@portlint.")):
        raise ValueError(f"unknown tag {tag!r}")
    module, _, name = tag[1:].partition(":")
    cls: Any = importlib.import_module(module)
    for part in name.split("."):
        cls = getattr(cls, part)
    if not isinstance(cls, type) or cls.__module__ != module:
        raise ValueError(f"not a portlint record: {tag!r}")
    try:
        _shape(cls)
    except TypeError:
        raise ValueError(f"not a portlint record: {tag!r}") from None
    return cls

