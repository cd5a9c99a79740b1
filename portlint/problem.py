"""Problems, and the byte edits that fix them."""
from __future__ import annotations

from dataclasses import dataclass, field

from portlint.model import Band, Site


@dataclass(frozen=True, order=True)
class Edit:
    start: int  # byte offset into the original file, inclusive
    end: int  # exclusive
    text: bytes


@dataclass(frozen=True)
class Fix:
    edits: tuple[Edit, ...]
    safe: bool = True  # unsafe fixes apply only with --unsafe-fixes


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

    @classmethod
    def at(cls, site: Site, code: str, message: str, fix: Fix | None = None) -> Problem:
        return cls(
            site.path, site.line, site.column, code, message, fix,
            site.end_line or site.line, site.end_column or site.column,
        )

    @classmethod
    def replacing(cls, site: Site, code: str, message: str, value: int, safe: bool = True) -> Problem:
        """A problem whose fix rewrites the site's digits to `value`."""
        fix = Fix((Edit(site.start, site.end, str(value).encode()),), safe)
        return cls.at(site, code, message, fix if site.fixable else None)


def at_band(config_path: str, band: Band, code: str, message: str) -> Problem:
    """A problem with the declared layout itself, at the band's key in the config file."""
    return Problem(config_path, band.line, band.column, code, message, None, band.line, band.column)
