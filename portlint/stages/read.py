"""Stage read: one listed file's bytes, or why a check skips it (a note) or cannot check it (a PL001).

A pure function of the file system and the path, so that any process of the per-file
stage's pool can read a file and hand back what it found.
"""
from __future__ import annotations

import errno
import mmap
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from portlint.speed import cache
from portlint.stages import discover

Searching = Callable[[mmap.mmap], object]  # the prefilter's search (truthy: a port token or selector name)
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")  # UTF-16 LE/BE, UTF-32 BE (LE starts like UTF-16 LE)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_A_LINK = (errno.ELOOP, errno.EMLINK)  # what an open with O_NOFOLLOW says of a symlink (EMLINK: FreeBSD)
_OPEN = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class Read(NamedTuple):
    """What reading a listed file gave: its bytes (None when they are not checked), their
    digest (when asked for: the bytes were read, whatever came after), and a note (skipped) or
    a failure (cannot be checked) saying why not."""

    data: bytes | None = None
    digest: str = ""
    note: str = ""
    failure: str = ""


def read_file(root: Path, path: str, digest: bool, search: Searching, folders: dict[str, bool] | None = None) -> Read:
    """The bytes of `path` under `root`; nothing for a file listed by git but deleted in the
    work tree or a dangling link. A file too large to read whole is searched by the prefilter
    (`search`) through a mapping: dropped where it finds nothing, else a failure. One open that follows no link and blocks on nothing, then
    fstat and reads of the descriptor: a stat, `open()` and its buffered reader cost half the
    reading stage again (os calls on the path's text: a Path method per step cost as much)."""
    name = os.path.join(root, path)
    if not discover.leads_inside(root, path, folders=folders):  # a folder on its way is a symlink leading out
        return Read(note=OUTSIDE)
    try:
        if not _NOFOLLOW and os.path.islink(name):  # where an open cannot refuse a link itself
            return _linked(root, path, digest, search)
        fd = open_file(name)
    except FileNotFoundError:
        return Read()
    except OSError as error:
        if is_link(error):  # the path is a symlink: read where it leads, if inside
            return _linked(root, path, digest, search)
        return Read(failure=f"cannot read: {error.strerror or error}")
    try:
        return _opened(fd, digest, search)
    finally:
        os.close(fd)


OUTSIDE = "a symlink leading outside the repository"


def _linked(root: Path, path: str, digest: bool, search: Searching) -> Read:
    name = os.path.join(root, path)
    try:
        Path(name).resolve(strict=True)
    except FileNotFoundError:
        return Read()  # a dangling link: nothing to read
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        return Read(failure="cannot read: a symlink loop")
    if not discover.leads_inside(root, path, fresh=True):
        return Read(note=OUTSIDE)
    try:
        fd = open_file(name, follow=True)
    except FileNotFoundError:
        return Read()
    except OSError as error:
        return Read(failure=f"cannot read: {error.strerror or error}")
    try:
        return _opened(fd, digest, search)
    finally:
        os.close(fd)


def _opened(fd: int, digest: bool, search: Searching) -> Read:
    try:
        status, data = contents(fd, discover.MAX_BYTES)
        if stat.S_ISDIR(status.st_mode):
            return Read(note="a directory")
        if not stat.S_ISREG(status.st_mode):
            return Read(note="not a regular file")  # a FIFO would block the read
        if data is None:
            if not _may_hold_sites(fd, search):
                return Read()
            return Read(failure=f"too large: {status.st_size} bytes, over the {discover.MAX_BYTES}-byte limit")
    except OSError as error:
        return Read(failure=f"cannot read: {error.strerror or error}")
    digested = cache.digest(data) if digest else ""  # the warm path checks what the run read
    if data.startswith(_WIDE_BOMS):
        return Read(digest=digested, failure="UTF-16 or UTF-32 text; portlint reads UTF-8")
    nul = data.find(b"\0", 0, 8192)
    if nul != -1:
        return Read(digest=digested, failure=f"binary: a NUL byte at offset {nul}")
    return Read(data, digested)


# -- the one way a listed path is opened and read (the warm path reads with these too) --------
def open_file(name: str, follow: bool = False) -> int:
    """A read-only descriptor of `name` whose reads never block (a FIFO); a symlink is refused
    (OSError, `is_link`) unless `follow`. Raises OSError."""
    return os.open(name, _OPEN & ~_NOFOLLOW if follow else _OPEN)


def is_link(error: OSError) -> bool:
    """What `open_file` raises for a symlink it does not follow."""
    return error.errno in _A_LINK


def contents(fd: int, limit: int | None = None) -> tuple[os.stat_result, bytes | None]:
    """The descriptor's status, and every byte to the end (should the file have grown since the
    status): None for what is not a regular file, or one larger than `limit`. Raises OSError."""
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode) or limit is not None and status.st_size > limit:
        return status, None
    parts = []
    while part := os.read(fd, max(status.st_size + 1, 1 << 16)):
        parts.append(part)
    return status, parts[0] if len(parts) == 1 else b"".join(parts)


def _may_hold_sites(fd: int, search: Searching) -> bool:
    """The prefilter over a file too large to read whole, through a read-only mapping."""
    with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as view:
        return bool(search(view))
