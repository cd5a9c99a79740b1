"""click commands only: parse options, call the engine, pick a reporter, return the exit code."""
from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from portlint import EXIT_INTERRUPTED, __version__
from portlint.config.suggest import did_you_mean

if TYPE_CHECKING:  # imported lazily at run time: start-up cost
    from portlint.config.build import Config
    from portlint.engine import Known, Options, Outcome
    from portlint.model.problems import Problem
    from portlint.report import Context

EXIT_CLEAN, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2


class _CheckByDefault(click.Group):
    """`portlint --fix` means `portlint check --fix`: check is the default command.

    A first word that is neither a command nor an existing path but is close to a
    command's name is a mistyped command (`portlint chekc`), not a missing path.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help", "--version")):
            if args and not args[0].startswith("-") and not os.path.lexists(args[0]):
                hint = did_you_mean(args[0], self.commands, quoted=True)
                if hint:
                    raise click.UsageError(f'unknown command "{args[0]}"{hint}')
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_CheckByDefault, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="portlint")
def cli() -> None:
    """Keep every hard-coded network port of a repository inside its lane."""


@cli.command(name="help")
@click.argument("command", required=False)
@click.pass_context
def help_command(ctx: click.Context, command: str | None) -> int:
    """Print the help of portlint or of one command."""
    group = ctx.parent.command if ctx.parent else cli
    assert isinstance(group, click.Group) and ctx.parent is not None
    if command is None:
        click.echo(group.get_help(ctx.parent))
        return EXIT_CLEAN
    chosen = group.get_command(ctx, command)
    if chosen is None:
        raise click.UsageError(f'unknown command "{command}"{did_you_mean(command, group.commands, quoted=True)}')
    with click.Context(chosen, info_name=command, parent=ctx.parent) as sub:
        click.echo(chosen.get_help(sub))
    return EXIT_CLEAN


def _codes(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    if not value:
        return ()  # the rules are imported once the files are read, or while they are (engine.prepare)
    from portlint.engine import known_code
    from portlint.rules import BY_CODE, HOST

    codes = tuple(code.strip().upper() for item in value for code in item.split(",") if code.strip())
    for code in codes:
        if any(rule.CODE.startswith(code) for rule in HOST):
            raise click.BadParameter(f"{code} is a rule of `portlint host`, not of check", ctx=ctx, param=param)
        if not known_code(code):
            raise click.BadParameter(f"unknown rule {code}{did_you_mean(code, BY_CODE)}", ctx=ctx, param=param)
    return codes


_CONFIG_HELP = "A config file (anywhere), or a TOML `KEY = VALUE` setting that overrides it (repeatable)."


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--fix", is_flag=True, help="Apply safe fixes.")
@click.option("--unsafe-fixes", is_flag=True, help="Apply unsafe fixes too (with --fix or --diff).")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff on stdout (the summary on stderr); write nothing.")
@click.option("--select", multiple=True, callback=_codes, help="Codes or prefixes to check (comma-separated).")
@click.option("--extend-select", multiple=True, callback=_codes, help="Codes or prefixes to check beside the selected ones.")
@click.option("--ignore", multiple=True, callback=_codes, help="Codes or prefixes not to check.")
@click.option("--config", "config_args", multiple=True, metavar="FILE|KEY=VALUE", help=_CONFIG_HELP)
@click.option("--ephemeral-floor", metavar="N|auto", help="Override the config's ephemeral floor.")
@click.option(
    "--output-format", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True,
)
@click.option("--output-file", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to FILE, not stdout.")
@click.option("--statistics", is_flag=True, help="Print a count per code instead of the problems (text or json).")
@click.option("--show-fixes", is_flag=True, help="Show what each fix would change; with --fix, list what was fixed.")
@click.option("--show-settings", is_flag=True, help="Print the resolved settings and where each came from; check nothing.")
@click.option("--show-files", is_flag=True, help="List the files that would be checked and their kind; check nothing.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when problems remain.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="With --fix: exit 1 when a file was changed.")
@click.option("--no-color", is_flag=True, help="Never colour the output (as NO_COLOR does; FORCE_COLOR colours a pipe).")
@click.option("-q", "--quiet", is_flag=True, help="Print problems only: no summary, no notes.")
@click.option("--add-noqa", is_flag=True, help="Add a suppression comment for every problem; set those that take none aside in .portlint-baseline.")
@click.option("--no-cache", is_flag=True, envvar="PORTLINT_NO_CACHE",
              help="Neither read nor write .portlint_cache/ (also PORTLINT_NO_CACHE=1).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the cache in DIR, not .portlint_cache/ at the root (also PORTLINT_CACHE_DIR).")
@click.pass_obj
def check(  # noqa: PLR0913
    known: Known | None, paths: tuple[Path, ...], fix: bool, unsafe_fixes: bool, diff: bool, select: tuple[str, ...],
    ignore: tuple[str, ...], config_args: tuple[str, ...], ephemeral_floor: str | None,
    output_format: str, output_file: Path | None, statistics: bool, show_fixes: bool, show_settings: bool,
    show_files: bool, exit_zero: bool, exit_non_zero_on_fix: bool, no_color: bool, quiet: bool,
    no_cache: bool = False, add_noqa: bool = False, extend_select: tuple[str, ...] = (), cache_dir: Path | None = None,
) -> int:
    """Check the repository (the default command)."""
    from portlint.config.load import load_for
    from portlint.config.selection import Selection, resolve
    from portlint.engine import NOTHING_KNOWN, Options, fewer_collections, run
    from portlint.model.codes import CHECK_CODES

    _statistics_format(statistics, output_format)
    if diff and (output_format != "text" or statistics):
        shown = "--statistics" if statistics else f"--output-format {output_format}"
        raise click.UsageError(f"--diff prints a unified diff; it does not combine with {shown}")
    given, paths = paths, paths or (Path.cwd(),)  # like ruff: the working directory is what is reported on
    config = load_for(paths[0], config_args, ephemeral_floor, cache_dir)
    if show_settings or show_files:
        from portlint.commands import settings

        text = settings.render(config, config_args, ephemeral_floor) if show_settings else settings.files(config, _reported(config.root, paths))
        with _output(output_file) as out:
            click.echo(text, file=out, nl=False)
        _not_in_git_note(config, quiet)
        return EXIT_CLEAN
    select, ignore = resolve((*config.selections, Selection(select or None, extend_select, ignore)), CHECK_CODES)
    options = Options(
        select=select, ignore=ignore, fix=fix or diff, unsafe_fixes=unsafe_fixes,
        write=not diff, paths=_reported(config.root, paths), cache=not no_cache,
        # json: the run cache stores its entry with it (portlint.entry.replay)
        ahead=("portlint.report.text", "json", *(() if diff else (_reporter(output_format, statistics),))),
    )
    if add_noqa:
        if fix or diff:
            raise click.UsageError("--add-noqa writes comments only: it cannot be combined with --fix or --diff")
        return _add_noqa(config, options, quiet, exit_zero)
    fewer_collections()
    listing = _config_listing(config)
    known = known or NOTHING_KNOWN
    outcome = run(config, options, known)
    if known.confirm is not None:  # the warm path records this run: what it ran on and read
        known.confirm(config.root, config.path, given, config_args, outcome.read)
    from portlint.report import Context
    from portlint.rules import CATALOGUE

    with _output(output_file) as out:
        color = output_file is None and _use_color(no_color)
        context = Context(config.root, Path.cwd(), unsafe_fixes, color=color, rules=CATALOGUE)
        if diff:
            _print_diff(outcome.changed, context, out)
        _report(outcome, context, output_format, quiet, written=not diff, statistics=statistics,
                show_fixes=show_fixes, out=out, diff=diff)
    _not_in_git_note(config, quiet, outcome.in_git)
    _unused_configs_note(config, listing, quiet)
    if outcome.write_errors:
        return EXIT_PROBLEMS if not exit_zero else EXIT_CLEAN
    if exit_zero:
        return EXIT_CLEAN
    if exit_non_zero_on_fix and outcome.changed:
        return EXIT_PROBLEMS
    if diff:  # as ruff's: 1 when there is a diff, whatever it leaves unfixed
        return EXIT_PROBLEMS if outcome.changed else EXIT_CLEAN
    return EXIT_PROBLEMS if outcome.problems else EXIT_CLEAN


def _not_in_git_note(config: Config, quiet: bool, in_git: bool | None = None) -> None:
    """The note that the files were walked, not listed by git (`in_git`: as the run found, else asked)."""
    from portlint.stages import discover

    if not quiet and not (discover.in_git(config.root) if in_git is None else in_git):
        click.echo(f"portlint: {discover.NOT_IN_GIT}", err=True)


_CONFIG_PATTERNS = tuple(f":(glob)**/{name}" for name in ("portlint.toml", ".portlint.yaml", ".portlint.yml", "pyproject.toml"))


def _config_listing(config: Config) -> Callable[[], list[str] | None]:
    """The config files below the root, as git lists them: started now, read after the run
    (git runs while the engine does). Outside git, a walk when asked."""
    from portlint.stages import discover

    spawned = discover.Spawned(["-C", str(config.root), "ls-files", "-z", "--cached", "--others",
                                "--exclude-standard", "--", *_CONFIG_PATTERNS])

    def listed() -> list[str] | None:
        output = spawned.output()
        return None if output is None else [p for p in os.fsdecode(output).split("\0") if p]
    return listed


def _unused_configs_note(config: Config, listing: Callable[[], list[str] | None], quiet: bool) -> None:
    """One line naming the config files in subfolders this run did not use (never silently)."""
    from portlint.config.locate import unused_configs
    from portlint.model.globs import matcher
    from portlint.report import printable
    from portlint.stages import discover

    if quiet:
        return
    listed = listing()
    if listed is None:
        listed = list(_walked_configs(config.root))
    excluded = matcher((*discover.DEFAULT_EXCLUDE, *config.exclude))
    used = [p for p in (config.path, *config.extends) if p is not None]
    unused = [p for p in unused_configs(config.root, listed, used) if not excluded(p)]
    if not unused:
        return
    shown = [Path(os.path.relpath(config.root / p)).as_posix() for p in unused]
    own = f"this run's config is {Path(os.path.relpath(config.path)).as_posix()}" if config.path else "this run has no config"
    if len(shown) == 1:
        folder = Path(shown[0]).parent.as_posix()
        text = (f"{shown[0]} is not used: {own}; to check {folder}/ with it, run portlint there "
                f"(or exclude {folder}/)")
    else:
        named = ", ".join(shown[:3]) + (", ..." if len(shown) > 3 else "")
        text = (f"{len(shown)} config files in subfolders are not used ({named}): {own}; to check a folder "
                f"with its own config, run portlint there (or exclude it)")
    click.echo(f"portlint: {printable(text)}", err=True)


def _walked_configs(root: Path) -> Iterator[str]:
    """Config files below `root` outside git: a walk that skips the default excludes' folders."""
    from portlint.config.locate import CONFIG_NAMES

    skipped = {".git", ".venv", "venv", "node_modules", ".tox", ".nox", "__pycache__", "build", "dist",
               "site-packages", "dist-packages", ".portlint_cache"}
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if f not in skipped and not f.endswith(".egg-info"))
        for name in names:
            if name in CONFIG_NAMES:
                yield Path(os.path.relpath(os.path.join(folder, name), root)).as_posix()


