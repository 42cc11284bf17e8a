"""Double or Naught: the bonus round a winner of a casual race may play on the race's points.

Rules text: the end of 003_08087bb95aa03446.txt; the engine game is
`engine.games.double_or_naught.DoubleOrNaught`. A race gives each entrant points equal to its
cards cleared. Once a casual race (not a tournament's deal) has finished, an entrant that won it
may stake those points: a round is a fresh Double or Naught game with a secret seed, committed to
when the round is dealt and revealed when it is decided. A higher card doubles the points (and the
winner may stake them again), a lower one loses them all (no further round), a tie lets the player
try again (``deal``). The points show in the race's standings.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from engine.core import Audience, BadNotation, IllegalMove, Move
from engine.deal import commitment_of, random_seed
from engine.games.double_or_naught import DoubleOrNaught
from server.protocol import Bonus, BonusRecord, ErrorCode, ProtocolError, board_of

__all__ = ["BonusRound", "open_round", "play_round"]


@dataclass(eq=False)
class BonusRound:
    """One round: the stake (points), its own game and seed, the moves played, the outcome."""

    stake: int
    seed: int
    salt: str
    moves: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.commitment = commitment_of(self.seed, self.salt)
        self.game = DoubleOrNaught(self.seed)

    @property
    def decided(self) -> bool:
        """True once the round can change nothing more: won, lost, or out of tries."""
        return self.game.outcome in ("win", "loss") or self.game.over

    def reply(self, req: int, race: str, number: int, points: int) -> Bonus:
        """The round as its player may see it (the seed only once decided)."""
        decided = self.decided
        return Bonus(
            req=req,
            race=race,
            round=number,
            stake=self.stake,
            points=points,
            outcome=self.game.outcome,
            decided=decided,
            board=board_of(self.game.view(Audience.PLAYER)),
            commitment=self.commitment,
            seed=self.seed if decided else None,
            salt=self.salt if decided else None,
        )

    def record(self) -> BonusRecord:
        """What `arena verify` needs to check the round."""
        return BonusRecord(
            stake=self.stake,
            seed=self.seed,
            salt=self.salt,
            commitment=self.commitment,
            moves=list(self.moves),
            outcome=self.game.outcome,
        )


def open_round(points: int, rounds: list[BonusRound], *, won: bool, casual: bool) -> BonusRound:
    """Deal a new round staking ``points``; raises ProtocolError (not_allowed) unless the entrant
    won a casual race, has points, and its last round (if any) was won."""
    if not casual:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "Double or Naught is for casual races, not tournaments")
    if not won:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "only a winner of the race may play Double or Naught")
    if rounds and not rounds[-1].decided:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "finish the round in play first")
    if points <= 0 or (rounds and rounds[-1].game.outcome != "win"):
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "no points left to stake")
    return BonusRound(stake=points, seed=random_seed(), salt=secrets.token_hex(16))


def play_round(round_: BonusRound, notation: str, points: int) -> int:
    """Play a move (``guess r2``, or ``deal`` after a tie) in the round; return the points after
    it (doubled on a win, 0 on a loss). Raises ProtocolError (not_allowed, bad_notation, or the
    engine's rule code)."""
    if round_.decided:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "this round is decided: ask for a new one")
    try:
        move = Move.parse(notation)
        round_.game.apply(move)
    except BadNotation as exc:
        raise ProtocolError(ErrorCode.BAD_NOTATION, exc.reason) from None
    except IllegalMove as exc:
        raise ProtocolError(exc.code, exc.reason) from None  # type: ignore[arg-type]
    round_.moves.append(str(move))
    if round_.game.outcome == "win":
        return round_.stake * 2
    if round_.game.outcome == "loss":
        return 0
    return points
