"""``arena bench engine``: the rules engine's speed, game by game, in this process.

For each game, seeded random playouts: deal ``k`` is ``Game(seed=k)`` for k = 0, 1, 2..., and a
`random.Random` seeded with ``seed`` picks each move among ``legal_moves()``, so two runs play the
same moves (only how many fit in the time differs). A playout ends when the game is won or
blocked, or after `PLAYOUT_MOVES` moves (games with unlimited redeals can go round for ever).
Figures:

* **moves/s**: moves played divided by the time spent in ``list(game.legal_moves())`` plus
  ``game.apply(move)``, the two calls the server makes per move (it checks the move and lists the
  mover's legal moves for its board);
* **legal µs** and **apply µs**: the mean time of each of the two;
* **view µs**, per audience: one ``game.view(audience)``, on every 8th position, the legal moves
  already known (as on the server, which lists them for the mover's board first);
* **board frame µs**: the spectator's view turned into its wire form and encoded
  (`server.protocol.board_of` and `server.protocol.encode`), what the server adds per frame.

>>> rows = bench_engine(["golf"], seconds=0.05, seed=1)
>>> rows[0].game, rows[0].moves > 0
('golf', True)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.table import Table

from engine.core import Audience, Game
from engine.games import GAMES, find_game
from server.protocol import board_of, encode

__all__ = ["PLAYOUT_MOVES", "EngineFigures", "bench_engine", "engine_table"]

#: Moves after which a random playout is abandoned for the next deal.
PLAYOUT_MOVES = 1000
#: One position in this many also has its views timed.
_VIEW_EVERY = 8


@dataclass(frozen=True)
class EngineFigures:
    """What `bench_engine` measured for one game: ``playouts`` deals played (``won`` of them won),
    ``moves`` moves in ``seconds`` of legal_moves() + apply(); mean µs per call of each; mean µs
    per view (``views`` timed per audience) and per encoded spectator board."""

    game: str
    playouts: int
    won: int
    moves: int
    seconds: float
    moves_per_s: float
    legal_us: float
    apply_us: float
    views: int
    view_player_us: float
    view_spectator_us: float
    board_frame_us: float


def _bench_game(cls: type[Game], seconds: float, seed: int) -> EngineFigures:
    rng = random.Random(seed)
    clock = time.perf_counter
    legal_s = apply_s = player_s = spectator_s = frame_s = 0.0
    moves = playouts = won = views = 0
    deal = 0
    while legal_s + apply_s < seconds:
        game = cls(seed=deal)
        deal += 1
        playouts += 1
        for step in range(PLAYOUT_MOVES + 1):
            started = clock()
            legal = list(game.legal_moves())
            legal_s += clock() - started
            if step % _VIEW_EVERY == 0:
                started = clock()
                game.view(Audience.PLAYER)
                player_s += clock() - started
                started = clock()
                view = game.view(Audience.SPECTATOR)
                spectator_s += clock() - started
                started = clock()
                encode(board_of(view))
                frame_s += clock() - started
                views += 1
            if not legal or step == PLAYOUT_MOVES or legal_s + apply_s >= seconds:
                break
            move = rng.choice(legal)
            started = clock()
            game.apply(move)
            apply_s += clock() - started
            moves += 1
        won += game.won
    spent = legal_s + apply_s
    return EngineFigures(
        game=cls.key,
        playouts=playouts,
        won=won,
        moves=moves,
        seconds=spent,
        moves_per_s=moves / spent if spent else 0.0,
        legal_us=legal_s / max(1, moves + playouts) * 1e6,
        apply_us=apply_s / max(1, moves) * 1e6,
        views=views,
        view_player_us=player_s / max(1, views) * 1e6,
        view_spectator_us=spectator_s / max(1, views) * 1e6,
        board_frame_us=frame_s / max(1, views) * 1e6,
    )


def bench_engine(
    games: Sequence[str] | None = None,
    *,
    seconds: float = 1.0,
    seed: int = 0,
    advance: Callable[[str], None] | None = None,
) -> list[EngineFigures]:
    """Time ``seconds`` of random playouts (legal_moves() + apply()) for each game of ``games``
    (keys or aliases; None: every game in `engine.games.GAMES`), with moves drawn by
    ``random.Random(seed)``. ``advance``: called with each game's key before it runs (progress).
    Raises `engine.games.UnknownGame` for a name no game has."""
    classes = list(GAMES) if not games else [find_game(name) for name in games]
    rows = []
    for cls in classes:
        if advance is not None:
            advance(cls.key)
        rows.append(_bench_game(cls, seconds, seed))
    return rows


def engine_table(rows: Sequence[EngineFigures]) -> Table:
    """A rich table of `EngineFigures`, one row per game."""
    table = Table(
        title="engine: random playouts, legal_moves() + apply(), one process",
        caption=f"moves/s: moves / time in legal_moves() and apply(); views timed on every "
        f"{_VIEW_EVERY}th position, legal moves already listed; board frame: the spectator "
        f"view as a wire Board, encoded.",
    )
    for header in (
        "game",
        "playouts",
        "won",
        "moves",
        "moves/s",
        "legal µs",
        "apply µs",
        "view player µs",
        "view spectator µs",
        "board frame µs",
    ):
        table.add_column(header, justify="left" if header == "game" else "right", no_wrap=header == "game")
    for row in rows:
        table.add_row(
            row.game,
            f"{row.playouts:,}",
            f"{row.won:,}",
            f"{row.moves:,}",
            f"{row.moves_per_s:,.0f}",
            f"{row.legal_us:,.1f}",
            f"{row.apply_us:,.1f}",
            f"{row.view_player_us:,.1f}",
            f"{row.view_spectator_us:,.1f}",
            f"{row.board_frame_us:,.1f}",
        )
    return table
