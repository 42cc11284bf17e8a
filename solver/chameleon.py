"""An exact search for Chameleon, all cards known.

Rules: 003_08087bb95aa03446.txt ("Chameleon"), as engine/games/chameleon.py states them: a
reserve ``r0`` of thirteen cards (only its top plays), four tableau piles ``t0`` to ``t3``
building down round the corner whatever the suits, built runs moving between them as blocks of
any length; a space is filled at once from the reserve top (the engine does it after every move)
and takes any card or run once the reserve is empty; four foundations build up in suit round the
corner from the base rank (the rank of the card the deal plays to ``f0``); ``deal`` turns one
stock card onto the waste ``w``, with no redeal. Won with 52 cards on the foundations.

The model and the search are solver/base_card.py's (shared with Four Seasons): its docstring
gives the state encoding, the pruning and why it is sound, and why a search that ends without a
win proves the deal lost.

Cost, measured at `Budget()` (10 s, 256 MB, one process, ``nice -n 5``) on the project's two-core
machine with a load average of 5 to 9: deals 1000 to 1019, 7 won (1000, 1001, 1002, 1009, 1010,
1011, 1019, each within 3.3 s), none proved lost, 13 unknown (best clears 11 to 30), 7.3 s a deal;
deals 1020 to 1039, 3 won (1021, 1029, 1036), none proved lost, 17 unknown (best clears 7 to 33),
8.7 s a deal. Each unknown deal ends on the time budget after 0.4 to 3.3 million steps (2.3 to 3.8
million at a load of 1, where deal 1005 is won as well); the search tries about 400,000 steps a
second of CPU (solver/base_card.py's "Speed": about 1.4 times as many as trying every card of
every run against every top, which gives the same steps). With `Budget(seconds=30)` (load 5 to 7), of the
unknown deals 1003 to 1008 and 1019, 1005 and 1019 are won, 1003, 1006, 1007 and 1008 stay unknown
on time (4 to 11 million steps) and 1004 runs out of the 256 MB memory budget after 24 s (1.7
million positions kept). Searched longer, deal 1003 was still unknown after 300 s (32 million
steps, 6.9 million positions kept, best clear 11) and deal 1004 after 120 s (5.2 million steps, 1.5
million positions, best clear 17). The restarted searches (solver/base_card.py) win deals the fixed
order meets late or never (1010, 1019). Whether the unknown deals are late wins or losses is not
known (a low best clear proves nothing: Four Seasons deal 1000 is a win with a best clear of 22
after 10 s); a lost one cannot be proved in 10 s with no bound to cut its positions
(solver/base_card.py says why a bound from cards that can never move does not help). Reproduce
by calling `solve_exact` on ``find_game("chameleon")(seed)`` with `Budget()` for those seeds, one process at a time.

After the restarts, the search by cards dealt (solver/base_card.py, "By deals") wins deals 1012,
1033 and 1037. Seeds 1000 to 1039 at `Budget()`, two processes, nothing else running, in turns:
11 and 11 won without it, 14 and 13 with it (1005, a restart's win at about 3.4 s of CPU, is
won in three of the four runs); none is proved lost.
"""

from __future__ import annotations

from engine.core import Game
from solver.base_card import BaseCard, search
from solver.search import Budget, Verdict

__all__ = ["model", "solve_exact"]


def model(game: Game) -> BaseCard:
    """The plain-values model of ``game`` (a Chameleon `Game` at any position). Raises
    ValueError for another game or a position with no foundation card."""
    if game.key != "chameleon":
        raise ValueError(f"not a chameleon game: {game.key!r}")
    return BaseCard.from_game(game, piles=4, blocks=True, has_reserve=True)


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Chameleon, from its current position; it is not changed) exactly.
    Returns a `Verdict` as `solver.solve` does: won with a solution in the engine's notation,
    lost (proved) with the most cards that can be cleared, or unknown when a budget ran out."""
    return search(game, model(game), budget, by_deals=True)
