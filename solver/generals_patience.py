"""What the search knows about General's Patience: two packs of alike copies, and ranks counted from the base.

Rules: 000_9969d46f4a8b5ed6.txt, as engine/games/generals_patience.py states them: after the
base rank is chosen, eight foundations build up in suit from it round the corner; nine tableau
piles build down in alternate colours round the corner and take any card in a space; the
reserve's top card plays only to a foundation; the stock is turned one card at a time, with one
redeal after which every turned card must be played.

Pieces of knowledge:

* `canonical`: the two copies of a card obey the same rules, so the pack mark is dropped; once
  the base is chosen the nine tableau piles are alike, and so are the eight foundations (any
  base card starts any of them), so both are sorted. The reserve is written as its length (only
  its top leaves it, so the length says which cards are left), and so is the stock before the
  redeal (its order is the deal's).
* `ordered_moves`: the bases that leave the reserve playable first (`reserve_stuck`). Then a
  card to a foundation where it is safe goes alone (no card left in play could be built on it in
  the tableau: every card one rank lower in the other colour is home already); otherwise cards
  to foundations first (the reserve's first), then the waste card onto a card, then tableau
  moves that empty a pile or uncover a card that goes up or takes the waste card, then builds of
  a run off a card it does not fit, then the waste card or such a run into a space, then deal
  and redeal. Moves of one card onto two foundations at the same height, or of a base card onto
  two empty foundations, lead to one position, so only one is kept. A run that already lies on a
  card it fits is moved only when that uncovers a card that goes up or takes the waste card:
  the other such moves only rearrange built runs, and are left out without a proof that they
  cannot matter, so a search that runs out of positions proves nothing (`Knowledge.complete`
  is False).
* `score`: ranks counted from the base (the base is 0, the card below it 12): cards cleared
  count most; a card lying on a card of lower count in the tableau, the reserve or the waste will
  have to move again first and costs a little, and so does each card still in the stock (so
  that the search moves on rather than rearranging the tableau). A position whose reserve can
  never be played out (`reserve_stuck`) comes last: with the base chosen badly, or with two
  foundations of a suit past a card the reserve still holds, the deal is lost.
"""

from __future__ import annotations

from engine.cards import Card, new_pack
from engine.core import Game, Move

__all__ = ["canonical", "ordered_moves", "score"]

_FOUNDATIONS = tuple(f"f{i}" for i in range(8))
_TABLEAU = tuple(f"t{i}" for i in range(9))
#: Every card's notation without the pack mark, looked up rather than rebuilt.
_CODE = {card: f"{card.rank:x}{card.suit.letter}" for card in new_pack(2)}


def _count(game: Game, card: Card) -> int:
    """The card's rank counted from the base rank (0 to 12), or its rank before a base is chosen."""
    base = game.base  # type: ignore[attr-defined]
    return (card.rank - base) % 13 if base is not None else int(card.rank)


def canonical(game: Game) -> str:
    """The position for one search's transposition table (see the module docstring)."""
    piles = game.piles
    if game.base is None:  # type: ignore[attr-defined]
        return game.position()
    found = sorted(
        f"{len(piles[pid].cards)}{_CODE[piles[pid].cards[-1]] if piles[pid].cards else ''}" for pid in _FOUNDATIONS
    )
    tableau = sorted("".join([_CODE[card] for card in piles[pid].cards]) for pid in _TABLEAU)
    redeals = game.redeals  # type: ignore[attr-defined]
    stock = "".join([_CODE[card] for card in piles["s"].cards]) if redeals else str(len(piles["s"].cards))
    waste = "".join([_CODE[card] for card in piles["w"].cards])
    return f"{'.'.join(found)} {'|'.join(tableau)} r{len(piles['r'].cards)} s:{stock} w:{waste} {redeals}"


def _inversions(game: Game) -> int:
    """Cards lying above a card of lower count in the tableau, the reserve or the waste."""
    count = 0
    for pid in (*_TABLEAU, "r", "w"):
        low = 99
        for card in game.piles[pid].cards:
            mine = _count(game, card)
            if mine > low:
                count += 1
            elif mine < low:
                low = mine
    return count