@contextlib.contextmanager
def _output(path: Path | None) -> Iterator[TextIO | None]:
    """stdout, or `--output-file`: a report goes to one place, notes stay on stderr."""
    if path is None:
        yield None
        return
    try:
        handle = open(path, "w", encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        raise click.FileError(str(path), error.strerror or str(error)) from None
    with handle:
        yield handle


def _add_noqa(config: Config, options: Options, quiet: bool, exit_zero: bool) -> int:
    from portlint.commands.noqa import add_noqa, summary
    from portlint.report import Context, printable

    outcome = add_noqa(config, options)
    context = Context(config.root, Path.cwd())
    for problem, reason in [] if quiet else outcome.set_aside:
        where = f"{context.display(problem.path)}:{problem.line}:{problem.column}: {problem.code} {problem.message}"
        click.echo(f"portlint: set aside in the baseline: {printable(where)} ({reason})", err=True)
    for note in [*outcome.write_errors, *([] if quiet else outcome.notes)]:
        click.echo(f"portlint: {printable(note)}", err=True)
    if not quiet:
        click.echo(summary(outcome))
    _not_in_git_note(config, quiet, outcome.in_git)
    return EXIT_CLEAN if exit_zero or not outcome.write_errors else EXIT_PROBLEMS
def _reported(root: Path, paths: tuple[Path, ...]) -> tuple[str, ...]:
    """The given paths, relative to the root; empty when they cover the whole root."""
    relative = []
    for path in paths:
        try:
            part = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            raise click.BadParameter(f"{path} is outside the repository root {root}") from None
        if part in ("", "."):
            return ()
        relative.append(part)
    return tuple(relative)


def _use_color(no_color: bool) -> bool:
    """Colour for a terminal; never with --no-color; with FORCE_COLOR set (https://force-color.org),
    also for a pipe (a CI log), even where NO_COLOR is set too (as ruff does); never with NO_COLOR
    set otherwise (https://no-color.org). An empty variable counts as unset."""
    if no_color:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("NO_COLOR"):
        return False
    stdout = sys.stdout
    return stdout is not None and stdout.isatty()


def _report(  # noqa: PLR0913
    outcome: Outcome, context: Context, output_format: str, quiet: bool, written: bool,
    statistics: bool = False, show_fixes: bool = False, out: TextIO | None = None, diff: bool = False,
) -> None:
    """The problems on `out` (stdout); with --diff, where the diff is, only the summary, on stderr."""
    from portlint.report import printable, text

    if not diff:  # with --diff the diff is the report: what it leaves unfixed is counted on stderr
        _render(outcome.problems, context, output_format, statistics, show_fixes, out)
    if quiet:
        return
    for note in [*outcome.notes, *outcome.write_errors]:
        click.echo(f"portlint: {printable(note)}", err=True)
    if output_format == "text":
        if show_fixes:
            report = text.fixed_report(outcome.fixed_problems, context, written)
            click.echo(report, nl=False, color=context.color, file=None if diff else out, err=diff)
        click.echo(text.summary(outcome.problems, outcome.fixed, written), file=None if diff else out, err=diff)


def _render(  # noqa: PLR0913
    problems: list[Problem], context: Context, output_format: str, statistics: bool = False,
    show_fixes: bool = False, out: TextIO | None = None,
) -> None:
    """The problems (of `check` or of `host`) in the chosen format, or their counts (only the
    reporter asked for is imported)."""
    import importlib

    reporter = importlib.import_module(_reporter(output_format, statistics))
    if statistics:
        render = reporter.render_json if output_format == "json" else reporter.render
        click.echo(render(problems, context), nl=False, file=out)
    elif output_format == "text":
        click.echo(reporter.render(problems, context, show_fixes), nl=False, color=context.color, file=out)
    else:  # json, sarif, github
        click.echo(reporter.render(problems, context), nl=False, file=out)


def _reporter(output_format: str, statistics: bool) -> str:
    """The module that renders the problems in this format (or their counts)."""
    return "portlint.report.statistics" if statistics else f"portlint.report.{output_format}"


def _statistics_format(statistics: bool, output_format: str) -> None:
    if statistics and output_format not in ("text", "json"):
        raise click.UsageError(f"--statistics prints text or json, not {output_format}")


def _print_diff(changed: dict[str, tuple[bytes, bytes]], context: Context, out: TextIO | None = None) -> None:
    """A unified diff `git apply` takes from the working directory (its paths are relative to it).

    A fix outside the working directory (a frozen copy of a file below it) cannot be
    applied from there (git refuses `../`): the paths are then the repository's, and
    a note says where to apply them."""
    outside = any(context.display(path).startswith("../") for path in changed)
    if outside:
        from portlint.report import printable

        click.echo(f"portlint: the diff changes files outside the working directory: "
                   f"its paths are relative to {printable(str(context.root))}; apply it there", err=True)
    for path, (before, after) in sorted(changed.items()):
        shown = path if outside else context.display(path)
        import difflib

        lines = difflib.unified_diff(_lines(before), _lines(after), f"a/{shown}", f"b/{shown}")
        click.echo("".join(_terminated(lines)), nl=False, file=out)


def _lines(data: bytes) -> list[str]:
    """Lines as git counts them: ended by \\n only (str.splitlines also breaks at \\r, \\f, U+2028...)."""
    parts = data.decode("utf-8", "replace").split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _terminated(lines: Iterator[str]) -> Iterator[str]:
    """A last line without a newline is marked as diff(1) marks it, or `git apply` rejects the patch."""
    for line in lines:
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n\\ No newline at end of file\n"


@cli.command()
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace an existing config.")
@click.option("--ephemeral-floor", metavar="N|auto", help="The floor to write (default: 32768, stock Linux).")
def init(path: Path | None, force: bool, ephemeral_floor: str | None) -> int:
    """Write a starter .portlint.yaml inferred from the ports found in the repository."""
    from portlint.commands.init.starter import init as write_starter
    from portlint.config.load import load_config
    from portlint.engine import Options, run
    from portlint.report import printable, text

    written, starter = write_starter(path or Path.cwd(), ephemeral_floor, force)
    shown = printable(os.path.relpath(written, Path.cwd()))
    bands, copies = len(starter.bands), len(starter.frozen)
    click.echo(f"Wrote {shown}: {bands} band{'s' if bands != 1 else ''}, "
               f"{copies} frozen cop{'ies' if copies != 1 else 'y'}, ephemeral floor {starter.floor}.")
    outcome = run(load_config(written, written.parent), Options())
    click.echo(f"Review it, then run `portlint`. {text.summary(outcome.problems)}")
    return EXIT_CLEAN


@cli.command()
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="The cache folder to remove, if not .portlint_cache/ at the root (also PORTLINT_CACHE_DIR).")
def clean(path: Path | None, cache_dir: Path | None) -> int:
    """Remove the cache (.portlint_cache/ at the repository root, or --cache-dir)."""
    from portlint.config.load import load_for
    from portlint.report import printable
    from portlint.speed import cache

    root = load_for(path or Path.cwd(), ()).root
    removed = cache.clean(root, cache_dir)
    shown = printable(os.path.relpath(cache.folder(root, cache_dir) or root / cache.DIRECTORY, Path.cwd()))
    click.echo(f"Removed {shown}" if removed else f"No cache at {shown}")
    return EXIT_CLEAN


