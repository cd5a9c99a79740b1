"""A check whose inputs are all unchanged since the last run replays that run's output.

The warm path of `portlint check`: before click, the engine, the rules or any
parser is imported, the command's inputs are gathered into one key:

* the invocation: the arguments and where each path argument leads (symlinks
  resolved: an ignored `current` link re-pointed is another check, though git lists
  the same files), the working directory, the environment variables portlint or its
  output read (`_ENVIRONMENT`), whether stdout and stderr are terminals and their
  encodings, the Python version and every installed distribution's name and version;
* portlint itself: its version and a fingerprint of its source files (cache.salt's: path, size, mtime);
* where the run starts: for every folder from the start up to the git work tree,
  which config names and baselines are files there (with their bytes) and whether `.git` is;
  the `--config` file's bytes; the kernel's ephemeral range (`ephemeral_floor: auto`);
* the repository: git's listing and, for every listed path a check may read (a
  suffix an extractor reads, or none), what it is (file, symlink and its target,
  folder, missing, unreadable) and its content's digest.

Hashing every file is most of a replay's cost, so a stored entry also holds a
hash of every path's stat (mode, inode, size, modification time): only when
those are all as stored are the files read and hashed to find the key (a
touched file costs a run, never a wrong replay). Otherwise nothing is hashed
before the run: the key is made after it from the digests of the very bytes
the engine read (Outcome.read), the other paths read then.

An entry is written only by a run that agrees: click parsed the arguments as
`prepare` did, the config and root are the ones found here, the run listed
the listing taken here (handed over), the config candidates are the same after
the run as before it, when the files were hashed before the run the engine read
those very bytes, and the exit code is 0 or 1. The files are not stamped again
after the run: the key is made from the digests of the very bytes the engine
read, so a file edited while it ran leaves an entry whose stamps, taken before,
do not match it again (and whose key does not either).
It holds the bytes written to stdout and stderr, in order, the `--output-file`
bytes and the exit code; a hit writes them back. Anything this module cannot
account for is not replayed: options that write or print something else
(`--fix`, `--diff`, `--add-noqa`, `--show-settings`, `--show-files`,
`--no-cache`, `--help`), an option it does not know, a repository outside git,
a run from a folder other than the root (reporters then look up which words of
a message name files), streams without a byte buffer, a FIFO or device among
the paths, a config that extends another (its inherited files are not probed here).
Entries live beside the per-file index in `<cache folder>/<version>/` (cache.folder:
`.portlint_cache/`, or `PORTLINT_CACHE_DIR`; a run with `--cache-dir` is not replayed), one per invocation (`run-<hash>`), written
through a temporary and a rename; a corrupt or foreign one is a miss and is
rewritten.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from portlint import __version__
from portlint.config import locate
from portlint.speed import cache
from portlint.speed.switch import fast
from portlint.stages import discover, read

FORMAT = 2  # 2: the files' stamps beside the key
_COMMANDS = ("check", "init", "clean", "rule", "map", "host", "server", "help")
_FLAGS = frozenset((
    "--unsafe-fixes", "--statistics", "--show-fixes", "--exit-zero", "--exit-non-zero-on-fix",
    "--no-color", "--quiet", "-q",
))
_VALUED = frozenset(("--select", "--ignore", "--config", "--ephemeral-floor", "--output-format", "--output-file"))
_ENVIRONMENT_PREFIXES = ("PORTLINT_", "GIT_", "LC_", "PYTHON")
_ENVIRONMENT = ("NO_COLOR", "FORCE_COLOR", "TERM", "LANG", "HOME", "XDG_CONFIG_HOME")
_RANGE = "/proc/sys/net/ipv4/ip_local_port_range"


class Parsed:
    """What the warm path must know of `portlint check` arguments."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.config_args: list[str] = []
        self.output_file: str | None = None
        self.ephemeral_floor: str | None = None


