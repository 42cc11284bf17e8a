"""What the search knows about Friday 13: suits never matter, and an empty foundation must be started.

Rules: 001_1b1f3c1dc9fc716f.txt, as engine/games/friday_13.py states them: thirteen foundations
labelled Jack, Queen, King, Ace, Two ... Ten (``f0`` to ``f12``), the first four started at the
deal; an empty foundation takes only a card of its label's rank, once every foundation to its
left is started; any card goes on a foundation whose top is one rank lower, round the corner;
the stock is turned one card at a time onto the waste, with one redeal. A win needs every card
home and every foundation started.

Three pieces of knowledge:

* `canonical`: no rule looks at a suit or under a foundation's top card, and started
  foundations differ only by their top rank (foundations are started left to right, so how many
  are started says which). A position is written as that count, the multiset of top ranks, the
  ranks of the stock and of the waste in order, and the redeals used.
* `ordered_moves`: the waste card onto its empty foundation first (the rules text's own advice:
  every foundation must be started, and all four cards of a rank may otherwise be built on other
  foundations), then onto a started foundation, then deal, then redeal. Two moves of the waste
  card onto foundations with the same top rank lead to one position, so only the first is kept:
  a merge of equal positions, not a pruning.
* `score`: cards cleared and foundations started; a position where an empty foundation's rank
  has no card left outside the foundations can never be won and comes last.

No move is left out, so a search that runs out of positions still proves a deal lost.
"""

from __future__ import annotations

from engine.core import Game, Move

__all__ = ["canonical", "ordered_moves", "score"]

#: Foundations ``f0`` to ``f12`` and the rank each is labelled with (Jack, Queen, King, Ace, 2 ... 10).
_FOUNDATIONS = tuple(f"f{i}" for i in range(13))
_LABELS = (11, 12, 13, *range(1, 11))
#: What a position that can never be won loses from its score (more than any clear is worth).
_DEAD = 10_000


def _started(game: Game) -> int:
    return sum(1 for pid in _FOUNDATIONS if game.piles[pid].cards)


def canonical(game: Game) -> str:
    """The position as ranks, for one search's transposition table (see the module docstring);
    e.g. ``"5 1bcdd s:7a2... w:93 r0"``."""
    piles = game.piles
    tops = "".join(sorted(f"{piles[pid].cards[-1].rank:x}" for pid in _FOUNDATIONS if piles[pid].cards))
    stock = "".join(f"{card.rank:x}" for card in piles["s"].cards)
    waste = "".join(f"{card.rank:x}" for card in piles["w"].cards)
    return f"{_started(game)} {tops} s:{stock} w:{waste} r{game.redeals}"  # type: ignore[attr-defined]


def _dead(game: Game) -> bool:
    """Whether some empty foundation's rank has no card left in the stock or the waste."""
    piles = game.piles
    loose = {card.rank for pid in ("s", "w") for card in piles[pid].cards}
    return any(not piles[pid].cards and label not in loose for pid, label in zip(_FOUNDATIONS, _LABELS))


def score(game: Game) -> int:
    """How promising a position looks: 4 per card cleared and 4 per foundation started; a
    position that can never be won (`_dead`) loses `_DEAD`."""
    return 4 * game.cleared + 4 * _started(game) - (_DEAD if _dead(game) else 0)


def ordered_moves(game: Game) -> list[Move]:
    """The legal moves of ``game`` that lead to distinct positions, most promising first (see
    the module docstring)."""
    starts, builds, rest = [], [], []
    tops: set[int] = set()
    for move in game.legal_moves():
        if not move.is_transfer:
            rest.append(move)
            continue
        pile = game.piles[move.dst].cards
        if not pile:
            starts.append(move)
        elif pile[-1].rank not in tops:
            tops.add(pile[-1].rank)
            builds.append(move)
    rest.sort(key=lambda move: move.action == "redeal")
    return starts + builds + rest
