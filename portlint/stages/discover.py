"""Which files to read, and what kind each is.

Inside a git work tree git's own view decides (tracked files plus untracked ones
that are not ignored); elsewhere a walk that honours `.gitignore` files and stays
on one filesystem (no /proc, /sys or other mounts). Either way the default
excludes (virtual environments, vendored packages, build output) are never read.
Symlinks that resolve outside the root are never followed.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from portlint.config import locate
from portlint.model.globs import matcher

if TYPE_CHECKING:
    import pathspec

MAX_BYTES = 2 * 1024 * 1024
# Never checked, in git or not (gitignore syntax: a trailing / matches a folder at any depth):
# what installs, builds and caches put in a work tree is someone else's code.
DEFAULT_EXCLUDE = (
    ".git/", ".venv/", "venv/", "node_modules/", ".tox/", ".nox/", "__pycache__/",
    "build/", "dist/", "site-packages/", "dist-packages/", "*.egg-info/",
)
NOT_IN_GIT = (
    "not in a git work tree: walked the folder, honouring .gitignore files and the default excludes, "
    "entering no git repository inside it"
)
# Outside git nothing says where a project ends: past this many files that may be checked
# (a known suffix, or none: a script) the walk stops with an error instead of reading a
# whole disk (`portlint` at / or in $HOME).
MAX_WALKED = 20_000


class TooManyFiles(Exception):
    """The walk outside git passed MAX_WALKED files."""

_KINDS = {
    ".yaml": "yaml", ".yml": "yaml",
    ".sh": "shell", ".bash": "shell", ".sub": "shell", ".sbatch": "shell",
    ".py": "python",
    ".md": "markdown", ".markdown": "markdown",
}
SUFFIXES = tuple(_KINDS)  # the suffixes of the files an extractor reads (and scripts without one)
_SHELLS = (b"sh", b"bash", b"dash", b"ksh", b"zsh")

class Candidate(NamedTuple):  # not a Struct: the warm path (runcache) lists files and imports no msgspec
    path: str  # relative to the root, POSIX separators
    kind: str


def may_read(path: str) -> bool:
    """A file a check may read: a suffix an extractor reads, or none (a script, by its shebang)."""
    return _readable(os.path.splitext(path)[1].lower())


def _readable(suffix: str) -> bool:
    """may_read of a path with this suffix (lower case)."""
    return not suffix or suffix in _KINDS


def kind_of(path: str, head: bytes = b"") -> str:
    """The extractor for a path: by suffix, else by a shell or Python shebang."""
    kind = _KINDS.get(os.path.splitext(path)[1].lower(), "")
    if kind or not head.startswith(b"#!"):
        return kind
    interpreter = head[2:].split(b"\n", 1)[0].split()
    if interpreter and interpreter[0].endswith(b"/env"):
        interpreter = interpreter[1:]
    name = os.path.basename(interpreter[0]) if interpreter else b""
    if name in _SHELLS:
        return "shell"
    return "python" if name.startswith(b"python") else ""


class Listed(NamedTuple):
    """Paths a caller listed before the run (the warm path, from git), and the sizes of those it
    stat'ed: the run lists nothing again and stats nothing again."""

    files: list[str]
    sizes: dict[str, int]


class Listing(NamedTuple):
    """The files a check reads, with their kinds, in a stable order; whether git listed them (else
    the walk did); the sizes a caller knew of them (`size` asks the file system for the others)."""

    root: Path
    files: list[Candidate]
    by_git: bool
    sizes: Mapping[str, int]

    def size(self, path: str) -> int:
        """A listed file's size, as known, else as it is now (0 when it cannot be told). Only for
        sharing the work: a stat per file costs ~4 us."""
        known = self.sizes.get(path)
        if known is not None:
            return known
        try:
            return os.stat(os.path.join(self.root, path)).st_size
        except OSError:
            return 0


