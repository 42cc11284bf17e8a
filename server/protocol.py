"""The wire protocol, version 1: every message type, its fields and limits, encode/decode, error codes.

Frames are binary websocket messages holding one MessagePack map each, encoded and decoded with
msgspec. Every map has a ``type`` field naming the message; unknown fields are refused. Client
requests that expect a reply carry ``req``, a number the client picks, which the reply (or the
error) echoes. docs/protocol.md describes every message and the order they come in. This module
never touches a socket.

>>> msg = decode(encode(Hello(name="ada")))
>>> msg.name, msg.protocol
('ada', 1)
>>> try:
...     decode(b"\\xc1")
... except ProtocolError as exc:
...     print(exc.code)
bad_frame
"""

from __future__ import annotations

import enum
from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from engine.core import IllegalCode, View
from engine.deal import MAX_SEED

__all__ = [
    "PROTOCOL_VERSION",
    "MAX_FRAME_BYTES",
    "Board",
    "Bonus",
    "BonusMove",
    "BonusRecord",
    "DoubleOrNaught",
    "CancelTournament",
    "CreateTournament",
    "Entry",
    "GrantOrganiser",
    "InviteCode",
    "Organiser",
    "DealScore",
    "DelayedBoard",
    "FollowTournament",
    "ListTournaments",
    "OpenDeal",
    "RegisterTournament",
    "ReviewEntry",
    "Spectating",
    "TournamentEvent",
    "TournamentInfo",
    "TournamentReply",
    "TournamentSnapshot",
    "TournamentStanding",
    "Tournaments",
    "WithdrawTournament",
    "ClientMessage",
    "CreateRace",
    "CalendarDay",
    "CalendarPage",
    "DailyCalendar",
    "DailyDeal",
    "DailyInfo",
    "DailyResult",
    "GetDaily",
    "PlayDaily",
    "Streak",
    "EntrantJoined",
    "EntrantRecord",
    "Error",
    "ErrorCode",
    "GetRecord",
    "Hello",
    "History",
    "HistoryPage",
    "HistoryRace",
    "HistoryTournament",
    "JoinRace",
    "ListRaces",
    "MoveRequest",
    "MoveResult",
    "Progress",
    "ProtocolError",
    "RaceFinished",
    "RaceInfo",
    "RaceRecord",
    "RaceReply",
    "RaceStarted",
    "RaceStarting",
    "Races",
    "Par",
    "RacePar",
    "Rematch",
    "RematchOffer",
    "Rename",
    "Renamed",
    "Replay",
    "ReplayStep",
    "Resign",
    "Revealed",
    "ServerMessage",
    "Snapshot",
    "Standing",
    "SyncPage",
    "StartRace",
    "Sync",
    "Watch",
    "Welcome",
    "board_of",
    "decode",
    "decode_server",
    "encode",
    "ReplyFrame",
    "request_number",
]

#: The protocol version this module speaks; `Hello.protocol` must equal it.
PROTOCOL_VERSION = 1
#: Largest frame a client may send, in bytes; larger frames close the connection (code 1009).
MAX_FRAME_BYTES = 4096


class ErrorCode(enum.StrEnum):
    """Why the server refused a frame or a request (the ``code`` of an `Error`).

    A refused move answers with a `MoveResult` whose ``code`` is one of these or an
    `engine.core.IllegalCode` (the rule that refused it).
    """

    BAD_FRAME = "bad_frame"  # not MessagePack, or not a map
    TEXT_FRAME = "text_frame"  # a text frame; the protocol is binary
    UNKNOWN_TYPE = "unknown_type"  # a ``type`` no message has
    BAD_FIELD = "bad_field"  # a field missing, of the wrong type, out of range, or unknown
    PROTOCOL_VERSION = "protocol_version"  # hello with a protocol this server does not speak
    HELLO_FIRST = "hello_first"  # any request before hello
    ALREADY_HELLO = "already_hello"  # a second hello on one connection
    BAD_TOKEN = "bad_token"  # a session token the server does not know
    UNKNOWN_GAME = "unknown_game"
    BAD_SEED = "bad_seed"
    BAD_OPTION = "bad_option"  # a rule option the game does not have
    UNKNOWN_RACE = "unknown_race"
    RACE_FULL = "race_full"
    ALREADY_JOINED = "already_joined"
    NOT_CREATOR = "not_creator"  # only the creator may start a race
    ALREADY_STARTED = "already_started"  # join or start after the start
    NOT_ENTRANT = "not_entrant"  # a move or resign in a race you are not in
    NOT_STARTED = "not_started"  # a move before the start instant
    RACE_OVER = "race_over"  # a move after the end
    DONE = "done"  # a move after you resigned or finished
    SEQ_GAP = "seq_gap"  # a move sequence number that skips ahead
    BAD_NOTATION = "bad_notation"  # a move that is not move notation
    NOT_ALLOWED = "not_allowed"  # e.g. an entrant watching its own race while playing, undo where a race has none
    NOT_DECIDED = "not_decided"  # a finish before every card is face up and the win forced
    NO_SAFE_MOVE = "no_safe_move"  # a collect with no card that may safely go to a foundation
    NOT_FINISHED = "not_finished"  # the record of a race still running
    NOT_ORGANISER = "not_organiser"  # a tournament request without the admin token or the organiser role
    UNKNOWN_TOURNAMENT = "unknown_tournament"
    BAD_SCHEDULE = "bad_schedule"  # a start in the past, a bad cron expression or time zone
    BAD_TOURNAMENT = "bad_tournament"  # e.g. zero deals, seeds that do not match the deals
    NO_CATALOG = "no_catalog"  # winnable deals asked for a game without a catalog
    REGISTRATION_CLOSED = "registration_closed"
    NOT_REGISTERED = "not_registered"
    TOURNAMENT_FULL = "tournament_full"
    NO_DEAL = "no_deal"  # open_deal outside the arena window, or after the last deal; a daily of a day to come
    NO_PRIVATE_CATALOG = "no_private_catalog"  # a secret winnable deal, and no private catalog for it
    BAD_NAME = "bad_name"  # a name that is empty, too long, or holds control or invisible characters
    NAME_TAKEN = "name_taken"  # a name another entrant of the race or tournament already has
    TOO_MANY_RACES = "too_many_races"  # over the open races a player may have, or may create per hour
    TOO_MANY_PLAYERS = "too_many_players"  # a new player from an address whose kept players are all needed
    MOVE_LIMIT = "move_limit"  # an entrant's moves in one race reached the server's cap
    OLD_SEQ = "old_seq"  # a repeated move number older than the answers the server keeps
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"  # the server is shutting down: a request other than reading a record
    MOVED = "moved"  # the race is served by another node now: send the same request again at once
    SPOILER_LOCKED = "spoiler_locked"  # a daily or arena-tournament deal whose window is open (`Error.opens_at_ms`)
    ALREADY_PLAYED = "already_played"  # a second ranked attempt at today's daily deal of a game
    BAD_LOGIN = "bad_login"  # a login whose name or password is wrong (which one is not said)
    BAD_CODE = "bad_code"  # a transfer code unknown, used already, or expired
    CHALLENGE_EXPIRED = "challenge_expired"  # a passkey_finish whose challenge is past its time: begin again
    BAD_PASSKEY = "bad_passkey"  # a passkey answer that does not verify, or names no challenge or passkey kept
    UNKNOWN_PLAYER = "unknown_player"  # a profile of a player or claimed name the archive does not keep
    INTERNAL = "internal"


class ProtocolError(Exception):
    """A frame or request the server refuses: ``code`` (an `ErrorCode`) and ``reason``;
    ``req``: the refused request's number, when the frame held one that could be read;
    ``opens_at_ms``: for ``spoiler_locked``, when the lock opens (Unix epoch milliseconds);
    ``retry_after_s``: for a ``rate_limited`` login, seconds to wait before trying again."""

    def __init__(
        self,
        code: ErrorCode,
        reason: str,
        req: int | None = None,
        *,
        opens_at_ms: int | None = None,
        retry_after_s: int | None = None,
    ) -> None:
        super().__init__(f"{reason} [{code}]")
        self.code = code
        self.reason = reason
        self.req = req
        self.opens_at_ms = opens_at_ms
        self.retry_after_s = retry_after_s


