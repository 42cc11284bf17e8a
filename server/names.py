"""Display names: what a name may contain, its normal form, and when two names are the same.

A name is what other people see in standings and lobbies, so it must be readable and must not
impersonate anyone. `normal_name` turns what a client sent into the name the server keeps, or
refuses it; `name_key` is the form two names are compared in (a race or a tournament holds no two
names with the same key).

Unicode data comes from ICU through PyICU (ICU 72 carries Unicode 15.0): the Default_Ignorable_Code_Point
property, and the confusable skeleton of Unicode Technical Standard #39 (`icu.SpoofChecker`), whose
mapping is Unicode's confusables.txt.

>>> normal_name("  Ann  ")
'Ann'
>>> name_key("ANN") == name_key("ａｎｎ") == name_key("\\u0430nn")  # the last with a Cyrillic a
True
>>> try:
...     normal_name("ann\\u3164")
... except BadName as exc:
...     print(exc.reason)
a name may not hold invisible characters (U+3164 HANGUL FILLER)
"""

from __future__ import annotations

import functools
import unicodedata

import icu

__all__ = ["MAX_ALL_MARKS", "MAX_MARKS", "MAX_NAME_CHARS", "BadName", "name_key", "normal_name"]

#: Longest name, in characters (code points) after normalisation.
MAX_NAME_CHARS = 32

#: Most accents (combining marks of the general, positional classes, as U+0300..U+036F are) on one
#: base character: "Nguyễn" has two on its ễ; "Zalgo" text stacks dozens.
MAX_MARKS = 2

#: Most nonspacing or enclosing marks of any kind on one base character (UTS #39's suggested
#: limit): script-specific signs (a pointed Hebrew שָּׁ, Tibetan stacks, Myanmar မြို့) may hold 3 or 4.
MAX_ALL_MARKS = 4

# Categories refused anywhere in a name: controls (Cc), format characters such as bidirectional
# overrides (Cf), surrogates (Cs), private use (Co), unassigned (Cn), and line or paragraph
# separators (Zl, Zp).
_REFUSED = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}

# Characters that are neither ignorable nor whitespace and still draw nothing visible.
_BLANK = {
    0x2800,  # BRAILLE PATTERN BLANK
    0x1D159,  # MUSICAL SYMBOL NULL NOTEHEAD
    0x16FE4,  # KHITAN SMALL SCRIPT FILLER
}


def _is_accent(char: str) -> bool:
    """Whether a nonspacing or enclosing mark is a general accent that stacks anywhere: an
    enclosing mark, an overlay (canonical combining class 1) or one of the positional classes
    (200 and up: above, below, attached...). The fixed-position classes 7..199 and class 0 are
    the vowel signs, nuktas, viramas and points of particular scripts, which have their place."""
    ccc = unicodedata.combining(char)
    return unicodedata.category(char) == "Me" or ccc == 1 or ccc >= 200


#: The emoji and text presentation selectors (U+FE0F, U+FE0E) that phones put after "❤" and the
#: like: they choose how a character is drawn, never which, so a name drops them rather than
#: being refused for holding an invisible character.
_PRESENTATION = {0xFE0E: None, 0xFE0F: None}

_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
_SPOOF = icu.SpoofChecker()


class BadName(ValueError):
    """A name the server refuses; ``reason`` says why in a sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _which(char: str) -> str:
    """``char`` as people can look it up: "U+3164 HANGUL FILLER"."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}" if name else f"U+{ord(char):04X}"


def normal_name(text: str, *, max_chars: int = MAX_NAME_CHARS) -> str:
    """The name kept for ``text``: Unicode NFC, without leading or trailing whitespace or the
    emoji and text presentation selectors (U+FE0E, U+FE0F).

    Raises `BadName`, its reason naming the offending code point (U+XXXX), if the result is empty,
    longer than ``max_chars`` characters, or holds: a control, format (zero-width, bidirectional
    override), private-use, unassigned or separator character; a Default_Ignorable_Code_Point
    (combining grapheme joiner, Hangul fillers, variation selectors, Mongolian free variation
    selectors, U+2060..U+206F, tags...); a character that renders blank (U+2800 BRAILLE PATTERN
    BLANK and the like); whitespace other than a plain space (U+0020); a combining mark with no
    character before it; on one base character (counted in NFD, where "é" is e and an accent),
    more than `MAX_MARKS` accents (`_is_accent`), more than `MAX_ALL_MARKS` nonspacing or
    enclosing marks of any kind, or the same mark twice.
    """
    name = unicodedata.normalize("NFC", text.translate(_PRESENTATION)).strip()
    if not name:
        raise BadName("a name needs at least one visible character")
    if len(name) > max_chars:
        raise BadName(f"a name has at most {max_chars} characters, not {len(name)}")
    marks: list[str] = []  # the nonspacing and enclosing marks on the current base character
    for index, char in enumerate(unicodedata.normalize("NFD", name)):  # NFD: every mark apart
        category = unicodedata.category(char)
        if icu.Char.hasBinaryProperty(char, _IGNORABLE):
            raise BadName(f"a name may not hold invisible characters ({_which(char)})")
        if category in _REFUSED:
            raise BadName(f"a name may not hold control or invisible formatting characters ({_which(char)})")
        if ord(char) in _BLANK:
            raise BadName(f"a name may not hold characters that render blank ({_which(char)})")
        if category == "Zs" and char != " ":
            raise BadName(f"a name may hold no whitespace but a plain space ({_which(char)})")
        if category[0] != "M":
            marks.clear()
            continue
        if index == 0:
            raise BadName(f"a name may not begin with a combining mark ({_which(char)})")
        if category == "Mc":
            continue  # a spacing mark takes room of its own: it does not stack
        if char in marks:
            raise BadName(f"a name may not stack the same combining mark twice on one character ({_which(char)})")
        marks.append(char)
        if sum(map(_is_accent, marks)) > MAX_MARKS:
            raise BadName(
                f"a name may have at most {MAX_MARKS} accents (combining marks) on one character, "
                f"not {MAX_MARKS + 1} or more ({_which(char)})"
            )
        if len(marks) > MAX_ALL_MARKS:
            raise BadName(
                f"a name may have at most {MAX_ALL_MARKS} combining marks on one character, "
                f"not {len(marks)} ({_which(char)})"
            )
    return name


@functools.lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """The form in which names are compared: compatibility-normalised (NFKC), case-folded, then
    the confusable skeleton of UTS #39 (NFD, each character mapped by confusables.txt, NFD again),
    case-folded again, with runs of whitespace made one space. So "alice", "ALICE", a full-width
    "ａｌｉｃｅ" and "аlice" with a Cyrillic а clash, and so do "al1ce" and "allce" (confusables.txt
    maps the digit 1 to l). Cached (the last 4096 names): a join or a registration costs a lookup.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    skeleton = _SPOOF.getSkeleton(0, folded).casefold()
    return " ".join(skeleton.split())
