"""Atomic writes: a temporary file in the same directory, then a rename."""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Replace path's bytes with data, keeping its mode; all or nothing.

    A read-only file (no write bit) is refused rather than replaced: the rename
    would succeed, even for root, but the owner said not to write it.
    """
    target = path.resolve()  # write through a symlink to its file, never replace the link
    mode = stat.S_IMODE(target.stat().st_mode)
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(target, os.W_OK):
        raise PermissionError(13, "file is read-only", str(path))
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".portlint")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
