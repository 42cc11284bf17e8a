"""The system of record: every finished race and tournament, kept for good (the `Archive` interface).

The live store (`server.store.Store`) holds races while they are played and lets a finished
race's record go after a retention time; the archive keeps it until an operator says otherwise
(`Archive.forget_before`). Each finished race is written by the node that owns it, with
`Archive.put_race`, and again when a Double or Naught round of it is decided later; the write is
idempotent by race code and never goes backwards (`record_revision`), so a retry or a takeover
that writes the same race again, or an older copy of it, changes nothing. A player's history is
read a page at a time with `Archive.races_of` (one indexed query per page, newest first, paged by
an opaque cursor), and the tournaments the player was in with `Archive.tournaments_of` (the same
way).

Backends, picked by `open_archive` from a URL:

- ``memory://``: this process only, lost at exit (tests);
- ``sqlite:///PATH``: one SQLite file (the embedded default), through SQLAlchemy's async engine
  and aiosqlite;
- ``postgresql://USER:PASSWORD@HOST:PORT/DB``: PostgreSQL, shared by several nodes, through
  asyncpg.

The SQL backends keep their schema with Alembic migrations shipped in
``server/archive/migrations``; `Archive.open` brings an older schema up to date and refuses one
that is newer than this code.

Errors: every method may raise `ArchiveError` (its ``reason`` says why: the database cannot be
reached, its schema is ahead of this code, a call before `Archive.open`...).
"""

from __future__ import annotations

import abc

import msgspec

from server.archive.daily_totals import DailyTotal
from server.protocol import DailyResult, RaceRecord, TournamentInfo, TournamentStanding
from server.ratings import Rating

__all__ = [
    "Archive",
    "ArchiveError",
    "Claim",
    "PlayerCard",
    "PlayerGameStats",
    "ProfileReads",
    "game_stats_deltas",
    "Followed",
    "Passkey",
    "RaceRow",
    "RatedPlayer",
    "RatingChange",
    "RatingConflict",
    "RatingUpdate",
    "TournamentRow",
    "anonymised",
    "anonymised_standings",
    "DAILY_VOID",
    "daily_counted",
    "daily_order",
    "daily_replaces",
    "decode_board_cursor",
    "decode_cursor",
    "encode_board_cursor",
    "encode_cursor",
    "open_archive",
    "race_rows",
    "record_revision",
    "tournament_rows",
]