def parse(args: list[str]) -> Parsed | None:
    """The check's paths, `--config` values and `--output-file`; None when the arguments
    ask for anything but a plain check (or for something this parser does not know)."""
    if args and args[0] in _COMMANDS:
        if args[0] != "check":
            return None
        args = args[1:]
    parsed = Parsed()
    words = iter(args)
    for word in words:
        if word.startswith("-") and word != "-":
            name, equals, value = word.partition("=")
            if name in _FLAGS and not equals:
                continue
            if name not in _VALUED:
                return None  # --fix, --diff, --help, a typo: the CLI's business
            if not equals:
                value = next(words, "")
                if not value or value.startswith("-"):
                    return None
            if name == "--config":
                parsed.config_args.append(value)
            elif name == "--output-file":
                parsed.output_file = value
            elif name == "--ephemeral-floor":
                parsed.ephemeral_floor = value
        else:
            parsed.paths.append(word)
    return parsed


class Warm:
    """One invocation's key, and its entry: replayed, or recorded by the run and written."""

    def __init__(self, args: list[str], parsed: Parsed, root: Path, config: Path | None, start: Path,
                 listing: discover.Spawned, folder: Path) -> None:
        self.args = args
        self.parsed = parsed
        self.root = root
        self.config = config
        self.start = start
        self.git = listing  # git's listing, started: read by `listed`
        self.listing: list[str] | None = None  # git's, handed to the run (None: git did not list)
        self.paths: list[str] = []
        self.stamps = ""  # the files by stat, when listed: whether hashing them may find a hit
        self.statuses: list[os.stat_result | None] = []  # each path's lstat for the stamps, in order
        self.taken = False  # whether the run took the listing (and the stamps were taken before it read)
        self.invocation = self._invocation()
        self.entry = folder / __version__ / f"run-{cache.digest(self.invocation.encode())}"
        self.head = self._head()  # everything but the files' bytes
        self.key = ""  # computed before the run only when the stamps are the stored entry's
        self.digests: dict[str, str] = {}  # path -> content digest, as hashed before the run
        self.engine_read: dict[str, str] | None = None  # path -> digest of what the engine read (from the CLI)
        self.confirmed = False

    def listed(self) -> list[str] | None:
        """git's listing, once it has ended, and the stamps of the paths it lists (None: no
        listing, nothing to replay or record). Asked for by a replay once an entry is stored, or
        by the run when it lists the files (`handed`): git runs meanwhile (a cold run imports the CLI)."""
        if self.listing is None and not self.git.done:
            self.listing = self.git.files()
            if self.listing is not None:
                self.paths = [p for p in self.listing if discover.may_read(p)]
                self.stamps = self._stamps()
        return self.listing

    def handed(self) -> discover.Listed | None:
        """git's listing as the run takes it, with the sizes the stamps found (the run shares its
        work by them: no stat again); the stamps were taken before the run reads a file."""
        self.taken = True
        listing = self.listed()
        if listing is None:
            return None
        return discover.Listed(listing, {path: status.st_size for path, status in zip(self.paths, self.statuses)
                                         if status is not None})

    # -- the key -------------------------------------------------------------------
    def _invocation(self) -> str:
        streams = [
            (getattr(s, "encoding", None), getattr(s, "errors", None), _isatty(s)) for s in (sys.stdout, sys.stderr)
        ]
        environment = sorted(
            (name, value) for name, value in os.environ.items()
            if name in _ENVIRONMENT or name.startswith(_ENVIRONMENT_PREFIXES)
        )
        # repr, not json: json is imported only to load or store an entry (not before a cold
        # check's pool forks); these are strings, tuples, lists, booleans and None.
        return repr([FORMAT, __version__, sys.version, self.args, os.getcwd(), environment, streams])

    def _head(self) -> str:
        """The invocation, portlint and its dependencies, where the run starts (every config
        candidate up to the work tree, with its bytes), `--config`, where each path argument
        leads (symlinks resolved), the kernel's range."""
        h = hashlib.sha256(self.invocation.encode())
        h.update(f"\0{cache.salt(())}\0{_distributions()}\0".encode())
        h.update(_encoded(f"root {self.root}\0config {self.config}\0"))
        for directory in locate.upward(self.start):
            for name in (*locate.CONFIG_NAMES, locate.BASELINE_NAME, ".git"):
                h.update(_encoded(f"{_probe(directory / name)}\0"))
        for value in self.parsed.config_args:
            h.update(_encoded(f"config-arg {value} {_probe(Path(value)) if Path(value).is_file() else '-'}\0"))
        for path in self.parsed.paths:  # what is checked is where a path leads: a symlink re-pointed is another check
            h.update(_encoded(f"path {path} {os.path.realpath(path)}\0"))
        h.update(_read_text(_RANGE).encode() + b"\0")
        return h.hexdigest()

    def _stamps(self) -> str:
        """Mode, inode, size and modification time of every path a check may read, hashed; each
        path's lstat kept in `statuses` (None where it has none)."""
        parts = []  # hashed at once: an update per path cost a third of this
        base = os.path.join(str(self.root), "")
        self.statuses = []
        for path in self.paths:
            status: os.stat_result | None = None
            try:
                status = os.lstat(base + path)
                parts.append(f"{path}\0{status.st_mode} {status.st_ino} {status.st_size} {status.st_mtime_ns}\0")
            except OSError as error:
                parts.append(f"{path}\0e{error.errno}\0")
            self.statuses.append(status)
        return hashlib.sha256(_encoded("".join(parts))).hexdigest()

    def _key(self, tokens: list[str]) -> str:
        h = hashlib.sha256(self.head.encode())
        for path, token in zip(self.paths, tokens):
            h.update(_encoded(f"{path}\0{token}\0"))
        return h.hexdigest()

    def hash_files(self) -> bool:
        """The key from every file's bytes, read now; False when a path is one this module
        does not replay (a FIFO, a device)."""
        tokens = []
        base = str(self.root)
        for path in self.paths:
            state = _state(os.path.join(base, path))
            if state is None:
                return False
            token, digest = state
            if digest:
                self.digests[path] = digest
            tokens.append(token)
        self.key = self._key(tokens)
        return True

    def _after(self) -> str | None:
        """The run's key: the one made before it or, after a run that hashed nothing before, from
        the digests of what the engine read (the bytes its output came from), each path taken
        for what its stamp found it to be, and the other paths read now (not a second lstat of
        every path, after the output)."""
        if self.key or self.engine_read is None:
            return self.key or None
        engine_read = self.engine_read
        base = os.path.join(str(self.root), "")
        tokens = []
        for path, status in zip(self.paths, self.statuses):
            full = base + path
            digest = engine_read.get(path)
            state = _known(full, digest, status) if digest and status is not None else None
            if state is None:
                state = _state(full)
            if state is None:
                return None  # a FIFO, a device: not replayed
            tokens.append(state[0])
        return self._key(tokens)

    # -- a hit ------------------------------------------------------------------------
    def replay(self) -> int | None:
        """The stored run's exit code, its output written again; None on a miss."""
        entry = _load(self.entry)
        if entry is None or self.listed() is None:
            return None
        if entry["stamps"] != self.stamps or not self.hash_files() or entry["key"] != self.key:
            return None  # (a touched file costs a check; its stamp never makes a hit)
        code, chunks, written = entry["code"], entry["out"], entry["file"]
        if written is not None:
            assert self.parsed.output_file is not None
            try:
                with open(self.parsed.output_file, "wb") as handle:
                    handle.write(written.encode("latin-1"))
            except OSError:
                return None  # the CLI says why, as it would have
        streams = {1: sys.stdout, 2: sys.stderr}
        try:
            for fd, text in chunks:
                stream = streams[fd]
                stream.flush()
                stream.buffer.write(text.encode("latin-1"))
                stream.buffer.flush()
        except OSError as error:  # a closed pipe (`| head`): as the CLI says it (portlint/cli.py main)
            with contextlib.suppress(OSError):
                sys.stderr.write(f"portlint: internal error: {type(error).__name__}: {error}\n")
            return 2
        return int(code)

    # -- a miss: the run, recorded ---------------------------------------------------
    def record(self, run: Callable[[], int]) -> int:
        """Run the CLI with stdout and stderr recorded; write the entry when the run agrees (it
        lists what was hashed, `handed`, and says what it ran on, `confirm`)."""
        chunks: list[list[Any]] = []
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _teed(sys.stdout, 1, chunks), _teed(sys.stderr, 2, chunks)
        try:
            code = run()
        finally:
            self.listed()  # git reaped, whatever the run did
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
            sys.stdout, sys.stderr = saved
        if self.confirmed and self.taken and self.listing is not None and code in (0, 1) and self._head() == self.head:
            key = self._after()
            if key:
                self._store(key, code, chunks)
        return code

    def confirm(self, root: Path, config: Path | None, paths: tuple[Path, ...], config_args: tuple[str, ...],
                digests: dict[str, str]) -> None:
        """The CLI's own view of the run: the entry is written only when it agrees with the key
        (and, when the files were hashed before the run, the engine read those very bytes)."""
        self.engine_read = digests
        self.confirmed = (
            root == self.root and config == self.config and config_args == tuple(self.parsed.config_args)
            and paths == tuple(Path(p) for p in self.parsed.paths)
            and (not self.key or all(self.digests.get(path) == digest for path, digest in digests.items()))
        )

    def _store(self, key: str, code: int, chunks: list[list[Any]]) -> None:
        written = None
        if self.parsed.output_file is not None:
            try:
                with open(self.parsed.output_file, "rb") as handle:
                    written = handle.read().decode("latin-1")
            except OSError:
                return
        merged: list[list[Any]] = []
        for fd, data in chunks:
            if merged and merged[-1][0] == fd:
                merged[-1][1] += data
            else:
                merged.append([fd, data])
        import json  # imported while a cold check's pool works (the CLI's Options.ahead)

        entry = {"format": FORMAT, "key": key, "stamps": self.stamps, "code": code, "file": written,
                 "out": [[fd, data.decode("latin-1")] for fd, data in merged]}
        try:
            cache.prepare_directory(self.entry.parent.parent)
            self.entry.parent.mkdir(parents=True, exist_ok=True)
            cache.write_atomic(self.entry, json.dumps(entry, separators=(",", ":")).encode())
        except OSError:
            pass  # the per-file cache already said so, if the folder cannot be written


