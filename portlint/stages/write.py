"""The write stage: each changed file written atomically (a temporary file in the same directory,
then a rename), or the reason it was not."""
from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from portlint.speed.interrupts import held_interrupts
from portlint.stages.discover import leads_inside

_SUFFIX = ".portlint"
_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


class Written(NamedTuple):
    """What writing the changed files gave: the paths left unwritten, and why each was."""

    unwritten: frozenset[str] = frozenset()
    errors: tuple[str, ...] = ()  # `PATH: not written: REASON`, in path order


def write_changed(root: Path, changed: Mapping[str, tuple[bytes, bytes]]) -> Written:
    """Write every changed file (path -> (bytes read, bytes to write)), in path order."""
    unwritten, errors = set(), []
    for path, (before, after) in sorted(changed.items()):
        try:
            write_atomic(root / path, after, expected=before, root=root)
        except OSError as error:
            unwritten.add(path)
            errors.append(f"{path}: not written: {error.strerror or error}")
    return Written(frozenset(unwritten), tuple(errors))


def write_atomic(path: Path, data: bytes, expected: bytes | None = None, root: Path | None = None) -> None:
    """Replace path's bytes with data, keeping its mode and owner; all or nothing.

    A read-only file (no write bit) is refused rather than replaced: the rename
    would succeed, even for root, but the owner said not to write it. With
    `expected` (the bytes the caller read), a file changed on disk since then is
    left alone rather than overwritten. The temporary is named after this
    process, so one a killed run left behind is recognised and removed by the
    next write beside it. With `root`, a file whose path leads outside that work tree (a link
    on its way, maybe put there since it was read) is refused.
    """
    target = path.resolve()  # write through a symlink to its file, never replace the link
    if root is not None and not leads_inside(root, str(target), fresh=True):
        raise PermissionError(errno.EACCES, "a symlink leading outside the repository", str(path))
    status = target.stat()
    mode = stat.S_IMODE(status.st_mode)
    if not mode & _WRITE_BITS or not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "file is read-only", str(path))
    _remove_leftovers(target)
    import tempfile  # here: a check that writes nothing never imports it (nor shutil and random)

    with held_interrupts():
        descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=_SUFFIX)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, mode)
            if (status.st_uid, status.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(PermissionError):  # only root may give a file away
                    os.chown(temporary, status.st_uid, status.st_gid)
            if expected is not None and target.read_bytes() != expected:
                raise OSError(errno.ESTALE, "changed on disk since it was read", str(path))
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    _sync_directory(target.parent)


def _remove_leftovers(target: Path) -> None:
    """Delete `.NAME.PID.*.portlint` temporaries beside target whose process is gone."""
    prefix = f".{target.name}."
    with contextlib.suppress(OSError), os.scandir(target.parent) as entries:
        for entry in entries:
            name = entry.name
            if not (name.startswith(prefix) and name.endswith(_SUFFIX)):
                continue
            parts = name[len(prefix):-len(_SUFFIX)].split(".")  # PID and mkstemp's random letters
            if len(parts) == 2 and parts[0].isdigit() and not _alive(int(parts[0])):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    return True


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable (a crash after it must not bring back the old bytes)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
