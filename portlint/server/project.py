"""One repository as the language server holds it: its config, a session of the engine, the
editor's unsaved text laid over the disk, and the problems of the last check.

The config is found as the CLI finds it from the workspace folder (`load_for`); a config that
cannot be used is kept as the error (`error`), shown on its file, and nothing else is checked
until it loads. An edit re-extracts the edited file only (`Session.revised`); a check lays
out every file again and runs the rules (what a change to one file changes is anywhere).
Fixes and suppressions are computed here as the bytes a file would hold after them, through
the fix loop and `--add-noqa`'s own code, and never written: the editor applies them.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from portlint.commands.noqa import no_comment, suppress
from portlint.config.errors import key_path
from portlint.config.load import load_for
from portlint.config.locate import CONFIG_NAMES, ConfigError, find_config, root_of
from portlint.config.selection import resolve
from portlint.engine import Options, Session, session
from portlint.model.codes import CHECK_CODES
from portlint.model.files import FileState
from portlint.model.problems import Problem
from portlint.stages.discover import MAX_BYTES, TooManyFiles
from portlint.stages.fix import fix_loop

_AT_LINE = re.compile(r"\(line (\d+)\)")

Identity = tuple[str, int, int, str, str]  # a problem as a code action names it: path, line, column, code, message


def identity(problem: Problem) -> Identity:
    return problem.path, problem.line, problem.column, problem.code, problem.message


class Broken(NamedTuple):
    """A config that cannot be used, where to show it, and why."""

    file: Path | None  # the file to blame (absolute), None when none can be named
    line: int  # 1-based, 0: unknown
    column: int
    message: str


class Edited(NamedTuple):
    """The bytes files would hold after a fix or a suppression, or why nothing changes."""

    changed: dict[str, tuple[bytes, bytes]]  # path -> (before, after)
    reason: str = ""  # why there is nothing to change


class Project:
    """A workspace folder's repository: `load` (again, when the config changes), `edit`, `check`."""

    def __init__(self, start: Path) -> None:
        self.start = start
        self.texts: dict[str, bytes] = {}  # path -> the editor's text of an open file
        self.session: Session | None = None
        self.files: dict[str, FileState] = {}
        self.problems: list[Problem] = []
        self.broken: Broken | None = None
        self.root = start
        self.config_path: Path | None = None
        self.stale = False  # edits since the last check
        self.load()

    # -- the config and the session ---------------------------------------------------------
    def load(self) -> None:
        """Find and load the config as the CLI does, prepare the files, lay the open files' text
        over them; a config that cannot be used becomes `broken` instead."""
        self.session, self.files, self.problems, self.broken = None, {}, [], None
        try:
            found = find_config(self.start)
            self.config_path = found
            self.root = root_of(self.start, found)
            config = load_for(self.start, ())
        except ConfigError as error:
            self.broken = _broken(error, self.config_path)
            return
        except TooManyFiles as error:
            self.broken = Broken(self.config_path, 0, 0, str(error))
            return
        self.root = config.root
        select, ignore = resolve(config.selections, CHECK_CODES)
        current = session(config, Options(select=select, ignore=ignore))
        files = current.files
        for path, data in self.texts.items():
            files = current.revised(files, path, data)
        self.session = current.regrounded(files) if self.texts else current
        self.files = files
        self.stale = True

    def config_files(self) -> set[Path]:
        """The files whose change means loading again: the config and what it extends."""
        if self.session is None:
            return {self.config_path} if self.config_path else set()
        config = self.session.prepared.config
        return {p for p in (config.path, *config.extends) if p is not None}

    def configures(self, file: Path) -> bool:
        """A change to `file` may change the config: it is one of the config's files, or a file
        with a config's name between the folder and the root (a new config may now be found)."""
        if _absolute(file) in {_absolute(p) for p in self.config_files()}:
            return True
        if file.name not in CONFIG_NAMES:
            return False
        folder = _absolute(file.parent)
        start, root = _absolute(self.start), _absolute(self.root)
        return _below(start, folder) and _below(folder, root)

    # -- files -----------------------------------------------------------------------------
    def relative(self, file: Path) -> str | None:
        """The root-relative path of a file under the root (None: outside it)."""
        for root, path in ((self.root, file), (_resolved(self.root), _resolved(file))):
            try:
                return path.relative_to(root).as_posix()
            except ValueError:
                continue
        return None

    def checked(self, path: str) -> bool:
        """The check reads this file (the listing holds it)."""
        return self.session is not None and path in self.session.ground.listed

    def edit(self, path: str, data: bytes | None) -> None:
        """The file holds `data` in the editor (None: the editor no longer holds it; the disk's
        bytes again). Re-extracts that file only."""
        if data is None:
            self.texts.pop(path, None)
        else:
            self.texts[path] = data
        if self.session is not None and self.checked(path):
            self.files = self.session.revised(self.files, path, data)
            self.stale = True

    def reground(self) -> None:
        """Work out again the facts a session works out once (after a save: names mentioned)."""
        if self.session is not None:
            self.session = self.session.regrounded(self.files)
            self.stale = True

    def check(self) -> list[Problem]:
        """Lay out every file and run the rules: the problems of the repository as the editor has it."""
        if self.session is not None and self.stale:
            self.problems = self.session.check(self.files)
        self.stale = False
        return self.problems

    def data(self, path: str) -> tuple[bytes, bool] | None:
        """The bytes a problem's position refers to, and whether they were read from disk (a BOM
        there is no character of the editor's text): what was extracted, else the editor's text
        of a listed file, else the disk (the config file, as it was loaded; a file portlint did
        not extract)."""
        state = self.files.get(path)
        if state is not None:
            return state.data, path not in self.texts
        if path in self.texts and self.checked(path):
            return self.texts[path], False
        full = Path(path) if os.path.isabs(path) else self.root / path
        try:
            if full.stat().st_size > MAX_BYTES:
                return None
            return full.read_bytes(), True
        except OSError:
            return None

    def config_shown(self) -> str:
        """The config file as problems name it (`Ground.config_path`): "" in zero-config."""
        return self.session.ground.config_path if self.session is not None else ""

    # -- what the editor may apply --------------------------------------------------------
    def find(self, wanted: Identity) -> Problem | None:
        return next((p for p in self.problems if identity(p) == wanted), None)

    def fixed(self, wanted: Callable[[Problem], bool], unsafe: bool) -> Edited:
        """The files after the wanted problems' fixes, through the fix loop (`--fix`'s edits,
        each file extracted again and everything checked again until nothing is left to fix)."""
        if self.session is None:
            return Edited({}, "the config cannot be loaded")
        current = self.session
        done = fix_loop(self.files, current.check, current.extract, unsafe, wanted=wanted)
        if done.changed:
            return Edited(done.changed)
        return Edited({}, "; ".join(done.notes) or "nothing to fix")

    def suppressed(self, problem: Problem) -> Edited:
        """The file with the comment `--add-noqa` would add for the problem, or why it takes none."""
        if self.session is None:
            return Edited({}, "the config cannot be loaded")
        done = suppress(self.session, self.files, self.problems, [problem])
        if done.refused:
            return Edited({}, "; ".join(sorted({why for _, why in done.refused})))
        path = problem.path
        return Edited({path: (self.files[path].data, done.files[path].data)})

    def suppressible(self, problem: Problem) -> bool:
        """A comment on its line may suppress it (as `--add-noqa` judges before it tries)."""
        return self.session is not None and not no_comment(problem, self.files, self.config_shown())


