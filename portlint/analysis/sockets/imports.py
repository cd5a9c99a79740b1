"""Calls across the repository's own modules (PL601/PL602): summaries as plain data, imports resolved to files.

The extraction of a socket file exports the summaries of its top-level
functions (`Export`: what a caller needs to follow a call — parameters bound,
released or kept, the sockets and numbers returned, probes — with no tree node
in it, so it is cached with the file). At the layout, a file that imports one
of them (`from .net import is_port_free`, `from pkg.net import f as g`,
`import pkg.net as net`, relative imports included, one re-export through a
package's `__init__.py`; the static methods of an imported class, also when
called on an instance) is analysed again with the imported summaries beside
its own functions, and its findings replace the ones it had alone.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Hashable

from portlint.analysis.sockets.flow import Summary
from portlint.analysis.sockets.values import SCANNED_PORT, ZERO_PORT, Addr, Kind, Marker, Num, Param, Sock, Tup, Value
from portlint.analysis.tree import imports_of, module_names
from portlint.model.records import Struct
from portlint.tables import port_helpers

MAX_ROUNDS = 3  # helpers calling imported helpers calling imported helpers


class Export(Struct, frozen=True):
    """One top-level function's summary as plain data (see flow.Summary): ints, strings, tuples, frozensets."""

    name: str
    params: tuple[str, ...]
    defaults: tuple[tuple[int, frozenset[Value]], ...]
    returns: frozenset[Value]
    returned_socks: tuple[tuple[Hashable, tuple[Kind, ...], bool], ...]  # (sid, kinds it was bound to, alive)
    param_binds: tuple[tuple[int, tuple[Kind, ...]], ...]
    param_releases: tuple[int, ...]
    param_holds: tuple[int, ...]
    probes: tuple[int, ...]
    probe_polarity: tuple[tuple[int, bool], ...]
    released: str = ""  # a library helper's: the kind of port whose number it returns after releasing it
    released_item: int = -1  # ... as this item of a returned tuple (-1: the number itself)
    library: str = ""  # the library of a helper of the table (portlint.tables.port_helpers)

    def summary(self) -> Summary:
        return Summary(
            params=self.params, defaults=dict(self.defaults), returns=self.returns,
            returned_socks={sid: (frozenset((None, kind) for kind in kinds), alive)
                            for sid, kinds, alive in self.returned_socks},
            param_binds={i: set(kinds) for i, kinds in self.param_binds},
            param_releases=set(self.param_releases), param_holds=set(self.param_holds),
            probes=set(self.probes), probe_polarity=dict(self.probe_polarity),
            released=self.released, released_item=self.released_item, library=self.library,
        )


class External:
    """A function of another module, as `ModuleIndex.resolve` hands it to a call."""

    def __init__(self, export: Export) -> None:
        self.name = export.name
        self.export = export
        self._summary: Summary | None = None

    def summary(self) -> Summary:
        if self._summary is None:
            self._summary = self.export.summary()
        return self._summary


def export(name: str, summary: Summary) -> Export | None:
    """The plain form of a summary worth exporting (it binds, releases or probes a parameter, or returns an
    open bound socket)."""
    plain: dict[Hashable, Hashable] = {}

    def sid_of(sid: Hashable) -> Hashable:
        if isinstance(sid, tuple) and sid and sid[0] == "param":
            return sid
        return plain.setdefault(sid, ("x", len(plain)))

    def value(v: object) -> Value | None:
        if isinstance(v, (Sock, Num, Addr)):
            return type(v)(sid_of(v.sid))
        if isinstance(v, Tup):
            return Tup(tuple(frozenset(x for x in map(value, items) if x is not None) for items in v.items))
        return v if isinstance(v, (Param, Marker)) else None

    released, item = _released(summary)
    returns = frozenset(x for x in (value(v) for v in summary.returns) if x is not None)
    # Only what can change a caller: a socket returned open (a dead one's number is dropped at the call),
    # or a parameter the helper binds, releases or probes.
    returned = tuple(sorted(((sid_of(sid), tuple(sorted({k for _, k in binds}, key=repr)), alive)
                             for sid, (binds, alive) in summary.returned_socks.items() if binds and alive), key=repr))
    if not (summary.param_binds or summary.param_releases or summary.probes or returned or released):
        return None
    return Export(
        name, tuple(summary.params), tuple(sorted(summary.defaults.items())), returns, returned,
        tuple(sorted((i, tuple(sorted(kinds, key=repr))) for i, kinds in summary.param_binds.items())),
        tuple(sorted(summary.param_releases)), tuple(sorted(summary.param_holds)), tuple(sorted(summary.probes)),
        tuple(sorted(summary.probe_polarity.items())),
        released=released, released_item=item, library=f"{name}()" if released else "",
    )