@cli.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Print every rule's documentation.")
def rule(code: str | None, show_all: bool) -> int:
    """Print what a rule does, why, an example and its fix safety."""
    from portlint.rules import DOCUMENTED

    if show_all:
        chosen = list(DOCUMENTED.values())
    elif code and code.upper() in DOCUMENTED:
        chosen = [DOCUMENTED[code.upper()]]
    else:
        hint = did_you_mean((code or "").upper(), DOCUMENTED)
        raise click.UsageError(f"unknown rule {code}{hint}" if code else "give a rule code, or --all")
    for module in chosen:
        click.echo(f"{module.CODE} {module.NAME}\n\n{(module.__doc__ or '').strip()}\n")
    return EXIT_CLEAN


@cli.command(name="map")
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--config", "config_args", multiple=True, metavar="FILE|KEY=VALUE", help=_CONFIG_HELP)
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the picture as SVG.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the picture as HTML.")
@click.option("--width", type=click.IntRange(60, 400), default=100, show_default=True, help="Columns of the picture.")
@click.option("--theme", type=click.Choice(["dark", "light"]), default="dark", show_default=True,
              help="Colours of the picture.")
@click.option("--no-problems", is_flag=True, help="Leave the problem list out (a figure for a document).")
def map_command(  # noqa: PLR0913
    path: Path | None, config_args: tuple[str, ...], svg_path: Path | None, html_path: Path | None,
    width: int, theme: str, no_problems: bool,
) -> int:
    """Draw the layout: bands, sites, the floor, and every overlap and violation."""
    from portlint.commands.map import render as layoutmap  # imports rich: only this command pays for it

    start = path or Path.cwd()
    lines = layoutmap.draw(start, config_args, width, theme, problems=not no_problems)
    exports = ((svg_path, lambda: layoutmap.to_svg(lines, width, theme=theme)),
               (html_path, lambda: layoutmap.to_html(lines, width, theme=theme)))
    for target, export in exports:
        if target is not None:
            try:
                target.write_text(export(), encoding="utf-8")
            except OSError as error:
                raise click.FileError(str(target), error.strerror or str(error)) from None
    if svg_path is None and html_path is None:
        layoutmap.to_terminal(lines, width)
    return EXIT_CLEAN


