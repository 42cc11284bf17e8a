"""What the search knows about The Besieged City: two packs of alike copies, and the playing order.

Rules: 004_b8ac959bf00b6dc2.txt, as engine/games/besieged_city.py states them: four foundations,
one per suit, built A K 2 Q 3 J 4 T 5 9 6 8 7 and back to an Ace (26 cards); a Rampart packet's
top card goes to a foundation or onto another packet's top card of its suit that neighbours it
(one rank apart or next in the playing order); a Reserve card goes only onto a Rampart at an end
of its row or column; an emptied Rampart is refilled from its line of the Reserve at once; an
emptied Reserve place from the talon, else the pack; a dealt card goes to its foundation if it
fits, else onto the talon.

Pieces of knowledge:

* `canonical`: the two copies of a card obey the same rules, so the pack mark is dropped; the
  four foundations are alike (any Ace starts any of them), so they are sorted, and the pack is
  written as its length (its order is the deal's). Ramparts and Reserve places keep their places.
* `ordered_moves`: cards to a foundation first, then Reserve cards onto the Ramparts (each one
  brings a talon card into play), then moves between packets, then deal. A move between packets
  is kept only when it does something: it empties a packet (a Reserve card then fills it), the
  card it uncovers goes to a foundation or takes a Reserve card of its line, or the card moved
  lies above a card of its packet needed sooner (see `score`). The others only rearrange cards
  already in order, so they are left out without a proof that they cannot matter: a search
  that runs out of positions proves nothing (`Knowledge.complete` is False).
* `score`: a card's *need* is how far down its suit's playing order it comes after the card
  its foundation needs now; a card lying on a card needed sooner, in a packet or the talon,
  must move again first. Cards cleared count most, then the fewer such cards, then the fewer
  cards in the pack.
"""

from __future__ import annotations

from engine.cards import Card, new_pack
from engine.core import Game, Move
from engine.games.besieged_city import ENDS, ORDER, packs_on

__all__ = ["canonical", "ordered_moves", "score"]

_FOUNDATIONS = ("f0", "f1", "f2", "f3")
_RAMPARTS = tuple(f"t{i}" for i in range(14))
_RESERVE = tuple(f"r{i}" for i in range(12))
#: Every card's notation without the pack mark, looked up rather than rebuilt.
_CODE = {card: f"{card.rank:x}{card.suit.letter}" for card in new_pack(2)}
#: For each rank, its places in the playing order (two: going out and coming back).
_PLACES = {rank: tuple(i for i, r in enumerate(ORDER) if r == rank) for rank in set(ORDER)}
_FAR = 99


def canonical(game: Game) -> str:
    """The position for one search's transposition table (see the module docstring)."""
    piles = game.piles
    found = sorted(
        f"{len(piles[pid].cards)}{_CODE[piles[pid].cards[-1]] if piles[pid].cards else ''}" for pid in _FOUNDATIONS
    )
    places = " ".join("".join([_CODE[card] for card in piles[pid].cards]) for pid in (*_RAMPARTS, *_RESERVE))
    talon = "".join([_CODE[card] for card in piles["w"].cards])
    return f"{'.'.join(found)} {places} s{len(piles['s'].cards)} w:{talon}"


def _heights(game: Game) -> dict[int, int]:
    """How many cards each suit's foundation holds (0 for a suit not started)."""
    heights = {suit: 0 for suit in range(4)}
    for pid in _FOUNDATIONS:
        cards = game.piles[pid].cards
        if cards:
            heights[cards[0].suit] = len(cards)
    return heights


def _need(heights: dict[int, int], card: Card) -> int:
    """How many cards the card's foundation takes before it (0: it goes up now)."""
    height = heights[card.suit]
    return min((place - height for place in _PLACES[card.rank] if place >= height), default=_FAR)


def _blocked(game: Game, heights: dict[int, int]) -> int:
    """Cards lying on a card needed sooner, in the Ramparts and the talon."""
    count = 0
    for pid in (*_RAMPARTS, "w"):
        low = _FAR
        for card in game.piles[pid].cards:
            mine = _need(heights, card)
            if mine > low:
                count += 1
            else:
                low = mine
    return count


def score(game: Game) -> int:
    """How promising a position looks: 8 per card cleared, less 2 per blocking card (`_blocked`)
    and 1 per card left in the pack."""
    return 8 * game.cleared - 2 * _blocked(game, _heights(game)) - len(game.piles["s"].cards)


def _worth_uncovering(game: Game, src: str, card: Card) -> bool:
    """Whether ``card``, once on top of Rampart ``src``, goes to a foundation or takes a Reserve
    card of its line."""
    if any(game._fits_foundation(f, card) for f in _FOUNDATIONS):  # type: ignore[attr-defined]
        return True
    return any(
        src in ENDS[place] and game.piles[place].cards and packs_on(card, game.piles[place].cards[-1])
        for place in _RESERVE
    )


def _blocking(game: Game, packet: list[Card]) -> bool:
    """Whether the top card of ``packet`` lies above a card of the packet needed sooner."""
    heights = _heights(game)
    mine = _need(heights, packet[-1])
    return any(_need(heights, card) < mine for card in packet[:-1])


def ordered_moves(game: Game) -> list[Move]:
    """The moves of ``game`` worth trying, best first (see the module docstring)."""
    piles = game.piles
    keyed: list[tuple[int, Move]] = []
    landed: set[tuple[str, str]] = set()
    for move in game.legal_moves():
        if not move.is_transfer:
            keyed.append((4 if move.action == "deal" else 5, move))
            continue
        src = piles[move.src].cards
        if move.dst[0] == "f":
            dst = piles[move.dst].cards
            landing = (move.src, _CODE[dst[-1]] if dst else "")
            if landing not in landed:
                landed.add(landing)
                keyed.append((0, move))
        elif move.src[0] == "r":
            keyed.append((1 if piles[move.dst].cards else 2, move))
        elif len(src) == 1 or _worth_uncovering(game, move.src, src[-2]) or _blocking(game, src):
            keyed.append((3, move))
    keyed.sort(key=lambda pair: pair[0])
    return [move for _, move in keyed]
