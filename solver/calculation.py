"""What the search knows about Calculation: suits never matter, and a waste pile is a stack.

Rules: 003_08087bb95aa03446.txt ("Calculation"), as engine/games/calculation.py states them:
foundation ``f{i}`` (i = 0..3) starts with rank i + 1 and counts on in steps of i + 1 past the
King, so each foundation takes every rank once and ends with its King; the turned stock card
``w`` goes to a foundation or onto any of the four waste piles ``t0`` to ``t3``; a waste pile's
top card goes only to a foundation.

Three pieces of knowledge:

* `canonical`: no rule looks at a suit, so a position is written with ranks only: each
  foundation's length (which fixes the rank it needs next), the four waste piles as rank strings
  sorted (they are alike), and the number of stock cards left (the stock order is the deal's, so
  the count says which cards they are). Positions that differ only by suits or by a swap of
  waste piles are one position.
* `score`: the well-known human strategy. A card's *need* is how many cards its rank's nearest
  foundation still takes before that rank (0: playable now); a waste card that lies above a card
  needed sooner than itself *blocks* it, and every such pair must be undone before the lower card
  can go up. Positions with more cards cleared and fewer blocking pairs come first.
* `ordered_moves`: cards to a foundation first; then the turned card onto a waste pile whose top
  is needed no sooner than it (the tightest fit first), then onto an empty pile, and last onto a
  pile whose top it would block (the one needed latest first).

All three only order and merge positions; no move is left out, so a search that runs out of
positions still proves a deal lost.
"""

from __future__ import annotations

from engine.core import Game, Move

__all__ = ["canonical", "needs", "ordered_moves", "score"]

_STEPS = (1, 2, 3, 4)
#: For each foundation, the ranks (1 to 13) of its thirteen cards in order, its starting card
#: first: a foundation holding k cards needs the rank at index k next.
_SEQUENCES = tuple(tuple((step * (k + 1) - 1) % 13 + 1 for k in range(13)) for step in _STEPS)
_PLACE = tuple({rank: k for k, rank in enumerate(sequence)} for sequence in _SEQUENCES)
_FOUNDATIONS = ("f0", "f1", "f2", "f3")
_WASTE = ("t0", "t1", "t2", "t3")
#: The need of a rank no foundation takes any more (every card of it is home).
_NEVER = 99


def needs(game: Game) -> list[int]:
    """For each rank (index 1 to 13; index 0 unused), how many cards the foundation that needs it
    soonest takes before it: 0 when a card of that rank goes up now, `_NEVER` when no foundation
    needs it any more."""
    lengths = [len(game.piles[pid].cards) for pid in _FOUNDATIONS]
    result = [_NEVER] * 14
    for rank in range(1, 14):
        for place, length in zip(_PLACE, lengths):
            ahead = place[rank] - length
            if 0 <= ahead < result[rank]:
                result[rank] = ahead
    return result


def _blocking_pairs(game: Game, need: list[int]) -> int:
    """Pairs of cards in one waste pile where the upper one is needed later than the lower one."""
    count = 0
    for pid in _WASTE:
        below: list[int] = []
        for card in game.piles[pid].cards:
            mine = need[card.rank]
            count += sum(1 for other in below if other < mine)
            below.append(mine)
    return count


def score(game: Game) -> int:
    """How promising a position looks: 10 per card cleared, less 3 per blocking pair."""
    return 10 * game.cleared - 3 * _blocking_pairs(game, needs(game))


def canonical(game: Game) -> str:
    """The position with ranks only, for one search's transposition table (see the module
    docstring); e.g. ``"1.3.2.1 |5c|d|9 s30 w1"``."""
    piles = game.piles
    lengths = ".".join(str(len(piles[pid].cards)) for pid in _FOUNDATIONS)
    waste = "|".join(sorted("".join(f"{card.rank:x}" for card in piles[pid].cards) for pid in _WASTE))
    return f"{lengths} {waste} s{len(piles['s'].cards)} w{len(piles['w'].cards)}"


def ordered_moves(game: Game) -> list[Move]:
    """Every legal move of ``game``, most promising first (see the module docstring)."""
    need = needs(game)

    def key(move: Move) -> tuple[int, int]:
        if move.dst in _FOUNDATIONS:
            return (0, 0)
        mine = need[game.piles[move.src].cards[-1].rank]
        pile = game.piles[move.dst].cards
        if not pile:
            return (2, 0)
        top = need[pile[-1].rank]
        if top >= mine:
            return (1, top - mine)
        return (3, -top)

    return sorted(game.legal_moves(), key=key)