@cli.command()
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--config", "config_args", multiple=True, metavar="FILE|KEY=VALUE", help=_CONFIG_HELP)
@click.option("--proc-root", type=click.Path(file_okay=False, path_type=Path), default=Path("/proc"),
              show_default=True, help="Where to read the kernel's settings and listeners.")
@click.option(
    "--output-format", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True,
)
@click.option("--output-file", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to FILE, not stdout.")
@click.option("--statistics", is_flag=True, help="Print a count per code instead of the problems (text or json).")
def host(  # noqa: PLR0913
    path: Path | None, config_args: tuple[str, ...], proc_root: Path, output_format: str,
    output_file: Path | None, statistics: bool,
) -> int:
    """Check the layout against this machine: ephemeral range, reserved ports, listeners."""
    from portlint.commands.host import check as host_check
    from portlint.commands.scan import scan
    from portlint.config import procfs
    from portlint.report import Context, printable
    from portlint.rules import HOST_CATALOGUE

    _statistics_format(statistics, output_format)

    try:
        kernel = procfs.read_kernel(proc_root)
    except procfs.HostError as error:
        click.echo(f"portlint: error: {printable(str(error))}", err=True)
        return EXIT_ERROR
    for note in kernel.notes:
        click.echo(f"portlint: {printable(note)}", err=True)
    found = scan(path or Path.cwd(), config_args, with_problems=False)
    problems = host_check.compare(found.layout, kernel)
    with _output(output_file) as out:
        _render(problems, Context(found.config.root, Path.cwd(), rules=HOST_CATALOGUE), output_format, statistics, out=out)
        if output_format == "text":
            click.echo(host_check.summary(problems, kernel), file=out)
    return EXIT_PROBLEMS if problems else EXIT_CLEAN


@cli.command()
@click.option("--docs-url", metavar="URL", envvar="PORTLINT_DOCS_URL",
              help="The docs site a diagnostic links its rule's page on (default: the package's Documentation URL; "
                   "also PORTLINT_DOCS_URL, or the client's `docsUrl` initialization option).")
def server(docs_url: str | None) -> int:
    """Run the language server for editors: LSP over stdin and stdout."""
    try:
        import pygls  # noqa: F401 - only this command needs it
    except ImportError:
        raise click.UsageError('the language server needs pygls: pip install "portlint[server]"') from None
    from portlint.server import serve

    return serve(docs_url)


def main(argv: list[str] | None = None, known: Known | None = None) -> int:
    """Entry point: every user error is one line on stderr and exit 2, never a traceback.
    `known`: what the caller knows of a check already (portlint.entry.command), for `check`."""
    from portlint.config.locate import ConfigError
    from portlint.stages.discover import TooManyFiles

    try:
        code = cli.main(args=argv, prog_name="portlint", standalone_mode=False, obj=known)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.exceptions.Abort:  # click has closed the terminal's ^C with a blank line
        click.echo(_ABORTED, err=True)
        return EXIT_INTERRUPTED
    except click.ClickException as error:
        from portlint.report import printable  # a path it names may be a repository's

        click.echo(f"portlint: error: {printable(_one_line(error))}", err=True)
        return EXIT_ERROR
    except (ConfigError, TooManyFiles) as error:
        from portlint.report import printable  # a config's keys may carry anything

        click.echo(f"portlint: error: {printable(str(error))}", err=True)
        return EXIT_ERROR
    except Exception as error:  # the one place a bug may land: one line, exit 2, no traceback
        if os.environ.get("PORTLINT_TRACEBACK"):
            raise
        from portlint.report import printable

        click.echo(f"portlint: internal error: {type(error).__name__}: {printable(str(error))}", err=True)
        return EXIT_ERROR
    return code if isinstance(code, int) else EXIT_CLEAN


_ABORTED = "portlint: aborted"


def _one_line(error: click.ClickException) -> str:
    """click's message without its usage block, on one line, with a suggestion for a mistyped option."""
    if isinstance(error, click.exceptions.NoSuchOption):
        from portlint.config.suggest import suggestion

        hint = suggestion(error.possibilities[0] if error.possibilities else None, quoted=True)
        return f"unknown option {error.option_name}{hint}"
    return " ".join(error.format_message().split())


if __name__ == "__main__":
    sys.exit(main())
