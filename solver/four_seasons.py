"""An exact search for Four Seasons (Corner Card), all cards known.

Rules: 003_08087bb95aa03446.txt ("Four Seasons"), as engine/games/four_seasons.py states them:
five tableau piles ``t0`` to ``t4`` building down round the corner whatever the suits, one card
at a time, a space taking any card; four foundations building up in suit round the corner from
the base rank (the rank of the card the deal plays to ``f0``; any empty foundation takes a card
of that rank); ``deal`` turns one stock card onto the waste ``w``, with no redeal. Won with 52
cards on the foundations.

The model and the search are solver/base_card.py's (shared with Chameleon): its docstring gives
the state encoding, the pruning and why it is sound, and why a search that ends without a win
proves the deal lost. Here the game has no reserve and every move takes one card.

Cost, measured on deals 1000 to 1049 at `Budget()` (10 s, one process, ``nice -n 5``, on the
project's two-core machine with a load average of 6 to 8 from other work): 16 won (32%, each
within 5 s), none proved lost, 34 unknown (best clears 8 to 33 cards); 6.9 s a deal on average,
9.8 s median, 10.0 s at most; 211,000 positions kept on average. The unknown deals end on the
time budget; some are wins found later (deal 1001: won in 22 s after 1.2 million positions kept,
best clear 15 at 10 s), and any lost ones are out of reach: their positions (mostly arrangements
of the tableau, some 45 for each set of talon cards played) are too many to search whole in 10 s
with no bound to cut them. Reproduce by calling
`solve_exact` on ``find_game("four_seasons")(seed)`` for those seeds.
"""

from __future__ import annotations

from engine.core import Game
from solver.base_card import BaseCard, search
from solver.search import Budget, Verdict

__all__ = ["model", "solve_exact"]


def model(game: Game) -> BaseCard:
    """The plain-values model of ``game`` (a Four Seasons `Game` at any position). Raises
    ValueError for another game or a position with no foundation card."""
    if game.key != "four_seasons":
        raise ValueError(f"not a four_seasons game: {game.key!r}")
    return BaseCard.from_game(game, piles=5, blocks=False, has_reserve=False)


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Four Seasons, from its current position; it is not changed) exactly.
    Returns a `Verdict` as `solver.solve` does: won with a solution in the engine's notation,
    lost (proved) with the most cards that can be cleared, or unknown when a budget ran out."""
    return search(game, model(game), budget)
