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

Cost, measured at `Budget()` (10 s, 256 MB, one process, ``nice -n 5``) on the project's two-core
machine with a load average of 3 to 8: deals 1000 to 1019, 6 won (1001, 1005, 1008, 1013, 1016,
1017, each within 4.3 s), none proved lost, 14 unknown (best clears 12 to 23), 7.4 s a deal; deals
1020 to 1039, 13 won (each within 8.5 s), none proved lost, 7 unknown (best clears 14 to 21), 4.8 s
a deal. Each unknown deal ends on the time budget after 0.7 to 3.4 million steps (3.6 to 4.2
million at a load of 1.5, where deals 1004 and 1007 are won as well); the search tries about
400,000 steps a second of CPU (solver/base_card.py's "Speed"). With `Budget(seconds=30)` (load 7,
2.5 to 5.1 million steps) deals 1004 and 1007 are won and the other twelve unknowns of 1000 to 1019
stay unknown. Searched longer, deal 1000 is a late win (found by a restarted search after 21.6 s,
5.2 million steps and 2.0 million positions, with `Budget(seconds=300)`, load 5), while deal 1006
was still unknown after 120 s (8.2 million steps, 3.1 million positions kept, best clear 22). The
game's quoted odds (4 to 1 against) suggest most unknown deals are lost; with no bound to cut them
(solver/base_card.py says why a bound from cards that can never move does not help) their
positions are too many to search whole in 10 s. Reproduce by calling `solve_exact` on
``find_game("four_seasons")(seed)`` with `Budget()` for those seeds, one process at a time.
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
    return search(game, model(game), budget, best_first=True)
