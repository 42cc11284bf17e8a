"""Where each pile of a game sits on the table: a description that one generic renderer can draw.

A `Layout` places every pile of a game (by its engine pile id) as a `Slot`: the top-left corner
of the pile's first card, the way its cards spread (`Fan`), and its role (`Kind`). It is a
description of the table only; the cards themselves come from a game's view.

Units. A card is 1 wide and 1 tall: ``x`` and ``width`` count card widths from the table's left
edge, ``y`` and ``height`` count card heights from its top edge (a renderer draws a card 1.4
times as tall as it is wide, so the two units differ on screen). Neighbouring piles are 0.1 to
0.4 apart. The table is large enough for everything, fans included: below a `Fan.DOWN` pile
there is room for its cascade to grow (at least 1.2 card heights), right of a `Fan.RIGHT` pile
room for its spread (at least 0.75 card widths); a renderer squeezes a fan that would need more.
No table is wider than 10 card widths, so that a phone can show it at its screen's width.

Fans:

* `Fan.NONE`: a squared pile; only its top card shows.
* `Fan.DOWN`: a cascade; each card lies a little below the one under it (about 0.2 card heights
  for a face-up card, 0.1 for a face-down one), the top card lowest.
* `Fan.RIGHT`: a spread; each card lies about 0.25 card widths right of the one under it.

Kinds say what a pile is for in its game, in the field's terms: `Kind.FOUNDATION` (where cards
are cleared to, including the one discard pile of the removal games), `Kind.TABLEAU`,
`Kind.RESERVE`, `Kind.CELL` (holds one card), `Kind.STOCK` (face-down cards dealt from) and
`Kind.WASTE` (cards turned from the stock, and the piles a rules text calls waste piles).

Slots are listed in drawing order: a later slot is drawn over an earlier one. Cards of two slots
overlap only where the rules lay them so (the rows of Pyramid; in Clock, each hour's face-up
cards tucked under its face-down pile).

A `Region` names a group of piles that the rules text names as one (the Reserve of The Besieged
City): a box drawn round them with a legend on its top edge, or, without a box, the legend alone
in an empty part of the table.

>>> table = layout_of("solitaire")
>>> table.game, table.width, table.height
('klondike', 8.2, 5.0)
>>> table.slots[0]
Slot(pile='s', kind=<Kind.STOCK: 'stock'>, x=0.0, y=0.0, fan=<Fan.NONE: 'none'>, label='')
>>> table.as_dict()["slots"][1]
{'pile': 'w', 'kind': 'waste', 'x': 1.2, 'y': 0.0, 'fan': 'right', 'label': ''}
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engine.core import Game
from engine.games import UnknownGame, find_game

__all__ = ["Fan", "Kind", "Layout", "Region", "Slot", "layout_of"]


class Fan(enum.StrEnum):
    """How the cards of a pile spread on the table."""

    NONE = "none"
    DOWN = "down"
    RIGHT = "right"


class Kind(enum.StrEnum):
    """A pile's role in its game."""

    FOUNDATION = "foundation"
    TABLEAU = "tableau"
    RESERVE = "reserve"
    CELL = "cell"
    STOCK = "stock"
    WASTE = "waste"


@dataclass(frozen=True, slots=True)
class Slot:
    """One pile on the table: its engine id, its role, the top-left corner of its first card (``x``
    in card widths, ``y`` in card heights), how its cards spread, and an optional short caption
    (a clock hour, a foundation's rank)."""

    pile: str
    kind: Kind
    x: float
    y: float
    fan: Fan = Fan.NONE
    label: str = ""

    def as_dict(self) -> dict[str, object]:
        """The slot as plain JSON values."""
        return {
            "pile": self.pile,
            "kind": str(self.kind),
            "x": self.x,
            "y": self.y,
            "fan": str(self.fan),
            "label": self.label,
        }


@dataclass(frozen=True, slots=True)
class Region:
    """A named part of the table: ``label`` with the rectangle it covers (``x``, ``width`` in card
    widths, ``y``, ``height`` in card heights); ``box`` draws the rectangle with the label on its
    top edge, otherwise the label alone, centred in it."""

    label: str
    x: float
    y: float
    width: float
    height: float
    box: bool = True

    def as_dict(self) -> dict[str, object]:
        """The region as plain JSON values."""
        return {
            "label": self.label,
            "x": self.x,
            "y": self.y,
            "width": self.width,
            "height": self.height,
            "box": self.box,
        }