def _encoded(text: str) -> bytes:
    """Text hashed into a key: a path git lists or the system gives may hold bytes that are not
    UTF-8 (held as surrogates, os.fsdecode's), which plain `encode` refuses with a traceback."""
    return text.encode("utf-8", "surrogateescape")


def prepare(args: list[str]) -> Warm | None:
    """The warm path's key for these arguments, or None when the run cannot be replayed."""
    parsed = parse(args)
    if parsed is None or os.environ.get("PORTLINT_NO_CACHE") or not fast("replay"):
        return None
    if not all(hasattr(s, "buffer") and getattr(s, "encoding", None) for s in (sys.stdout, sys.stderr)):
        return None
    if not all(os.path.lexists(path) for path in parsed.paths):
        return None  # click reports it
    start = Path(parsed.paths[0]) if parsed.paths else Path.cwd()
    try:
        explicit, _ = locate.split_config_args(tuple(parsed.config_args))
        config = locate.find_config(start, explicit)
    except locate.ConfigError:
        return None
    root = locate.root_of(start, config)
    if root.resolve() != Path.cwd().resolve() or locate.git_root(start) is None:
        return None
    folder = cache.folder(root)  # None: a default folder that is a symlink (the run says so, and goes on without it)
    if folder is None or (config is not None and _extends(config)):
        return None
    return Warm(args, parsed, root, config, start, discover.listing_started(root), folder)