def listing(root: Path, include: Iterable[str], exclude: Iterable[str], given: Listed | None = None) -> Listing:
    """The files under root to check (`given`: git's listing of them, taken before the run)."""
    files = given.files if given is not None else git_files(root)
    by_git = files is not None
    found = list(_kinds(root, include, exclude, files if files is not None else _walk(root)))
    return Listing(root, found, by_git, given.sizes if given is not None else {})


def candidates(root: Path, include: Iterable[str], exclude: Iterable[str]) -> Iterator[Candidate]:
    """Files under root to check, with their kind, in a stable order."""
    files = git_files(root)
    return _kinds(root, include, exclude, files if files is not None else _walk(root))


def _kinds(root: Path, include: Iterable[str], exclude: Iterable[str], listed: Iterable[str]) -> Iterator[Candidate]:
    included = matcher(tuple(include))
    excluded = matcher((*DEFAULT_EXCLUDE, *exclude))
    for path in sorted(listed):
        suffix = os.path.splitext(path)[1].lower()
        if not _readable(suffix):
            continue  # a suffix no extractor reads (`.go`, `.json`): no glob can give it a kind
        if excluded(path):
            continue
        if included(path):
            kind = _KINDS.get(suffix, "")
        elif not suffix:
            kind = "shell" if kind_of(path, _head(root, path)) == "shell" else ""
        else:
            kind = ""
        if kind:
            yield Candidate(path, kind)


def _head(root: Path, path: str) -> bytes:
    """The first bytes of a file without a suffix (a shebang), when it lies inside the work tree;
    a FIFO gives nothing rather than blocking."""
    name = os.path.join(root, path)
    if not leads_inside(root, path) or os.path.islink(name) and not leads_inside(root, path, fresh=True):
        return b""
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return b""
    try:
        return os.read(fd, 128)
    except OSError:
        return b""
    finally:
        os.close(fd)


def leads_inside(root: Path, path: str, fresh: bool = False, folders: dict[str, bool] | None = None) -> bool:
    """Whether `path`, relative to the work tree `root`, stays inside it with every symlink on its
    way resolved: a tracked folder replaced by a link to one outside still has its files listed
    by git. The one check of what is read and written as the repository's (the listing's
    shebang reads, the read stage, the write stage).

    Its folders are looked at with an lstat each, and resolved only where one is a link. Its own
    name is the caller's to look at: the reader opens it without following a link, and resolves
    one with `fresh`, which resolves the whole path now (the writer's check, right before it
    writes). `folders` keeps each folder's answer for the rest of a run that reads many files
    (the read stage's): its files are then looked at with no lstat of their folders again."""
    if fresh:
        return locate.inside(root, Path(root, path))
    if folders is not None:
        parent = os.path.dirname(path)
        known = folders.get(parent)
        if known is None:
            known = folders[parent] = leads_inside(root, path)
        return known
    folder = os.path.dirname(path)
    while folder:
        if os.path.islink(os.path.join(root, folder)):
            return locate.inside(root, Path(root, os.path.dirname(path)))
        folder = os.path.dirname(folder)
    return True


def git_files(root: Path) -> list[str] | None:
    return listing_started(root).files()


def listing_started(root: Path) -> Spawned:
    """git's listing of `root`, started now and read when asked for (Spawned.files): the warm
    path starts it before the CLI's imports, which take longer than git does."""
    return Spawned(["-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"])


def in_git(root: Path) -> bool:
    """True when git lists the files of `root` (else the walk does)."""
    return git(["-C", str(root), "rev-parse", "--show-toplevel"]) is not None


def git(args: list[str]) -> bytes | None:
    """What `git ARGS` prints, or None when git cannot be run or fails (its errors are not shown)."""
    return Spawned(args).output()


