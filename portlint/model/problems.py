"""Problems and the rules they are of (the byte edits that fix them: edits.py).

A Problem is what every rule family reports (the check rules PL…, the host rules
H…) and what every reporter renders: it carries its rule's code and name and what
it is about (the band, the sites), so a reporter needs no registry.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from portlint.model.edits import Edit, Fix
from portlint.model.layout import Band
from portlint.model.records import Struct
from portlint.model.sites import Site


class Rule(Struct, frozen=True):
    """A rule as reports describe it: its code, its name and its documentation
    (the rule module's docstring, as `portlint rule CODE` prints it)."""

    code: str
    name: str
    doc: str = ""

    @property
    def summary(self) -> str:
        """The first line of the documentation."""
        return self.doc.strip().partition("\n")[0].strip()


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int  # 1-based
    column: int  # 1-based
    code: str
    message: str = field(compare=False)
    fix: Fix | None = field(default=None, compare=False)
    end_line: int = field(default=0, compare=False)
    end_column: int = field(default=0, compare=False)
    name: str = field(default="", compare=False)  # the rule's name (`layout-drift`): see `of`
    band: str = field(default="", compare=False)  # the band it is about, "" for none
    sites: tuple[Site, ...] = field(default=(), compare=False)  # the sites it is about

    @classmethod
    def at(
        cls, site: Site, code: str, message: str, fix: Fix | None = None, sites: tuple[Site, ...] = (),
    ) -> Problem:
        """A problem at a site, about it (or about `sites`, when it names more than the one it sits at)."""
        return cls(
            site.path, site.line, site.column, code, message, fix,
            site.end_line or site.line, site.end_column or site.column, sites=sites or (site,),
        )

    @classmethod
    def replacing(
        cls, site: Site, code: str, message: str, value: int, safe: bool = True, sites: tuple[Site, ...] = (),
    ) -> Problem:
        """A problem whose fix rewrites the site's digits to `value` (about `sites`, when it names more)."""
        fix = Fix((Edit(site.start, site.end, str(value).encode()),), safe)
        return cls.at(site, code, message, fix if site.fixable else None, sites)


    def applicable(self, unsafe_fixes: bool) -> bool:
        """It has a fix that --fix (with --unsafe-fixes when given) applies: the engine
        applies it, the reports mark it `[*]` and count it."""
        return self.fix is not None and self.fix.applies(unsafe_fixes)

    def of(self, rule: Rule) -> Problem:
        """This problem named after the rule that reported it (the engine and the host
        check call it for each rule they run: a rule reports only its own code)."""
        if rule.code != self.code:
            raise ValueError(f"rule {rule.code} reported a problem of {self.code}")
        return self if self.name == rule.name else replace(self, name=rule.name)


def at_band(config_path: str, band: Band, code: str, message: str) -> Problem:
    """A problem with the declared layout itself, at the band's key in the config file."""
    return Problem(config_path, band.line, band.column, code, message, None, band.line, band.column, band=band.name)
