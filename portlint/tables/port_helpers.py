"""The table of libraries' free-port helpers (`port_helpers.yaml`): what a call of each gives its caller.

The table is package data: `port_helpers.json`, generated from `port_helpers.yaml`
(its source, with the comments) and validated against `port_helpers.schema.json`
by the test suite (tests/tables/test_port_helpers.py, which also regenerates the
JSON with PORTLINT_UPDATE_FIXTURES=1). The socket analysis resolves a call to an
entry through the module's imports and judges it as a call of the repository's
own helper of that behaviour (PL601, PL602).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from portlint.model.records import Struct
from portlint.speed.needles import holds_any, of_last, re2_options
from portlint.tables import packaged, source

# The words every helper's name holds one of (a file holding none calls none of them), found in the
# one pass of portlint.speed.needles; tests/tables/test_port_helpers.py keeps them in step with the table.
NEEDLES = (b"free_port", b"open_port", b"unused_port", b"UnusedPort", b"free_network_port", b"port_available",
           b"port_free", b"with_port", b"available_port", b"random_ports", b"and_port", b"init_method", b"tcp_uri")


class Helper(Struct, frozen=True):
    package: str
    name: str
    returns: str  # released | socket | probe | carries
    source: str
    owner: str = ""  # the class of a method
    port: str = ""  # zero | scanned (released, socket)
    item: int = -1  # released: the number's place in a returned tuple
    argument: int = -1  # probe, carries: the port's place among the arguments
    free_when: bool = True  # probe: its answer for a free port
    modules: tuple[str, ...] = ()  # the modules it is imported from (and those under them): the package's

    def imported_from(self, module: str) -> bool:
        """Whether a module of that dotted name (or under it) may hold the helper."""
        return any(module == prefix or module.startswith(prefix + ".") for prefix in self.modules or (self.package,))


@lru_cache(maxsize=1)
def load() -> tuple[Helper, ...]:
    return tuple(_helper(entry) for entry in table()["helpers"])


def _helper(entry: dict[str, Any]) -> Helper:
    return Helper(entry["package"], entry["name"], entry["returns"], entry["source"], entry.get("class", ""),
                  entry.get("port", ""), entry.get("item", -1), entry.get("argument", -1), entry.get("free_when", True),
                  tuple(entry.get("modules", ())))


@lru_cache(maxsize=1)
def by_name() -> dict[str, tuple[Helper, ...]]:
    """The helpers by their name (the word a call spells)."""
    found: dict[str, list[Helper]] = {}
    for helper in load():
        found.setdefault(helper.name, []).append(helper)
    return {name: tuple(helpers) for name, helpers in found.items()}


@lru_cache(maxsize=1)
def _names() -> Any:
    """The helpers' names as whole words (RE2: one linear pass for all of them)."""
    import re2

    return re2.compile(rb"\b(?:" + b"|".join(sorted(re.escape(name.encode()) for name in by_name())) + rb")\b",
                       re2_options())


@of_last
def mentioned(data: bytes) -> bool:
    """Whether the bytes may call a helper of the table (the test before any parse)."""
    return holds_any(data, NEEDLES) and _names().search(data) is not None


def imported(imports: dict[str, tuple[str, str]]) -> dict[str, Helper]:
    """The helpers a module can call, by the name it calls them, from its imports (local name ->
    (dotted module, name in it); `m.` for `import M as m`): `f` for `from pkg.mod import f` (or
    `as g`), `m.f` for `import pkg.mod as m` or `from pkg import mod as m`, and `.f` for a method of
    a class it imports from the package."""
    found: dict[str, Helper] = {}
    helpers = load()
    for local, (module, name) in imports.items():
        if module.split(".", 1)[0] not in _packages():
            continue
        for helper in helpers:
            if local.endswith("."):  # import pkg.mod (as m): m.f
                if not helper.owner and helper.imported_from(module):
                    found[local + helper.name] = helper
            elif helper.imported_from(module) and name == (helper.owner or helper.name):
                found["." + helper.name if helper.owner else local] = helper
            elif not helper.owner and helper.imported_from(f"{module}.{name}"):  # from pkg import mod: mod.f
                found[f"{local}.{helper.name}"] = helper
    return found


@lru_cache(maxsize=1)
def _packages() -> frozenset[str]:
    return frozenset(helper.package for helper in load())


def table() -> dict[str, Any]:
    """The packaged table as data (port_helpers.json, generated from port_helpers.yaml)."""
    return packaged("port_helpers")


def from_yaml() -> dict[str, Any]:
    """`port_helpers.yaml` parsed: what `port_helpers.json` must hold."""
    return source("port_helpers")
