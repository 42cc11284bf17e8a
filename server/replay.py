"""Replays of finished races, one board at a time, at bounded cost per request.

A finished race is public: its record holds the seed and every entrant's accepted moves, so any
entrant's board after any number of its moves can be rebuilt by replaying them on the deal
(docs/design.md, invariant 3: a race is its log). Replaying from the deal for every request would
cost up to ``max_moves`` applications each time, so the first request for an entrant replays its
moves once and keeps a checkpoint every `CHECKPOINT_EVERY` moves (`engine.core.Game.checkpoint`:
a position string, and the moves an undo could still take back); later requests start from the
nearest checkpoint, at most `CHECKPOINT_EVERY` - 1 moves away (plus the moves undo could take back
there, fewer than `engine.core.UNDO_DEPTH` + 16). The most recently used `KEPT` entrants'
checkpoints are kept (about 200 bytes a checkpoint, and a few bytes a move undo could take back).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import msgspec

from engine.core import Audience, Game, Move
from engine.games import find_game
from server.protocol import ErrorCode, ProtocolError, RaceRecord, ReplayStep, board_of

__all__ = ["CHECKPOINT_EVERY", "KEPT", "Replays"]

CHECKPOINT_EVERY = 32
KEPT = 64


@dataclass(frozen=True, slots=True)
class _Track:
    """One entrant's replay: its moves, their race times (ms) and positions every CHECKPOINT_EVERY."""

    moves: list[str]
    times_ms: list[int]
    checkpoints: list[tuple[str, tuple[Move, ...]]]


class Replays:
    """Boards of finished races' entrants, step by step (see the module docstring).

    >>> Replays().kept
    0
    """

    def __init__(self, kept: int = KEPT) -> None:
        self._tracks: OrderedDict[tuple[str, str], _Track] = OrderedDict()
        self._max = kept

    @property
    def kept(self) -> int:
        """How many entrants' checkpoints are held."""
        return len(self._tracks)

    def step(self, record: RaceRecord, player: str, step: int, req: int) -> ReplayStep:
        """Entrant ``player``'s board (as spectators see it) after ``step`` of its moves in the
        finished race ``record``, with that step's move in words. Raises ProtocolError:
        ``not_entrant`` (no such entrant), ``bad_field`` (``step`` past its last move)."""
        key = (record.race.code, player)
        track = self._tracks.get(key)
        if track is None:
            track = self._track(record, player)
            self._tracks[key] = track
            if len(self._tracks) > self._max:
                self._tracks.popitem(last=False)
        else:
            self._tracks.move_to_end(key)
        if step > len(track.moves):
            raise ProtocolError(
                ErrorCode.BAD_FIELD, f"step {step} is past {player}'s last move (it made {len(track.moves)})", req
            )
        before = step - 1 if step else 0  # the board the step's move was played on
        game = Game.from_checkpoint(track.checkpoints[before // CHECKPOINT_EVERY])
        for move in track.moves[before - before % CHECKPOINT_EVERY : before]:
            game.apply(move)
        said = ""
        if step:
            said = game.describe(track.moves[step - 1])
            game.apply(track.moves[step - 1])
        board = msgspec.structs.replace(board_of(game.view(Audience.SPECTATOR)), moves=step)
        return ReplayStep(
            req=req,
            race=record.race.code,
            player=player,
            step=step,
            steps=len(track.moves),
            move=track.moves[step - 1] if step else "",
            time_ms=track.times_ms[step - 1] if step else 0,
            board=board,
            said=said,
        )

    @staticmethod
    def _track(record: RaceRecord, player: str) -> _Track:
        entrant = next((e for e in record.entrants if e.player == player), None)
        if entrant is None:
            raise ProtocolError(ErrorCode.NOT_ENTRANT, f"race {record.race.code} has no entrant {player!r}")
        game = find_game(record.race.game)(record.seed, **record.race.options)
        checkpoints = [game.checkpoint()]
        for done, move in enumerate(entrant.moves, 1):
            game.apply(move)
            if done % CHECKPOINT_EVERY == 0:
                checkpoints.append(game.checkpoint())
        return _Track(list(entrant.moves), list(entrant.times_ms), checkpoints)
