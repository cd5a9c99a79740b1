"""Site reading: the port sites of each simple command, and of the script's comments.

Sites are assignments (`VAR=N`, also after `export`/`local`/`declare`...),
`${VAR:-N}` defaults, long options (`--name=N`, `--name N`) and arithmetic
(`$((${VAR} + 1))`, a *derived* site evaluated at the end by arithmetic.py with
the values the script assigned before it). After a word that runs Python
(`python`, `python3 -m`, `torchrun`, `deepspeed`, `uv run`, `accelerate launch`),
a Hydra/OmegaConf override `key.path=N` (also `+key.path=N`, `++key.path=N`) is a
site of kind `yaml` named by its dotted path: it sets that key of the YAML config
the program loads. The string of `bash -c "..."` (also after `srun ...`) and the
one quoted command string of `ssh [options] host "..."` are read as commands in
place, so their positions are the file's.

A comment gives suppressions and layout statements (PL501), unless it is inside
such an inline script.
"""
from __future__ import annotations

import re
from functools import partial

from portlint.analysis.scripts import WRAPPERS
from portlint.model.extraction import Suppression
from portlint.model.naming import NameFilter, role_of
from portlint.model.sites import Site
from portlint.model.source import Source
from portlint.stages.extract import prose, suppression_in
from portlint.stages.extract.shell.arithmetic import evaluate
from portlint.stages.extract.shell.commands import RESERVED, CommandReader, in_container
from portlint.stages.extract.shell.lexer import ARITH, DQ, LIT, LITERALS, NAME_START, PARAM, Part, Word, rest

_DECLARATIONS = frozenset("export local readonly declare typeset".split())
_SHELLS = frozenset("bash sh dash ksh zsh".split())
_OPTION = re.compile(r"(--[A-Za-z0-9][A-Za-z0-9_.-]*)(=|$)")
_OVERRIDE = re.compile(r"\+{0,2}([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+)=")
# Words that run a Python program taking Hydra/OmegaConf overrides; a second word when the first is a launcher.
_PYTHON_RUNNERS = re.compile(r"python[0-9.]*|torchrun|deepspeed")
_PYTHON_LAUNCHERS = {"uv": "run", "accelerate": "launch"}
_PRINTERS = frozenset(("echo", "printf", ":"))
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9_-]*")  # `serve` of `vllm serve`: not an option, a path or a value
_SHELL_C = re.compile(r"-[A-Za-z]*c")
_SSH_OPTIONS_WITH_ARGUMENT = frozenset("BbcDEeFIiJLlmOopQRSWw")


