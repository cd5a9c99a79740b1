"""What a mistyped word was probably meant to be: one wording for every "did you mean" portlint prints."""
from __future__ import annotations

from collections.abc import Iterable


def closest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The choice most like `word`, if one is close enough (difflib is imported only for a word
    that needs a suggestion: every run imports this module, few suggest anything)."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str], *, quoted: bool = False, cutoff: float = 0.6) -> str:
    """`; did you mean PL301?` to end a message, `"range"` in quotes where the message quotes
    the word (keys, bands, commands); "" when nothing is close."""
    return suggestion(closest(word, choices, cutoff), quoted=quoted)


def suggestion(match: str | None, *, quoted: bool = False) -> str:
    """The "did you mean" ending for a match found elsewhere (click's own, for options); "" for None."""
    if match is None:
        return ""
    return f'; did you mean "{match}"?' if quoted else f"; did you mean {match}?"
