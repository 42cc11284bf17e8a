"""Double or Naught's requests: a winner of a casual race stakes its points on a new round
(`double_or_naught`) and plays it (`bonus_move`); the race deals and judges every round
(`server.race.Race.double_or_naught`, `server.bonus`)."""

from __future__ import annotations

from server.players import Player
from server.protocol import BonusMove, DoubleOrNaught
from server.state import ServerState
from server.transport.session import Session

__all__ = ["bonus_move", "double_or_naught"]


async def double_or_naught(state: ServerState, session: Session, player: Player, msg: DoubleOrNaught) -> None:
    """Stake the player's points on a new round, dealt now."""
    session.reply(await state.race(msg.race).double_or_naught(player.id, msg.req))


async def bonus_move(state: ServerState, session: Session, player: Player, msg: BonusMove) -> None:
    """Play the round in hand (a guess, or a new try after a tie)."""
    session.reply(await state.race(msg.race).double_or_naught(player.id, msg.req, msg.move))
