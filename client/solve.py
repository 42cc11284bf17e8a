"""``arena solve``: the solver (`solver.solve`) on one deal, or on many to estimate a win rate.

``arena solve GAME SEED`` prints the verdict (won with its solution, lost, or unknown within the
budget), the most cards cleared in any position reached, and the search's figures.
``arena solve GAME --deals N`` solves seeds ``--first-seed`` onwards on every core (``--jobs``)
and prints the share won with a 95% confidence interval (Wilson's, over the deals decided),
the share left unknown, and the time per deal. ``--option NAME=BOOL`` sets a rule option of the
game (``--option queen_on_king=false`` for Golf), as ``arena create`` does. ``--bot`` plays each
deal with the bot instead (`client.bot`: it sees only what a player sees, never a face-down card),
so the share won is that of a player without the solver's knowledge of the deal.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import TypedDict

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from client.arguments import bounded
from engine.core import BadNotation
from engine.games import find_game
from solver import Budget, Verdict, solve

__all__ = [
    "WinRate",
    "add_solve_arguments",
    "play_seed",
    "run_solve",
    "solve_seed",
    "solver_deals",
    "wilson",
    "win_rate",
]

_DEFAULT = Budget()


def solve_seed(game: str, seed: int, budget: Budget, options: dict[str, bool] | None = None) -> Verdict:
    """Solve the deal ``seed`` of ``game`` (a key, with rule ``options``: None for the game's
    defaults) from its start (for worker processes)."""
    return solve(find_game(game)(seed, **(options or {})), budget)


def play_seed(game: str, seed: int, budget: Budget, options: dict[str, bool] | None = None) -> Verdict:
    """Play the deal ``seed`` of ``game`` (a key, with rule ``options``) with the bot, which sees
    only the views a player sees, and report it as a verdict: ``won`` (``solution``: the bot's
    moves) or ``lost`` (the bot got stuck: not a proof that the deal is lost). ``budget`` is not
    used (the same signature as `solve_seed`, for the worker processes); ``nodes``: moves played;
    ``seconds``: wall-clock time."""
    from client.simulate import play_deal

    started = time.monotonic()
    outcome = play_deal(game, seed, options)
    return Verdict(
        game=find_game(game).key,
        seed=seed,
        result="won" if outcome.won else "lost",
        total=find_game(game).total,
        best_cleared=outcome.cleared,
        solution=list(outcome.history),
        nodes=outcome.moves,
        seconds=time.monotonic() - started,
        reason="" if outcome.won else "the bot is stuck",
    )


def rule_option(text: str) -> tuple[str, bool]:
    """An argparse ``type`` for ``--option NAME=BOOL`` (true/false, 1/0, yes/no).

    >>> rule_option("queen_on_king=false")
    ('queen_on_king', False)
    """
    name, sep, value = text.partition("=")
    value = value.strip().lower()
    if not sep or not name.strip() or value not in ("true", "false", "1", "0", "yes", "no"):
        raise argparse.ArgumentTypeError(f"an option is NAME=true or NAME=false, not {text!r}")
    return name.strip(), value in ("true", "1", "yes")


def solver_deals(
    game: str, count: int, seeds: Iterator[int], budget: Budget, jobs: int = 1, max_tries: int = 20_000
) -> list[Verdict]:
    """Deals of ``game`` (a key) that the solver wins within ``budget``, with their solutions:
    seeds taken from ``seeds`` in batches over ``jobs`` processes until ``count`` are won or
    ``max_tries`` were tried (then fewer are returned)."""
    found: list[Verdict] = []
    tried = 0
    while len(found) < count and tried < max_tries:
        batch = [next(seeds) for _ in range(min(max(jobs * 4, 1), max_tries - tried))]
        tried += len(batch)
        found += [v for v in _solve_many(game, batch, budget, jobs) if v.result == "won"]
    return found[:count]


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a share (95% for ``z`` 1.96), as (low, high) in 0..1.

    >>> [round(x, 4) for x in wilson(45, 100)]
    [0.3561, 0.5476]
    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


class WinRate(TypedDict):
    """The figures `win_rate` gives (shares in 0..1; ``interval_95`` and ``bounds`` as [low, high])."""

    deals: int
    won: int
    lost: int
    unknown: int
    share_won_of_decided: float | None
    interval_95: list[float]
    unknown_share: float
    bounds: list[float]
    seconds_per_deal: float
    won_seeds: list[int | None]


def win_rate(verdicts: list[Verdict]) -> WinRate:
    """The figures of many verdicts: deals, won, lost, unknown, the share won among the deals
    decided with its 95% interval, the bounds if every unknown were lost or won, the mean
    seconds per deal, and the seeds won."""
    won = sum(v.result == "won" for v in verdicts)
    lost = sum(v.result == "lost" for v in verdicts)
    unknown = len(verdicts) - won - lost
    low, high = wilson(won, won + lost)
    deals = len(verdicts)
    return {
        "deals": deals,
        "won": won,
        "lost": lost,
        "unknown": unknown,
        "share_won_of_decided": won / (won + lost) if won + lost else None,
        "interval_95": [low, high],
        "unknown_share": unknown / deals if deals else 0.0,
        "bounds": [won / deals if deals else 0.0, (won + unknown) / deals if deals else 1.0],
        "seconds_per_deal": sum(v.seconds for v in verdicts) / deals if deals else 0.0,
        "won_seeds": [v.seed for v in verdicts if v.result == "won"],
    }


def add_solve_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``arena solve``.

    >>> parser = argparse.ArgumentParser()
    >>> add_solve_arguments(parser)
    >>> args = parser.parse_args(["golf", "12", "--nodes", "5000"])
    >>> args.game, args.seed, args.nodes, args.deals
    ('golf', 12, 5000, None)
    """
    parser.add_argument("game", help="game key or alias")
    parser.add_argument("seed", nargs="?", type=bounded(int, low=0, high=2**63 - 1), help="the deal to solve")
    parser.add_argument(
        "--deals",
        type=bounded(int, low=1, high=10_000_000),
        help="solve this many deals instead (seeds --first-seed onwards) and estimate the win rate",
    )
    parser.add_argument(
        "--first-seed", type=bounded(int, low=0, high=2**63 - 1), default=0, help="first seed (default 0)"
    )
    parser.add_argument(
        "--jobs",
        type=bounded(int, low=1, high=1024),
        default=os.cpu_count() or 1,
        help="worker processes for --deals (default: one per core)",
    )
    parser.add_argument(
        "--nodes",
        type=bounded(int, low=1, high=10**9),
        default=_DEFAULT.nodes,
        help=f"moves tried per deal before giving up (default {_DEFAULT.nodes:,})",
    )
    parser.add_argument(
        "--seconds",
        type=bounded(float, low=0.01, high=86_400),
        default=_DEFAULT.seconds,
        help=f"seconds per deal before giving up (default {_DEFAULT.seconds:g})",
    )
    parser.add_argument(
        "--positions",
        type=bounded(int, low=1, high=10**9),
        default=_DEFAULT.positions,
        help=f"distinct positions remembered per deal (default {_DEFAULT.positions:,})",
    )
    parser.add_argument(
        "--memory-mb",
        type=bounded(float, low=0.01, high=1_048_576),
        default=_DEFAULT.memory_mb,
        help="mebibytes the search may hold per deal (positions seen and those waiting to be "
        f"expanded, as it counts them; default {_DEFAULT.memory_mb:g})",
    )
    parser.add_argument(
        "--option",
        type=rule_option,
        action="append",
        default=[],
        metavar="NAME=BOOL",
        help="a rule option of the game, e.g. queen_on_king=false (repeatable)",
    )
    parser.add_argument(
        "--bot",
        action="store_true",
        help="play each deal with the bot, which sees only face-up cards, instead of the solver",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _solve_many(
    key: str,
    seeds: range | list[int],
    budget: Budget,
    jobs: int,
    options: dict[str, bool] | None = None,
    worker: Callable[[str, int, Budget, dict[str, bool] | None], Verdict] = solve_seed,
) -> Iterator[Verdict]:
    if jobs == 1:
        for seed in seeds:
            yield worker(key, seed, budget, options)
        return
    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(
            worker, [key] * len(seeds), seeds, [budget] * len(seeds), [options] * len(seeds), chunksize=1
        )


def run_solve(args: argparse.Namespace, console: Console) -> int:
    """Run ``arena solve``; 0 on success, 2 on bad usage."""
    key = find_game(args.game).key
    budget = Budget(
        nodes=args.nodes,
        seconds=args.seconds,
        positions=args.positions,
        memory_mb=getattr(args, "memory_mb", _DEFAULT.memory_mb),
    )
    options = dict(getattr(args, "option", None) or [])
    try:
        find_game(key)(0, **options)  # a rule option the game lacks is an error before any search
    except BadNotation as exc:
        console.print(f"[red]error:[/] {escape(exc.reason)}")
        return 2
    bot = bool(getattr(args, "bot", False))
    worker = play_seed if bot else solve_seed
    if args.deals is None:
        if args.seed is None:
            console.print("[red]error:[/] give a SEED, or --deals N to estimate the win rate")
            return 2
        verdict = worker(key, args.seed, budget, options)
        if args.json:
            print(json.dumps(verdict.as_dict()))
            return 0
        said = {
            "won": "[green]won[/]" + (" by the bot" if bot else ""),
            "lost": "[red]lost[/] by the bot (it sees no face-down card)"
            if bot
            else "[red]lost[/] (proved: no reachable position is won)",
            "unknown": f"[yellow]unknown[/] ({escape(verdict.reason)})",
        }[verdict.result]
        console.print(f"{key} seed {args.seed}: {said}")
        console.print(
            f"most cleared: {verdict.best_cleared}/{verdict.total}"
            f"{' (at least: the search was cut short)' if verdict.result == 'unknown' else ''}"
        )
        if bot:
            console.print(f"the bot: {verdict.nodes:,} moves played, {verdict.seconds:.2f} s")
        else:
            console.print(
                f"search: {verdict.nodes:,} moves tried, {verdict.positions:,} positions, {verdict.seconds:.2f} s"
            )
        if verdict.solution:
            console.print(
                f"solution ({len(verdict.solution)} moves): {','.join(verdict.solution)}",
                highlight=False,
                soft_wrap=True,
            )
        return 0
    seeds = range(args.first_seed, args.first_seed + args.deals)
    verdicts: list[Verdict] = []
    columns = (
        TextColumn(f"{'the bot plays' if bot else 'solving'} {key}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[won]} won, {task.fields[unknown]} unknown"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True, disable=args.json) as progress:
        task = progress.add_task(key, total=len(seeds), won=0, unknown=0)
        for verdict in _solve_many(key, seeds, budget, args.jobs, options, worker):
            verdicts.append(verdict)
            progress.update(
                task,
                advance=1,
                won=sum(v.result == "won" for v in verdicts),
                unknown=sum(v.result == "unknown" for v in verdicts),
            )
    rate = win_rate(verdicts)
    figures = rate | {
        "game": key,
        "options": options,
        "first_seed": args.first_seed,
        "player": "bot" if bot else "solver",
        "budget": {
            "nodes": budget.nodes,
            "seconds": budget.seconds,
            "positions": budget.positions,
            "memory_mb": budget.memory_mb,
        },
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    said_options = "".join(f", {name}={str(value).lower()}" for name, value in options.items())
    table = Table(
        title=f"{key}{said_options}: {len(verdicts)} deals from seed {args.first_seed}, "
        + ("played by the bot (it sees only face-up cards)" if bot else "")
        + ("" if bot else f"budget {budget.nodes:,} moves or {budget.seconds:g} s a deal")
    )
    for column in ("won", "lost", "unknown", "won of decided", "95% interval", "unknown share", "s/deal"):
        table.add_column(column, justify="right")
    share = rate["share_won_of_decided"]
    low, high = rate["interval_95"]
    table.add_row(
        str(rate["won"]),
        str(rate["lost"]),
        str(rate["unknown"]),
        "-" if share is None else f"{share:.1%}",
        f"{low:.1%} .. {high:.1%}",
        f"{rate['unknown_share']:.1%}",
        f"{rate['seconds_per_deal']:.2f}",
    )
    console.print(table)
    return 0
