"""``arena simulate``: the bot plays many seeded deals of one game offline; how often does it win?

The bot plays exactly as it does over the wire (it sees only views), so the figures describe the
bot, not the game: a better player wins more. The rules texts quote their own odds ("25 to 1":
25 losses for each win), printed beside for comparison.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from client.bot import play_game
from engine.games import find_game

__all__ = ["DealOutcome", "Simulation", "odds_share", "play_deal", "simulate", "winning_deals"]


@dataclass(frozen=True)
class DealOutcome:
    """One deal played by the bot: its seed, cards cleared, whether it won, moves played."""

    seed: int
    cleared: int
    won: bool
    moves: int
    history: tuple[str, ...] = ()


@dataclass(frozen=True)
class Simulation:
    """The outcomes of ``deals`` seeded deals of one game (seeds ``first_seed`` onwards)."""

    game: str
    options: dict[str, bool]
    outcomes: tuple[DealOutcome, ...]
    total: int

    @property
    def wins(self) -> int:
        """Deals won."""
        return sum(o.won for o in self.outcomes)

    @property
    def win_share(self) -> float:
        """Wins as a share of deals played, 0.0 to 1.0."""
        return self.wins / len(self.outcomes) if self.outcomes else 0.0

    @property
    def mean_cleared(self) -> float:
        """Cards cleared per deal, on average."""
        return sum(o.cleared for o in self.outcomes) / len(self.outcomes) if self.outcomes else 0.0


def odds_share(quoted: str) -> float | None:
    """The win share that odds like "25 to 1" stand for (1 / 26); None if there are none."""
    try:
        against, _, for_ = quoted.partition(" to ")
        return int(for_) / (int(against) + int(for_))
    except ValueError:
        return None


def play_deal(game: str, seed: int, options: dict[str, bool] | None = None, max_moves: int = 5000) -> DealOutcome:
    """Play one deal of ``game`` with the bot, offline, and report how it went."""
    board = find_game(game)(seed, **(options or {}))
    memory = play_game(board, max_moves=max_moves)
    return DealOutcome(
        seed=seed,
        cleared=board.cleared,
        won=board.won,
        moves=memory.moves,
        history=tuple(str(m) for m in board.history) if board.won else (),
    )


def _play(args: tuple[str, int, dict[str, bool]]) -> DealOutcome:
    return play_deal(*args)


def simulate(
    game: str,
    deals: int,
    *,
    first_seed: int = 0,
    options: dict[str, bool] | None = None,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Simulation:
    """Play seeds ``first_seed`` .. ``first_seed + deals - 1`` of ``game`` with the bot.

    ``workers``: processes to use (default: one per CPU core); ``progress(n)`` is called as deals
    finish. Raises `engine.games.UnknownGame` for an unknown game.
    """
    game_cls = find_game(game)
    jobs = [(game_cls.key, seed, dict(options or {})) for seed in range(first_seed, first_seed + deals)]
    workers = workers or os.cpu_count() or 1
    outcomes: list[DealOutcome] = []
    if workers == 1:
        results = map(_play, jobs)
        for outcome in results:
            outcomes.append(outcome)
            if progress:
                progress(1)
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for outcome in pool.imap_unordered(_play, jobs, chunksize=8):
                outcomes.append(outcome)
                if progress:
                    progress(1)
    outcomes.sort(key=lambda o: o.seed)
    return Simulation(game=game_cls.key, options=dict(options or {}), outcomes=tuple(outcomes), total=game_cls.total)


def winning_deals(
    game: str,
    count: int,
    *,
    first_seed: int = 0,
    max_tries: int = 20_000,
    options: dict[str, bool] | None = None,
    seeds: Iterable[int] | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[DealOutcome]:
    """Deals the bot wins, with their winning move lists: seeds from ``first_seed`` upwards (or
    taken from ``seeds``, e.g. fresh secret ones for a private catalog) until ``count`` are won or
    ``max_tries`` seeds were played (then fewer are returned). ``progress(n)``: called with the
    number of deals won so far after each win."""
    found: list[DealOutcome] = []
    tried = seeds if seeds is not None else itertools.count(first_seed)
    for seed in itertools.islice(tried, max_tries):
        if len(found) >= count:
            break
        outcome = play_deal(game, seed, options)
        if outcome.won:
            found.append(outcome)
            if progress:
                progress(len(found))
    return found