def _extends(config: Path) -> bool:
    """Whether the config may extend another file (whose bytes the key does not hold): a line
    that starts with an `extend` key, read without a parser."""
    import re

    try:
        return re.search(rb"(?m)^[ \t]*[\"']?extend[\"']?[ \t]*[:=]", config.read_bytes()) is not None
    except OSError:
        return False


class _Tee(io.RawIOBase):
    """The bytes a stream writes, kept in order with the other stream's, and passed on."""

    def __init__(self, target: BinaryIO, fd: int, chunks: list[list[Any]]) -> None:
        super().__init__()
        self.target, self.fd, self.chunks = target, fd, chunks

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        data = bytes(data)
        written = self.target.write(data)
        self.chunks.append([self.fd, data])
        return written if written is not None else len(data)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()


def _teed(stream: Any, fd: int, chunks: list[list[Any]]) -> io.TextIOWrapper:
    """A text stream like `stream` (encoding, errors, line buffering) whose bytes are recorded."""
    stream.flush()
    tee = _Tee(stream.buffer, fd, chunks)
    return io.TextIOWrapper(
        tee, encoding=stream.encoding, errors=stream.errors,  # type: ignore[arg-type]
        line_buffering=getattr(stream, "line_buffering", False), write_through=True,
    )


def _load(path: Path) -> dict[str, Any] | None:
    """A stored entry as this version writes it, else None (absent, corrupt, foreign)."""
    try:
        stored = cache.read_own(path)
    except OSError:
        return None  # none (a cold check imports json only while its pool works: Options.ahead)
    import json

    try:
        entry = json.loads(stored)
    except (ValueError, RecursionError):
        return None
    if not (isinstance(entry, dict) and entry.get("format") == FORMAT and isinstance(entry.get("key"), str)
            and isinstance(entry.get("stamps"), str)):
        return None
    chunks, written, code = entry.get("out"), entry.get("file"), entry.get("code")
    if code not in (0, 1) or not (written is None or isinstance(written, str)) or not isinstance(chunks, list):
        return None
    for chunk in chunks:
        if not (isinstance(chunk, list) and len(chunk) == 2 and chunk[0] in (1, 2) and isinstance(chunk[1], str)):
            return None
    try:
        for _, text in chunks:
            text.encode("latin-1")
        if written is not None:
            written.encode("latin-1")
    except UnicodeEncodeError:
        return None
    return entry


