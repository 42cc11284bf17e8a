"""What the exact searches of Canfield and Dutchess share (solver/canfield.py, solver/dutchess.py).

Both games (rules text 003_08087bb95aa03446.txt, as engine/games/canfield.py and
engine/games/dutchess.py state them) have four tableau piles ``t0`` to ``t3`` building down in
alternate colours round the corner, a pile moving to another tableau pile only as a whole, four
foundations ``f0`` to ``f3`` building up in suit round the corner from a base rank, reserves
whose top card plays, and a talon (stock ``s``, waste ``w``) dealt by ``deal`` and turned over
by ``redeal``. Cards are ints ``13 * suit + rank - 1``.

Here: the card helpers (`card_code`, `card_rank`, `is_red`, `on_tableau`), the bound both searches cut with
(`cycle_bound`), and the writing out of a search's steps as the engine's moves
(`engine_moves`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.core import Game, Move

__all__ = [
    "DEAL_STEP",
    "TO_FOUNDATION",
    "TO_SPACE",
    "card_code",
    "card_rank",
    "cycle_bound",
    "engine_moves",
    "is_red",
    "on_tableau",
]

#: A step's target: the card's foundation.
TO_FOUNDATION = -1
#: A step's target: an empty tableau pile.
TO_SPACE = -2
#: A step of its own: one ``deal`` (or the ``redeal`` when the stock is empty).
DEAL_STEP = -3


def card_code(card: Card) -> int:
    """The int of ``card``: ``13 * suit + rank - 1`` (0..51)."""
    return 13 * int(card.suit) + int(card.rank) - 1


def card_rank(c: int) -> int:
    """The rank (1..13) of card int ``c``."""
    return c % 13 + 1


def is_red(c: int) -> bool:
    """Whether card int ``c`` is a diamond or a heart."""
    return c // 13 in (1, 2)


def on_tableau(top: int, c: int) -> bool:
    """Whether card ``c`` may go on tableau card ``top``: one rank lower round the corner, the other colour."""
    return is_red(top) != is_red(c) and card_rank(c) == (card_rank(top) - 2) % 13 + 1


def cycle_bound(tab: Sequence[tuple[int, ...]], step: Sequence[int]) -> int:
    """The most cards that can be on the foundations in any position reachable from one whose
    four tableau piles are ``tab`` (cards bottom to top), whatever else it holds.

    ``step[c]`` is 4096 times card ``c``'s place in its suit's foundation order (0 for the base
    card). A tableau pile keeps its order for good: its cards leave it from the top, one at a time
    to a foundation or all together onto another pile, and each suit goes up in order. So a card
    is cleared only after every card above it in its pile and every card before it in its suit;
    a card on a cycle of these relations, or after one, never is. The bound clears greedily: a
    suit's next card goes up unless a card still above it in its pile has not; what is left at
    the end is on or after a cycle. Only tableau cards can stop a suit, so each suit walks its
    tableau cards alone, in the order it needs them (entries ``step + 4 * height + pile``,
    sorted), and its count is the place of the first card it cannot pass (13 if none)."""
    stops: list[list[int]] = [[], [], [], []]
    for p in range(4):
        i = 0
        for c in tab[p]:
            stops[c // 13].append(step[c] + 4 * i + p)
            i += 1
    tops = [len(tab[0]), len(tab[1]), len(tab[2]), len(tab[3])]
    for chain in stops:
        chain.sort()
    at = [0, 0, 0, 0]
    progress = True
    while progress:
        progress = False
        for s in range(4):
            chain = stops[s]
            j = at[s]
            while j < len(chain):
                e = chain[j]
                p = e & 3
                if tops[p] != (e >> 2 & 1023) + 1:
                    break
                tops[p] -= 1
                j += 1
            if j != at[s]:
                at[s] = j
                progress = True
    total = 0
    for s in range(4):
        total += stops[s][at[s]] >> 12 if at[s] < len(stops[s]) else 13
    return total


def engine_moves(game: Game, path: Sequence[tuple[int, int]], reserves: Sequence[str]) -> list[str]:
    """A search's steps written out as the engine's moves from ``game`` (which is not changed),
    played on a copy to name the piles.

    ``path``: (card, target) pairs; a target is `TO_FOUNDATION`, `TO_SPACE`, the tableau card the
    card (with the cards above it) goes onto, or `DEAL_STEP` (the card is then ignored). A card in
    no reserve (``reserves``: pile names such as ``"r0"``) and no tableau pile is a talon card:
    deals and redeals are written out until it shows on the waste. Raises StopIteration if a step
    has no pile to go to, ValueError (from the engine) if a move is illegal."""
    replay = game.copy()
    piles = replay.piles
    out: list[str] = []

    def play(move: str) -> None:
        replay.apply(move)
        out.append(move)

    def turn() -> None:
        play("deal" if piles["s"].cards else "redeal")

    for c, target in path:
        if target == DEAL_STEP:
            turn()
            continue
        src, count = None, 1
        for name in reserves:
            cards = piles[name].cards
            if cards and card_code(cards[-1]) == c:
                src = name
        for i in range(4):
            codes = [card_code(x) for x in piles[f"t{i}"].cards]
            if c in codes:
                src = f"t{i}"
                count = 1 if target == TO_FOUNDATION else len(codes) - codes.index(c)
        if src is None:  # a talon card: deal (and redeal) until it shows
            for _ in range(2 * len(piles["s"].cards) + len(piles["w"].cards) + 2):
                if piles["w"].cards and card_code(piles["w"].cards[-1]) == c:
                    break
                turn()
            src = "w"
        if target == TO_FOUNDATION:
            started = {card_code(f.cards[0]) // 13 for f in (piles[f"f{j}"] for j in range(4)) if f.cards}
            dst = next(
                f"f{j}"
                for j in range(4)
                if (piles[f"f{j}"].cards and card_code(piles[f"f{j}"].cards[-1]) // 13 == c // 13)
                or (not piles[f"f{j}"].cards and c // 13 not in started)
            )
        elif target == TO_SPACE:
            dst = next(f"t{j}" for j in range(4) if not piles[f"t{j}"].cards)
        else:
            tops = {j: card_code(piles[f"t{j}"].cards[-1]) for j in range(4) if piles[f"t{j}"].cards}
            dst = next(f"t{j}" for j, top in tops.items() if top == target)
        play(str(Move.transfer(src, dst, count)))
    return out
