"""The ``arena`` command's player: one identity per server, kept in its config directory.

A server that keeps an archive (what ``arena serve`` runs) keeps every player for good, and the
token its ``welcome`` gave resumes that player (same id, same name) on any later connection. The
CLI keeps that token per server URL in ``player.json`` in ``$ARENA_CONFIG_DIR``, else
``$XDG_CONFIG_HOME/patience-arena``, else ``~/.config/patience-arena`` (`identity_path`), a
file only its owner may read (the token is a secret). ``arena whoami`` prints the player's id
and name, ``arena history`` its finished races (`cmd_whoami`, `cmd_history`). The commands a
person runs as themselves (``create``, ``start``, ``play``, ``tournament register``, ``bot
--as-me``) connect as that player (`connect_person`), so their races are in its history; bots,
spectators and the tooling connect as fresh players.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> kept = KeptPlayers(Path(folder) / "player.json")
>>> kept.save("ws://h:1", KeptPlayer(player="p1", name="ann", token="t"))
>>> KeptPlayers(kept.path).get("ws://h:1/").name
'ann'
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from client.folders import user_folder

if TYPE_CHECKING:
    from rich.console import Console

    from client.connection import ArenaClient
    from client.output import Listing
    from server.protocol import HistoryPage

__all__ = [
    "NAME_HELP",
    "KeptPlayer",
    "KeptPlayers",
    "add_history_arguments",
    "cmd_history",
    "cmd_whoami",
    "connect_as_kept",
    "connect_person",
    "identity_path",
    "is_kept",
]


def identity_path(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the kept players are (see the module docstring); nothing is created.

    >>> str(identity_path({"ARENA_CONFIG_DIR": "/tmp/x"}))
    '/tmp/x/player.json'
    >>> str(identity_path({"XDG_CONFIG_HOME": "/c", "HOME": "/h"}))
    '/c/patience-arena/player.json'
    """
    return user_folder("config", environ) / "player.json"


class KeptPlayer(msgspec.Struct, frozen=True):
    """The player a server gave this CLI: its ``player`` id, ``name`` and secret ``token``."""

    player: str
    name: str
    token: str


def _server_key(url: str) -> str:
    return url.strip().rstrip("/").lower()


