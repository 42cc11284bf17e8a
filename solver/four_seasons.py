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

Cost, measured at `Budget()` (10 s, 256 MB, one process, ``nice -n 5``, on the project's two-core
machine with a load average of about 1.5): deals 1000 to 1019, 8 won (1001, 1004, 1005, 1007,
1008, 1013, 1016, 1017, each within 3.2 s), none proved lost, 12 unknown (best clears 12 to 25),
6.4 s a deal on average; 3.6 to 4.2 million steps and 1.1 to 1.6 million positions kept a deal
left unknown, each ending on the time budget. The game's quoted odds (4 to 1 against) suggest most
of those are lost, and those are out of reach: deals 1000, 1006 and 1012 were still unknown after
30 s and 4 million positions (best clear 22), and with no bound to cut them their positions
(mostly arrangements of the tableau, each tableau move reversible) are too many to search whole.
Reproduce by calling `solve_exact` on ``find_game("four_seasons")(seed)`` with `Budget()` for
those seeds.
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