class SiteReader(CommandReader):
    """The whole scanner: lexer, command reader, and the sites it finds."""

    def __init__(self, source: Source, names: NameFilter) -> None:
        super().__init__(source)
        self.names = names
        self.literals: dict[tuple[int, int], Site] = {}
        self.values: dict[str, list[tuple[int, int]]] = {}  # variable -> (offset, value) of every literal
        self.arithmetic: dict[tuple[int, int], str] = {}  # span of `$((...))` -> what it is the value of
        self.suppressions: list[Suppression] = []
        self.doc_sites: list[Site] = []  # layout statements in comments (PL501)
        self.wanted: dict[str, bool] = {}
        # The command being read, for its program (`_program`), worked out when an option needs it.
        self.reading: tuple[list[Word], int] = ([], 0)

    def sites(self) -> tuple[Site, ...]:
        found = [*self.literals.values(), *self._derived_sites(), *self.doc_sites]
        return tuple(sorted(found, key=lambda site: (site.start, site.end)))

    def _read_comment(self, start: int, stop: int) -> None:
        text = self.source.data[start:stop].decode("utf-8", "replace")
        line, column = self.source.position(start)
        found = suppression_in(text, line, column, start, stop)
        if found is not None:
            self.suppressions.append(found)
        self.doc_sites += prose.statements(self.source, start, stop, "comment", self.names)

    # --- sites of one command --------------------------------------------------

    def _analyze(self, words: list[Word]) -> None:
        k = 0
        while k < len(words) and self._text(words[k]) in RESERVED:
            k += 1
        k = self._assignments(words, k, skip_options=False)
        command = self._text(words[k]) if k < len(words) else ""
        if command in _DECLARATIONS:
            k = self._declared(words, k + 1)
        elif command == "env":
            k = self._assignments(words, k + 1, skip_options=True)
        self.reading = (words, k)
        self._arguments(words, k)

    def _program(self, words: list[Word], k: int) -> str:
        """What a command's options belong to (their sites' scope): the program and its subcommand
        (`vllm serve`, `ray start`), the module of `python -m`, the script Python runs."""
        texts = [self._unquoted(word.parts) for word in words[k:k + 4]]
        while texts and texts[0] in WRAPPERS:
            texts = texts[1:]
        if not texts:
            return ""
        first = texts[0].rsplit("/", 1)[-1]
        second = texts[1] if len(texts) > 1 else ""
        if _PYTHON_RUNNERS.fullmatch(first) and second == "-m" and len(texts) > 2:
            return f"python -m {texts[2]}"
        if _PYTHON_RUNNERS.fullmatch(first) and second.endswith(".py"):
            return second.rsplit("/", 1)[-1]
        return f"{first} {second}" if _SUBCOMMAND.fullmatch(second) else first

    def _assignments(self, words: list[Word], k: int, skip_options: bool) -> int:
        """Read assignment words from `k` (past `-x` options when asked); return where they stop."""
        while k < len(words):
            assignment = self._assignment(words[k])
            if assignment is not None:
                self._value(*assignment)
            elif not (skip_options and self._text(words[k]).startswith(("-", "+"))):
                return k
            k += 1
        return k

    def _declared(self, words: list[Word], k: int) -> int:
        """The words after `export`, `local`, `declare -x`...: every assignment among them counts."""
        for word in words[k:]:
            assignment = self._assignment(word)
            if assignment is not None:
                self._value(*assignment)
            else:
                self._loose(word.parts)
        return len(words)

    def _arguments(self, words: list[Word], k: int) -> None:
        script = self._inline_script(words, k)
        python = self._python_runner(words, k)
        while k < len(words):
            word = words[k]
            option = self._option(word) if k != script else None
            override = self._override(word) if python < k and option is None else None
            if k == script:
                contained, reading = in_container(tuple(self._unquoted(w.parts) for w in words[:k])), self.reading
                self.containers += contained
                self._inline(word)
                self.containers -= contained
                self.reading = reading
            elif override is not None:
                self._value(*override, kind="yaml")
            elif option is None:
                self._loose(word.parts)
            elif option[1] is not None:
                self._value(option[0], option[1])
            elif k + 1 < len(words) and self._is_value(words[k + 1]):
                k += 1
                self._value(option[0], words[k].parts)
            k += 1

    def _inline_script(self, words: list[Word], k: int) -> int:
        """Index of the script word of `bash -c "..."` (also `sh -lc` ...) or `ssh host "..."`, else -1."""
        if k < len(words) and self._text(words[k]).rsplit("/", 1)[-1] == "ssh":
            return self._ssh_script(words, k + 1)
        for shell in range(k, len(words) - 2):
            if self._text(words[shell]).rsplit("/", 1)[-1] not in _SHELLS:
                continue
            for flag in range(shell + 1, len(words) - 1):
                text = self._text(words[flag])
                if _SHELL_C.fullmatch(text):
                    return flag + 1
                if not text.startswith("-"):
                    break
            return -1
        return -1

    def _ssh_script(self, words: list[Word], k: int) -> int:
        """Index of the command of `ssh [options] host "command"` when it is one word, else -1.

        ssh joins the words after the host into the remote command; one quoted word is a script.
        """
        while k < len(words):
            text = self._text(words[k])
            if text == "--":
                k += 1
                break
            if not text.startswith("-") or len(text) == 1:
                break
            k += 2 if len(text) == 2 and text[1] in _SSH_OPTIONS_WITH_ARGUMENT else 1
        return k + 1 if k + 2 == len(words) else -1

    def _python_runner(self, words: list[Word], k: int) -> int:
        """Index of the word that runs Python (`python`, `uv run`...), or len(words) when none does."""
        if k < len(words) and self._text(words[k]) in _PRINTERS:
            return len(words)  # `echo python x.port=1` prints the words, runs nothing
        for i in range(k, len(words)):
            text = self._text(words[i]).rsplit("/", 1)[-1]
            if _PYTHON_RUNNERS.fullmatch(text):
                return i
            launched = _PYTHON_LAUNCHERS.get(text)
            if launched and i + 1 < len(words) and self._text(words[i + 1]) == launched:
                return i + 1
        return len(words)

    def _override(self, word: Word) -> tuple[str, tuple[Part, ...]] | None:
        """`key.path=value` (also `+`/`++` in front, quoted or not) -> (key.path, value parts)."""
        if not word.parts or word.parts[0].kind not in LITERALS:
            return None
        first = word.parts[0]
        match = _OVERRIDE.match(self.s, first.start, first.end)
        return None if match is None else (match.group(1), rest(word.parts, match.end()))

    def _inline(self, word: Word) -> None:
        text = self._text(word)
        if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0]:
            self._nested(word.start + 1, word.end - 1, inline=True)
        else:
            self._loose(word.parts)

    def _option(self, word: Word) -> tuple[str, tuple[Part, ...] | None] | None:
        """`--name=value` -> (name, value parts); a lone `--name` -> (name, None)."""
        if not word.parts or word.parts[0].kind not in (LIT, DQ):
            return None
        first = word.parts[0]
        match = _OPTION.match(self.s, first.start, first.end)
        if match is None:
            return None
        if match.group(2):
            return match.group(1), rest(word.parts, match.end())
        return (match.group(1), None) if len(word.parts) == 1 else None

    def _is_value(self, word: Word) -> bool:
        """Whether a word after `--name` is its value: digits, `${VAR:-N}` or `$((...))`."""
        if len(word.parts) != 1:
            return False
        part = word.parts[0]
        if part.kind in LITERALS:
            return self._digits(part)
        return part.kind == ARITH or self._default_chain(part) is not None

    def _value(self, owner: str, parts: tuple[Part, ...], kind: str = "shell") -> None:
        """The sites of a value assigned to a variable, given to a `--option` or to a key (`kind` yaml)."""
        if len(parts) != 1:
            self._loose(parts)
            return
        part = parts[0]
        chain = self._default_chain(part)
        if part.kind in LITERALS:
            if self._digits(part):
                self._literal(owner, part, (), kind)
        elif part.kind == ARITH:
            self._arithmetic(part, owner)
        elif chain is not None and owner.startswith("--"):
            names = (*chain[1], owner)
            self._literal(names[0], chain[0], names[1:])
        elif chain is not None:
            aliases = tuple(dict.fromkeys(name for name in chain[1] if name != owner))
            self._literal(owner, chain[0], aliases, kind)
        else:
            self._loose(parts)

    def _loose(self, parts: tuple[Part, ...]) -> None:
        """Sites anywhere in a word: `${VAR:-N}` defaults and arithmetic."""
        for part in parts:
            if part.kind == ARITH:
                self._arithmetic(part, "")
            elif part.kind == PARAM:
                chain = self._default_chain(part)
                if chain is not None and chain[1]:
                    self._literal(chain[1][0], chain[0], chain[1][1:])
                else:
                    self._loose(part.inner)

    def _default_chain(self, part: Part) -> tuple[Part, tuple[str, ...]] | None:
        """For `${A:-N}` the digits of N and ("A",); for `${A:-${B:-N}}` ("A", "B").

        A positional parameter (`${1:-N}`) has a default but no name to give.
        """
        if part.kind != PARAM or not part.name or len(part.inner) != 1:
            return None
        inner = part.inner[0]
        own = (part.name,) if part.name[0] in NAME_START else ()
        if inner.kind in LITERALS:
            return (inner, own) if self._digits(inner) else None
        chain = self._default_chain(inner)
        return None if chain is None else (chain[0], (*own, *chain[1]))

    # --- sites ------------------------------------------------------------------

    def _literal(self, name: str, digits: Part, aliases: tuple[str, ...], kind: str = "shell") -> None:
        if self.commands_only:
            return
        value = int(self.s[digits.start:digits.end])
        for variable in (name, *aliases):
            if not variable.startswith("-") and "." not in variable:
                self.values.setdefault(variable, []).append((digits.start, value))
        if not any(self._wants(n) for n in (name, *aliases)):
            return
        key = (digits.start, digits.end)
        known = self.literals.get(key)
        if known is None or len(aliases) > len(known.aliases):
            self.literals[key] = self._site(name, digits.start, digits.end, value, aliases=aliases, kind=kind)

    def _arithmetic(self, part: Part, owner: str) -> None:
        if self.commands_only:
            return
        key = (part.start, part.end)
        if owner or key not in self.arithmetic:
            self.arithmetic[key] = owner

    def _derived_sites(self) -> list[Site]:
        kept = {name for site in self.literals.values() for name in site.names}
        sites = []
        for (start, end), owner in self.arithmetic.items():
            result = evaluate(self.s[start + 3:end - 2], partial(self._value_before, offset=start))
            if result is None:
                continue
            value, text, variables = result
            name = owner or text
            if self._wants(name) or not kept.isdisjoint(variables):
                sites.append(self._site(name, start, end, value, derived=text))
        return sites

    def _value_before(self, name: str, offset: int) -> int | None:
        """The variable's last literal value before `offset`, else its first one in the file."""
        entries = self.values.get(name)
        if not entries:
            return None
        earlier = [entry for entry in entries if entry[0] < offset]
        return max(earlier)[1] if earlier else min(entries)[1]

    def _site(
        self, name: str, start: int, end: int, value: int, *,
        aliases: tuple[str, ...] = (), derived: str = "", kind: str = "shell",
    ) -> Site:
        line, column = self.source.position(start)
        end_line, end_column = self.source.position(end)
        # A key's parent, as in a YAML file; an option's program (`vllm serve`: its `--port` is not lmcache's).
        scope = name.rsplit(".", 1)[0] if kind == "yaml" else self._program(*self.reading) if name.startswith("--") else ""
        return Site(
            self.source.path, line, column, start, end, kind, name, value, role_of(name),
            aliases=aliases, scope=scope, derived=derived, end_line=end_line, end_column=end_column,
        )

    def _wants(self, name: str) -> bool:
        wanted = self.wanted.get(name)
        if wanted is None:
            wanted = self.wanted[name] = self.names.wants(name)
        return wanted