# --------------------------------------------------------------------------- field limits

Req = Annotated[int, Meta(ge=0, le=2**31 - 1)]
Name = Annotated[str, Meta(min_length=1, max_length=32)]
Token = Annotated[str, Meta(min_length=1, max_length=64)]
RaceCode = Annotated[str, Meta(min_length=1, max_length=16)]
GameName = Annotated[str, Meta(min_length=1, max_length=32)]
Seed = Annotated[int, Meta(ge=0, le=MAX_SEED)]
Seq = Annotated[int, Meta(ge=1, le=1_000_000)]
Version = Annotated[int, Meta(ge=0, le=2**31 - 1)]
Cursor = Annotated[int, Meta(ge=0, le=2**63 - 1)]
OptionName = Annotated[str, Meta(min_length=1, max_length=32)]


class _Msg(Struct, tag_field="type", forbid_unknown_fields=True, omit_defaults=False):
    pass


# ------------------------------------------------------------------------ client -> server


class Hello(_Msg, tag="hello"):
    """First frame of a connection: a display name, and a session token to resume a session.
    ``bot``: this player is a program (the CLI's bots say so); a bot's races are never rated."""

    name: Name
    protocol: int = PROTOCOL_VERSION
    token: Token | None = None
    bot: bool = False


SpectatorDelay = Annotated[int, Meta(ge=0, le=600)]


class CreateRace(_Msg, tag="create_race"):
    """Create a race. ``seed`` given: a public deal. ``seed`` None: the server draws one, secret
    until the end unless ``seed_public``; ``winnable`` draws it from a catalog of deals known to be
    winnable (the server's private one for a secret seed, the public one for a public seed).
    Times in seconds; ``spectator_delay_s``: how late spectators see the boards. ``join``: enter
    it too. ``undo``: entrants may take back moves (never one that turned a card up or dealt
    from the stock). ``rated``: the race updates its entrants' ratings at its end
    (`server.ratings.is_rated`; a secret seed only: ``bad_field`` with a given or public seed)."""

    req: Req
    game: GameName
    seed: Seed | None = None
    options: Annotated[dict[OptionName, bool], Meta(max_length=8)] = {}
    max_entrants: Annotated[int, Meta(ge=1, le=64)] = 8
    countdown_s: Annotated[int, Meta(ge=0, le=60)] = 3
    time_limit_s: Annotated[int, Meta(ge=10, le=86_400)] = 900
    join: bool = True
    winnable: bool = False
    seed_public: bool = False
    spectator_delay_s: SpectatorDelay = 0
    undo: bool = True
    rated: bool = False

    def __post_init__(self) -> None:
        if self.rated and (self.seed is not None or self.seed_public):
            raise ValueError(
                "a rated race needs a secret seed the server draws: leave seed out and seed_public false,"
                " or rated false"
            )


class ListRaces(_Msg, tag="list_races"):
    """Ask for one page of races in the lobby's order (`server.lobby`): ``status`` "open" (open
    to join) or "live" (starting or running: to watch). ``before``: the ``cursor`` of the
    previous page (None: the first page); ``limit``: races per page."""

    req: Req
    status: Literal["open", "live"] = "open"
    before: Cursor | None = None
    limit: Annotated[int, Meta(ge=1, le=100)] = 50


class JoinRace(_Msg, tag="join_race"):
    """Enter a race that has not started."""

    req: Req
    race: RaceCode


class StartRace(_Msg, tag="start_race"):
    """Start a race you created: the countdown runs, then every entrant gets the deal at once."""

    req: Req
    race: RaceCode


class MoveRequest(_Msg, tag="move"):
    """Play ``move`` as your ``seq``-th move in ``race`` (1, 2, 3...; a repeat gets the first
    answer again). ``move``: a move in the game's notation, ``"undo"``, or an assist the server
    plays as moves: ``"collect"`` (every safe move to a foundation) or ``"finish"`` (every move to
    the win, once the game is decided). ``collect``: follow the move with the safe moves it makes
    possible. A request that plays several moves uses one seq per move (`MoveResult.next_seq`)."""

    race: RaceCode
    seq: Seq
    move: Annotated[str, Meta(min_length=1, max_length=40)]
    collect: bool = False


class Resign(_Msg, tag="resign"):
    """Give up a race; your cards cleared so far stand."""

    req: Req
    race: RaceCode


class Watch(_Msg, tag="watch"):
    """Follow a race as a spectator: a `Snapshot` now, then every event live."""

    req: Req
    race: RaceCode


class Sync(_Msg, tag="sync"):
    """After a reconnect: every event of ``race`` after version ``since``, or a `Snapshot`."""

    req: Req
    race: RaceCode
    since: Version


class GetRecord(_Msg, tag="get_record"):
    """The full record of a finished race (seed, salt, every entrant's moves) for `arena verify`."""

    req: Req
    race: RaceCode


class DoubleOrNaught(_Msg, tag="double_or_naught"):
    """After a casual race you won: stake your points on a new Double or Naught round."""

    req: Req
    race: RaceCode


class BonusMove(_Msg, tag="bonus_move"):
    """A move in your Double or Naught round: ``guess r0`` .. ``guess r4``, or ``deal`` after a tie."""

    req: Req
    race: RaceCode
    move: Annotated[str, Meta(min_length=1, max_length=40)]


