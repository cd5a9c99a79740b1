"""Shell / sbatch extractor: a hand-written scanner for bash-compatible scripts.

The scanner reads a script once, delimiting words the way bash does for what a
port site needs (quotes, `${...}`, `$(...)`, `$((...))`, backticks, comments,
heredocs, line continuations), groups them into simple commands, and reads
sites off each command: assignments (`VAR=N`, also after `export`/`local`/
`declare`...), `${VAR:-N}` defaults, long options (`--name=N`, `--name N`) and
arithmetic (`$((${VAR} + 1))`, a *derived* site evaluated at the end).
After a word that runs Python (`python`, `python3 -m`, `torchrun`, `deepspeed`,
`uv run`, `accelerate launch`), a Hydra/OmegaConf override `key.path=N` (also
`+key.path=N`, `++key.path=N`) is a site of kind `yaml` named by its dotted
path: it sets that key of the YAML config the program loads.

It works on the bytes decoded as Latin-1, so a character index is a byte
offset; no byte of a UTF-8 multi-byte character is ASCII, so no delimiter is
ever found inside one. Scripts inside `$(...)`, backticks, the string of
`bash -c "..."` (also after `srun ...`) and the one quoted command string of
`ssh [options] host "..."` are scanned as commands too, in place, so their
positions are the file's; heredoc bodies never are.

Every simple command is also kept as a `Command` (words with quotes removed,
expansions as written) for the code-pattern rules (PL603), and with the loops
around it and whether it runs in the background for PL604 (analysis/scripts.py). A heredoc body is
often a script written for later (ray.sub writes its worker script so): its
commands are read too, best effort, though never its sites.

The scanner is one object built in layers, one module each: lexer.py delimits
words, comments and heredocs; commands.py groups words into simple commands;
sites.py reads the sites of each command; arithmetic.py evaluates `$((...))`.
"""
from __future__ import annotations

from typing import Any

from portlint.analysis import scripts
from portlint.model.extraction import Extraction, Facts
from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.stages.extract.shell.lexer import ScanError
from portlint.stages.extract.shell.sites import SiteReader
from portlint.tables import servers

__all__ = ["extract"]


def extract(source: Source, names: NameFilter) -> Extraction:
    """Sites and suppression comments of one shell script; a scan failure sets `error`."""
    scanner = SiteReader(source, names)
    error, line, column = "", 1, 1
    try:
        scanner.scan()
    except ScanError as failure:
        line, column = source.position(failure.offset)
        error = f"unterminated {failure.what} started at line {line}"
    except RecursionError:
        error = "expansions nested too deep to scan"
    commands = tuple(command for _, command in sorted(scanner.commands, key=lambda found: found[0]))
    facts: Facts[Any] | None = None
    may_start, may_run = (not error and servers.may_start(source.data)), (not error and scripts.runs_a_script(source.data))
    if may_start or may_run:
        placed = scripts.executed([
            (p.command, tuple((loop.kind, loop.line, loop.variable) for loop in p.loops), p.background, p.function)
            for p in sorted(scanner.placed, key=lambda found: found.offset)
        ])
        started = scripts.starts(placed) if may_start else ()
        launcher = (scripts.launcher(placed) or scripts.left_by_loop(started)) if may_start else None
        runs = scripts.runs(placed) if may_run else ()
        if started or launcher or runs:
            facts = Facts(starts=started, launchers=(launcher,) if launcher else (), runs=runs)
    return Extraction(scanner.sites(), tuple(scanner.suppressions), error, line, column, commands, sockets=facts)