def reserve_stuck(game: Game, base: int) -> bool:
    """Whether the reserve can never be played out with ``base`` as the base rank (1 to 13), from
    the foundations as they are.

    Only the reserve's top card leaves it, and only to a foundation of its suit that has just
    reached the count below it; a foundation only grows, and each suit has two. So, suit by
    suit, the reserve's cards in the order they leave must split into two strictly rising runs of
    counts, each above its foundation's count now. The greedy split (each card onto the run with
    the highest end still below it) finds one whenever one exists; three cards of one suit whose
    counts fall as they leave the reserve already make it impossible."""
    ends: dict[int, list[int]] = {suit: [] for suit in range(4)}
    for pid in _FOUNDATIONS:
        cards = game.piles[pid].cards
        if cards:
            ends[cards[0].suit].append((cards[-1].rank - base) % 13)
    for suit_ends in ends.values():
        suit_ends += [-1] * (2 - len(suit_ends))
    for card in reversed(game.piles["r"].cards):
        count = (card.rank - base) % 13
        below = [i for i, end in enumerate(ends[card.suit]) if end < count]
        if not below:
            return True
        best = max(below, key=lambda i: ends[card.suit][i])
        ends[card.suit][best] = count
    return False


#: What a position whose reserve can never be played out loses from its score.
_STUCK = 10_000


def score(game: Game) -> int:
    """How promising a position looks: 8 per card cleared, less 2 per card lying on a card of
    lower count and 1 per card still in the stock (so that the search moves on through the
    stock rather than rearranging the tableau); a position whose reserve is stuck
    (`reserve_stuck`) loses `_STUCK`."""
    result = 8 * game.cleared - 2 * _inversions(game) - len(game.piles["s"].cards)
    base = game.base  # type: ignore[attr-defined]
    if base is not None and reserve_stuck(game, base):
        result -= _STUCK
    return result


def _base_order(game: Game, base: int) -> tuple[bool, int]:
    """How a base rank (1 to 13) looks before the choice, best first: one that leaves the reserve
    playable, then the fewer reserve cards lying on a card of their suit with a lower count."""
    later = 0
    reserve = game.piles["r"].cards
    for i, card in enumerate(reserve):
        count = (card.rank - base) % 13
        later += sum(1 for lower in reserve[:i] if lower.suit == card.suit and (lower.rank - base) % 13 < count)
    return reserve_stuck(game, base), later


def _safe(game: Game, card: Card) -> bool:
    """Whether no card left in play could be built on ``card`` in the tableau: every card one
    rank lower and of the other colour is on a foundation."""
    below = card.rank - 1 or 13
    colour = card.colour
    for pid in (*_TABLEAU, "r", "w", "s"):
        for other in game.piles[pid].cards:
            if other.rank == below and other.colour != colour:
                return False
    return True


def _fits_on(top: Card, card: Card) -> bool:
    """Whether ``card`` may be built on ``top`` in the tableau: one rank lower, round the corner,
    and of the other colour."""
    return card.colour != top.colour and (top.rank - card.rank) % 13 == 1


def _uncovers(game: Game, card: Card) -> bool:
    """Whether ``card``, once on top of its pile, can go to a foundation or take the waste card."""
    waste = game.piles["w"].cards
    if waste and _fits_on(card, waste[-1]):
        return True
    return any(game._fits(f, card) for f in _FOUNDATIONS)  # type: ignore[attr-defined]


def ordered_moves(game: Game) -> list[Move]:
    """The legal moves of ``game`` worth trying, best first (see the module docstring)."""
    piles = game.piles
    legal = list(game.legal_moves())
    if game.base is None:  # type: ignore[attr-defined]
        return sorted(legal, key=lambda move: _base_order(game, piles[move.arg].cards[0].rank))
    keyed: list[tuple[int, Move]] = []
    landed: set[tuple[str, str]] = set()
    for move in legal:
        if not move.is_transfer:
            keyed.append((8 if move.action == "redeal" else 7, move))
            continue
        src = piles[move.src].cards
        card = src[-move.count]
        dst = piles[move.dst].cards
        if move.dst[0] == "f":
            landing = (move.src, _CODE[dst[-1]] if dst else "")
            if landing in landed:
                continue
            landed.add(landing)
            if _safe(game, card):
                return [move]
            keyed.append((0 if move.src == "r" else 1, move))
        elif move.src == "w":
            keyed.append((2 if dst else 5, move))
        elif move.count == len(src):
            keyed.append((3, move))  # empties a pile
        else:
            under = src[-move.count - 1]
            if _fits_on(under, card):
                if not _uncovers(game, under):
                    continue  # the run already lies on a card it fits: a shuffle that exposes nothing useful
                keyed.append((3, move))
            else:
                keyed.append((4 if dst else 6, move))
    keyed.sort(key=lambda pair: pair[0])
    return [move for _, move in keyed]
