"""Per-file results kept by content between runs, as ruff keeps its own: `.portlint_cache/`.

The per-file stage (`portlint.stages.perfile.extract_file`) is a pure function of a file's path,
kind and bytes, the config's name filter, and whether the file is one side of a
frozen pair. A result is reused when all of these are the same and so are
portlint and what it runs on: the salt of a cache file is portlint's version, a
hash of its own source files (a development change invalidates everything), the
interpreter's implementation and version and the installed distributions (what
parses a file), and the selector names of the config (the only part of the config
extraction reads).

The folder is `.portlint_cache/` at the repository root, or the one the user names
(`--cache-dir`, `PORTLINT_CACHE_DIR`: anywhere, as ruff's). The default folder is used only
where it is: a `.portlint_cache` symlink (a repository could ship one, leading out of it or
over its own files) is neither read nor written through; the run goes on without the cache
and says so. A file of the cache that is itself a symlink is not read as the cache's.

One index file per salt under `<folder>/<version>/`, written whole
through a temporary and a rename, so a concurrent run sees the old index or the
new one, never a half; the last writer wins. The index is JSON decoded into
portlint's own records (msgspec Structs) only (never pickle: a repository could ship a cache
file, and loading it must not run code). A corrupt or foreign index is ignored
and rewritten; a cache directory that cannot be written is a note, and the run
goes on without it.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import sys
import time
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any

from portlint import __version__
from portlint.speed.interrupts import held_interrupts
from portlint.speed.switch import plain

DIRECTORY = ".portlint_cache"
ENVIRONMENT = "PORTLINT_CACHE_DIR"  # the folder, when the user names it in the environment
FORMAT = 3  # 3: each result as msgspec's JSON of its records
_PACKAGES = ("portlint",)  # whose source files make up the salt (portlint.rules is inside it)


def digest(data: bytes) -> str:
    """A file's content digest. sha256, not blake2b: OpenSSL's sha256 is the faster of the two
    here (docs/performance.md), and the warm path (portlint/entry/replay.py) hashes every file a
    check may read."""
    return hashlib.sha256(data).hexdigest()[:32]


def salt(selector_names: Iterable[str]) -> str:
    """What every cached result depends on beyond the file itself: portlint, the interpreter
    that parses (what `ast` accepts changes with it: `type Port = int` is an error before 3.12),
    the installed distributions (ruamel.yaml's composer, msgspec's records) and the config's names."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT}\0{__version__}\0{_source_hash()}\0".encode())
    h.update(f"{sys.implementation.name}\0{sys.version}\0{distributions()}\0".encode("utf-8", "surrogateescape"))
    h.update(",".join(sorted(plain())).encode() + b"\0")  # a plain way kept apart: a difference is a bug to see
    for name in sorted(set(selector_names)):
        h.update(name.encode() + b"\0")
    return h.hexdigest()


_SOURCE_HASH: str | None = None
_DISTRIBUTIONS: str | None = None


def distributions() -> str:
    """Every installed distribution's name and version (their .dist-info folders, one listing per
    site-packages folder): an upgrade of a dependency (ruamel.yaml, msgspec, pathspec) may change
    what a check finds. Listed once per process."""
    global _DISTRIBUTIONS
    if _DISTRIBUTIONS is None:
        found = []
        for entry in sys.path:
            if os.path.basename(entry) in ("site-packages", "dist-packages"):
                try:
                    found += sorted(name for name in os.listdir(entry) if name.endswith((".dist-info", ".egg-info")))
                except OSError:
                    continue
        _DISTRIBUTIONS = " ".join(found)
    return _DISTRIBUTIONS


def _source_hash() -> str:
    """A fingerprint of portlint's own .py/.json/.yaml files (each one's path, size and
    modification time): editing or reinstalling portlint invalidates its cache. By stat, not
    by bytes: reading portlint's own files would be a cost of every run, a warm one's too. One
    scandir per folder and one hash of it all: os.walk, relpath and a hash update per file cost
    more, before a cold check's pool forks."""
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