class ArchiveError(Exception):
    """The archive cannot do what was asked; ``reason`` says why in words (the database cannot
    be reached, its schema is ahead of this code, the URL names no known backend...)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RatingConflict(ArchiveError):
    """`Archive.apply_ratings` found a player's kept rating other than the update's ``before``
    (another race of the game was applied since it was read): nothing was written; read the
    ratings again and compute the update anew."""


class RatingUpdate(msgspec.Struct, frozen=True):
    """What one rated race does to one entrant (`Archive.apply_ratings`): ``player_id``'s rating
    in the race's game ``before`` the race (as read from the archive; `server.ratings.new_rating`
    for a first race) and ``after`` it (`server.ratings.rate`)."""

    player_id: str
    before: Rating
    after: Rating


class RatedPlayer(msgspec.Struct, frozen=True):
    """A player's kept rating in one ``game`` (`Archive.ratings_of`, `Archive.rating_board`):
    the ``rating``, its ``ordinal`` (`server.ratings.display`, the value boards rank by,
    display points) and when its last rated race finished (``updated_ms``, Unix epoch ms)."""

    player_id: str
    game: str
    rating: Rating
    ordinal: float
    updated_ms: int


class RatingChange(msgspec.Struct, frozen=True):
    """One line of a player's rating history (`Archive.rating_history`): the rated race
    ``race_code`` of ``game`` that finished at ``finished_ms`` (Unix epoch ms), and the rating
    ``before`` and ``after`` it."""

    race_code: str
    game: str
    finished_ms: int
    before: Rating
    after: Rating


class PlayerGameStats(msgspec.Struct, frozen=True):
    """A player's statistics in one ``game`` (`Archive.game_stats`): races ``played`` and
    ``won`` (its status won), ``win_ms_sum`` and ``best_win_ms`` (race time of its wins, ms;
    ``best_win_ms`` None without a win), cards ``cleared`` in all, and its ``streak`` of wins up
    to its last race (in the order the archive kept them) and ``best_streak``."""

    game: str
    played: int
    won: int
    win_ms_sum: int
    best_win_ms: int | None
    cleared: int
    streak: int
    best_streak: int


class PlayerCard(msgspec.Struct, frozen=True):
    """What a profile shows of a player (`Archive.player_card`): its id, ``name`` (its claimed
    name if it has one, else its name as last seen), whether it is ``claimed``, and when it was
    first seen (``created_ms``, Unix epoch ms)."""

    player_id: str
    name: str
    claimed: bool
    created_ms: int


def game_stats_deltas(record: RaceRecord, finished_ms: int) -> list[tuple[str, str, bool, int, int]]:
    """What the finished race ``record`` adds to its players' statistics (`PlayerGameStats`):
    one ``(player id, game, won, time_ms, cleared)`` per player of its history lines
    (`race_rows`)."""
    return [
        (player, row.game, row.status == "won", row.time_ms, row.cleared)
        for player, row in race_rows(record, finished_ms)
    ]


def encode_board_cursor(ordinal: float, player_id: str) -> str:
    """The cursor that continues a rating board after the row of ``player_id`` at ``ordinal``
    (opaque to clients: the float's exact hexadecimal form, ``/``, the id)."""
    return f"{float(ordinal).hex()}/{player_id}"


def decode_board_cursor(cursor: str) -> tuple[float, str]:
    """``(ordinal, player id)`` from a cursor `encode_board_cursor` made. Raises `ArchiveError`
    for a cursor it did not make."""
    number, sep, player_id = cursor.partition("/")
    try:
        ordinal = float.fromhex(number)
    except ValueError:
        ordinal = float("nan")
    if not sep or not player_id or len(cursor) > 200 or ordinal != ordinal or abs(ordinal) == float("inf"):
        raise ArchiveError(f"bad rating board cursor {cursor[:40]!r}")
    return ordinal, player_id


class Claim(msgspec.Struct, frozen=True):
    """A claimed name (`Archive.put_claim`): the ``player_id`` that holds it, the ``name`` as
    claimed, its ``name_key`` (`server.names.name_key`: unique among claims), the password's
    ``password_hash`` (argon2id, PHC string: `server.claims`) and ``claimed_ms`` (Unix epoch ms)."""

    player_id: str
    name: str
    name_key: str
    password_hash: str
    claimed_ms: int


class Followed(msgspec.Struct, frozen=True):
    """A player someone follows (`Archive.following`): its id, its claimed ``name``, and since
    when it is followed (``since_ms``, Unix epoch ms)."""

    player_id: str
    name: str
    since_ms: int


class Passkey(msgspec.Struct, frozen=True):
    """A claimed player's passkey (`Archive.put_passkey`, `server.handlers.passkeys`): its
    ``credential_id`` (the authenticator's id, base64url without padding), the ``player_id`` it
    logs in, its COSE ``public_key`` (bytes), the authenticator's ``sign_count`` as last seen,
    ``created_ms`` and ``used_ms`` (Unix epoch ms)."""

    credential_id: str
    player_id: str
    public_key: bytes
    sign_count: int
    created_ms: int
    used_ms: int


class RaceRow(msgspec.Struct, frozen=True):
    """One line of a player's history (`Archive.races_of`): the race ``code`` and ``game``,
    when it finished (``finished_ms``, Unix epoch milliseconds), the player's ``standing``
    (1-based place) among ``entrants`` entrants, its cards ``cleared`` of ``total``, its
    ``time_ms`` (race time of its last clearing move, ms), its final ``status`` (won, stuck,
    resigned, out_of_time...), and ``par``: what the deal allowed (`server.protocol.Par`'s
    ``result``: won, lost or unknown), None when the race carried no par."""

    code: str
    game: str
    finished_ms: int
    standing: int
    entrants: int
    cleared: int
    total: int
    time_ms: int
    status: str
    par: str | None = None


class ProfileReads(msgspec.Struct, frozen=True):
    """Everything a profile shows of a player (`Archive.profile_reads`): its ``card``, its
    ``stats`` per game (by game name), its ``ratings`` (by game name), each rated game's latest
    rating changes (``history``: game -> changes, newest first) and its latest races
    (``recent``, newest first)."""

    card: PlayerCard
    stats: list[PlayerGameStats]
    ratings: list[RatedPlayer]
    history: dict[str, list[RatingChange]]
    recent: list[RaceRow]


def race_rows(record: RaceRecord, finished_ms: int) -> list[tuple[str, RaceRow]]:
    """One ``(player id, RaceRow)`` per player of the finished race ``record`` (from its
    standings; a player with two entries gets its better one), as every backend lists them."""
    par = record.race.par.result if record.race.par is not None else None
    count = len(record.standings)
    rows: dict[str, RaceRow] = {}
    for line in sorted(record.standings, key=lambda line: line.place):
        if line.player not in rows:
            rows[line.player] = RaceRow(
                code=record.race.code,
                game=record.race.game,
                finished_ms=finished_ms,
                standing=line.place,
                entrants=count,
                cleared=line.cleared,
                total=line.total,
                time_ms=line.time_ms,
                status=line.status,
                par=par,
            )
    return list(rows.items())


class TournamentRow(msgspec.Struct, frozen=True):
    """One tournament of a player's history (`Archive.tournaments_of`): its ``tournament`` id
    (the page ``/t/ID`` shows its results), ``title`` (its name), ``game``, ``format`` (rounds
    or arena) and ``deals``; when it ended (``finished_ms``, Unix epoch ms) and how
    (``outcome``: the tournament's status, finished or cancelled); the player's ``place``
    (1-based) among ``entrants`` entries, its cards ``cleared`` over every deal, its total
    ``time_ms`` (ms) and its entry's final ``status`` (finished, withdrawn, absent...)."""

    tournament: str
    title: str
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


def tournament_rows(
    tournament_id: str, info: TournamentInfo, standings: list[TournamentStanding], finished_ms: int
) -> list[tuple[str, str, TournamentRow]]:
    """One ``(player id, entry name, TournamentRow)`` per player of the ended tournament (from
    its final ``standings``; a player with two entries gets its better one), as every backend
    lists them."""
    count = len(standings)
    rows: dict[str, tuple[str, str, TournamentRow]] = {}
    for line in sorted(standings, key=lambda line: line.place):
        if line.player not in rows:
            rows[line.player] = (
                line.player,
                line.name,
                TournamentRow(
                    tournament=tournament_id,
                    title=info.name,
                    game=info.game,
                    format=info.format,
                    deals=info.deals,
                    finished_ms=finished_ms,
                    outcome=info.status,
                    place=line.place,
                    entrants=count,
                    cleared=line.cleared,
                    time_ms=line.time_ms,
                    status=line.status,
                ),
            )
    return list(rows.values())


def record_revision(record: RaceRecord) -> int:
    """How far the finished race ``record`` has come since its end: the Double or Naught rounds
    decided in it (every entrant's). It never goes down (a decided round stays in the record),
    so of two copies of a race the one with the higher revision is the newer
    (`Archive.put_race`)."""
    return sum(len(entrant.bonus) for entrant in record.entrants)


def anonymised(record: RaceRecord, player_id: str, name: str) -> RaceRecord:
    """``record`` with player ``player_id``'s name replaced by ``name`` in its entrants, its
    standings and its description's list of entrants' names (`Archive.forget_player`); the rest
    as it was."""
    old_names = {entrant.name for entrant in record.entrants if entrant.player == player_id}
    entrants = [
        msgspec.structs.replace(entrant, name=name) if entrant.player == player_id else entrant
        for entrant in record.entrants
    ]
    standings = [
        msgspec.structs.replace(line, name=name) if line.player == player_id else line for line in record.standings
    ]
    race = msgspec.structs.replace(
        record.race, entrants=[name if entrant in old_names else entrant for entrant in record.race.entrants]
    )
    return msgspec.structs.replace(record, race=race, entrants=entrants, standings=standings)


def anonymised_standings(standings: list[TournamentStanding], player_id: str, name: str) -> list[TournamentStanding]:
    """A tournament's ``standings`` with player ``player_id``'s lines named ``name``
    (`Archive.forget_player`); the other lines as they were."""
    return [msgspec.structs.replace(line, name=name) if line.player == player_id else line for line in standings]


#: The status of a ranked daily attempt whose race is void (`server.race.Race.void`: the store lost
#: moves it had acknowledged): kept in its player's days, but on no board and in no totals.
DAILY_VOID = "void"


def daily_counted(result: DailyResult) -> bool:
    """Whether a daily ``result`` counts in its week's and all time's totals: a final result
    (not ``playing``) that is not void (`DAILY_VOID`)."""
    return result.status not in ("playing", DAILY_VOID)


def daily_order(result: DailyResult) -> tuple[int, int, str]:
    """A day's daily leaderboard order: more cards cleared, then less time, then the race code."""
    return (-result.cleared, result.time_ms, result.race)


def daily_replaces(kept: DailyResult, new: DailyResult) -> bool:
    """Whether ``new`` may replace the daily result ``kept`` of the same day, game and player
    (`Archive.put_daily_result`): only an attempt still ``playing`` is replaced, by a later word
    of the same race; a final result stays as it is."""
    return kept.status == "playing" and new.race == kept.race


def encode_cursor(finished_ms: int, code: str) -> str:
    """The cursor that continues a history page after the race ``code`` finished at
    ``finished_ms`` (opaque to clients: ``"<finished_ms>.<code>"``)."""
    return f"{finished_ms}.{code}"


def decode_cursor(cursor: str) -> tuple[int, str]:
    """``(finished_ms, code)`` from a cursor `encode_cursor` made. Raises `ArchiveError` for a
    cursor it did not make."""
    ms, sep, code = cursor.partition(".")
    if not sep or not code or not ms.isdigit() or len(ms) > 19:
        raise ArchiveError(f"bad history cursor {cursor[:40]!r}")
    return int(ms), code


class Archive(abc.ABC):
    """Finished races and tournaments, kept until `forget_before` removes them. Open it once
    (`open`) before any other call and `close` it at shutdown. Every method may raise
    `ArchiveError`."""

    url: str = ""

    @abc.abstractmethod
    async def open(self) -> None:
        """Connect, and bring the schema up to date when it is behind this code's (Alembic's
        head). Raises `ArchiveError` when the database cannot be reached or its schema is ahead
        of this code (written by a newer version: upgrade the server instead)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Let the connections go; calling it twice, or without `open`, does nothing."""

    @abc.abstractmethod
    async def put_race(self, record: RaceRecord, finished_ms: int) -> bool:
        """Keep the finished race ``record`` (its ``req`` is not kept) for good, as finished at
        ``finished_ms`` (Unix epoch ms), with its players' history lines (`race_rows`), all at
        once. Idempotent by race code: a copy of a race already kept replaces it only when it is
        newer (a higher `record_revision`: Double or Naught rounds decided since), keeping the
        first ``finished_ms``; an older or equal copy (a retry, a takeover) changes nothing, and
        writes that race each other leave the newest. True if something was written (the race
        is new here, or its copy newer), False if nothing changed."""

    @abc.abstractmethod
    async def get_race(self, code: str) -> RaceRecord | None:
        """The record kept for race ``code`` (with ``req`` 0), or None."""

    @abc.abstractmethod
    async def put_tournament(
        self, tournament_id: str, info: TournamentInfo, standings: list[TournamentStanding], finished_ms: int
    ) -> bool:
        """Keep a finished tournament's description and final standings, finished at
        ``finished_ms`` (Unix epoch ms), and one history line per player of its standings
        (`tournament_rows`), all at once. Idempotent by id: True if written now, False if it was
        already kept (then nothing changes)."""

    @abc.abstractmethod
    async def get_tournament(self, tournament_id: str) -> tuple[TournamentInfo, list[TournamentStanding]] | None:
        """``(info, standings)`` kept for the tournament, or None."""

    @abc.abstractmethod
    async def races_of(self, player_id: str, *, before: str | None, limit: int) -> tuple[list[RaceRow], str | None]:
        """One page of ``player_id``'s finished races, newest first (by finished time, then
        race code, both descending), at most ``limit`` (>= 1) rows, after the cursor
        ``before`` (None: from the newest). Returns ``(rows, cursor)``: ``cursor`` continues
        with the next page, None when this page is the last. Raises `ArchiveError` for a
        cursor this archive did not make or a ``limit`` below 1."""

    @abc.abstractmethod
    async def tournaments_of(
        self, player_id: str, *, before: str | None, limit: int
    ) -> tuple[list[TournamentRow], str | None]:
        """One page of the ended tournaments ``player_id`` was entered in, newest first (by end
        time, then tournament id, both descending), at most ``limit`` (>= 1) rows, after the
        cursor ``before`` (None: from the newest), as `races_of` pages races. Returns ``(rows,
        cursor)``. Raises `ArchiveError` for a cursor this archive did not make or a ``limit``
        below 1."""

    @abc.abstractmethod
    async def put_player(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> bool:
        """Keep player ``player_id`` for good: its display ``name``, the digest of its token
        (`server.players.token_digest`: 64 hex digits, never the token) and when it was seen
        (``seen_ms``, Unix epoch ms; a new player's created time too). A player already kept
        under the same digest (one of its devices' tokens: `add_token`) gets the name and time
        unless it was seen later than ``seen_ms`` already (writes that arrive out of order keep
        the newest). True if something was written; False if nothing changed: an older write, or
        an id kept without this token's digest (which is left as it is)."""

    @abc.abstractmethod
    async def player_by_token(self, token_digest: str) -> tuple[str, str] | None:
        """``(player id, name)`` of the player kept under ``token_digest``, or None."""

    # Claimed names, devices and transfer codes (server.handlers.claims). A player may hold
    # several tokens (one per device); a claim is its name and password hash; a transfer code
    # moves it to another device once.

    @abc.abstractmethod
    async def add_token(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> None:
        """Let ``token_digest`` (a new device's token, 64 hex digits) resume player
        ``player_id`` too, kept as ``name`` if it is not kept yet; ``seen_ms``: Unix epoch ms."""

    @abc.abstractmethod
    async def put_claim(self, claim: Claim) -> bool:
        """Keep ``claim`` (replacing the player's own earlier claim, if any). False, and nothing
        written, when another player's claim has the same ``name_key``."""

    @abc.abstractmethod
    async def claim_by_key(self, name_key: str) -> Claim | None:
        """The claim whose name has the key ``name_key`` (`server.names.name_key`), or None."""

    @abc.abstractmethod
    async def claim_of(self, player_id: str) -> Claim | None:
        """Player ``player_id``'s claim, or None (a guest)."""

    @abc.abstractmethod
    async def set_organiser(self, player_id: str, organiser: bool, now_ms: int) -> bool:
        """Grant (``organiser`` true, at ``now_ms``, Unix epoch ms) or revoke player
        ``player_id``'s organiser role (`server.handlers.organisers`). True if that changed
        something, False if the player had that role already (or had none to revoke)."""

    @abc.abstractmethod
    async def is_organiser(self, player_id: str) -> bool:
        """Whether player ``player_id`` holds the organiser role."""

    @abc.abstractmethod
    async def put_transfer_code(self, code_digest: str, player_id: str, expires_ms: int) -> None:
        """Keep a transfer code's digest (SHA-256 hex) for ``player_id``, good until
        ``expires_ms`` (Unix epoch ms)."""

    @abc.abstractmethod
    async def use_transfer_code(self, code_digest: str, now_ms: int) -> str | None:
        """Spend the transfer code with ``code_digest``: the player id it moves, once; None for
        a code unknown, used already, or expired at ``now_ms`` (Unix epoch ms). Two calls at
        once with one code: one gets the id."""

    @abc.abstractmethod
    async def put_passkey(self, passkey: Passkey) -> bool:
        """Keep ``passkey``; False, and nothing written, when its credential id is kept already."""

    @abc.abstractmethod
    async def passkey(self, credential_id: str) -> Passkey | None:
        """The passkey with ``credential_id``, or None."""

    @abc.abstractmethod
    async def passkeys_of(self, player_id: str) -> list[Passkey]:
        """Player ``player_id``'s passkeys, oldest first (by creation time, then id)."""

    @abc.abstractmethod
    async def use_passkey(self, credential_id: str, sign_count: int, used_ms: int) -> None:
        """Note a login with passkey ``credential_id``: its authenticator's ``sign_count`` now,
        at ``used_ms`` (Unix epoch ms); an unknown id changes nothing."""

    @abc.abstractmethod
    async def forget_player(self, player_id: str, anonymous_name: str) -> int:
        """Delete player ``player_id``'s identity: its row, tokens, claim, transfer codes,
        passkeys, organiser role and ratings. Its archived races, tournaments and daily results
        stay, its name in them (history lines, race records, tournament standings, daily results)
        replaced by ``anonymous_name``; returns how many races it was in. Costs O(its races and
        tournaments)."""

    # Follows (server.handlers.friends): a player follows claimed players, to see when they are
    # online or racing and to challenge them.

    @abc.abstractmethod
    async def follow(self, follower_id: str, followee_id: str, since_ms: int) -> bool:
        """Let ``follower_id`` follow ``followee_id`` from ``since_ms`` (Unix epoch ms). True if
        kept now; False if it followed that player already (nothing changes)."""

    @abc.abstractmethod
    async def unfollow(self, follower_id: str, followee_id: str) -> bool:
        """Stop ``follower_id`` following ``followee_id``. True if it did follow that player."""

    @abc.abstractmethod
    async def following(self, player_id: str, limit: int) -> list[Followed]:
        """The claimed players ``player_id`` follows, at most ``limit`` (>= 1), the oldest follow
        first (then by player id), each with its claimed name. One indexed read. Raises
        `ArchiveError` for a ``limit`` below 1."""

    @abc.abstractmethod
    async def apply_ratings(self, race_code: str, game: str, finished_ms: int, updates: list[RatingUpdate]) -> bool:
        """Apply one rated race's rating ``updates`` (one per rated entrant) in ``game``, the race
        ``race_code`` having finished at ``finished_ms`` (Unix epoch ms): each player's rating
        becomes its ``after`` and a history line is kept, all in one transaction. Idempotent by
        race code: True if applied now, False if that race was applied already (then nothing
        changes). Raises `RatingConflict` (and writes nothing) when a player's kept rating is not
        the update's ``before`` (compared by race count: a newer race was applied since it was
        read), `ArchiveError` for an empty ``updates`` or a player listed twice."""

    @abc.abstractmethod
    async def ratings_of(self, player_id: str) -> list[RatedPlayer]:
        """``player_id``'s rating in every game it has a rated race in, by game name."""

    @abc.abstractmethod
    async def rating_history(self, player_id: str, game: str, limit: int) -> list[RatingChange]:
        """``player_id``'s latest ``limit`` (>= 1) rating changes in ``game``, newest first (by
        finished time, then race code, both descending). Raises `ArchiveError` for a ``limit``
        below 1."""

    @abc.abstractmethod
    async def rating_board(
        self,
        game: str,
        *,
        active_since_ms: int,
        after: str | None = None,
        around: str | None = None,
        limit: int,
    ) -> tuple[list[RatedPlayer], str | None]:
        """One page of ``game``'s rating board: players whose last rated race of the game
        finished at ``active_since_ms`` (Unix epoch ms) or later, best first (by ordinal, then
        player id, both descending), at most ``limit`` (>= 1) rows. From the top, or after the
        cursor ``after``, or (``around``: a player id) centred on that player's place: up to
        ``limit // 2`` rows above it, then its own row (if it is active) and the rows below (a
        player without a rating of the game gets an empty page). Returns ``(rows, cursor)``:
        ``cursor`` continues below the page, None when nothing follows. Places are not counted (a
        count of everyone above would grow with the board). Raises `ArchiveError` for a cursor it
        did not make, both ``after`` and ``around``, or a ``limit`` below 1."""

    # The daily challenge (server.daily): one result per player, game and UTC day, and the
    # secret the days' deals derive from.

    @abc.abstractmethod
    async def put_daily_result(self, result: DailyResult, finished_ms: int) -> bool:
        """Keep a ranked daily attempt's ``result`` (``playing`` when it starts, final at its
        end), as of ``finished_ms`` (Unix epoch ms). Idempotent by ``(day, game, player)``: a kept
        result is replaced only as `daily_replaces` allows. True if something was written."""

    @abc.abstractmethod
    async def daily_board(self, game: str, day: str, limit: int) -> list[DailyResult]:
        """The ``limit`` (>= 1) best results of ``game`` on UTC ``day`` (YYYY-MM-DD), in
        `daily_order`; void attempts (`DAILY_VOID`) are on no board. Raises `ArchiveError` for a ``limit`` below 1."""

    @abc.abstractmethod
    async def daily_of(self, player_id: str, first_day: str, last_day: str) -> list[DailyResult]:
        """``player_id``'s daily results from ``first_day`` to ``last_day`` (YYYY-MM-DD, both
        included), newest day first, then by game."""

    @abc.abstractmethod
    async def kept_secret(self, name: str, fresh: str) -> str:
        """The secret kept as ``name``; keeps ``fresh`` and returns it when there is none yet
        (two nodes asking at once: both get the one kept first)."""

    @abc.abstractmethod
    async def daily_totals_board(
        self, game: str, period: str, *, after: str | None = None, around: str | None = None, limit: int
    ) -> tuple[list[DailyTotal], str | None]:
        """One page of ``game``'s daily board of ``period`` (a week key such as ``"2026-W48"``, or
        ``"all"``; `server.archive.daily_totals`), best first (`totals_order`): from the top,
        after the cursor ``after``, or (``around``: a player id) up to ``limit // 2`` rows above
        that player, then its row and those below (a player with no total: an empty page). At
        most ``limit`` (>= 1) rows; returns ``(rows, cursor)``, ``cursor`` None when nothing
        follows. Each page reads ranges of the totals' board index, never the whole period.
        Raises `ArchiveError` for a cursor it did not make, both ``after`` and ``around``, or a
        ``limit`` below 1."""

    @abc.abstractmethod
    async def daily_totals_among(self, game: str, period: str, player_ids: list[str]) -> list[DailyTotal]:
        """The totals of ``game`` in ``period`` of those of ``player_ids`` who have one (a
        friends' board), best first: one query by primary key."""

    # Profiles and leaderboard names (server.handlers.boards).

    @abc.abstractmethod
    async def game_stats(self, player_id: str) -> list[PlayerGameStats]:
        """``player_id``'s statistics in every game it played, by game name: one range of the
        ``player_game_stats`` primary key (`put_race` keeps it up, never a scan of its races)."""

    @abc.abstractmethod
    async def player_card(self, player_id: str) -> PlayerCard | None:
        """Player ``player_id``'s name, claim and first-seen time (one lookup by primary key), or
        None for a player the archive does not keep."""

    async def profile_reads(self, player_id: str, history_points: int, recent: int) -> ProfileReads | None:
        """What a profile shows of ``player_id`` (`ProfileReads`; None for a player the archive
        does not keep): its card, statistics, ratings, the latest ``history_points`` (>= 1)
        rating changes of each rated game and its latest ``recent`` (>= 1) races. This default
        asks `player_card`, `game_stats`, `ratings_of`, `rating_history` and `races_of` in turn;
        an SQL archive reads it all on one connection in a few statements. Raises `ArchiveError`
        for a limit below 1."""
        card = await self.player_card(player_id)
        if card is None:
            return None
        stats = await self.game_stats(player_id)
        rated = await self.ratings_of(player_id)
        history = {row.game: await self.rating_history(player_id, row.game, history_points) for row in rated}
        races, _ = await self.races_of(player_id, before=None, limit=recent)
        return ProfileReads(card, stats, rated, history, races)

    @abc.abstractmethod
    async def player_names(self, player_ids: list[str]) -> dict[str, tuple[str, bool]]:
        """``(name, claimed)`` of each of ``player_ids`` the archive keeps (the claimed name when
        there is one), by id: one query for the whole list."""

    @abc.abstractmethod
    async def ratings_among(self, game: str, player_ids: list[str]) -> list[RatedPlayer]:
        """The ratings in ``game`` of those of ``player_ids`` who have one (a friends' board),
        best first: one query by primary key."""

    @abc.abstractmethod
    async def forget_before(self, ms: int) -> int:
        """Remove every race (and tournament, with its history lines) that finished before
        ``ms`` (Unix epoch ms), the operators' retention; returns how many races it removed."""


def open_archive(url: str) -> Archive:
    """An (unopened) archive for ``url``: ``memory://``, ``sqlite:///PATH`` (a file; relative
    with three slashes, absolute with four), ``postgresql://...`` (``postgres://`` and
    ``postgresql+asyncpg://`` too). Raises `ArchiveError` for any other scheme."""
    scheme = url.partition("://")[0].lower()
    if scheme == "memory":
        from server.archive.memory import MemoryArchive

        return MemoryArchive()
    if scheme in ("sqlite", "sqlite+aiosqlite", "postgresql", "postgres", "postgresql+asyncpg"):
        from server.archive.sql import SqlArchive

        return SqlArchive(url)
    raise ArchiveError(f"unknown archive URL {url[:60]!r}: use memory://, sqlite:///PATH or postgresql://...")
