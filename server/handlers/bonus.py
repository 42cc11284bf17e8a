"""Double or Naught's requests: a winner of a casual race stakes its points on a new round
(`double_or_naught`) and plays it (`bonus_move`); the race deals and judges every round
(`server.race.Race.double_or_naught`, `server.bonus`). A round decided changes the race's record,
so the race is handed to the archiver again (`server.archiving.Archiver.race_changed`)."""

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
    """Play the round in hand (a guess, or a new try after a tie); a round it decides reaches
    the archive too."""
    race = state.race(msg.race)
    reply = await race.double_or_naught(player.id, msg.req, msg.move)
    if reply.decided and state.archiver is not None:
        state.archiver.race_changed(race)
    session.reply(reply)