def _probe(path: Path) -> str:
    """A config candidate: what it is, and its bytes."""
    name = os.path.abspath(path)
    try:
        status = os.stat(name)
    except OSError:
        return f"{name} -"
    if not stat.S_ISREG(status.st_mode):
        return f"{name} {'d' if stat.S_ISDIR(status.st_mode) else 'x'}"
    try:
        with open(name, "rb") as handle:
            return f"{name} {cache.digest(handle.read())}"
    except OSError as error:
        return f"{name} e{error.errno}"


def _known(full: str, digest: str, status: os.stat_result) -> tuple[str, str] | None:
    """`_state` for a path whose bytes the engine read (`digest`), without reading them again,
    from its lstat as stamped before the run; None when it was not a file or a symlink to one
    (then `_state` says what it is now)."""
    try:
        if stat.S_ISREG(status.st_mode):
            return f"f {digest}", digest
        if stat.S_ISLNK(status.st_mode) and stat.S_ISREG(os.stat(full).st_mode):
            return f"l {os.readlink(full)} {os.path.realpath(full)} {digest}", digest
    except OSError:
        pass
    return None


def _state(full: str) -> tuple[str, str] | None:
    """What a listed path is, as a check would find it, and its content's digest ("" when it
    has none): "f" a file, "l TARGET REAL ..." a symlink and what it leads to, "d" a folder
    (a submodule), "-" missing, "e ERRNO" unreadable; None for what this module does not
    replay (a FIFO, a device). Opened and read as the read stage does (portlint.stages.read)."""
    try:
        fd = read.open_file(full)
    except FileNotFoundError:
        return "-", ""
    except OSError:
        return _linked(full)  # a symlink (or unreadable: said there)
    try:
        return _opened(fd, "f")
    finally:
        os.close(fd)


def _opened(fd: int, token: str) -> tuple[str, str] | None:
    try:
        status, data = read.contents(fd)
    except OSError as error:
        return f"{token} e{error.errno}", ""
    if stat.S_ISDIR(status.st_mode):
        return token + " d", ""
    if data is None:
        return None  # neither a file nor a folder
    digest = cache.digest(data)
    return f"{token} {digest}", digest


def _linked(full: str) -> tuple[str, str] | None:
    try:
        if not stat.S_ISLNK(os.lstat(full).st_mode):
            os.close(read.open_file(full))
            return None  # openable now: it changed under us
    except OSError as error:
        return f"e{error.errno}", ""
    token = f"l {os.readlink(full)} {os.path.realpath(full)}"
    try:
        fd = read.open_file(full, follow=True)
    except OSError as error:
        return f"{token} e{error.errno}", ""
    try:
        return _opened(fd, token)
    finally:
        os.close(fd)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except OSError as error:
        return f"e{error.errno}"


def _distributions() -> str:
    """cache.distributions: a dependency's upgrade (ruamel.yaml, pathspec) may change what a check finds."""
    return cache.distributions()
