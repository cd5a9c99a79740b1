"""Stage read: one listed file's bytes, or why a check skips it (a note) or cannot check it (a PL001).

A pure function of the file system and the path, so that any process of the per-file
stage's pool can read a file and hand back what it found.
"""
from __future__ import annotations

import mmap
import os
import stat
from pathlib import Path
from typing import NamedTuple

from portlint import cache, discover, locate

_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")  # UTF-16 LE/BE, UTF-32 BE (LE starts like UTF-16 LE)


class Read(NamedTuple):
    """What reading a listed file gave: its bytes (None when they are not checked), their
    digest (when asked for: the bytes were read, whatever came after), and a note (skipped) or
    a failure (cannot be checked) saying why not."""

    data: bytes | None = None
    digest: str = ""
    note: str = ""
    failure: str = ""


def read_file(root: Path, path: str, digest: bool, selector_names: tuple[str, ...]) -> Read:
    """The bytes of `path` under `root`; nothing for a file listed by git but deleted in the
    work tree or a dangling link. (os calls on the path's text: a Path method per step cost as
    much as the reading.)"""
    name = os.path.join(root, path)
    try:
        status = os.lstat(name)
    except FileNotFoundError:
        return Read()
    except OSError as error:
        return Read(failure=f"cannot read: {error.strerror or error}")
    if stat.S_ISLNK(status.st_mode):
        try:
            target = Path(name).resolve(strict=True)
        except FileNotFoundError:
            return Read()  # a dangling link: nothing to read
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
            return Read(failure="cannot read: a symlink loop")
        if not locate.inside(root, target):
            return Read(note="a symlink leading outside the repository")
    try:
        if stat.S_ISLNK(status.st_mode):
            status = os.stat(name)
        if stat.S_ISDIR(status.st_mode):
            return Read(note="a directory")
        if not stat.S_ISREG(status.st_mode):
            return Read(note="not a regular file")  # a FIFO would block the read
        if status.st_size > discover.MAX_BYTES:
            if not _may_hold_sites(name, selector_names):
                return Read()
            return Read(failure=f"too large: {status.st_size} bytes, over the {discover.MAX_BYTES}-byte limit")
        with open(name, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return Read()  # listed by git but deleted in the work tree
    except OSError as error:
        return Read(failure=f"cannot read: {error.strerror or error}")
    digested = cache.digest(data) if digest else ""  # the warm path checks what the run read
    if data.startswith(_WIDE_BOMS):
        return Read(digest=digested, failure="UTF-16 or UTF-32 text; portlint reads UTF-8")
    nul = data.find(b"\0", 0, 8192)
    if nul != -1:
        return Read(digest=digested, failure=f"binary: a NUL byte at offset {nul}")
    return Read(data, digested)


def _may_hold_sites(name: str, selector_names: tuple[str, ...]) -> bool:
    """The prefilter over a file too large to read whole, through a read-only mapping."""
    with open(name, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
        return bool(discover.prefilter(selector_names).search(view))