class Spawned:
    """`git ARGS`, started: what it prints is read, and git reaped, when asked for (`output`).
    Spawned with a pipe, where the system can: importing subprocess is a cost of every run,
    a replayed one's too, for the one command every run asks git."""

    def __init__(self, args: list[str]) -> None:
        self.args = args
        self.pid = 0
        self.pipe = -1
        self.printed: bytes | None = None
        self.done = False
        if not hasattr(os, "posix_spawnp"):
            return  # run in `output`
        output, sending = os.pipe()
        try:
            self.pid = os.posix_spawnp("git", ["git", *args], os.environ, file_actions=[
                (os.POSIX_SPAWN_DUP2, sending, 1), (os.POSIX_SPAWN_CLOSE, output),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ])
        except OSError:  # no git
            os.close(output)
            self.done = True
        else:
            self.pipe = output
        finally:
            os.close(sending)

    def output(self) -> bytes | None:
        """What git printed, or None when it could not be run or failed (the same answer each time)."""
        if not self.done:
            self.done = True
            self.printed = self._wait() if self.pid else _run_git(self.args)
        return self.printed

    def files(self) -> list[str] | None:
        """The paths of an `ls-files -z` listing, sorted; None when git did not list them."""
        listing = self.output()
        if listing is None:
            return None
        return sorted({name.decode("utf-8", "surrogateescape") for name in listing.split(b"\0") if name})

    def _wait(self) -> bytes | None:
        chunks = []
        try:
            while chunk := os.read(self.pipe, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(self.pipe)
            _, status = os.waitpid(self.pid, 0)
        return b"".join(chunks) if os.waitstatus_to_exitcode(status) == 0 else None


def _run_git(args: list[str]) -> bytes | None:
    import subprocess

    try:
        return subprocess.run(["git", *args], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def _walk(root: Path) -> Iterator[str]:
    """Every file under root outside git, as git would list it: `.gitignore` files honoured
    (a deeper one first), the default excludes and other filesystems' mounts never entered."""
    import pathspec

    defaults = pathspec.GitIgnoreSpec.from_lines(DEFAULT_EXCLUDE)
    try:
        device = os.stat(root).st_dev
    except OSError:
        return
    rules: dict[str, list[tuple[str, pathspec.GitIgnoreSpec]]] = {".": []}
    walked = 0
    for directory, subdirs, files in os.walk(root):
        relative = os.path.relpath(directory, root).replace(os.sep, "/")
        active = rules.pop(relative, [])
        own = _gitignore(Path(directory) / ".gitignore")
        if own is not None:
            active = [*active, ("" if relative == "." else relative + "/", own)]

        def ignored(name: str, folder: bool) -> bool:
            path = name if relative == "." else f"{relative}/{name}"  # noqa: B023 - called in this iteration only
            if defaults.match_file(path + "/" if folder else path):
                return True
            for base, spec in reversed(active):  # noqa: B023 - the deepest .gitignore that says anything decides
                verdict = spec.check_file(path[len(base):] + ("/" if folder else "")).include
                if verdict is not None:
                    return verdict
            return False

        kept = []
        for name in sorted(subdirs):
            full = os.path.join(directory, name)
            if ignored(name, True) or os.path.islink(full) or _other_device(full, device):
                continue
            if os.path.lexists(os.path.join(full, ".git")):
                continue  # another repository: its ports are its own (run portlint in it)
            kept.append(name)
            rules[name if relative == "." else f"{relative}/{name}"] = active
        subdirs[:] = kept
        for name in files:
            if not ignored(name, False):
                walked += may_read(name)
                if walked > MAX_WALKED:
                    raise TooManyFiles(
                        f"{root}: more than {MAX_WALKED} files to check outside a git work tree; "
                        "run portlint in a repository or a smaller folder"
                    )
                yield name if relative == "." else f"{relative}/{name}"


def _gitignore(path: Path) -> pathspec.GitIgnoreSpec | None:
    import pathspec

    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _other_device(path: str, device: int) -> bool:
    try:
        return os.stat(path).st_dev != device
    except OSError:
        return True
