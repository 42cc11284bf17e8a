"""Replays of finished races, one board at a time, at bounded cost per request.

A finished race is public: its record holds the seed and every entrant's accepted moves, so any
entrant's board after any number of its moves can be rebuilt by replaying them on the deal
(docs/design.md, invariant 3: a race is its log). Replaying from the deal for every request would
cost up to ``max_moves`` applications each time, so the first request for an entrant replays its
moves once and keeps a checkpoint every `CHECKPOINT_EVERY` moves (`engine.core.Game.checkpoint`:
a position string, and the moves an undo could still take back); later requests start from the
nearest checkpoint, at most `CHECKPOINT_EVERY` - 1 moves away (plus the moves undo could take back
there, fewer than `engine.core.UNDO_DEPTH` + 16). The first request for an entrant costs one
pass over its moves (about 0.2 s of CPU for 5,000 Klondike moves), so checkpoints are kept for
the most recently used entrants up to `KEPT` checkpoints in all (about 200 bytes each, and a few
bytes a move undo could take back: about 4 MB; 127 entrants of 5,000 moves), not a fixed
number of entrants that cycling through a few large races would push out.

The record a step is read from is never rebuilt per request: a race in memory keeps its own
(`server.race.Race.kept_record`), and the records of races that left memory, read from the
store, are decoded once and kept here, the most recently used `RECORDS_KEPT`, each for at most
`RECORD_TTL_S` before the store is asked again (so that one the store let expire goes too)
(`Replays.archived`).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import msgspec

from engine.core import Audience, Game, Move
from engine.games import find_game
from server.protocol import ErrorCode, ProtocolError, RaceRecord, ReplayStep, ReplyFrame, board_of

__all__ = ["CHECKPOINT_EVERY", "KEPT", "RECORDS_KEPT", "RECORD_TTL_S", "Replays"]

CHECKPOINT_EVERY = 32
#: Checkpoints kept, over every entrant (the most recently used entrant's always).
KEPT = 20_000
#: Records of races that left memory kept decoded (up to about 1 MB each for 24 entrants of 5,000 moves).
RECORDS_KEPT = 16
#: Seconds a record read from the store is served from here before the store is asked again.
RECORD_TTL_S = 60.0


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

    def __init__(self, kept: int = KEPT, records: int = RECORDS_KEPT) -> None:
        self._tracks: OrderedDict[tuple[str, str], _Track] = OrderedDict()
        self._max = kept
        self._checkpoints = 0  # over every track kept
        self.built = 0  # entrants' tracks built so far (one pass over their moves each)
        self._records: OrderedDict[str, tuple[float, RaceRecord, ReplyFrame]] = OrderedDict()  # (until, ...)
        self._max_records = records
        self.decoded = 0  # records decoded from the store so far

    def archived(self, code: str, now: float, data: bytes | None = None) -> tuple[RaceRecord, ReplyFrame] | None:
        """The record of race ``code`` (``req`` 0) that left memory, and its frame: the one kept
        here (until `RECORD_TTL_S` after it was read, seconds on the monotonic clock ``now`` is
        read from), else decoded from ``data`` (the store's bytes,
        `server.store.Store.load_record`) and kept; None when neither has it. Raises
        msgspec.DecodeError for bad ``data``."""
        kept = self._records.get(code)
        if kept is not None and kept[0] > now:
            self._records.move_to_end(code)
            return kept[1], kept[2]
        if data is None:
            return None
        record = msgspec.msgpack.decode(data, type=RaceRecord)
        self.decoded += 1
        frame = data if record.req == 0 else msgspec.msgpack.encode(msgspec.structs.replace(record, req=0))
        self._records[code] = (now + RECORD_TTL_S, record, ReplyFrame(frame))
        self._records.move_to_end(code)
        if len(self._records) > self._max_records:
            self._records.popitem(last=False)
        return record, self._records[code][2]

    @property
    def kept(self) -> int:
        """How many entrants' checkpoints are held (`KEPT` bounds the checkpoints, not this)."""
        return len(self._tracks)

    def step(self, record: RaceRecord, player: str, step: int, req: int) -> ReplayStep:
        """Entrant ``player``'s board (as spectators see it) after ``step`` of its moves in the
        finished race ``record``, with that step's move in words. Raises ProtocolError:
        ``not_entrant`` (no such entrant), ``bad_field`` (``step`` past its last move)."""
        key = (record.race.code, player)
        track = self._tracks.get(key)
        if track is None:
            track = self._track(record, player)
            self.built += 1
            self._tracks[key] = track
            self._checkpoints += len(track.checkpoints)
            while self._checkpoints > self._max and len(self._tracks) > 1:
                self._checkpoints -= len(self._tracks.popitem(last=False)[1].checkpoints)
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