class KeptPlayers:
    """The players kept in the JSON file ``path``, one per server URL (compared without a
    trailing slash, case-insensitively). A file that is missing or unreadable holds none;
    `save` writes it whole, readable by its owner only (mode 0600), through a temporary file
    renamed over it. Raises OSError from `save` when the folder cannot be written."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, KeptPlayer]:
        try:
            return msgspec.json.decode(self.path.read_bytes(), type=dict[str, KeptPlayer])
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return {}

    def get(self, server: str) -> KeptPlayer | None:
        """The player kept for ``server``, or None."""
        return self._read().get(_server_key(server))

    def save(self, server: str, kept: KeptPlayer) -> None:
        """Keep ``kept`` as this CLI's player on ``server`` (the others stay)."""
        players = self._read()
        players[_server_key(server)] = kept
        self._write(players)

    def forget(self, server: str) -> None:
        """Keep no player for ``server`` any more (the others stay); raises OSError as `save`."""
        players = self._read()
        if players.pop(_server_key(server), None) is not None:
            self._write(players)

    def _write(self, players: dict[str, KeptPlayer]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(msgspec.json.format(msgspec.json.encode(players)))
        os.replace(temporary, self.path)


async def connect_as_kept(server: str, name: str, path: Path | None = None, *, rename: bool = False) -> ArenaClient:
    """A client on ``server`` as the player this CLI keeps for it (from ``path``, default
    `identity_path`): resumed with its token; a new player, kept from now on, when there is none
    or the server does not know the token (``name``: the new player's name). With ``rename``, a
    resumed player whose name is not ``name`` takes it (the server's ``rename``: for the races
    and tournaments it enters from now on), and is kept under it. Raises
    `client.connection.ArenaError` (``bad_name``, ``name_taken`` from the rename too),
    `client.connection.Disconnected` as `ArenaClient.connect`."""
    from client.connection import ArenaClient, ArenaError

    players = KeptPlayers(path or identity_path())
    kept = players.get(server)
    try:
        client = await ArenaClient.connect(server, name, token=kept.token if kept else None)
    except ArenaError as exc:
        if kept is None or exc.code != "bad_token":
            raise
        client = await ArenaClient.connect(server, name)  # a server without an archive forgot us
    if rename and kept is not None and client.player == kept.player and client.name != name:
        try:
            await client.rename(name)
        except BaseException:
            await client.close()
            raise
    if client.player is not None and client.token is not None:
        fresh = KeptPlayer(player=client.player, name=client.name, token=client.token)
        if fresh != kept:
            with contextlib.suppress(OSError):  # (a config folder that cannot be written: not kept)
                players.save(server, fresh)
    return client


#: ``--name``'s help line for the commands a person runs as themselves (`connect_person`).
NAME_HELP = (
    "your display name: a new player's (default player); given, it also renames the player "
    "this CLI keeps for the server (`arena whoami`) when that one has another"
)


async def connect_person(server: str, name: str | None, *, token: str | None = None) -> ArenaClient:
    """The client of a command a person runs as themselves (``create``, ``start``, ``play``,
    ``bot --as-me``, ``tournament register``): the player of ``token`` when one is given (as
    ``name``, default "player": ignored by the server); else this CLI's kept player
    (`connect_as_kept`), a new one named ``name`` (default "player"), or renamed to ``name``
    when it has another. Raises as `connect_as_kept`."""
    if token is not None:
        from client.connection import ArenaClient

        return await ArenaClient.connect(server, name or "player", token=token)
    return await connect_as_kept(server, name or "player", rename=name is not None)


def is_kept(server: str, player: str | None, path: Path | None = None) -> bool:
    """Whether ``player`` is the player this CLI keeps for ``server`` (False when the config
    folder could not be written: the token is then the only way back to it)."""
    kept = KeptPlayers(path or identity_path()).get(server)
    return kept is not None and player is not None and kept.player == player


async def cmd_whoami(args: argparse.Namespace, console: Console) -> int:
    """``arena whoami``: print this CLI's player on ``args.server``: its id, name, and
    ``claimed`` or ``guest`` (tab-separated; one JSON document with ``--json``, ``claimed`` true
    or false), saying hello as a new player, kept, when there is none yet."""
    from client.output import json_line

    client = await connect_as_kept(args.server, args.name)
    async with client:
        player, name, claimed = client.player, client.name, client.claimed
    if args.json:
        json_line({"player": player, "name": name, "server": args.server, "claimed": claimed})
    else:
        print(f"{player}\t{name}\t{'claimed' if claimed else 'guest'}")
    return 0


def add_history_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena history``'s own arguments: ``--tournaments``, ``--before``, ``--limit``, ``--json``."""
    from client.output import add_json_flag

    sub.add_argument(
        "--tournaments", action="store_true", help="list the ended tournaments you were entered in instead of races"
    )
    sub.add_argument("--before", metavar="CURSOR", help="the next page: the cursor the last page printed")
    sub.add_argument("--limit", type=int, default=20, help="lines per page, 1 to 100 (default 20)")
    add_json_flag(sub)


def _clock(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


async def cmd_history(args: argparse.Namespace, console: Console) -> int:
    """``arena history``: one page of this CLI's player's finished races on ``args.server``,
    newest first (`client.connection.ArenaClient.history`); a table, tab-separated lines when
    piped, or ``{"races": [...], "cursor": ...}`` with ``--json``. With ``--tournaments``, its
    ended tournaments instead (``{"tournaments": [...], "cursor": ...}``)."""
    from client.output import Listing, show

    tournaments = getattr(args, "tournaments", False)
    client = await connect_as_kept(args.server, args.name)
    async with client:
        page = await client.history(before=args.before, limit=args.limit, tournaments=tournaments)
    scheme, _, rest = args.server.partition("://")
    site = ("https" if scheme == "wss" else "http") + "://" + rest.rstrip("/")  # the web page's address
    if tournaments:
        show(_tournament_listing(page, client.name, client.player, site), console, as_json=args.json)
        return 0
    rows = [
        [
            datetime.datetime.fromtimestamp(race.finished_ms / 1000).strftime("%Y-%m-%d %H:%M"),
            race.race,
            race.game,
            f"{race.place}/{race.entrants}",
            f"{race.cleared}/{race.total}",
            _clock(race.time_ms),
            race.status,
            race.par or "",
            f"{site}/w/{race.race}",
        ]
        for race in page.races
    ]
    notes = [] if page.races else ["No finished race yet."]
    if page.cursor is not None:
        notes.append(f"More: arena history --before {page.cursor}")
    listing = Listing(
        f"Races of {client.name} ({client.player})",
        ["finished", "race", "game", "place", "cleared", "time", "status", "par", "replay"],
        rows,
        data={"player": client.player, "races": page.races, "cursor": page.cursor},
        notes=notes,
        right=frozenset({"place", "cleared", "time"}),
    )
    show(listing, console, as_json=args.json)
    return 0


def _tournament_listing(page: HistoryPage, name: str, player: str | None, site: str) -> Listing:
    """``arena history --tournaments``'s listing of ``page`` (``site``: the web page's address,
    for each tournament's results page)."""
    from client.output import Listing

    rows = [
        [
            datetime.datetime.fromtimestamp(line.finished_ms / 1000).strftime("%Y-%m-%d %H:%M"),
            line.tournament,
            line.name,
            line.game,
            f"{line.place}/{line.entrants}",
            str(line.cleared),
            _clock(line.time_ms),
            line.status if line.outcome == "finished" else f"{line.status} ({line.outcome})",
            f"{site}/t/{line.tournament}",
        ]
        for line in page.tournaments
    ]
    notes = [] if page.tournaments else ["No ended tournament yet."]
    if page.cursor is not None:
        notes.append(f"More: arena history --tournaments --before {page.cursor}")
    return Listing(
        f"Tournaments of {name} ({player})",
        ["ended", "tournament", "name", "game", "place", "cleared", "time", "status", "results"],
        rows,
        data={"player": player, "tournaments": page.tournaments, "cursor": page.cursor},
        notes=notes,
        right=frozenset({"place", "cleared", "time"}),
    )
