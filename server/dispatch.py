"""From a client's frame to its handler: the one table of requests (`ROUTES`), and the steps every
frame goes through (`carry_out`).

Each request type has a `Route`: its handler (`server.handlers`), where it is carried out (its
`Scope`: here, on the node that owns its race, or on the leader that runs the tournaments:
`server.nodes` forwards it there), and whether a server shutting down still answers it. Adding a
request is one entry here and one function in its concern's module.

The steps of a frame (`carry_out`): the connection's rate limit; `server.protocol.decode`
(every field checked; a bad frame gets an error with a code); the request type's budget, for
the costly ones (`BUDGETS`: per connection and per address, refused with ``rate_limited``);
forwarded to the node that serves
it, if another; then its handler. A refusal is answered with its code: a move's as a
`MoveResult`, anything else as an `Error` with the request's ``req``.
"""

from __future__ import annotations

import enum
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from msgspec import Struct

from server.addresses import address_key
from server.handlers import boards, bonus, claims, daily, friends, organisers, passkeys, players, races, tournaments
from server.logs import fields
from server.protocol import (
    BonusMove,
    CancelTournament,
    Challenge,
    Claim,
    ClientMessage,
    CreateRace,
    CreateTournament,
    DailyCalendar,
    Decline,
    DoubleOrNaught,
    Error,
    ErrorCode,
    FairPlayRequest,
    Follow,
    FollowTournament,
    ForgetMe,
    Friends,
    GetDaily,
    GetProfile,
    GetRecord,
    GrantOrganiser,
    Hello,
    History,
    JoinRace,
    Leaderboard,
    ListRaces,
    ListTournaments,
    Login,
    MoveRequest,
    MoveResult,
    OpenDeal,
    PasskeyBegin,
    PasskeyFinish,
    PlayDaily,
    ProtocolError,
    Redeem,
    RegisterTournament,
    Rematch,
    Rename,
    Replay,
    Resign,
    ReviewEntry,
    StartRace,
    Sync,
    TransferCodeRequest,
    Unfollow,
    Watch,
    WithdrawTournament,
    decode,
    request_number,
)
from server.state import ServerState
from server.store import StaleRace, StoreUnavailable
from server.transport.session import Session

__all__ = ["BUDGETS", "ROUTES", "Budget", "Route", "Scope", "carry_out", "receive", "requests_in"]

log = logging.getLogger("arena.server")
_requests_log = logging.getLogger("arena.requests")  # refused requests (rate-limited per error code)


class Scope(enum.Enum):
    """Where a request is carried out among several nodes (`server.nodes`)."""

    #: On the node the client is connected to.
    HERE = "here"
    #: On the node that owns the request's race (``race`` field).
    RACE = "race"
    #: On the leader, which runs every tournament.
    TOURNAMENTS = "tournaments"