TournamentId = Annotated[str, Meta(min_length=1, max_length=16)]
AdminToken = Annotated[str, Meta(min_length=1, max_length=128)]
#: A tournament's invite code (`CreateTournament.entry` "invite"): 4 to 32 letters, digits, "-" or "_".
InviteCode = Annotated[str, Meta(min_length=4, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
#: Who may enter a tournament: "open" (anyone), "claimed" (claimed players only), "invite" (those
#: who give its invite code) or "list" (the claimed names of its allow-list).
Entry = Literal["open", "claimed", "invite", "list"]


#: What spectators of a deal race see while it runs: "standings" (the standings only, no board),
#: "delayed" (boards ``spectator_delay_s`` late, a delay at least the deal's time limit) or "live"
#: (boards ``spectator_delay_s`` late, any delay: casual events). Every board once the race is over.
Spectating = Literal["standings", "delayed", "live"]


class CreateTournament(_Msg, tag="create_tournament"):
    """Create a tournament (organisers only: ``admin_token``). Either ``starts_at`` (ISO 8601 with a
    time zone) or ``cron`` (five fields, in ``timezone``) for a recurring one. ``seeds``: one per
    deal, else drawn (``winnable``: from the catalog). Times in seconds. ``undo``: entrants may
    take back moves in its deals (off by default: the organiser's choice). ``spectating``: what
    spectators see while a deal runs (`Spectating`; "delayed" needs ``spectator_delay_s`` at least
    ``deal_time_limit_s``, else ``bad_field``). ``max_entries_per_address``: entries one person
    (today: one address) may hold before further ones wait for the organiser's approval
    (`ReviewEntry`); 0: no limit. ``rated``: each deal is a rated race (drawn seeds only:
    ``bad_field`` with ``seeds``).

    Who may create one: the holder of ``admin_token``, or a claimed player with the organiser
    role (`GrantOrganiser`) sending none; else ``not_organiser``. ``organiser``: the player id
    of the organiser who runs it (set by the server to the sender's for an organiser; the admin
    may name one). ``entry`` (`Entry`): who may register; "invite" takes ``invite_code`` (else
    the server makes one) and the reply carries it; "list" takes ``allow``, the claimed names
    that may enter (``bad_field`` for ``allow`` or ``invite_code`` with another ``entry``)."""

    req: Req
    name: Annotated[str, Meta(min_length=1, max_length=64)]
    game: GameName
    deals: Annotated[int, Meta(ge=0, le=20)]
    format: Literal["rounds", "arena"] = "rounds"
    starts_at: Annotated[str, Meta(max_length=40)] | None = None
    cron: Annotated[str, Meta(max_length=64)] | None = None
    timezone: Annotated[str, Meta(max_length=64)] = "UTC"
    options: Annotated[dict[OptionName, bool], Meta(max_length=8)] = {}
    seeds: Annotated[list[Seed], Meta(max_length=20)] | None = None
    winnable: bool = False
    deal_time_limit_s: Annotated[int, Meta(ge=10, le=86_400)] = 600
    max_entrants: Annotated[int, Meta(ge=1, le=10_000)] = 256
    registration_opens_s: Annotated[int, Meta(ge=0, le=30 * 86_400)] = 3600
    arena_window_s: Annotated[int, Meta(ge=60, le=7 * 86_400)] = 86_400
    break_s: Annotated[int, Meta(ge=0, le=3600)] = 10
    countdown_s: Annotated[int, Meta(ge=0, le=600)] = 5
    spectator_delay_s: Annotated[int, Meta(ge=0, le=86_400)] = 1
    undo: bool = False
    spectating: Spectating = "standings"
    max_entries_per_address: Annotated[int, Meta(ge=0, le=10_000)] = 1
    rated: bool = False
    admin_token: AdminToken | None = None
    entry: Entry = "open"
    allow: Annotated[list[Name], Meta(max_length=100)] = []
    invite_code: InviteCode | None = None
    organiser: Annotated[str, Meta(min_length=1, max_length=64)] | None = None

    def __post_init__(self) -> None:
        if self.rated and self.seeds is not None:
            raise ValueError(
                "a rated tournament's deals need secret seeds the server draws: leave seeds out, or rated false"
            )


class CancelTournament(_Msg, tag="cancel_tournament"):
    """Cancel a tournament, or a recurring schedule and its next occurrence (the admin, with
    ``admin_token``, or the tournament's own organiser)."""

    req: Req
    tournament: TournamentId
    admin_token: AdminToken | None = None


class ListTournaments(_Msg, tag="list_tournaments"):
    """Ask for every tournament not yet finished, and the most recent finished ones."""

    req: Req


class FollowTournament(_Msg, tag="follow_tournament"):
    """A `TournamentSnapshot` now (results included once finished), then every event live."""

    req: Req
    tournament: TournamentId


class RegisterTournament(_Msg, tag="register_tournament"):
    """Enter a tournament whose registration is open; ``code``: its invite code, for one whose
    ``entry`` is "invite" (else ``bad_code``)."""

    req: Req
    tournament: TournamentId
    code: Annotated[str, Meta(max_length=32)] | None = None


class WithdrawTournament(_Msg, tag="withdraw_tournament"):
    """Leave a tournament: before the start you are off the list; later, your current deal counts
    as resigned and you play no further deal."""

    req: Req
    tournament: TournamentId


class OpenDeal(_Msg, tag="open_deal"):
    """Arena format: open your next deal; your clock for it starts now. Answered with `RaceReply`
    (your own race for that deal), then its `race_started`."""

    req: Req
    tournament: TournamentId


class FairPlayRequest(_Msg, tag="fair_play_report"):
    """Ask for a tournament's fair-play report, one `FairPlayDeal` per deal scored so far
    (the admin, with ``admin_token``, or the tournament's own organiser); answered with
    `FairPlayReport`."""

    req: Req
    tournament: TournamentId
    admin_token: AdminToken | None = None


class ReviewEntry(_Msg, tag="review_entry"):
    """The admin (``admin_token``) or the tournament's own organiser: approve (``approve`` true)
    or refuse an entry of ``tournament`` waiting for approval (`TournamentInfo.pending`);
    ``player``: its name or player id. An approved entry is registered; a refused one never gets
    a deal. Answered with `TournamentReply`."""

    req: Req
    tournament: TournamentId
    player: Annotated[str, Meta(min_length=1, max_length=32)]
    approve: bool = True
    admin_token: AdminToken | None = None


class GrantOrganiser(_Msg, tag="grant_organiser"):
    """The server's admin (``admin_token``) grants the organiser role to a claimed player, named
    by its player id (``player``) or claimed name (``name``), or takes it back (``revoke``). An
    organiser creates tournaments without the admin token and cancels, reviews and reads the
    fair-play report of its own. Answered with `Organiser`; refused with ``not_organiser``
    (no or a wrong admin token), ``bad_field`` (neither or both of ``player`` and ``name``),
    ``unknown_player`` (no claimed player by that id or name)."""

    req: Req
    admin_token: AdminToken
    player: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    name: Name | None = None
    revoke: bool = False

    def __post_init__(self) -> None:
        if (self.player is None) == (self.name is None):
            raise ValueError("name the player by its id (player) or its claimed name (name)")


class Rematch(_Msg, tag="rematch"):
    """An entrant of a finished casual race asks for a rematch: the first to ask creates a new
    race (same game, options and limits, a new deal) and joins it; each later one joins that
    race. Answered with `RaceReply` (the new race); every entrant and spectator of the finished
    race receives a `RematchOffer` saying who has accepted so far."""

    req: Req
    race: RaceCode


class Replay(_Msg, tag="replay"):
    """Ask for one entrant's board after ``step`` of its moves (0: the deal) in a finished race;
    answered with `ReplayStep`."""

    req: Req
    race: RaceCode
    player: Annotated[str, Meta(min_length=1, max_length=16)]
    step: Annotated[int, Meta(ge=0, le=1_000_000)]


class History(_Msg, tag="history"):
    """Your finished races (``kind`` races) or the ended tournaments you were entered in
    (``kind`` tournaments), newest first, a page at a time, as the server's archive keeps them;
    answered with `HistoryPage` (``unavailable`` where the server keeps no archive).
    ``before``: the ``cursor`` of the previous page of the same kind (None: from the newest);
    ``limit``: lines per page."""

    req: Req
    before: Annotated[str, Meta(min_length=3, max_length=64, pattern=r"^[0-9]{1,19}[.].+$")] | None = None
    limit: Annotated[int, Meta(ge=1, le=100)] = 20
    kind: Literal["races", "tournaments"] = "races"


Day = Annotated[str, Meta(pattern=r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")]
Month = Annotated[str, Meta(pattern=r"^[0-9]{4}-(0[1-9]|1[0-2])$")]
PlayerId = Annotated[str, Meta(min_length=1, max_length=64)]


class Leaderboard(_Msg, tag="leaderboard"):
    """One page of ``game``'s leaderboard; answered with `LeaderboardPage`. ``board`` "rating":
    players by rating, those whose last rated race of the game is at most ``active_days`` old;
    ``view`` "top" (from the best, or after the ``after`` cursor of the previous page),
    "around_me" (centred on you) or "friends" (refused ``not_allowed`` until the server keeps
    whom you follow). ``board`` "daily": the daily challenge's board; ``period`` "day": the
    results of ``day`` (None: today), one page, top view only (else ``not_allowed``); "week" (the
    ISO week of ``day`` or today) and "all": each player's cards cleared then time, summed over the
    period's ranked results, in any view, the top view paged by ``after``. ``limit``: rows per
    page."""

    req: Req
    game: GameName
    board: Literal["rating", "daily"] = "rating"
    view: Literal["top", "around_me", "friends"] = "top"
    active_days: Annotated[int, Meta(ge=1, le=3650)] = 30
    day: Day | None = None
    period: Literal["day", "week", "all"] = "day"
    after: Annotated[str, Meta(min_length=3, max_length=96, pattern=r"^[-+0-9a-fx.p]+/.+$")] | None = None
    limit: Annotated[int, Meta(ge=1, le=100)] = 20

    def __post_init__(self) -> None:
        if self.after is not None and (self.view != "top" or (self.board == "daily" and self.period == "day")):
            raise ValueError("after goes with the top view of a rating board or a week's or all time's daily board")


class GetProfile(_Msg, tag="profile"):
    """A player's profile, by id (``player``) or by claimed ``name`` (neither: your own);
    answered with `Profile` (``unknown_player`` for nobody the archive keeps)."""

    req: Req
    player: PlayerId | None = None
    name: Name | None = None

    def __post_init__(self) -> None:
        if self.player is not None and self.name is not None:
            raise ValueError("give player or name, not both")


class PlayDaily(_Msg, tag="play_daily"):
    """Play the daily challenge of ``game`` (`server.daily`): today's (``day`` None or today's
    date), ranked, once per player (``already_played`` after a finished attempt; an unfinished
    one is answered again, to resume); or a past ``day``'s as practice (unranked, any number of
    times; ``no_deal`` for a day not over yet, or a date that does not exist). Answered with
    `RaceReply`: a race of one entrant that starts at once."""

    req: Req
    game: GameName
    day: Day | None = None


class GetDaily(_Msg, tag="daily"):
    """Today's daily deals, your streak, and, with ``game``, the results of ``day`` (None:
    today) for that game, best first (cards cleared, then time), at most ``limit``; answered
    with `DailyInfo`."""

    req: Req
    game: GameName | None = None
    day: Day | None = None
    limit: Annotated[int, Meta(ge=1, le=100)] = 20


class DailyCalendar(_Msg, tag="daily_calendar"):
    """Your daily challenges of one ``month`` (YYYY-MM, UTC): for each day up to today, whether
    you played ``game``'s (None: any game's) and how; answered with `CalendarPage`."""

    req: Req
    month: Month
    game: GameName | None = None


class Rename(_Msg, tag="rename"):
    """Take a new display name for the races and tournaments you enter from now on (those you
    are in keep the name you entered with); answered with `Renamed`, or ``bad_name``."""

    req: Req
    name: Name


Password = Annotated[str, Meta(min_length=1, max_length=256)]
#: The shortest password a claim accepts, in characters (NIST SP 800-63B: length, no composition rules).
MIN_PASSWORD_LENGTH = 10
TransferCodeText = Annotated[str, Meta(min_length=1, max_length=32)]


class Claim(_Msg, tag="claim"):
    """Claim your name (``name`` given: rename to it first) with a password, so that you can log
    in as yourself on another device; answered with `Claimed`. Refused ``name_taken`` (another
    player claimed that name or one that looks alike), ``bad_name``, ``bad_field`` (a password
    too short: the reason says the rule), ``unavailable`` (no archive)."""

    req: Req
    password: Password
    name: Name | None = None

    def __post_init__(self) -> None:
        if len(self.password) < MIN_PASSWORD_LENGTH:
            raise ValueError(f"a password needs at least {MIN_PASSWORD_LENGTH} characters")


class Login(_Msg, tag="login"):
    """Become the player that claimed ``name``, on this connection (before or instead of hello),
    with a new token for this device; answered with `Welcome`. Refused ``bad_login`` (the name
    or the password is wrong), ``rate_limited`` (too many failures: ``retry_after_s``)."""

    req: Req
    name: Name
    password: Password
    protocol: int = PROTOCOL_VERSION


class TransferCodeRequest(_Msg, tag="transfer_code"):
    """Ask for a one-time code that moves your player to another device (`redeem`); answered
    with `TransferCode`."""

    req: Req


class Redeem(_Msg, tag="redeem"):
    """Become the player a transfer ``code`` was made for, on this connection (before or instead
    of hello), with a new token for this device; answered with `Welcome`. Refused ``bad_code``
    (unknown, used already, or expired)."""

    req: Req
    code: TransferCodeText
    protocol: int = PROTOCOL_VERSION


class ForgetMe(_Msg, tag="forget_me"):
    """Delete your identity for good: every device's token, your claim, transfer codes and passkeys. Your
    archived races stay, under the name ``deleted player``. Answered with `Forgotten`, then the
    server closes the connection."""

    req: Req


class Follow(_Msg, tag="follow"):
    """Follow a claimed player, by id (``player``) or by claimed name (``name``): exactly one of
    the two. Answered with `Following`. Refused ``not_allowed`` (a guest, yourself, or past the
    server's ``max_following``), ``unknown_player`` (no such claimed player, or neither or both
    fields given), ``unavailable`` (no archive)."""

    req: Req
    player: PlayerId | None = None
    name: Name | None = None


class Unfollow(_Msg, tag="unfollow"):
    """Stop following ``player``; answered with `Following`."""

    req: Req
    player: PlayerId


class Friends(_Msg, tag="friends"):
    """The players you follow, with whether each is online or racing as this node sees them, and
    the challenges waiting for you; answered with `Following`."""

    req: Req


class Challenge(_Msg, tag="challenge"):
    """Challenge ``player`` to a race of ``game`` (with rule ``options``): the server creates a
    race for the two of you, not listed in the lobby, enters you in it, answers `RaceReply`, and
    sends ``player`` an `Invitation`. Refused ``unknown_player``, ``not_allowed`` (yourself),
    ``rate_limited`` (past the server's ``challenges_per_hour``), and as `create_race`."""

    req: Req
    player: PlayerId
    game: GameName
    options: Annotated[dict[OptionName, bool], Meta(max_length=8)] = {}


class Decline(_Msg, tag="decline"):
    """Decline the challenge to ``race``: it leaves your invitations and its challenger gets
    `Declined`. Refused ``unknown_race`` (no challenge to that race waits for you)."""

    req: Req
    race: RaceCode


PasskeyCredential = Annotated[str, Meta(min_length=2, max_length=16_384)]


class PasskeyBegin(_Msg, tag="passkey_begin"):
    """Start a passkey ceremony (a server with an HTTPS origin: `server.passkeys`): ``purpose``
    ``register`` (a claimed player adds a passkey) or ``login`` (become the player a passkey
    belongs to, before or instead of hello; ``name``: only that claimed player's passkeys are
    offered, nil: the browser offers those it keeps). Answered with `PasskeyOptions`."""

    req: Req
    purpose: Literal["register", "login"]
    name: Name | None = None
    protocol: int = PROTOCOL_VERSION


class PasskeyFinish(_Msg, tag="passkey_finish"):
    """Finish the ceremony `PasskeyBegin` started with the browser's ``credential`` (its JSON);
    answered with `Claimed` (register) or `Welcome` (login). Refused ``challenge_expired``,
    ``bad_passkey``."""

    req: Req
    credential: PasskeyCredential
    protocol: int = PROTOCOL_VERSION


ClientMessage = (
    Hello
    | Rename
    | Claim
    | Login
    | TransferCodeRequest
    | Redeem
    | ForgetMe
    | PasskeyBegin
    | PasskeyFinish
    | PlayDaily
    | GetDaily
    | DailyCalendar
    | CreateRace
    | ListRaces
    | JoinRace
    | StartRace
    | MoveRequest
    | Resign
    | Watch
    | Sync
    | GetRecord
    | CreateTournament
    | CancelTournament
    | ListTournaments
    | FollowTournament
    | RegisterTournament
    | WithdrawTournament
    | OpenDeal
    | FairPlayRequest
    | ReviewEntry
    | GrantOrganiser
    | DoubleOrNaught
    | BonusMove
    | Rematch
    | Replay
    | History
    | Follow
    | Unfollow
    | Friends
    | Challenge
    | Decline
    | Leaderboard
    | GetProfile
)

# ------------------------------------------------------------------------ server -> client


class Board(Struct, forbid_unknown_fields=True):
    """One entrant's board as the receiving audience may see it (see `engine.core.View`):
    ``piles`` maps pile id to card codes bottom to top, ``"??"`` for every hidden card;
    ``legal``: in the entrant's own board, every move it may play now, in notation (empty in
    spectators' boards); ``undo``: in the entrant's own board, whether ``"undo"`` may be played
    now; ``decided``: a win is forced from here (``"finish"`` plays it)."""

    game: str
    piles: dict[str, list[str]]
    info: dict[str, int | str | bool]
    cleared: int
    total: int
    won: bool
    over: bool
    moves: int
    legal: list[str] = []
    undo: bool = False
    decided: bool = False


def board_of(view: View, *, undo: bool = True) -> Board:
    """The wire form of an engine `View` (the view already hides what its audience may not see);
    ``undo``: whether the race allows undo at all."""
    return Board(
        game=view.game,
        piles={pid: list(codes) for pid, codes in view.piles.items()},
        info=dict(view.info),
        cleared=view.cleared,
        total=view.total,
        won=view.won,
        over=view.over,
        moves=view.moves,
        legal=list(view.legal),
        undo=undo and view.undo,
        decided=view.decided,
    )


EntrantStatus = Literal["waiting", "playing", "won", "stuck", "resigned", "out_of_time"]
RaceStatus = Literal["open", "starting", "running", "finished"]


class Standing(Struct, forbid_unknown_fields=True):
    """One entrant's line in the standings. ``time_ms``: race time of the move that brought
    ``cleared`` to its current value (0 while nothing is cleared); ``order``: join order from 0;
    ``points``: what the race gave (its cards cleared), doubled or lost by Double or Naught;
    ``undos``: the moves it took back; ``claimed``: its name was claimed when it joined (a
    guest's is not: clients mark guests' names); in a rated race, a claimed entrant's
    ``rating`` in the game (display points, `server.ratings.display`, rounded; read once as the
    race starts: None before, and for guests, bots and unrated races) and whether it is
    ``provisional`` (shown with "?")."""

    place: int
    player: str
    name: str
    cleared: int
    total: int
    time_ms: int
    moves: int
    status: EntrantStatus
    order: int
    points: int = 0
    undos: int = 0
    claimed: bool = False
    rating: int | None = None
    provisional: bool = False


class Par(Struct, forbid_unknown_fields=True):
    """What a finished race's deal allowed, by the solver within its budget: ``result`` ``won``
    (a win was possible), ``lost`` (proved impossible) or ``unknown``; ``best_cleared``: the
    most cards cleared in any position the search reached, of ``total`` (exact unless unknown);
    ``nodes`` and ``seconds``: the search's size."""

    result: str
    best_cleared: int
    total: int
    nodes: int
    seconds: float


class RaceInfo(Struct, forbid_unknown_fields=True):
    """A race's public description. ``seed`` is None while it is secret; ``starts_at_ms`` is the
    server's wall clock (Unix epoch, milliseconds) at which the deal is given;
    ``spectator_delay_s``: how many seconds late spectators see the boards (standings are live);
    ``rematch``: the code of the race offered as its rematch, if any; ``par``: what the deal
    allowed, once the server has worked it out after the finish (`server.par`); ``tournament``
    and ``deal``: for a tournament's deal, the tournament's id and the deal's index (from 0);
    ``undo``: whether entrants may take back moves; ``spectating``: what spectators see while the
    race runs (`Spectating`: "live" boards, or the standings only until the end)."""

    code: str
    game: str
    options: dict[str, bool]
    rules_version: int
    deal_version: int
    creator: str
    entrants: list[str]
    max_entrants: int
    countdown_s: int
    time_limit_s: int
    status: RaceStatus
    seed: int | None
    commitment: str | None
    starts_at_ms: int | None
    version: int
    spectator_delay_s: int = 0
    rematch: str | None = None
    par: Par | None = None
    tournament: str | None = None
    deal: int | None = None
    undo: bool = False
    spectating: Spectating = "live"
    daily: str | None = None  # a daily challenge's race: its UTC day, YYYY-MM-DD (`server.daily`)
    rated: bool = False  # the creator's or organiser's choice to rate it (`server.ratings.is_rated`)
    claimed: list[bool] = []  # per entrant, in join order: its name was claimed when it joined


class Welcome(_Msg, tag="welcome"):
    """Reply to hello, login and redeem: your player id, and the token that resumes this session
    after a reconnect (login and redeem: a new token for this device); ``claimed``: your name is
    claimed (a guest's is not: clients mark guests' names)."""

    player: str
    name: str
    token: str
    protocol: int
    server_time_ms: int
    node: Annotated[str, Meta(max_length=64)] = ""
    claimed: bool = False


class Claimed(_Msg, tag="claimed"):
    """Reply to claim: the name you now hold for good."""

    req: int
    name: str


class TransferCode(_Msg, tag="transfer_code_made"):
    """Reply to transfer_code: the one-time ``code`` (give it to `redeem` on the other device)
    and when it stops working (``expires_ms``, Unix epoch ms)."""

    req: int
    code: str
    expires_ms: int


class PasskeyOptions(_Msg, tag="passkey_options"):
    """Reply to passkey_begin: ``options``, the WebAuthn options as JSON (py_webauthn's
    ``options_to_json``: give them to ``navigator.credentials.create`` or ``.get``), and when
    their challenge stops working (``expires_ms``, Unix epoch ms)."""

    req: int
    options: str
    expires_ms: int


class Forgotten(_Msg, tag="forgotten"):
    """Reply to forget_me: your identity is deleted; ``races``: archived races that now show
    ``deleted player`` in your place."""

    req: int
    races: int


class Renamed(_Msg, tag="renamed"):
    """Reply to rename: your name as the server now keeps it (normalised)."""

    req: int
    name: str


class Error(_Msg, tag="error"):
    """A refused frame or request; ``req`` echoes the request's number when it had one;
    ``opens_at_ms``: for ``spoiler_locked``, the instant the lock opens (Unix epoch ms);
    ``retry_after_s``: for a ``rate_limited`` login, seconds to wait before trying again."""

    code: str
    reason: str
    req: int | None = None
    opens_at_ms: int | None = None
    retry_after_s: int | None = None


class RaceReply(_Msg, tag="race"):
    """Reply to create_race, join_race, start_race and resign: the race as it now stands."""

    req: int
    race: RaceInfo


class Races(_Msg, tag="races"):
    """Reply to list_races: one page of races in the lobby's order; ``cursor``: pass it as
    ``before`` for the next page (None: this was the last)."""

    req: int
    races: list[RaceInfo]
    cursor: int | None = None


class Revealed(Struct, array_like=True):
    """A card a move turned face up: ``[pile, index, card]``."""

    pile: str
    index: int
    card: str


class MoveResult(_Msg, tag="move_result"):
    """The answer to one move request. ``ok`` true: stored and applied; ``move`` is the move
    played with ``seq`` (the first of a finish or a collect), ``then`` the moves the server
    played after it for this request (auto-collect, the rest of a finish), with the seqs that
    follow; ``next_seq`` the seq of the next request; ``revealed`` lists the cards they turned
    up and ``board`` is the mover's board after them. ``ok`` false: ``code`` and ``reason`` say
    why (an `ErrorCode` or an `engine.core.IllegalCode`) and nothing changed."""

    race: str
    seq: int
    move: str
    ok: bool
    code: str = ""
    reason: str = ""
    revealed: list[Revealed] = []
    board: Board | None = None
    elapsed_ms: int = 0
    then: list[str] = []
    next_seq: int = 0


class EntrantJoined(_Msg, tag="entrant_joined"):
    """Event: someone entered the race; ``claimed``: its name is claimed (a guest's is not)."""

    race: str
    version: int
    player: str
    name: str
    order: int
    claimed: bool = False


class RaceStarting(_Msg, tag="race_starting"):
    """Event: the countdown runs; the deal comes at ``starts_at_ms`` (server wall clock, ms).
    ``commitment`` is SHA-256 of ``f"{seed}:{salt}"`` in hex, revealed when the race ends."""

    race: str
    version: int
    starts_at_ms: int
    countdown_ms: int
    commitment: str


class RaceStarted(_Msg, tag="race_started"):
    """Event: the deal, the same for every entrant, at the start instant; the clock runs."""

    race: str
    version: int
    started_at_ms: int
    time_limit_ms: int
    board: Board


class Progress(_Msg, tag="progress"):
    """Event: an entrant moved or changed status. Entrants receive only the standings: ``move``
    is "" and ``board`` None, because another entrant's move or board on the same deal tells
    them about their own hidden cards. Spectators also receive ``move`` and that entrant's
    ``board`` (in a race with a spectator delay: once at once without them, and again with them
    ``spectator_delay_s`` later). ``server_ms``: the server's wall clock (Unix epoch ms, the clock
    of `Welcome.server_time_ms`) when the event was built, for measuring delivery latency."""

    race: str
    version: int
    player: str
    move: str
    elapsed_ms: int
    standings: list[Standing]
    board: Board | None = None
    server_ms: int = 0


class DelayedBoard(_Msg, tag="delayed_board"):
    """To spectators of a race with a spectator delay: an entrant's ``move`` and ``board``, sent
    ``spectator_delay_s`` after the `Progress` event ``version`` they belong to (that event came
    at once, standings only). Not an event of its own: no new version, and a sync does not send
    it again (the snapshot holds the boards spectators may see by then). ``server_ms``: the
    server's wall clock (Unix epoch ms) when the move was made, not when the board was sent. In a
    race whose spectators see no board while it runs (`RaceInfo.spectating` not "live"), each
    entrant's final board follows `RaceFinished` this way (``version``: the finish's, ``move`` "")."""

    race: str
    version: int
    player: str
    move: str
    elapsed_ms: int
    board: Board
    server_ms: int = 0


class RaceFinished(_Msg, tag="race_finished"):
    """Event: the race is over (``reason``: "all_done", "time_limit", "window_closed",
    "cancelled", or "expired" for a race nobody started in time); seed and salt revealed, except
    for an arena tournament's deal, whose seed stays secret until the tournament ends (then None
    here). ``double_or_naught``: the players (ids)
    offered a Double or Naught round on their points: the winners of a casual race.
    ``server_ms``: the server's wall clock (Unix epoch ms) when the event was built.
    ``detail``: why, in words, when the reason needs them ("void": which acknowledged moves the
    server lost; "" otherwise)."""

    race: str
    version: int
    reason: str
    standings: list[Standing]
    seed: int | None
    salt: str | None
    commitment: str
    double_or_naught: list[str] = []
    server_ms: int = 0
    detail: str = ""


class Snapshot(_Msg, tag="snapshot"):
    """The whole race as the receiver may see it now: sent to a new spectator and to a sync whose
    ``since`` is too old. ``board`` is the receiver's own board (entrants), ``boards`` every
    entrant's board keyed by player id (spectators). ``next_seq``: the receiver's next move number."""

    req: int
    race: RaceInfo
    standings: list[Standing]
    board: Board | None = None
    boards: dict[str, Board] = {}
    next_seq: int = 1
    elapsed_ms: int = 0


class SyncPage(_Msg, tag="sync_page"):
    """Reply to a sync that had more missed events than fit in one page: the events up to
    version ``until`` were sent; sync again with ``since`` = ``until`` for the next page.
    ``version``: the race's latest version now."""

    req: int
    race: str
    until: int
    version: int


class BonusRecord(Struct, forbid_unknown_fields=True):
    """One Double or Naught round: the points staked, its seed, salt and commitment, the moves,
    and the outcome ("win", "loss", "tie" or "" when undecided)."""

    stake: int
    seed: int
    salt: str
    commitment: str
    moves: list[str]
    outcome: str


class Bonus(_Msg, tag="bonus"):
    """Reply to double_or_naught and bonus_move: your round (``round`` counts from 1), the
    ``stake``, your ``points`` now, the board, the ``outcome`` so far; once ``decided``, the seed
    and salt behind ``commitment``."""

    req: int
    race: str
    round: int
    stake: int
    points: int
    outcome: str
    decided: bool
    board: Board
    commitment: str
    seed: int | None = None
    salt: str | None = None


class EntrantRecord(Struct, forbid_unknown_fields=True):
    """One entrant in a race record: every accepted move in order, with its race time (ms), and
    its Double or Naught rounds, if it played any."""

    player: str
    name: str
    moves: list[str]
    times_ms: list[int]
    status: str
    bonus: list[BonusRecord] = []


class RaceRecord(_Msg, tag="race_record"):
    """Reply to get_record: everything needed to rebuild and check a finished race."""

    req: int
    race: RaceInfo
    seed: int
    salt: str
    commitment: str
    entrants: list[EntrantRecord]
    standings: list[Standing]
    void: str = ""  # why the race ended without a result (`server.race.Race.void`), in words; "" if it did not


class DealScore(Struct, forbid_unknown_fields=True):
    """One entrant's result on one deal: its race, cards cleared, time (ms) and status."""

    race: str
    cleared: int
    time_ms: int
    status: str


class TournamentStanding(Struct, forbid_unknown_fields=True):
    """One line of a tournament's standings: cards cleared over all deals, total time (ms), each
    deal's result, and ``status``: registered, playing, finished, withdrawn or absent (never
    played a move)."""

    place: int
    player: str
    name: str
    cleared: int
    time_ms: int
    deals: list[DealScore]
    status: str
    order: int
    claimed: bool = False  # its name was claimed when it registered or last renamed (guests' are marked)


TournamentStatus = Literal["scheduled", "registration", "starting", "running", "finished", "cancelled"]


class TournamentInfo(Struct, forbid_unknown_fields=True):
    """A tournament's public description. Instants are Unix epoch milliseconds. ``commitments``
    (one per deal) are published at the start; ``seeds`` and ``salts`` once it has finished.
    ``races``: the deal races (rounds: one per deal; arena: every entrant's own).
    ``next_deal_ms``: rounds, between two deals: when the next deal is dealt; ``undo``: whether
    entrants may take back moves in its deals; ``spectating``: what spectators of a deal see
    while it runs (`Spectating`); ``max_entries_per_address``: entries one address may hold
    without the organiser's approval (0: no limit); ``pending``: the names of the entries waiting
    for that approval (`ReviewEntry`); ``entry``: who may register (`Entry`; the allow-list and
    invite code are not shown); ``organiser``: the player id of the organiser who runs it (None:
    the admin)."""

    id: str
    name: str
    game: str
    options: dict[str, bool]
    rules_version: int
    deal_version: int
    format: str
    deals: int
    deal_time_limit_s: int
    max_entrants: int
    registered: list[str]
    status: TournamentStatus
    registration_opens_ms: int
    starts_at_ms: int
    ends_at_ms: int | None
    schedule: str | None
    timezone: str
    current_deal: int | None
    races: list[str]
    commitments: list[str]
    seeds: list[int] | None
    salts: list[str] | None
    version: int
    spectator_delay_s: int = 0
    next_deal_ms: int | None = None
    undo: bool = False
    spectating: Spectating = "live"
    max_entries_per_address: int = 0
    pending: list[str] = []
    entry: Entry = "open"
    organiser: str | None = None


class TournamentReply(_Msg, tag="tournament"):
    """Reply to create, cancel, register, withdraw and review_entry: the tournament as it now
    stands. ``pending`` (register only): why your entry waits for the organiser's approval
    (None: you are registered). ``invite_code`` (create only, for an ``entry`` of "invite"): the
    code to share with those who may enter."""

    req: int
    tournament: TournamentInfo
    pending: str | None = None
    invite_code: str | None = None


class Organiser(_Msg, tag="organiser"):
    """Reply to grant_organiser: the claimed ``player`` (id) and its ``name``, and whether it is
    an ``organiser`` now."""

    req: int
    player: str
    name: str
    organiser: bool


class Tournaments(_Msg, tag="tournaments"):
    """Reply to list_tournaments."""

    req: int
    tournaments: list[TournamentInfo]


class TournamentSnapshot(_Msg, tag="tournament_snapshot"):
    """Reply to follow_tournament: the tournament and its standings now."""

    req: int
    tournament: TournamentInfo
    standings: list[TournamentStanding]


class ScoutedUse(Struct, forbid_unknown_fields=True):
    """One informed use of a scouted card (docs/tournaments.md, "Fair play"): the ``card``
    (code), when the scout first turned it up and when the player did (``scout_ms``,
    ``revealed_ms``: wall clock, Unix epoch ms), the player's ``move`` that used it, and
    ``gap_ms``: the race time between the player's reveal and that move."""

    card: str
    scout_ms: int
    revealed_ms: int
    move: str
    gap_ms: int


class ScoutingPair(Struct, forbid_unknown_fields=True):
    """Entrant ``player`` made informed uses of ``cards`` distinct cards that entrant ``scout``
    had turned up before; ``first_ms``: the first such use (wall clock, Unix epoch ms);
    ``flagged``: at least the report's minimum of cards."""

    scout: str
    scout_name: str
    player: str
    name: str
    cards: int
    first_ms: int
    example: ScoutedUse
    flagged: bool


class SolverAgreement(Struct, forbid_unknown_fields=True):
    """How often an entrant's move was the all-seeing solver's choice where only hidden cards
    made that choice best: ``looked``: positions examined, ``positions``: those counted,
    ``agreed``: counted ones where the entrant played the solver's choice, ``rate`` =
    agreed / positions (0 when none); ``flagged``: enough positions and a rate at or above
    the report's threshold."""

    player: str
    name: str
    looked: int = 0
    positions: int = 0
    agreed: int = 0
    rate: float = 0.0
    flagged: bool = False


class MoveTimes(Struct, forbid_unknown_fields=True):
    """An entrant's move times in one deal, over the moves it chose (not those the server played
    for it): ``moves``; the time between two moves (ms): ``median_ms``, ``p10_ms`` (10th
    percentile), ``spread_ms`` (75th minus 25th percentile), nil with fewer than two moves;
    ``quick_after_reveal``: moves sent less than the reflex time (200 ms) after a move that
    turned a card up."""

    player: str
    name: str
    moves: int
    median_ms: int | None = None
    p10_ms: int | None = None
    spread_ms: int | None = None
    quick_after_reveal: int = 0


class FairPlayDeal(Struct, forbid_unknown_fields=True):
    """The fair-play report of one deal (index ``deal`` from 0, its ``races``), worked out when
    the deal was scored: ``scouting`` pairs (most cards first), each entrant's solver
    ``agreement`` and move ``times``; ``solver``: false when the solver part was left out (the
    server has no par workers)."""

    deal: int
    races: list[str]
    scouting: list[ScoutingPair]
    agreement: list[SolverAgreement]
    times: list[MoveTimes]
    solver: bool = True


class FairPlayReport(_Msg, tag="fair_play"):
    """Reply to fair_play_report: the report of each deal worked out so far, by deal; ``pending``:
    deals scored whose report is still being worked out."""

    req: int
    tournament: str
    deals: list[FairPlayDeal]
    pending: list[int] = []


class RematchOffer(_Msg, tag="rematch_offer"):
    """A rematch of finished race ``race`` is open as race ``rematch``; ``accepted``: the player
    ids of the entrants who have joined it so far (its creator first)."""

    race: str
    version: int
    rematch: str
    accepted: list[str]


class RacePar(_Msg, tag="race_par"):
    """A finished race's par, when the server has worked it out (`server.par`)."""

    race: str
    version: int
    par: Par


class ReplayStep(_Msg, tag="replay_step"):
    """Entrant ``player``'s board after ``step`` of its ``steps`` moves in a finished race;
    ``move``: the move that led to it ("" at step 0), ``time_ms``: its race time; ``said``: that
    move in words (`engine.core.Game.describe`)."""

    req: int
    race: str
    player: str
    step: int
    steps: int
    move: str
    time_ms: int
    board: Board
    said: str = ""


class HistoryRace(Struct, forbid_unknown_fields=True):
    """One finished race of a player's history: ``race`` (its code: the page ``/w/RACE``
    replays it), ``game``, ``finished_ms`` (Unix epoch ms), the player's ``place`` among
    ``entrants``, its cards ``cleared`` of ``total``, its ``time_ms`` (race time of its last
    clearing move), its final ``status``, and ``par``: what the deal allowed (`Par.result`:
    won, lost or unknown; None when the race had none)."""

    race: str
    game: str
    finished_ms: int
    place: int
    entrants: int
    cleared: int
    total: int
    time_ms: int
    status: str
    par: str | None = None


class HistoryTournament(Struct, forbid_unknown_fields=True):
    """One ended tournament of a player's history: ``tournament`` (its id: the page ``/t/ID``
    shows its results, `FollowTournament` gives them), its ``name``, ``game``, ``format``
    (rounds or arena) and ``deals``, when it ended (``finished_ms``, Unix epoch ms) and how
    (``outcome``: finished or cancelled); the player's ``place`` among ``entrants`` entries,
    its cards ``cleared`` over every deal, its total ``time_ms`` (ms) and its entry's final
    ``status`` (finished, withdrawn, absent...)."""

    tournament: str
    name: str
    game: str
    format: str
    deals: int
    finished_ms: int
    outcome: str
    place: int
    entrants: int
    cleared: int
    time_ms: int
    status: str


class DailyResult(Struct, forbid_unknown_fields=True):
    """One ranked attempt at a daily deal: the ``player`` and its ``name``, the ``game`` and UTC
    ``day``, cards ``cleared`` of ``total``, ``time_ms`` (the race time of its last clearing
    move), ``status`` (the entrant's: won, stuck, resigned, out_of_time; playing while
    unfinished; void when its race is void: no result) and its ``race``."""

    player: str
    name: str
    game: str
    day: str
    cleared: int
    total: int
    time_ms: int
    status: str
    race: str


class DailyDeal(Struct, forbid_unknown_fields=True):
    """Today's deal of one game: its ``commitment`` (SHA-256 of seed and salt, the same for every
    player), ``closes_at_ms`` (the end of the UTC day: then its results are final and the spoiler
    lock opens), and your ranked attempt, if any (``mine``)."""

    game: str
    day: str
    commitment: str
    closes_at_ms: int
    mine: DailyResult | None = None


class Streak(Struct, forbid_unknown_fields=True):
    """Consecutive UTC days with a daily challenge played to the end (any game, ranked):
    ``current`` (up to today, or to yesterday while today's is not played yet) and ``best``."""

    current: int
    best: int


class DailyInfo(_Msg, tag="daily_info"):
    """Reply to daily: ``day`` (today, UTC), today's ``deals``, your ``streak``, and the
    ``results`` of the asked ``game`` on ``results_day``, best first (empty without a game)."""

    req: int
    day: str
    deals: list[DailyDeal]
    streak: Streak
    results_day: str
    results: list[DailyResult]


class CalendarDay(Struct, forbid_unknown_fields=True):
    """One day of the calendar: ``day``, and your ranked ``result`` (None: not played)."""

    day: str
    result: DailyResult | None = None


class CalendarPage(_Msg, tag="calendar"):
    """Reply to daily_calendar: each day of ``month`` up to today, first day first, and your
    ``streak``."""

    req: int
    month: str
    game: str | None
    days: list[CalendarDay]
    streak: Streak


class HistoryPage(_Msg, tag="history_page"):
    """Reply to history: one page, newest first, of your finished races (``races``; kind
    races) or of your ended tournaments (``tournaments``; kind tournaments), the other list
    empty; ``cursor``: pass it as ``before`` for the next page (None: this is the last)."""

    req: int
    races: list[HistoryRace]
    cursor: str | None = None
    tournaments: list[HistoryTournament] = []


class LeaderboardRow(Struct, forbid_unknown_fields=True):
    """One line of a leaderboard: the ``player`` (id), its ``name`` and whether it is
    ``claimed``; on a rating board its ``rating`` (display points, `server.ratings.display`,
    rounded), ``provisional`` (shown with "?") and rated ``races``; on a daily board its
    ``cleared`` cards, ``time_ms`` and ``status`` (``rating`` 0, ``races`` 1)."""

    player: str
    name: str
    claimed: bool
    rating: int
    provisional: bool
    races: int
    cleared: int | None = None
    time_ms: int | None = None
    status: str | None = None


class LeaderboardPage(_Msg, tag="leaderboard_page"):
    """Reply to leaderboard: ``rows`` best first; ``cursor``: pass it as ``after`` for the next
    page (None: this is the last)."""

    req: int
    game: str
    board: str
    rows: list[LeaderboardRow]
    cursor: str | None = None


class GameStats(Struct, forbid_unknown_fields=True):
    """A player's statistics in one ``game``: races ``played`` and ``won`` (every card
    cleared), ``win_rate`` (won / played), ``best_win_ms`` and ``mean_win_ms`` (race time of its
    wins, ms; None without a win), cards ``cleared`` in all, the ``streak`` of wins up to its
    last race and its ``best_streak``; its ``rating`` (display points, None before a rated race)
    and whether that is ``provisional``."""

    game: str
    played: int
    won: int
    win_rate: float
    best_win_ms: int | None
    mean_win_ms: int | None
    cleared: int
    streak: int
    best_streak: int
    rating: int | None = None
    provisional: bool = True


class RatingPoint(Struct, forbid_unknown_fields=True):
    """One point of a rating chart: the rating in ``game`` (display points) after the rated race
    that finished at ``finished_ms`` (Unix epoch ms)."""

    game: str
    finished_ms: int
    rating: int


class Profile(_Msg, tag="profile_page"):
    """Reply to profile: the ``player`` (id), its ``name``, whether it is ``claimed``, when it
    was first seen (``created_ms``, Unix epoch ms), its statistics per game (``games``), its
    rating history (``rating_history``: the last 50 changes of each rated game, oldest first)
    and its 10 most ``recent`` races (as history lines, newest first)."""

    req: int
    player: str
    name: str
    claimed: bool
    created_ms: int
    games: list[GameStats]
    rating_history: list[RatingPoint]
    recent: list[HistoryRace]


class TournamentEvent(_Msg, tag="tournament_event"):
    """Event of a followed (or entered) tournament. ``kind``: registration_open, registered,
    withdrawn, starting, deal_started, deal_ended, standings, finished, cancelled. ``deal`` and
    ``race`` name the deal concerned (deal_started, deal_ended)."""

    tournament: TournamentInfo
    version: int
    kind: str
    standings: list[TournamentStanding]
    deal: int | None = None
    race: str | None = None


class Friend(Struct, forbid_unknown_fields=True):
    """A player you follow: its id, its claimed name, whether it is connected to this node
    (``online``) and the race it is playing there (``racing``: a code, or None)."""

    player: str
    name: str
    online: bool
    racing: str | None = None


class Invitation(_Msg, tag="invitation"):
    """A challenge to a race (``race``, of ``game``) from ``from_player`` (``from_name``): join it
    to accept (`join_race`), or `decline` it. Sent when you are challenged, and listed in
    `Following` while it waits."""

    race: str
    game: str
    from_player: str
    from_name: str


class Following(_Msg, tag="following"):
    """Reply to follow, unfollow and friends: the players you follow (the oldest follow first),
    and the challenges waiting for you (``invitations``, the newest last)."""

    req: int
    players: list[Friend]
    invitations: list[Invitation] = []


class Declined(_Msg, tag="declined"):
    """A challenge to ``race`` was declined by ``player``: the reply to your `decline` (with its
    ``req``), or sent to the challenger (``req`` None)."""

    race: str
    player: str
    req: int | None = None


ServerMessage = (
    Welcome
    | Claimed
    | TransferCode
    | Forgotten
    | PasskeyOptions
    | Renamed
    | Error
    | RaceReply
    | Races
    | MoveResult
    | EntrantJoined
    | RaceStarting
    | RaceStarted
    | Progress
    | DelayedBoard
    | RaceFinished
    | Snapshot
    | SyncPage
    | RaceRecord
    | Bonus
    | TournamentReply
    | Organiser
    | Tournaments
    | TournamentSnapshot
    | TournamentEvent
    | RematchOffer
    | ReplayStep
    | HistoryPage
    | RacePar
    | FairPlayReport
    | DailyInfo
    | CalendarPage
    | Following
    | Invitation
    | Declined
    | LeaderboardPage
    | Profile
)

# ---------------------------------------------------------------------------- encode/decode

_encoder = msgspec.msgpack.Encoder()
# (msgspec types a decoder for a union of types as Decoder[Any]: the annotations say what it returns)
_client_decoder: msgspec.msgpack.Decoder[ClientMessage] = msgspec.msgpack.Decoder(ClientMessage)
_server_decoder: msgspec.msgpack.Decoder[ServerMessage] = msgspec.msgpack.Decoder(ServerMessage)
_TYPES = {cls.__struct_config__.tag for cls in ClientMessage.__args__}


def encode(message: Struct) -> bytes:
    """Encode any message to the bytes of one binary frame."""
    return _encoder.encode(message)


_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError)


class ReplyFrame:
    """A reply encoded once and sent many times, each with its own ``req`` (and, ``last`` given,
    its own value of that last integer field, e.g. a snapshot's ``elapsed_ms``), without encoding
    the rest again: the bytes are cut around those values and joined per send, the same bytes
    `encode` gives. ``frame``: the reply encoded with ``req`` 0 (and ``last`` 0), whose ``req``
    is its first field after ``type``; raises ValueError for any other.

    >>> template = ReplyFrame(encode(SyncPage(req=0, race="AB12CD", until=0, version=0)), last="version")
    >>> template.frame(7, 9) == encode(SyncPage(req=7, race="AB12CD", until=0, version=9))
    True
    """

    __slots__ = ("_head", "_body", "_last", "size")

    def __init__(self, frame: bytes, last: str | None = None) -> None:
        at = frame.find(b"\xa3req\x00", 0, 64)  # (the type field comes first: at most ~40 bytes)
        end = len(frame)
        if last is not None:
            key = _encoder.encode(last) + b"\x00"
            if not frame.endswith(key):
                raise ValueError(f"the frame does not end with its {last} field, 0")
            end -= 1
        if at < 0:
            raise ValueError("the frame has no req field, 0, after its type")
        self._head = frame[: at + 4]
        self._body = frame[at + 5 : end]
        self._last = last is not None
        self.size = len(frame)  # bytes, about (the values filled in may take a few more)

    def frame(self, req: int, last: int | None = None) -> bytes:
        """The reply's bytes with ``req`` (and ``last``, 0 if not given, where the frame was cut
        at its last field)."""
        if not self._last:
            return b"".join((self._head, _encoder.encode(req), self._body))
        return b"".join((self._head, _encoder.encode(req), self._body, _encoder.encode(last or 0)))


def decode(data: bytes | str) -> ClientMessage:
    """Decode and validate one client frame; raises `ProtocolError` with a code, never anything else.

    Codes: ``text_frame`` (a str), ``bad_frame`` (not a MessagePack map), ``unknown_type``,
    ``bad_field`` (missing, mistyped, out of range or unknown fields), ``bad_seed``. The error
    carries the frame's ``req`` whenever the frame is a map holding a valid one.
    """
    if isinstance(data, str):
        raise ProtocolError(ErrorCode.TEXT_FRAME, "text frames are not accepted: send binary MessagePack")
    try:
        return _client_decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise _validation_error(data, str(exc)) from None
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ProtocolError(
            ErrorCode.BAD_FRAME, f"not a MessagePack message: {exc}"[:300], request_number(data)
        ) from None


class _Envelope(Struct):
    """The one field read from a frame that is refused before it is decoded: its ``req``."""

    req: object = None


_envelope_decoder = msgspec.msgpack.Decoder(_Envelope)


def request_number(data: bytes | str) -> int | None:
    """The ``req`` of a frame the server refuses (rate-limited, undecodable), if the frame is a
    MessagePack map holding a valid one; None otherwise. Never raises."""
    if isinstance(data, str):
        return None
    try:
        req = _envelope_decoder.decode(data).req
    except _DECODE_ERRORS:
        return None
    return _valid_req(req)


def _valid_req(req: object) -> int | None:
    if isinstance(req, int) and not isinstance(req, bool) and 0 <= req <= 2**31 - 1:
        return req
    return None


def _validation_error(data: bytes, detail: str) -> ProtocolError:
    try:
        raw = msgspec.msgpack.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        raw = None
    if not isinstance(raw, dict):
        return ProtocolError(
            ErrorCode.BAD_FRAME,
            "a frame must be one well-formed MessagePack map (valid UTF-8, no trailing bytes) with a 'type' field",
            request_number(data),
        )
    req = _valid_req(raw.get("req"))
    kind = raw.get("type")
    if not isinstance(kind, str):  # a list or a map is no type name (nor hashable)
        what = "is missing" if kind is None else f"must be a message name, not a {type(kind).__name__}"
        return ProtocolError(ErrorCode.UNKNOWN_TYPE, f"the 'type' field {what}", req)
    if kind not in _TYPES:
        return ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}"[:200], req)
    code = ErrorCode.BAD_SEED if "`$.seed`" in detail else ErrorCode.BAD_FIELD
    return ProtocolError(code, f"bad {kind} message: {detail}"[:300], req)


def decode_server(data: bytes) -> ServerMessage:
    """Decode one server frame (for clients and tests); raises msgspec errors on bad input."""
    return _server_decoder.decode(data)


# Keep the two code lists in step: a refused move's code is one or the other.
assert not set(ErrorCode) & set(IllegalCode)