def folder(root: Path, given: Path | None = None) -> Path | None:
    """Where the caches of a run at `root` live: `given` (--cache-dir), else $PORTLINT_CACHE_DIR
    (relative to the working directory), else `.portlint_cache/` at the root. None when that
    default is not where it says, symlinks resolved (`refused`): nothing is read or written there."""
    named = given if given is not None else os.environ.get(ENVIRONMENT)
    if named:
        return Path(os.path.abspath(named))
    return None if refused(root) else root / DIRECTORY


def refused(root: Path) -> str:
    """Why the default cache folder of `root` is not used this run ("" when it is): a symlink on
    its way (a committed `.portlint_cache` link, or a link for its version's folder) would have the
    cache read and written wherever it leads, outside the work tree or over the repository's own
    files. The folder is used only where it is, symlinks resolved: `root/.portlint_cache/VERSION`
    in the real root. A folder the user names may be anywhere."""
    own = os.path.join(root, DIRECTORY, __version__)
    if os.path.realpath(own) == os.path.join(os.path.realpath(root), DIRECTORY, __version__):
        return ""
    return f"{DIRECTORY}: a symlink, not a folder of this repository; the run went on without the cache"


def read_own(path: Path) -> bytes:
    """A file of the cache, never through a symlink (a file there that is one is not the cache's:
    OSError, as for a file that is not there)."""
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(handle, "rb") as opened:
        return opened.read()


class Cache:
    """The index of one salt: path -> (key, result), loaded once, saved once. `kind` is the type a
    result is (msgspec decodes an entry to it, or the entry is computed again)."""

    def __init__(self, root: Path, salt: str, kind: Any, given: Path | None = None) -> None:
        where = folder(root, given)
        self.refused = refused(root) if where is None else ""  # a default folder not where it says: not used
        self.directory = root / DIRECTORY if where is None else where
        self.path = self.directory / __version__ / salt
        self.salt = salt
        self.kind = kind
        self._stored: dict[str, tuple[str, Any]] = {}  # path -> (key, the result's JSON: msgspec.Raw)
        self._kept: dict[str, tuple[str, Any]] = {}  # what this run saw: the next index
        self._decided: dict[str, tuple[str, bool]] = {}  # path -> (key, worth parsing)
        self._decisions: dict[str, tuple[str, bool]] = {}  # what this run decided: the next index
        self.changed = False
        self._load()

    def _load(self) -> None:
        if self.refused:
            return
        try:
            stored = read_own(self.path)
        except OSError:
            return  # none yet (a first run)
        import msgspec

        try:
            index: Any = msgspec.json.decode(stored, type=_index())
        except (msgspec.DecodeError, RecursionError):
            return  # unreadable, corrupt or foreign: start over
        if index.format == FORMAT and index.salt == self.salt:
            self._stored, self._decided = index.files, index.decisions

    def empty(self) -> bool:
        """Nothing stored for this salt: a first run (every file is read and extracted)."""
        return not self._stored and not self._decided

    def decision(self, path: str, key: str) -> bool | None:
        """Whether the prefilter kept this file with these bytes last time; None when unknown."""
        entry = self._decided.get(path)
        if entry is None or entry[0] != key:
            return None
        self._decisions[path] = entry
        return entry[1]

    def decide(self, path: str, key: str, worth: bool) -> None:
        self._decisions[path] = (key, worth)
        self.changed = True

    def get(self, path: str, key: str) -> Any | None:
        """The result stored for this path under this key; None when absent, stale or not of the kind."""
        entry = self._stored.get(path)
        if entry is None or entry[0] != key:
            return None
        import msgspec

        try:
            value = decode(entry[1], self.kind)
        except (msgspec.DecodeError, RecursionError):
            return None  # a foreign or damaged entry: computed again and rewritten
        self._kept[path] = entry
        return value

    def keep(self, path: str, key: str) -> None:
        """Keep the stored result in the next index (`get` found it, maybe in another process)."""
        entry = self._stored.get(path)
        if entry is not None and entry[0] == key:
            self._kept[path] = entry

    def put_encoded(self, path: str, key: str, encoded: bytes) -> None:
        """`put` of a result `encode` gave (in another process of the pool)."""
        import msgspec

        self._kept[path] = (key, msgspec.Raw(encoded))
        self.changed = True

    def put(self, path: str, key: str, value: Any) -> None:
        try:
            self.put_encoded(path, key, encode(value))
        except (TypeError, ValueError):
            return  # a value msgspec does not encode, or text that is not UTF-8: not cached

    def save(self) -> str:
        """Write the index when it changed; a note when the folder is refused or cannot be written, else ""."""
        if self.refused:
            return self.refused
        if not self.changed and self._kept.keys() == self._stored.keys() and self._decisions.keys() == self._decided.keys():
            return ""
        try:
            prepare_directory(self.directory)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, _encoded(FORMAT, self.salt, self._kept, self._decisions))
        except OSError as error:
            return f"{self._shown()}: not written ({error.strerror or error}); the run went on without the cache"
        return ""

    def _shown(self) -> str:
        return DIRECTORY if self.directory.name == DIRECTORY else str(self.directory)


