"""Where a run starts: the config file for a path, and the repository root it configures.

Kept apart from the portlint/config/ package, which parses and validates a config: finding
one reads only a few names on the way up (and a pyproject.toml's table names), so
the warm path of portlint/entry/replay.py can ask the same questions without
importing the parsers, the schema or the model.
"""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from types import ModuleType

CONFIG_NAMES = (".portlint.yaml", ".portlint.yml", "portlint.toml", "pyproject.toml")
BASELINE_NAME = ".portlint-baseline"  # problems set aside by `--add-noqa` (portlint/config/baseline.py), at the root

# A TOML table header spans one line: blanks are spaces and tabs (`\s*` ran on over every blank
# line after each line's start, a scan quadratic in the blank lines).
_TOOL_PORTLINT_HEADER = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*portlint[ \t]*[\].]", re.MULTILINE)


class ConfigError(Exception):
    """A config that cannot be used: `{path}: {key_path}: {message}`."""

    def __init__(self, path: str, key_path: str, message: str) -> None:
        super().__init__(path, key_path, message)
        self.path = path
        self.key_path = key_path
        self.message = message

    def __str__(self) -> str:
        return ": ".join(part for part in (self.path, self.key_path, self.message) if part)


def find_config(start: Path, explicit: Path | None = None) -> Path | None:
    """The config file for `start`: `explicit` if given, else the nearest one upward."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(shown(explicit), "", "config file not found")
        return absolute(explicit)
    for directory in upward(start):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if candidate.is_file() and (name != "pyproject.toml" or declares_portlint(candidate)):
                return candidate
    return None


def unused_configs(root: Path, listed: Iterable[str], used: Iterable[Path]) -> list[str]:
    """The config files among `listed` (paths relative to `root`, in subfolders of it) that a run
    with the config files `used` does not read: each configures its own folder's project when
    portlint runs there, and this run must say that it did not (closest-config-per-file, as
    ruff has it, would need a layout per subtree). A pyproject.toml counts when it declares
    [tool.portlint]."""
    taken = {path.resolve() for path in used}
    found = []
    for path in listed:
        folder, _, name = path.rpartition("/")
        if not folder or name not in CONFIG_NAMES:
            continue
        full = root / path
        if full.resolve() in taken or (name == "pyproject.toml" and not declares_portlint(full)):
            continue
        found.append(path)
    return sorted(found)


def upward(start: Path) -> list[Path]:
    """`start`'s directory and its parents, up to the repository or filesystem root."""
    directory = absolute(start)
    if directory.is_file():
        directory = directory.parent
    chain = []
    for candidate in (directory, *directory.parents):
        chain.append(candidate)
        if (candidate / ".git").exists():  # a directory, or a file in worktrees/submodules
            break
    return chain


def git_root(start: Path) -> Path | None:
    top = upward(start)[-1]
    return top if (top / ".git").exists() else None


def declares_portlint(pyproject: Path) -> bool:
    try:
        data = pyproject.read_bytes()
        if b"portlint" not in data and b"\\u" not in data and b"\\U" not in data:
            return False  # no key can name portlint without the word or an escape: no TOML parser needed
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    toml = tomllib()
    try:
        data = toml.loads(text)
    except (toml.TOMLDecodeError, RecursionError):  # RecursionError: arrays nested past tomllib's recursion
        # Claim a broken pyproject only if it seems to configure portlint, so
        # that loading it reports the syntax error instead of ignoring it.
        return _TOOL_PORTLINT_HEADER.search(text) is not None
    tool = data.get("tool")
    return isinstance(tool, dict) and "portlint" in tool


def root_of(start: Path, config: Path | None) -> Path:
    """The git work tree of `start`, wherever the config file is: `.github/portlint.yaml`,
    or `--config ../x.yaml` outside the tree, configures the repository `start` is in.

    One exception keeps nested projects (and the demo under fixtures/) whole: a config
    whose folder holds `start` and lies inside the work tree, as a search upward finds
    it, roots the run at its folder (as a nested pyproject.toml does for ruff). Outside
    git the same holds; with no such config the root is `start`'s folder.
    """
    git = git_root(start)
    start_dir = upward(start)[0]
    if config is not None and inside(config.parent, start_dir) and (git is None or inside(git, config.parent)):
        return config.parent
    return git or start_dir


def split_config_args(values: tuple[str, ...]) -> tuple[Path | None, tuple[str, ...]]:
    """`--config` values as ruff reads them: a file, else a TOML `KEY = VALUE` setting."""
    files = [value for value in values if Path(value).is_file() or "=" not in value]
    if len(files) > 1:
        raise ConfigError("--config", "", f"expected one config file, got {len(files)}: {', '.join(files)}")
    return (Path(files[0]) if files else None), tuple(value for value in values if value not in files)


def inside(root: Path, path: Path) -> bool:
    """True when path, symlinks resolved, stays under root (a symlink loop does not)."""
    try:
        try:
            resolved = path.resolve(strict=True)
        except FileNotFoundError:  # not there (yet): where it would be
            resolved = path.resolve()
        resolved.relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):  # a loop: RuntimeError before 3.13, OSError (ELOOP) since
        return False
    return True


@cache
def tomllib() -> ModuleType:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    return tomllib


def absolute(path: Path) -> Path:
    """Absolute and normalized (`..` folded), symlinks left as written."""
    return Path(os.path.abspath(path))


def shown(path: Path) -> str:
    """`path` relative to the working directory when it lies below it."""
    full = absolute(path)
    try:
        return full.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(full)
