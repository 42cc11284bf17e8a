"""The archive's SQL tables as this code reads and writes them (SQLAlchemy Core). The schema in
a database is made by the Alembic revisions in ``migrations/versions``; a change here goes with a
new revision there.

- ``races``: one row per finished race: ``code`` (primary key), ``game``, ``seed``,
  ``commitment``, ``finished_ms`` (Unix epoch ms; indexed for retention), ``tournament`` (its
  id, if a tournament's deal), ``record`` (the `server.protocol.RaceRecord`, msgspec
  MessagePack).
- ``race_entrants``: one row per player of a race, with everything a history line shows
  (`server.archive.RaceRow`), so a page is one scan of ``ix_race_entrants_player_finished``:
  ``(player_id, finished_ms DESC, race_code DESC)``.
- ``tournaments``: ``id``, ``finished_ms``, ``info`` and ``standings`` (MessagePack).
- ``tournament_entrants``: one row per player of an ended tournament (primary key
  ``(tournament_id, player_id)``), with everything a history line shows
  (`server.archive.TournamentRow`): its ``title``, ``game``, ``format``, ``deals``, ``outcome``
  (finished or cancelled), ``finished_ms``, and the player's entry ``name``, ``place`` among
  ``entrants``, ``cleared``, ``time_ms``, ``status``; a page is one scan of
  ``ix_tournament_entrants_player_finished``: ``(player_id, finished_ms DESC, tournament_id DESC)``.
- ``daily_results``: one row per ranked daily challenge attempt, primary key ``(day, game,
  player_id)``: ``name``, ``race_code``, ``cleared``, ``total``, ``time_ms``, ``status``,
  ``finished_ms``; a day's leaderboard is one scan of ``ix_daily_results_board`` ``(day, game,
  cleared DESC, time_ms, race_code)``, a player's days one of ``ix_daily_results_player``
  ``(player_id, day DESC, game)``.
- ``daily_totals``: running sums of the final ``daily_results`` per game, period (an ISO week
  such as ``"2026-W48"``, or ``"all"``) and player (primary key ``(game, period, player_id)``):
  ``cards``, ``time_ms``, ``days``; kept up in the transaction that writes a final result, so
  that a week's or all time's board is one range of ``ix_daily_totals_board`` ``(game, period,
  cards DESC, time_ms, player_id)``, not a sum over the period's results.
- ``kept_secrets``: ``name`` (primary key), ``value``, ``created_ms``: secrets every node shares,
  made once (the daily deals' secret, `server.daily`).
- ``players``: one row per player: ``id`` (primary key), ``name`` (as last seen), ``created_ms``
  and ``seen_ms`` (Unix epoch ms).
- ``player_tokens``: one row per device a player uses: ``token_digest`` (primary key:
  `server.players.token_digest` of the token, never the token; a hello's lookup), ``player_id``
  (indexed), ``created_ms``, ``seen_ms``.
- ``claims``: a claimed name: ``player_id`` (primary key), ``name`` as claimed, ``name_key``
  (`server.names.name_key`: unique, so that no two claimed names look alike), ``password_hash``
  (argon2id, PHC string), ``claimed_ms``.
- ``transfer_codes``: ``code_digest`` (primary key: SHA-256 of the code), ``player_id``
  (indexed), ``expires_ms``, ``used``.
- ``organisers``: one row per claimed player the server's admin made an organiser (it may create
  and run its own tournaments without the admin token): ``player_id`` (primary key),
  ``granted_ms`` (Unix epoch ms).
- ``ratings``: one row per player and game (primary key ``(player_id, game)``): ``mu``,
  ``sigma``, ``races`` (`server.ratings.Rating`), ``ordinal`` (`server.ratings.display`) and
  ``updated_ms`` (when its last rated race finished, Unix epoch ms). A board page is one range
  scan of ``ix_ratings_board``: ``(game, ordinal DESC, player_id DESC, updated_ms)``; its last
  column lets the "active since" filter be checked on the index's entries without reading the
  table, so a page reads about ``limit / share of active players`` entries (an index on ``(game,
  updated_ms)`` instead would find the active players but then sort them all).
- ``follows``: who follows whom (primary key ``(follower_id, followee_id)``: a player's follows
  are one range of it), ``since_ms`` (Unix epoch ms); ``ix_follows_followee``: ``(followee_id,
  follower_id)``, a player's followers (forgetting a player removes its follows both ways).
- ``passkeys``: a claimed player's passkeys (`server.archive.Passkey`): ``credential_id``
  (primary key, base64url), ``player_id`` (``ix_passkeys_player``), ``public_key`` (COSE bytes),
  ``sign_count``, ``created_ms``, ``used_ms`` (Unix epoch ms).
- ``rating_changes``: one row per rated race and player (primary key ``(race_code, player_id)``:
  a race applied twice is refused by it), the rating before and after (``mu_before``,
  ``sigma_before``, ``mu_after``, ``sigma_after``; ``races``: the count after), ``game`` and
  ``finished_ms``; a player's history is one scan of ``ix_rating_changes_player``: ``(player_id,
  game, finished_ms DESC, race_code DESC)``.
- ``player_game_stats``: one row per player and game (primary key ``(player_id, game)``: a
  profile's statistics are one range of it), kept up by `server.archive.Archive.put_race` in the
  transaction that writes the race's ``race_entrants`` rows (a race's first copy only): races
  ``played``, ``won`` (status won), ``win_ms_sum`` and ``best_win_ms`` (race time of its wins,
  ms), cards ``cleared``, the current ``streak`` of wins and ``best_streak``.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = [
    "BOARD_INDEX",
    "HISTORY_INDEX",
    "RATING_HISTORY_INDEX",
    "rating_changes",
    "ratings",
    "player_game_stats",
    "TOURNAMENT_HISTORY_INDEX",
    "VERSION_TABLE",
    "claims",
    "DAILY_BOARD_INDEX",
    "DAILY_PLAYER_INDEX",
    "DAILY_TOTALS_INDEX",
    "daily_results",
    "daily_totals",
    "kept_secrets",
    "FOLLOWERS_INDEX",
    "follows",
    "passkeys",
    "metadata",
    "player_tokens",
    "players",
    "race_entrants",
    "races",
    "tournament_entrants",
    "tournaments",
    "transfer_codes",
    "organisers",
]

#: The indexes of the daily challenge's results (`daily_results`): a day's leaderboard per game
#: (cards cleared desc, then time asc) and a player's days (its calendar and streak).
DAILY_BOARD_INDEX = "ix_daily_results_board"
DAILY_PLAYER_INDEX = "ix_daily_results_player"
#: Alembic's table of the schema's revision.
VERSION_TABLE = "archive_version"
#: The index a history page (`server.archive.Archive.races_of`) is read through.
HISTORY_INDEX = "ix_race_entrants_player_finished"
#: The index a page of a player's tournaments (`server.archive.Archive.tournaments_of`) is read through.
TOURNAMENT_HISTORY_INDEX = "ix_tournament_entrants_player_finished"

#: The index a rating board page (`server.archive.Archive.rating_board`) is read through.
BOARD_INDEX = "ix_ratings_board"
#: The index a player's rating history (`server.archive.Archive.rating_history`) is read through.
RATING_HISTORY_INDEX = "ix_rating_changes_player"

metadata = sa.MetaData()

races = sa.Table(
    "races",
    metadata,
    sa.Column("code", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("commitment", sa.String(128), nullable=False),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.Column("tournament", sa.String(64), nullable=True),
    sa.Column("record", sa.LargeBinary, nullable=False),
    sa.Index("ix_races_finished", "finished_ms"),
)

race_entrants = sa.Table(
    "race_entrants",
    metadata,
    sa.Column("race_code", sa.String(64), nullable=False),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.Column("place", sa.Integer, nullable=False),
    sa.Column("entrants", sa.Integer, nullable=False),
    sa.Column("cleared", sa.Integer, nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("time_ms", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("par", sa.String(16), nullable=True),
    sa.PrimaryKeyConstraint("race_code", "player_id"),
    sa.Index(HISTORY_INDEX, "player_id", sa.text("finished_ms DESC"), sa.text("race_code DESC")),
)

tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.Column("info", sa.LargeBinary, nullable=False),
    sa.Column("standings", sa.LargeBinary, nullable=False),
    sa.Index("ix_tournaments_finished", "finished_ms"),
)

tournament_entrants = sa.Table(
    "tournament_entrants",
    metadata,
    sa.Column("tournament_id", sa.String(64), nullable=False),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("title", sa.String(256), nullable=False),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("deals", sa.Integer, nullable=False),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.Column("place", sa.Integer, nullable=False),
    sa.Column("entrants", sa.Integer, nullable=False),
    sa.Column("cleared", sa.Integer, nullable=False),
    sa.Column("time_ms", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(32), nullable=False),
    sa.PrimaryKeyConstraint("tournament_id", "player_id"),
    sa.Index(TOURNAMENT_HISTORY_INDEX, "player_id", sa.text("finished_ms DESC"), sa.text("tournament_id DESC")),
)

players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("seen_ms", sa.BigInteger, nullable=False),
)

player_tokens = sa.Table(
    "player_tokens",
    metadata,
    sa.Column("token_digest", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("seen_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_player_tokens_player", "player_id"),
)

claims = sa.Table(
    "claims",
    metadata,
    sa.Column("player_id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("name_key", sa.String(512), nullable=False),
    sa.Column("password_hash", sa.String(256), nullable=False),
    sa.Column("claimed_ms", sa.BigInteger, nullable=False),
    sa.Index("ux_claims_name_key", "name_key", unique=True),
)

transfer_codes = sa.Table(
    "transfer_codes",
    metadata,
    sa.Column("code_digest", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("expires_ms", sa.BigInteger, nullable=False),
    sa.Column("used", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Index("ix_transfer_codes_player", "player_id"),
)

organisers = sa.Table(
    "organisers",
    metadata,
    sa.Column("player_id", sa.String(64), primary_key=True),
    sa.Column("granted_ms", sa.BigInteger, nullable=False),
)

ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("mu", sa.Float(53), nullable=False),
    sa.Column("sigma", sa.Float(53), nullable=False),
    sa.Column("races", sa.Integer, nullable=False),
    sa.Column("ordinal", sa.Float(53), nullable=False),
    sa.Column("updated_ms", sa.BigInteger, nullable=False),
    sa.PrimaryKeyConstraint("player_id", "game"),
    sa.Index(BOARD_INDEX, "game", sa.text("ordinal DESC"), sa.text("player_id DESC"), "updated_ms"),
)

rating_changes = sa.Table(
    "rating_changes",
    metadata,
    sa.Column("race_code", sa.String(64), nullable=False),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.Column("mu_before", sa.Float(53), nullable=False),
    sa.Column("sigma_before", sa.Float(53), nullable=False),
    sa.Column("mu_after", sa.Float(53), nullable=False),
    sa.Column("sigma_after", sa.Float(53), nullable=False),
    sa.Column("races", sa.Integer, nullable=False),
    sa.PrimaryKeyConstraint("race_code", "player_id"),
    sa.Index(RATING_HISTORY_INDEX, "player_id", "game", sa.text("finished_ms DESC"), sa.text("race_code DESC")),
)

player_game_stats = sa.Table(
    "player_game_stats",
    metadata,
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("played", sa.Integer, nullable=False),
    sa.Column("won", sa.Integer, nullable=False),
    sa.Column("win_ms_sum", sa.BigInteger, nullable=False),
    sa.Column("best_win_ms", sa.BigInteger, nullable=True),
    sa.Column("cleared", sa.BigInteger, nullable=False),
    sa.Column("streak", sa.Integer, nullable=False),
    sa.Column("best_streak", sa.Integer, nullable=False),
    sa.PrimaryKeyConstraint("player_id", "game"),
)

daily_results = sa.Table(
    "daily_results",
    metadata,
    sa.Column("day", sa.String(10), nullable=False),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("race_code", sa.String(64), nullable=False),
    sa.Column("cleared", sa.Integer, nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("time_ms", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.PrimaryKeyConstraint("day", "game", "player_id"),
    # a day's leaderboard: cards cleared, most first, then time, least first (one index range scan)
    sa.Index(DAILY_BOARD_INDEX, "day", "game", sa.text("cleared DESC"), "time_ms", "race_code"),
    # a player's days, newest first: its calendar and streak
    sa.Index(DAILY_PLAYER_INDEX, "player_id", sa.text("day DESC"), "game"),
)

#: The board index of the daily challenge's running totals (`daily_totals`): a week's or all
#: time's board per game (cards desc, then time asc, then player id).
DAILY_TOTALS_INDEX = "ix_daily_totals_board"

daily_totals = sa.Table(
    "daily_totals",
    metadata,
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("period", sa.String(10), nullable=False),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("cards", sa.BigInteger, nullable=False),
    sa.Column("time_ms", sa.BigInteger, nullable=False),
    sa.Column("days", sa.Integer, nullable=False),
    sa.PrimaryKeyConstraint("game", "period", "player_id"),
    sa.Index(DAILY_TOTALS_INDEX, "game", "period", sa.text("cards DESC"), "time_ms", "player_id"),
)

kept_secrets = sa.Table(
    "kept_secrets",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("value", sa.String(256), nullable=False),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
)

#: Who follows a player: `follows` by followee.
FOLLOWERS_INDEX = "ix_follows_followee"

follows = sa.Table(
    "follows",
    metadata,
    sa.Column("follower_id", sa.String(64), nullable=False),
    sa.Column("followee_id", sa.String(64), nullable=False),
    sa.Column("since_ms", sa.BigInteger, nullable=False),
    sa.PrimaryKeyConstraint("follower_id", "followee_id"),
    sa.Index(FOLLOWERS_INDEX, "followee_id", "follower_id"),
)

passkeys = sa.Table(
    "passkeys",
    metadata,
    sa.Column("credential_id", sa.String(512), primary_key=True),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("public_key", sa.LargeBinary, nullable=False),
    sa.Column("sign_count", sa.BigInteger, nullable=False),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("used_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_passkeys_player", "player_id"),
)