def _broken(error: ConfigError, found: Path | None) -> Broken:
    """Where a config error is shown: the file it names (relative to this process's working
    directory, as `ConfigError` words it), at the key path's entry or the line a syntax error
    names; the config found, at its top, when the error names no file."""
    file = _absolute(Path(error.path)) if error.path and not error.path.startswith("--") else found
    line, column = _line_of(error, file)
    message = ": ".join(part for part in (error.key_path, error.message) if part)
    return Broken(file, line, column, message)


def _line_of(error: ConfigError, file: Path | None) -> tuple[int, int]:
    at = _AT_LINE.search(error.message)
    if at is not None:
        return int(at.group(1)), 1
    if file is None or not error.key_path:
        return 0, 0
    from portlint.config.read import read

    try:
        document = read(file)
    except ConfigError:
        return 0, 0
    positions = {key_path((*document.prefix, *key)): where for key, where in document.positions.items()}
    wanted = error.key_path
    while wanted:  # the entry itself, else the nearest entry around it that has a place
        if wanted in positions:
            return positions[wanted]
        wanted = re.sub(r"(\.[^.\[]*|\[\d+\])$", "", wanted) if re.search(r"[.\[]", wanted) else ""
    return 0, 0


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _below(path: Path, folder: Path) -> bool:
    """`path` is `folder` or inside it."""
    return path == folder or folder in path.parents