@dataclass(frozen=True, slots=True)
class Layout:
    """A game's table: its size (``width`` in card widths, ``height`` in card heights, room for
    the fans included), its slots, in drawing order, and its named regions."""

    game: str
    width: float
    height: float
    slots: tuple[Slot, ...]
    regions: tuple[Region, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """The layout as plain JSON values: ``{"game", "width", "height", "slots": [...],
        "regions": [...]}``."""
        return {
            "game": self.game,
            "width": self.width,
            "height": self.height,
            "slots": [slot.as_dict() for slot in self.slots],
            "regions": [region.as_dict() for region in self.regions],
        }


def layout_of(game: type[Game] | str) -> Layout:
    """The layout of ``game``: a game class, or its key or any alias (as `engine.games.find_game`
    reads it). The same `Layout` object comes back on every call. Raises `UnknownGame` for a name
    no game has, or a class that is not a registered game."""
    key = find_game(game).key if isinstance(game, str) else getattr(game, "key", None)
    if key not in _TABLES:
        raise UnknownGame("unknown_game", f"no layout for {game!r}", str(game)[:40])
    return _build(key)


# ------------------------------------------------------------------------------ building blocks

#: Distance from one pile to the next in a row or a column (a card and a 0.2 gap).
STEP = 1.2
#: A tighter step for rows of eight or nine piles, to keep those tables narrow.
TIGHT = 1.1
#: Room kept below a tableau cascade for it to grow, in card heights.
CASCADE = 2.8

_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

S, D, R = Fan.NONE, Fan.DOWN, Fan.RIGHT
F, T, RES, C, ST, W = Kind.FOUNDATION, Kind.TABLEAU, Kind.RESERVE, Kind.CELL, Kind.STOCK, Kind.WASTE


def _n(value: float) -> float:
    """A coordinate without floating-point noise (0.3, not 0.30000000000000004)."""
    return round(value, 3) + 0.0


def _ids(letter: str, count: int, start: int = 0) -> list[str]:
    """Pile ids ``letter + index`` for ``count`` piles from ``start``: ``_ids("t", 3)`` is t0 t1 t2."""
    return [f"{letter}{i}" for i in range(start, start + count)]


def _one(pile: str, kind: Kind, x: float, y: float, fan: Fan = S, label: str = "") -> list[Slot]:
    """A single pile."""
    return [Slot(pile, kind, _n(x), _n(y), fan, label)]


def _row(
    piles: Sequence[str],
    kind: Kind,
    x: float,
    y: float,
    fan: Fan = S,
    *,
    step: float = STEP,
    labels: Sequence[str] = (),
) -> list[Slot]:
    """Piles side by side, left to right from ``(x, y)``, ``step`` card widths apart."""
    labels = tuple(labels) or ("",) * len(piles)
    return [Slot(p, kind, _n(x + i * step), _n(y), fan, lab) for i, (p, lab) in enumerate(zip(piles, labels))]


def _column(
    piles: Sequence[str],
    kind: Kind,
    x: float,
    y: float,
    fan: Fan = S,
    *,
    step: float = STEP,
    labels: Sequence[str] = (),
) -> list[Slot]:
    """Piles one above the other, top to bottom from ``(x, y)``, ``step`` card heights apart."""
    labels = tuple(labels) or ("",) * len(piles)
    return [Slot(p, kind, _n(x), _n(y + i * step), fan, lab) for i, (p, lab) in enumerate(zip(piles, labels))]


def _ring(
    piles: Sequence[str],
    kind: Kind,
    cx: float,
    cy: float,
    across: float,
    down: float,
    *,
    first: float = 0.0,
    labels: Sequence[str] = (),
    shift: tuple[float, float] = (0.0, 0.0),
) -> list[Slot]:
    """Piles round an ellipse centred on ``(cx, cy)`` (the centre of the middle card), clockwise
    like the hours of a clock: the first at ``first`` degrees from the top, then evenly spaced
    round the full turn. ``across`` and ``down`` are the half-axes in card widths and card
    heights; ``shift`` moves every card from its place on the ring."""
    labels = tuple(labels) or ("",) * len(piles)
    slots = []
    for i, (pile, label) in enumerate(zip(piles, labels)):
        angle = math.radians(first + i * 360 / len(piles))
        x = cx + across * math.sin(angle) - 0.5 + shift[0]
        y = cy - down * math.cos(angle) - 0.5 + shift[1]
        slots.append(Slot(pile, kind, _n(x), _n(y), S, label))
    return slots


def _pyramid(piles: Sequence[str], rows: int, x: float, y: float, *, step: float, drop: float) -> list[Slot]:
    """A pyramid of single cards, the apex first and then each row left to right; each row is
    ``drop`` card heights below the one above and half a ``step`` further left, so that every card
    half covers the two it rests on."""
    slots, i = [], 0
    for row in range(rows):
        for k in range(row + 1):
            left = x + (rows - 1 - row) * step / 2 + k * step
            slots.append(Slot(piles[i], RES, _n(left), _n(y + row * drop)))
            i += 1
    return slots


def _table(
    key: str,
    *groups: Iterable[Slot],
    grow: float = CASCADE,
    spread: float = 0.8,
    regions: Sequence[Region] = (),
) -> Layout:
    """A layout of the slots of ``groups`` (in that drawing order), its size the smallest that
    holds every card, ``grow`` card heights below each cascade and ``spread`` card widths right of
    each spread; with the named ``regions``."""
    slots = tuple(slot for group in groups for slot in group)
    width = max(s.x + 1 + (spread if s.fan is R else 0) for s in slots)
    height = max(s.y + 1 + (grow if s.fan is D else 0) for s in slots)
    return Layout(key, _n(width), _n(height), slots, tuple(regions))


# ------------------------------------------------------------------------------ the games
#
# One function per game; its comment names the rules text (in /work/shared/seeds/) whose table it draws.


def _klondike() -> Layout:
    # 003_08087bb95aa03446.txt (Klondike): stock and waste fan top left, foundations top right, cascades below.
    return _table(
        "klondike",
        _one("s", ST, 0, 0),
        _one("w", W, 1.2, 0, R),
        _row(_ids("f", 4), F, 3.6, 0),
        _row(_ids("t", 7), T, 0, 1.2, D),
    )


def _golf() -> Layout:
    # 003_08087bb95aa03446.txt (Golf): seven fans of five across the top; foundation bottom centre, stock bottom right.
    return _table(
        "golf",
        _row(_ids("r", 7), RES, 0, 0, D),
        _one("f0", F, 3.6, 2.4),
        _one("s", ST, 7.2, 2.4),
        grow=1.4,
    )


def _clock() -> Layout:
    # 002_5e8f4a23aea861b2.txt: t0..t11 round a dial from one o'clock, t12 in the centre, each fN tucked under tN.
    hours, centre = _ids("t", 12), "t12"
    labels = _RANKS[:12]
    cx, cy, across, down = 3.6, 3.65, 3.1, 2.85
    tuck = (0.0, -0.3)
    return _table(
        "clock",
        _ring(_ids("f", 12), F, cx, cy, across, down, first=30, shift=tuck),
        _one("f12", F, cx - 0.5, cy - 0.5 + tuck[1]),
        _ring(hours, T, cx, cy, across, down, first=30, labels=labels),
        _one(centre, T, cx - 0.5, cy - 0.5, label="K"),
    )


def _baroness() -> Layout:
    # 003_08087bb95aa03446.txt (Baroness): three over two piles on the left, t5 t6 in the middle, f0 over s right.
    return _table(
        "baroness",
        _row(_ids("t", 3), T, 0, 0),
        _row(_ids("t", 2, 3), T, 0.6, 1.2),
        _column(["t5", "t6"], T, 3.8, 0),
        _one("f0", F, 5.2, 0),
        _one("s", ST, 5.2, 1.2),
    )


def _four_in_a_row(key: str) -> Callable[[], Layout]:
    """Idiot's Delight and Perpetual Motion: four cascades in a row on the left, the discard
    foundation top right and the stock under it."""

    def layout() -> Layout:
        return _table(
            key,
            _row(_ids("t", 4), T, 0, 0, D),
            _one("f0", F, 5.0, 0),
            _one("s", ST, 5.0, 1.2),
        )

    return layout


def _pyramid_game() -> Layout:
    # 003_08087bb95aa03446.txt (Pyramid): pyramid in the middle; foundation top left, waste top right, deck low right.
    return _table(
        "pyramid",
        _one("f0", F, 0, 0),
        _one("w", W, 6.6, 0),
        _pyramid(_ids("r", 28), 7, 0, 0, step=1.1, drop=0.5),
        _one("d", W, 5.5, 4.2, label="Deck"),
        _one("s", ST, 6.6, 4.2),
    )


def _scorpion() -> Layout:
    # 003_08087bb95aa03446.txt (Scorpion): seven long cascades across the top, the three-card stock bottom right.
    return _table(
        "scorpion",
        _row(_ids("t", 7), T, 0, 0, D),
        _one("s", ST, 7.2, 4.4),
    )


def _double_or_naught() -> Layout:
    # 003_08087bb95aa03446.txt (Double or Naught): rows of three, two and the house's card; the pack beside them.
    return _table(
        "double_or_naught",
        _row(_ids("r", 3), RES, 0, 0, labels=("1", "2", "3")),
        _row(_ids("r", 2, 3), RES, 0.6, 1.2, labels=("4", "5")),
        _one("r5", RES, 1.2, 2.4, label="House"),
        _one("s", ST, 3.8, 0),
        _one("w", W, 3.8, 1.2),
    )


def _friday_13() -> Layout:
    # 001_1b1f3c1dc9fc716f.txt: thirteen foundations, Jack to Ten, in two rows; the stock and its waste below them.
    labels = ("J", "Q", "K", *_RANKS[:10])
    return _table(
        "friday_13",
        _row(_ids("f", 7), F, 0, 0, labels=labels[:7]),
        _row(_ids("f", 6, 7), F, 0, 1.2, labels=labels[7:]),
        _one("s", ST, 0, 2.4),
        _one("w", W, 1.2, 2.4),
    )


def _tournament() -> Layout:
    # 003_08087bb95aa03446.txt (Tournament): kibitzer columns either side of six dormitzers, under Ace and King rows.
    return _table(
        "tournament",
        _row(_ids("f", 4), F, 2.2, 0, step=TIGHT, labels=("A",) * 4),
        _row(_ids("f", 4, 4), F, 2.2, 1.2, step=TIGHT, labels=("K",) * 4),
        _one("s", ST, 6.6, 1.2),
        _column(_ids("r", 4), C, 0, 0),
        _column(_ids("r", 4, 4), C, 7.7, 0),
        _row(_ids("w", 6), W, 1.1, 2.4, D, step=TIGHT),
        grow=2.6,
    )


def _generals_patience() -> Layout:
    # 000_9969d46f4a8b5ed6.txt (no table drawn): stock, waste, reserve spread out; eight foundations; nine piles.
    return _table(
        "generals_patience",
        _one("s", ST, 0, 0),
        _one("w", W, 1.1, 0),
        _one("r", RES, 2.4, 0, R, label="Reserve"),
        _row(_ids("f", 8), F, 0.55, 1.2, step=TIGHT),
        _row(_ids("t", 9), T, 0, 2.4, D, step=TIGHT),
    )


def _besieged_city() -> Layout:
    # 004_b8ac959bf00b6dc2.txt: the Reserve's four rows of three inside the fourteen Ramparts; pack, talon, foundations.
    # The Reserve lies 0.4 below the top Rampart row, room for its legend; "Ramparts" fills the empty corner.
    top = 1.4
    return _table(
        "besieged_city",
        _row(_ids("t", 3), T, 1.2, 0),
        _column(_ids("t", 4, 3), T, 0, top),
        *(_row(_ids("r", 3, 3 * i), RES, 1.2, top + 1.2 * i) for i in range(4)),
        _column(_ids("t", 4, 7), T, 4.8, top),
        _row(_ids("t", 3, 11), T, 1.2, top + 4.8),
        _one("s", ST, 6.2, 0, label="Pack"),
        _one("w", W, 6.2, 1.2, label="Talon"),
        _column(_ids("f", 4), F, 6.2, 2.4),
        regions=(Region("Reserve", 1.1, 1.2, 3.6, 4.9), Region("Ramparts", 0.0, 0.0, 1.0, 1.0, box=False)),
    )


def _bristol() -> Layout:
    # 003_08087bb95aa03446.txt (Bristol): foundations top left, the three reserves, stock top right; eight piles below.
    return _table(
        "bristol",
        _row(_ids("f", 4), F, 0, 0, step=TIGHT),
        _row(_ids("r", 3), RES, 4.4, 0, step=TIGHT),
        _one("s", ST, 7.7, 0),
        _row(_ids("t", 8), T, 0, 1.2, D, step=TIGHT),
    )


def _calculation() -> Layout:
    # 003_08087bb95aa03446.txt (Calculation): foundations top left, four waste piles under them, the stock to the right.
    return _table(
        "calculation",
        _row(_ids("f", 4), F, 0, 0, labels=("+1", "+2", "+3", "+4")),
        _one("w", W, 5.0, 0),
        _one("s", ST, 6.2, 0),
        _row(_ids("t", 4), W, 0, 1.2, D),
    )


def _canfield_like(key: str, waste: Fan) -> Callable[[], Layout]:
    """Canfield and Chameleon: the thirteen-card reserve middle left, foundations across the top
    with the four tableau piles under them, the stock bottom right with the waste above it."""

    def layout() -> Layout:
        return _table(
            key,
            _one("r0", RES, 0, 1.2),
            _row(_ids("f", 4), F, 1.4, 0),
            _row(_ids("t", 4), T, 1.4, 1.2, D),
            _one("w", W, 6.4, 2.8, waste),
            _one("s", ST, 6.4, 4.0),
            spread=1.1,  # the waste's last three cards, each with its corner showing
        )

    return layout


def _dutchess() -> Layout:
    # 003_08087bb95aa03446.txt (Dutchess): four reserve fans down the left, foundations over tableau, stock low right.
    return _table(
        "dutchess",
        _column(_ids("r", 4), RES, 0, 0, R),
        _row(_ids("f", 4), F, 2.0, 0),
        _row(_ids("t", 4), T, 2.0, 1.2, D),
        _one("w", W, 7.0, 2.8),
        _one("s", ST, 7.0, 4.0),
    )


def _eight_off() -> Layout:
    # 003_08087bb95aa03446.txt (Eight Off): foundations top centre, a row of eight cells, eight cascades; no stock.
    return _table(
        "eight_off",
        _row(_ids("f", 4), F, 2.2, 0, step=TIGHT),
        _row(_ids("c", 8), C, 0, 1.2, step=TIGHT),
        _row(_ids("t", 8), T, 0, 2.4, D, step=TIGHT),
        grow=3.0,
    )


def _four_seasons() -> Layout:
    # 003_08087bb95aa03446.txt (Four Seasons): five piles in a cross, foundations in its corners, stock middle right.
    return _table(
        "four_seasons",
        _one("f0", F, 0, 0),
        _one("t0", T, 1.2, 0),
        _one("f1", F, 2.4, 0),
        _row(_ids("t", 3, 1), T, 0, 1.2),
        _one("f2", F, 0, 2.4),
        _one("t4", T, 1.2, 2.4),
        _one("f3", F, 2.4, 2.4),
        _one("w", W, 3.8, 0),
        _one("s", ST, 3.8, 1.2),
    )


def _kings_clover() -> Layout:
    # 003_08087bb95aa03446.txt (King's Clover): sixteen fans of three in two rows (to fit a phone), foundations below.
    return _table(
        "kings_clover",
        _row(_ids("t", 8), T, 0, 0, D, step=TIGHT),
        _row(_ids("t", 8, 8), T, 0, 2.4, D, step=TIGHT),
        _row(_ids("f", 4), F, 2.2, 4.8, step=TIGHT),
        grow=1.4,
    )


def _little_spider() -> Layout:
    # 003_08087bb95aa03446.txt (Little Spider): foundations above a row of eight piles, the stock top right.
    return _table(
        "little_spider",
        _row(_ids("f", 4), F, 2.2, 0, step=TIGHT),
        _one("s", ST, 7.7, 0),
        _row(_ids("t", 8), T, 0, 1.2, D, step=TIGHT),
        grow=2.6,
    )


def _osmosis() -> Layout:
    # 003_08087bb95aa03446.txt (Osmosis): reserve column, foundation column spread to show ranks (thirteen
    # cards each, across the table), stock and waste below.
    return _table(
        "osmosis",
        _column(_ids("r", 4), RES, 0, 0),
        _column(_ids("f", 4), F, 1.2, 0, R),
        _one("s", ST, 0, 4.8),
        _one("w", W, 1.2, 4.8, R),
        spread=7.8,
    )


def _penguin() -> Layout:
    # 003_08087bb95aa03446.txt (Penguin): foundations top centre, seven flippers (cells), seven cascades; no stock.
    return _table(
        "penguin",
        _row(_ids("f", 4), F, 1.8, 0),
        _row(_ids("c", 7), C, 0, 1.2),
        _row(_ids("t", 7), T, 0, 2.4, D),
        grow=3.0,
    )


def _strategy() -> Layout:
    # 003_08087bb95aa03446.txt (Strategy): foundations across the upper centre, seven waste piles below, stock right.
    return _table(
        "strategy",
        _row(_ids("f", 4), F, 0.6, 0),
        _one("w", W, 6.0, 0),
        _one("s", ST, 7.2, 0),
        _row(_ids("t", 7), W, 0, 1.2, D),
        grow=3.0,
    )


def _try_again() -> Layout:
    # 003_08087bb95aa03446.txt (Try Again): foundations in a central square, a waste pile at each corner, stock right.
    return _table(
        "try_again",
        _one("t0", W, 0, 0, D),
        _one("t1", W, 3.6, 0, D),
        _row(["f0", "f1"], F, 1.2, 1.2),
        _row(["f2", "f3"], F, 1.2, 2.4),
        _one("t2", W, 0, 3.6, D),
        _one("t3", W, 3.6, 3.6, D),
        _one("w", W, 5.0, 0.6),
        _one("s", ST, 5.0, 1.8),
        grow=2.6,
    )


def _queens_quadrille() -> Layout:
    # 003_08087bb95aa03446.txt (Queen's Quadrille): foundations in a circle with the stock and its turned card in the
    # middle; the Queens' pile and the three waste piles to the right, where their fans have the table's height.
    cx, cy = 2.9, 3.33
    return _table(
        "queens_quadrille",
        _ring(_ids("f", 8), F, cx, cy, 2.4, 2.83),
        _one("s", ST, cx - 1.1, cy - 0.5),
        _one("w", W, cx + 0.1, cy - 0.5),
        _one("t3", W, 6.1, 0, label="Queens"),
        _row(_ids("t", 3), W, 6.1, 1.4, D, step=TIGHT),
        grow=4.2,
    )


#: Every game's layout, by key.
_TABLES: dict[str, Callable[[], Layout]] = {
    "klondike": _klondike,
    "golf": _golf,
    "clock": _clock,
    "baroness": _baroness,
    "idiots_delight": _four_in_a_row("idiots_delight"),  # 003_08087bb95aa03446.txt (Idiot's Delight)
    "pyramid": _pyramid_game,
    "perpetual_motion": _four_in_a_row("perpetual_motion"),  # 003_08087bb95aa03446.txt (Perpetual Motion)
    "scorpion": _scorpion,
    "double_or_naught": _double_or_naught,
    "friday_13": _friday_13,
    "tournament": _tournament,
    "generals_patience": _generals_patience,
    "besieged_city": _besieged_city,
    "bristol": _bristol,
    "calculation": _calculation,
    "canfield": _canfield_like("canfield", R),  # 003_08087bb95aa03446.txt (Canfield): waste fan of three
    "chameleon": _canfield_like("chameleon", S),  # 003_08087bb95aa03446.txt (Chameleon): one card at a time
    "dutchess": _dutchess,
    "eight_off": _eight_off,
    "four_seasons": _four_seasons,
    "kings_clover": _kings_clover,
    "little_spider": _little_spider,
    "osmosis": _osmosis,
    "penguin": _penguin,
    "strategy": _strategy,
    "try_again": _try_again,
    "queens_quadrille": _queens_quadrille,
}


@functools.cache
def _build(key: str) -> Layout:
    return _TABLES[key]()