Handler = Callable[..., Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Route:
    """A request type's handler, its `Scope`, and whether a server shutting down still carries it
    out (``while_draining``: what a client needs to be itself again and read records)."""

    handler: Handler
    scope: Scope = Scope.HERE
    while_draining: bool = False


#: The requests a connection may send before hello (their handlers take no player): each makes
#: the connection a player.
_BEFORE_HELLO = (Hello, Login, Redeem, PasskeyBegin, PasskeyFinish)

#: Every request a client may send, and where it goes.
ROUTES: dict[type[Struct], Route] = {
    Hello: Route(players.hello, while_draining=True),
    Rename: Route(players.rename),
    Claim: Route(claims.claim),
    Login: Route(claims.login, while_draining=True),
    TransferCodeRequest: Route(claims.transfer_code),
    Redeem: Route(claims.redeem, while_draining=True),
    ForgetMe: Route(claims.forget_me),
    PasskeyBegin: Route(passkeys.passkey_begin, while_draining=True),
    PasskeyFinish: Route(passkeys.passkey_finish, while_draining=True),
    GrantOrganiser: Route(organisers.grant_organiser),
    History: Route(players.history),
    Leaderboard: Route(boards.leaderboard),
    GetProfile: Route(boards.profile),
    Follow: Route(friends.follow),
    Unfollow: Route(friends.unfollow),
    Friends: Route(friends.friends),
    Challenge: Route(friends.challenge),
    Decline: Route(friends.decline),
    CreateRace: Route(races.create),
    ListRaces: Route(races.list_races),
    JoinRace: Route(races.join, Scope.RACE),
    StartRace: Route(races.start, Scope.RACE),
    MoveRequest: Route(races.move, Scope.RACE),
    Resign: Route(races.resign, Scope.RACE),
    Watch: Route(races.watch, Scope.RACE),
    Sync: Route(races.sync, Scope.RACE, while_draining=True),
    GetRecord: Route(races.get_record, Scope.RACE, while_draining=True),
    Rematch: Route(races.rematch, Scope.RACE),
    Replay: Route(races.replay, Scope.RACE, while_draining=True),
    DoubleOrNaught: Route(bonus.double_or_naught, Scope.RACE),
    BonusMove: Route(bonus.bonus_move, Scope.RACE),
    CreateTournament: Route(tournaments.create, Scope.TOURNAMENTS),
    CancelTournament: Route(tournaments.cancel, Scope.TOURNAMENTS),
    ListTournaments: Route(tournaments.list_tournaments, Scope.TOURNAMENTS),
    FollowTournament: Route(tournaments.follow, Scope.TOURNAMENTS),
    RegisterTournament: Route(tournaments.register, Scope.TOURNAMENTS),
    WithdrawTournament: Route(tournaments.withdraw, Scope.TOURNAMENTS),
    OpenDeal: Route(tournaments.open_deal, Scope.TOURNAMENTS),
    FairPlayRequest: Route(tournaments.fair_play_report, Scope.TOURNAMENTS, while_draining=True),
    ReviewEntry: Route(tournaments.review_entry, Scope.TOURNAMENTS),
    # the daily book lives with the tournaments, on the leader: one book for the whole server
    PlayDaily: Route(daily.play_daily, Scope.TOURNAMENTS),
    GetDaily: Route(daily.get_daily, Scope.TOURNAMENTS, while_draining=True),
    DailyCalendar: Route(daily.daily_calendar, Scope.TOURNAMENTS, while_draining=True),
}


@dataclass(frozen=True, slots=True)
class Budget:
    """A costly request type's budget: ``rate``, the `server.config.ServerConfig` field that
    gives its requests per second per connection (a burst of ``costly_burst_s`` seconds' worth,
    an address ``costly_per_address`` connections' worth); ``applies``: which requests of the
    type count (None: all)."""

    rate: str
    applies: Callable[[Struct], bool] | None = None


def _winnable_secret(message: Struct) -> bool:
    """A create_race that has the solver look for a winnable secret deal."""
    return isinstance(message, CreateRace) and message.winnable and message.seed is None and not message.seed_public


#: The request types that cost much more than a frame (a record built or sent, a snapshot, a
#: replayed board, a search by the solver), each with its own budget beside the frame rate.
BUDGETS: dict[type[Struct], Budget] = {
    Replay: Budget("replay_per_s"),
    Watch: Budget("watch_per_s"),
    GetRecord: Budget("get_record_per_s"),
    History: Budget("history_per_s"),
    Leaderboard: Budget("history_per_s"),
    GetProfile: Budget("history_per_s"),
    Claim: Budget("password_per_s"),  # (an argon2id hash each: about 0.1 s of a thread)
    Login: Budget("password_per_s"),
    Redeem: Budget("password_per_s"),
    PasskeyBegin: Budget("history_per_s"),  # (a signature checked at the finish: cheap beside a hash)
    PasskeyFinish: Budget("history_per_s"),
    TransferCodeRequest: Budget("history_per_s"),
    Follow: Budget("history_per_s"),  # (each reads the archive)
    Unfollow: Budget("history_per_s"),
    Friends: Budget("history_per_s"),
    Sync: Budget("sync_per_s"),
    CreateRace: Budget("winnable_per_s", _winnable_secret),
}

_DRAINING = (
    "the server is shutting down: it answers only "
    + ", ".join(str(t.__struct_config__.tag) for t, r in ROUTES.items() if r.while_draining)
    + " until it closes the connection"
)


def requests_in(scope: Scope) -> tuple[type, ...]:
    """The request types carried out in ``scope``."""
    return tuple(t for t, route in ROUTES.items() if route.scope is scope)


async def carry_out(state: ServerState, session: Session, frame: bytes | str) -> None:
    """Carry out one frame from ``session``'s client, unless the connection is closing (its
    frames are read only so that its close is seen) or over its rate (a strike, and the
    connection closed after ``max_strikes``)."""
    if session.closing:
        return
    if not session.allow():
        state.tally.refused[ErrorCode.RATE_LIMITED] += 1  # counted, not logged (the close is)
        session.reply(
            Error(code=ErrorCode.RATE_LIMITED, reason="too many frames: slow down", req=request_number(frame))
        )
        if session.strikes > state.config.max_strikes:
            session.strike_out()
        return
    await receive(state, session, frame)


async def receive(state: ServerState, session: Session, frame: bytes | str) -> None:
    """Decode one frame and carry it out here or on the node that serves it; answer a refusal
    with its code. A store that cannot be reached refuses the request with ``unavailable``.

    A race the store says is no longer this node's (`server.store.StaleRace`: another node took
    it over while this one was stalled or cut off, or its log moved on) leaves this node's
    memory at once, and the request is carried out again, once, where the race is served now
    (forwarded to its owner, or rebuilt here from the store); if that is not possible (a request
    another node forwarded here, or no node link) it is refused with ``moved``, and the client
    sends it again at once. Nothing was written for it, so carrying it out again is safe."""
    message: ClientMessage | None = None
    state.busy += 1
    try:
        try:
            message = decode(frame)
            requests = state.tally.requests
            kind = type(message)
            requests[kind] = requests.get(kind, 0) + 1
            if kind in BUDGETS and not session.remote:  # (a forwarded request was counted where it came in)
                _spend(state, session, message)
            try:
                await _carry(state, session, frame, message)
            except StaleRace as exc:  # another node took the race over, or its log moved on: let it go
                log.warning(
                    "%s: it leaves this node's memory", exc, extra=fields("race_lost", race=exc.code, reason=str(exc))
                )
                await state.let_go(exc.code)
                if state.link is None or session.remote or state.draining:
                    raise ProtocolError(
                        ErrorCode.MOVED, f"race {exc.code} moved to another node: send it again now"
                    ) from exc
                await _carry(state, session, frame, message)  # where it is served now
        except StaleRace as exc:  # (again: the race changed hands twice in one request)
            await state.let_go(exc.code)
            raise ProtocolError(ErrorCode.MOVED, f"race {exc.code} moved to another node: send it again now") from exc
        except StoreUnavailable as exc:
            log.warning("store unavailable: %s", exc)
            raise ProtocolError(
                ErrorCode.UNAVAILABLE, "the server cannot reach its store: try again in a moment"
            ) from exc
    except ProtocolError as exc:
        _refused(state, session, message, exc)
        if isinstance(message, MoveRequest):
            session.reply(
                MoveResult(
                    race=message.race, seq=message.seq, move=message.move, ok=False, code=exc.code, reason=exc.reason
                )
            )
        else:
            req = getattr(message, "req", None) if message is not None else exc.req
            session.reply(
                Error(
                    code=exc.code,
                    reason=exc.reason,
                    req=req,
                    opens_at_ms=exc.opens_at_ms,
                    retry_after_s=exc.retry_after_s,
                )
            )
    finally:
        state.busy -= 1


async def _carry(state: ServerState, session: Session, frame: bytes | str, message: ClientMessage) -> None:
    """Carry out ``message`` (decoded from ``frame``) here, or forward it to the node that serves
    it. Raises ProtocolError, `server.store.StoreUnavailable` (`StaleRace` among them)."""
    link = state.link
    if link is not None and not state.draining:
        owner = await link.route(session, message)
        # another node serves it, and answers the client through us (False: that node is gone
        # and this one took the race over: it carries the request out itself)
        if owner is not None and await link.forward(
            owner, session, frame if isinstance(frame, bytes) else frame.encode(), message
        ):
            return
    kind = type(message)
    route = ROUTES[kind]
    if state.draining and not route.while_draining:
        raise ProtocolError(ErrorCode.UNAVAILABLE, _DRAINING)
    if kind in _BEFORE_HELLO:
        await route.handler(state, session, message)
        return
    player = session.player
    if player is None:
        raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello first")
    await route.handler(state, session, player, message)


def _spend(state: ServerState, session: Session, message: Struct) -> None:
    """Spend one of the request type's budget (`BUDGETS`) on the connection and its address;
    raises ProtocolError(rate_limited), naming the request type, when either has none left."""
    budget = BUDGETS[type(message)]
    if budget.applies is not None and not budget.applies(message):
        return
    cfg = state.config
    rate = float(getattr(cfg, budget.rate))
    burst = max(2, math.floor(rate * cfg.costly_burst_s))
    kind = str(type(message).__struct_config__.tag)
    short = state.budgets.take(
        session.budgets, address_key(session.address), budget.rate, rate, burst, time.monotonic()
    )
    if short is None:
        return
    what = "create_race for a winnable secret deal" if budget.rate == "winnable_per_s" else kind
    if short == "connection":
        limit = f"{rate:g} a second from one connection (bursts of {burst})"
    else:
        limit = f"{rate * cfg.costly_per_address:g} a second from one address, over all its connections"
    raise ProtocolError(ErrorCode.RATE_LIMITED, f"too many {what} requests: at most {limit}; slow down")


def _refused(state: ServerState, session: Session, message: ClientMessage | None, exc: ProtocolError) -> None:
    """Count a refusal by its code and log it (a line per code at most every ``log_repeat_s``).
    A refused move counts among the moves refused; the others among the requests refused. The
    reason never quotes a token."""
    if isinstance(message, MoveRequest):
        state.tally.moves_refused[exc.code] += 1
    else:
        state.tally.refused[exc.code] += 1
    kind = type(message).__struct_config__.tag if message is not None else None
    player = session.player
    _requests_log.info(
        "refused %s: %s",
        kind or "a frame",
        exc.reason,
        extra=fields(
            "request_refused",
            code=exc.code,
            type=kind,
            remote=session.address,
            player=player.id if player else None,
            race=getattr(message, "race", None),
        ),
    )