def encode(value: Any) -> bytes:
    """A result as the index keeps it: msgspec's JSON of it. TypeError for a value msgspec does
    not encode, UnicodeEncodeError (a ValueError) for text that is not UTF-8."""
    import msgspec.json

    return msgspec.json.encode(value)


def decode(data: Any, kind: Any) -> Any:
    """JSON `encode` gave (bytes, or msgspec.Raw), read back as `kind`: its records and nothing
    else (msgspec.ValidationError, a DecodeError, for anything else)."""
    import msgspec.json

    return msgspec.json.decode(data, type=kind, dec_hook=_hashable)


@functools.cache
def _index() -> type:
    """The index as msgspec decodes it: each result left as its JSON (decoded when asked for)."""
    import msgspec

    return msgspec.defstruct("Index", [
        ("format", int), ("salt", str),
        ("files", dict[str, tuple[str, msgspec.Raw]], {}), ("decisions", dict[str, tuple[str, bool]], {}),
    ])


def _hashable(kind: Any, value: Any) -> Any:
    """msgspec's hook for a value annotated `Hashable` (a set member, a key of any shape): JSON's
    arrays read back as tuples."""
    if kind is not Hashable:
        raise TypeError(f"cannot decode {kind!r}")
    return tuple(_hashable(kind, item) for item in value) if isinstance(value, list) else value


def _encoded(format: int, salt: str, files: dict[str, tuple[str, Any]], decisions: dict[str, tuple[str, bool]]) -> bytes:
    """The index as JSON, by msgspec. A path git gave as surrogates (a file name that is not
    UTF-8) cannot be written as JSON text: it is left out (that file is computed on each run)."""
    import msgspec.json

    index = {"format": format, "salt": salt, "files": files, "decisions": decisions}
    try:
        return msgspec.json.encode(index)
    except UnicodeEncodeError:
        index["files"] = {path: entry for path, entry in files.items() if _utf8(path)}
        index["decisions"] = {path: entry for path, entry in decisions.items() if _utf8(path)}
        return msgspec.json.encode(index)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def prepare_directory(directory: Path) -> None:
    """The cache folder, with the .gitignore that keeps it out of git (and so out of portlint's listing)."""
    directory.mkdir(parents=True, exist_ok=True)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        write_atomic(ignore, b"# Automatically created by portlint.\n*\n")


def write_atomic(path: Path, data: bytes) -> None:
    """Temporary beside the target, then rename: readers never see half a file. The temporary's
    name holds this process's id and the time, and is created only if new (tempfile's import,
    with shutil and random, would be a cost of a check that uses nothing else of it)."""
    temporary = str(path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    with held_interrupts():  # ^C exits at once: never between the temporary's creation and its end
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def clean(root: Path, given: Path | None = None) -> bool:
    """Remove the cache folder of a run at root (`folder`'s); True when there was one."""
    import shutil

    directory = folder(root, given)
    if directory is None or not directory.is_dir() or directory.is_symlink():
        return False
    shutil.rmtree(directory)
    return True
