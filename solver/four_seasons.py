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

Cost, measured at `Budget()` (10 s, 256 MB) on the project's two-core machine with nothing else
running (``arena solve four_seasons --deals 20 --first-seed 1000 --jobs 2``): deals 1000 to 1019,
11 won (1004, 1006, 1011 and 1015 by the best-first search within 0.1 s), none proved lost, 9
unknown (1000, 1002, 1003, 1009, 1010, 1012, 1014, 1018, 1019; best clears 11 to 23), 5.0 s a
deal; deals 1020 to 1039, 13 won, none proved lost, 7 unknown (1023, 1024, 1026, 1027, 1036,
1037, 1039), 4.3 s a deal. The search tries about 400,000 steps a second of CPU (solver/base_card.py's
"Speed"). Searched longer, deal 1000 is a late win (found by a restarted search after 21.6 s, 5.2
million steps and 2.0 million positions, with `Budget(seconds=300)`, load 5). The best-first
search wins none of the unknown deals of 1000 to 1019 within 400,000 steps, nor within 60,000
with weights for spaces of 0 to 40 and for buried cards of 0 to 10 or the latest met first among
equals.
With no bound to cut them (solver/base_card.py says why a bound from cards that can never move
does not help) their positions are too many to search whole in 10 s. Reproduce by calling
`solve_exact` on ``find_game("four_seasons")(seed)`` with `Budget()` for those seeds, one process
at a time.
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