def _released(summary: Summary) -> tuple[str, int]:
    """(kind, item) where the function returns the number of a socket it bound to 0 or to a scanned
    port and released (the number itself: item -1; an item of a returned tuple); ("", -1) otherwise.
    A caller in another module is then judged as a caller of a library's helper that does the same:
    the number it hands on is a released one (the helper is reported where it lets the port go).
    Not where another path hands back a socket still open (`get_free_port(with_alive_sock=True)`):
    whether the caller gets a released number depends on how it calls, so the caller decides."""
    if any(alive for _, alive in summary.returned_socks.values()):
        return "", -1
    for violation in summary.violations:
        if violation.escape.how != "return" or violation.kind not in (ZERO_PORT, SCANNED_PORT):
            continue
        number = Num(violation.sid)
        for returned in summary.returns:
            if returned == number:
                return violation.kind, -1
            if isinstance(returned, Tup):
                for index, items in enumerate(returned.items):
                    if number in items:
                        return violation.kind, index
    return "", -1


# -- imports -----------------------------------------------------------------------
class Repository:
    """The exports of every module, by the dotted names its file can be imported as."""

    def __init__(self, exports: dict[str, tuple[Export, ...]]) -> None:
        self.by_path = {path: {e.name: e for e in found} for path, found in exports.items()}
        self.modules: dict[str, list[str]] = {}
        for path in sorted(exports, key=lambda p: (p.count("/"), p)):
            for name in module_names(path):
                self.modules.setdefault(name, []).append(path)
        self.exporting: dict[str, list[tuple[str, str]]] | None = None  # `_reexported`'s index, made on first ask
        self.names = sorted({e.name.rsplit(".", 1)[-1].encode() for found in exports.values() for e in found})
        self.pattern = re.compile(rb"\b(?:" + b"|".join(map(re.escape, self.names)) + rb")\b")

    def mentions(self, data: bytes) -> bool:
        """The bytes name an exported function (the test before a caller is parsed)."""
        return b"import" in data and any(name in data for name in self.names) and self.pattern.search(data) is not None

    def module(self, dotted: str) -> dict[str, Export]:
        paths = self.modules.get(dotted, ())
        return self.by_path[paths[0]] if len(paths) >= 1 else {}

    def externals(self, path: str, tree: ast.Module) -> dict[str, External]:
        """The imported functions a file can call, by the name it calls them (`f`, `net.f`, `pkg.net.f`)."""
        found: dict[str, External] = {}
        for local, (module, name) in imports_of(path, tree).items():
            if local.endswith("."):
                for export_name, exported in self.module(module).items():
                    found[local + export_name] = External(exported)
                continue
            direct = self.module(module).get(name) or self._reexported(module, name)
            if direct is not None:
                found[local] = External(direct)
            for export_name, inner in self.module(module).items():  # `from M import Worker`: its static methods
                if export_name.startswith(name + "."):
                    method = export_name[len(name) + 1:]
                    found[f"{local}.{method}"] = External(inner)
                    if not inner.released:  # a number is judged only through a call that names its class
                        found["." + method] = External(inner)  # called on an instance: `self.worker.method(...)`
            for export_name, inner in self.module(f"{module}.{name}").items():  # `from pkg import net`
                found[f"{local}.{export_name}"] = External(inner)
        return found

    def _reexported(self, package: str, name: str) -> Export | None:
        """`from pkg import f` where pkg/__init__.py re-exports f from one of its modules."""
        if self.exporting is None:  # each export's modules, by its name: a lookup is not a walk of them all
            self.exporting = {}
            for dotted, paths in self.modules.items():
                for export_name in self.by_path[paths[0]]:
                    self.exporting.setdefault(export_name, []).append((dotted, paths[0]))
        candidates = {path for dotted, path in self.exporting.get(name, ()) if dotted.startswith(package + ".")}
        return self.by_path[candidates.pop()][name] if len(candidates) == 1 else None



# -- the helpers of installed libraries ------------------------------------------------
def library_externals(tree: ast.Module) -> dict[str, External]:
    """The table's helpers (portlint.tables.port_helpers) a module can call, by the name it calls them."""
    return {local: External(library_export(helper)) for local, helper in port_helpers.imported(imports_of("", tree)).items()}


def library_export(helper: port_helpers.Helper) -> Export:
    """What a call of a library's helper does, as the summary of a helper of the repository would say it."""
    arity = max(helper.argument + 1, 1)
    params = tuple("port" if i == helper.argument else f"arg{i}" for i in range(arity))
    library = f"{helper.name}() of {helper.package}"
    if helper.returns == "socket":
        sid = ("x", 0)
        return Export(helper.name, params, (), frozenset({Sock(sid)}), ((sid, (helper.port,), True),), (), (), (), (), (),
                      library=library)
    if helper.returns == "probe":
        return Export(helper.name, params, (), frozenset(), (), (), (), (), (helper.argument,),
                      ((helper.argument, helper.free_when),), library=library)
    if helper.returns == "carries":
        return Export(helper.name, params, (), frozenset({Param(helper.argument)}), (), (), (), (), (), (), library=library)
    return Export(helper.name, params, (), frozenset(), (), (), (), (), (), (), released=helper.port,
                  released_item=helper.item, library=library)
