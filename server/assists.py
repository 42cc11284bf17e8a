"""What one move request plays: the move it names, or an assist that the server plays for the
player as ordinary moves (docs/protocol.md, "Assists").

A `MoveRequest`'s ``move`` is a move in the game's notation, or one of three words:

* ``"undo"``: take back the last move, where the race allows undo (its ``undo`` option) and the
  engine does (`engine.core.Game.can_undo`: never a move that turned a card up or dealt from the
  stock). It is a move of the log like any other.
* ``"collect"``: play every safe move (`engine.core.Game.safe_moves`), one after another.
* ``"finish"``: once the game is decided (`engine.core.Game.finishing_line`), play every move to
  the win.

A move with ``collect`` set is followed by the safe moves it makes possible (auto-collect; not
after an undo, which would put back what the player took back). Every move a request plays is
checked, stored, applied and counted like a move the player sent, with its own sequence number,
at the same race time (no animation time counts against the player). `Plan` says which moves,
one at a time, as each is played; `server.race.Race.play` plays them.
"""

from __future__ import annotations

from engine.core import BadNotation, Game, IllegalMove, Move
from server.protocol import ErrorCode, MoveRequest

__all__ = ["COLLECT", "FINISH", "UNDO", "Plan", "Refused"]

UNDO = "undo"
COLLECT = "collect"
FINISH = "finish"


class Refused(Exception):
    """A request that plays nothing: ``code`` (an `ErrorCode` or an `engine.core.IllegalCode`)
    and ``reason``, in a player's words."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class Plan:
    """The moves one request plays on ``game``: `first` (checked), then `next` after each move
    is played, until it answers None. ``undo``: whether the race allows undo.

    Raises `Refused` from `first`: ``bad_notation`` for text that is not a move, the engine's code
    for a move the rules refuse (``no_undo`` for an undo they refuse), ``not_allowed`` for an
    undo in a race without undo, ``not_decided`` for a finish before the game is decided,
    ``no_safe_move`` for a collect with nothing safe to play.
    """

    __slots__ = ("game", "request", "undo", "_line", "_collect")

    def __init__(self, game: Game, request: MoveRequest, *, undo: bool) -> None:
        self.game = game
        self.request = request
        self.undo = undo
        self._line: list[Move] = []  # the rest of a finishing line
        self._collect = False  # whether safe moves follow

    def first(self) -> Move:
        """The request's first move, checked against the game as it is now."""
        game = self.game
        text = self.request.move
        if text == FINISH:
            line = game.finishing_line()
            if not line:
                raise Refused(
                    ErrorCode.NOT_DECIDED,
                    "the game is not decided yet: finish needs every card face up and a way to clear them all",
                )
            self._line = line[1:]
            return line[0]
        if text == COLLECT:
            safe = game.safe_moves()
            if not safe:
                raise Refused(ErrorCode.NO_SAFE_MOVE, "no card can go to a foundation safely now")
            self._collect = True
            return safe[0]
        try:
            move = Move.parse(text)
            if move.action == UNDO and not self.undo:
                raise Refused(ErrorCode.NOT_ALLOWED, "this race does not allow undo")
            game.check(move)
        except BadNotation as exc:
            raise Refused(ErrorCode.BAD_NOTATION, exc.reason) from None
        except IllegalMove as exc:
            raise Refused(exc.code, exc.reason) from None
        self._collect = self.request.collect and move.action != UNDO
        return move

    def next(self) -> Move | None:
        """The next move to play, now that the one before it is played; None when the request
        has played all it plays."""
        game = self.game
        if self._line:
            move = self._line.pop(0)
            return move if game.is_legal(move) else None
        if self._collect:
            safe = game.safe_moves()
            return safe[0] if safe else None
        return None
