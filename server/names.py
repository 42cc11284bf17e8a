"""Display names: what a name may contain, its normal form, and when two names are the same.

A name is what other people see in standings and lobbies, so it must be readable and must not
impersonate anyone. `normal_name` turns what a client sent into the name the server keeps, or
refuses it; `name_key` is the form two names are compared in (a race or a tournament holds no two
names with the same key).

>>> normal_name("  Ann  ")
'Ann'
>>> name_key("ANN") == name_key("ａｎｎ")
True
>>> try:
...     normal_name("ann\\u202e")
... except BadName as exc:
...     print(exc.reason)
a name may not hold control or invisible formatting characters (U+202E)
"""

from __future__ import annotations

import unicodedata

__all__ = ["BadName", "MAX_NAME_CHARS", "name_key", "normal_name"]

#: Longest name, in characters (code points) after normalisation.
MAX_NAME_CHARS = 32

# Categories refused anywhere in a name: controls (Cc), format characters such as zero-width
# spaces and bidirectional overrides (Cf), surrogates (Cs), private use (Co), unassigned (Cn),
# and line or paragraph separators (Zl, Zp).
_REFUSED = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


class BadName(ValueError):
    """A name the server refuses; ``reason`` says why in a sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normal_name(text: str, *, max_chars: int = MAX_NAME_CHARS) -> str:
    """The name kept for ``text``: Unicode NFC, without leading or trailing whitespace.

    Raises `BadName` if the result is empty, longer than ``max_chars`` characters, or holds a
    control, format (zero-width, bidirectional override), private-use, unassigned or separator
    character.
    """
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        raise BadName("a name needs at least one visible character")
    if len(name) > max_chars:
        raise BadName(f"a name has at most {max_chars} characters, not {len(name)}")
    for char in name:
        if unicodedata.category(char) in _REFUSED:
            raise BadName(f"a name may not hold control or invisible formatting characters (U+{ord(char):04X})")
    return name


def name_key(name: str) -> str:
    """The form in which names are compared: compatibility-normalised (NFKC), case-folded, with
    runs of whitespace made one space, so that "Ann", "ANN" and a full-width "Ａｎｎ" clash."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(folded.split())
