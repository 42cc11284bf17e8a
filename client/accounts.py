"""The ``arena`` commands for a player's claimed name and devices: ``login``, ``claim``,
``transfer``, ``redeem`` and ``forget-me``.

Each works on the player this CLI keeps for the server (`client.identity.KeptPlayers`): ``claim``,
``transfer`` and ``forget-me`` act as it (a new guest is made for ``claim`` and ``transfer`` when
none is kept yet); ``login`` and ``redeem`` connect as another player (instead of saying hello)
and keep it, with the new token the server gave this device, in its place; ``forget-me`` deletes
it on the server and here. A password is read with `getpass` (``claim`` asks twice), or, with
``--password-stdin``, as the first line of standard input (for scripts). A refusal is one error
line and exit code 2, as for every command (`client.cli.main`): a wrong login is ``bad_login``,
too many of them ``rate_limited`` with the wait in seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import getpass
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from client.connection import ArenaClient

__all__ = [
    "add_claim_arguments",
    "add_forget_arguments",
    "add_login_arguments",
    "add_redeem_arguments",
    "add_transfer_arguments",
    "cmd_claim",
    "cmd_forget_me",
    "cmd_login",
    "cmd_redeem",
    "cmd_transfer",
]


def _password_flag(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of standard input instead of prompting",
    )


def add_login_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena login``'s own arguments: ``NAME`` and ``--password-stdin``."""
    sub.add_argument("login_name", metavar="NAME", help="the claimed name to log in as")
    _password_flag(sub)


def add_claim_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena claim``'s own arguments: ``--password-stdin`` (``--name`` is the common one)."""
    _password_flag(sub)


def add_redeem_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena redeem``'s own argument: ``CODE``."""
    sub.add_argument("code", metavar="CODE", help="the code `arena transfer` printed on the other device")


def add_transfer_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena transfer`` has no arguments of its own (``--server`` is the common one)."""


def add_forget_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena forget-me``'s own argument: ``--yes``, required."""
    sub.add_argument("--yes", action="store_true", help="yes, delete this player for good (required)")


def _fail(console: Console, text: str) -> int:
    from rich.markup import escape

    console.print(f"[red]error:[/] {escape(text)}", highlight=False, soft_wrap=True)
    return 2


def _read_password(args: argparse.Namespace, *, twice: bool) -> str | None:
    """The password: standard input's first line (``--password-stdin``, its line end taken
    off), or typed at a `getpass` prompt (twice with ``twice``). None when the two typed differ."""
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    password = getpass.getpass("Password: ")
    if twice and getpass.getpass("Password again: ") != password:
        return None
    return password


def _keep(server: str, client: ArenaClient) -> None:
    """Keep ``client``'s player as this CLI's player on ``server`` (a folder that cannot be
    written: not kept, as `client.identity.connect_as_kept` does)."""
    from client.identity import KeptPlayer, KeptPlayers, identity_path

    if client.token is not None:
        with contextlib.suppress(OSError):
            KeptPlayers(identity_path()).save(
                server, KeptPlayer(player=client.player, name=client.name, token=client.token)
            )


async def cmd_login(args: argparse.Namespace, console: Console) -> int:
    """``arena login NAME``: log in as the player that claimed ``NAME`` and keep it as this
    CLI's player on ``args.server`` (the player kept before is no longer this CLI's: log in or
    redeem a code to get back to it). Exit 2 for a wrong name or password (``bad_login``) or
    too many tries (``rate_limited``)."""
    from client.connection import ArenaClient

    password = _read_password(args, twice=False)
    assert password is not None
    client = await ArenaClient.connect_login(args.server, args.login_name, password)
    async with client:
        _keep(args.server, client)
    print(f"Logged in as {client.name} ({client.player}).")
    return 0


async def cmd_claim(args: argparse.Namespace, console: Console) -> int:
    """``arena claim``: claim the name of this CLI's player on ``args.server`` (``--name``: take
    and claim that name instead) with a password, so that ``arena login`` finds it on another
    device. Exit 2 when the passwords typed differ or the server refuses (``bad_field``: too
    short; ``name_taken``; ``bad_name``)."""
    from client.identity import connect_as_kept

    password = _read_password(args, twice=True)
    if password is None:
        return _fail(console, "the two passwords differ: nothing was claimed")
    client = await connect_as_kept(args.server, args.name or "player")
    async with client:
        name = await client.claim(password, args.name)
        _keep(args.server, client)
    print(f"{name} is claimed: `arena login {name}` makes another device this player ({client.player}).")
    return 0


async def cmd_transfer(args: argparse.Namespace, console: Console) -> int:
    """``arena transfer``: print a one-time code that makes another device this CLI's player on
    ``args.server`` (``arena redeem CODE`` there), and how long it works."""
    from client.identity import connect_as_kept

    client = await connect_as_kept(args.server, "player")
    async with client:
        made = await client.transfer_code()
        server_ms = client.welcome.server_time_ms if client.welcome is not None else made.expires_ms
    minutes = max(0, round((made.expires_ms - server_ms) / 60_000))
    until = datetime.datetime.fromtimestamp(made.expires_ms / 1000).strftime("%H:%M")
    print(made.code)
    print(f"Run `arena redeem {made.code}` on the other device within {minutes} minutes (until {until}): once.")
    return 0


async def cmd_redeem(args: argparse.Namespace, console: Console) -> int:
    """``arena redeem CODE``: become the player a transfer code was made for and keep it as this
    CLI's player on ``args.server``. Exit 2 for a code unknown, used or expired (``bad_code``)."""
    from client.connection import ArenaClient

    client = await ArenaClient.connect_redeem(args.server, args.code)
    async with client:
        _keep(args.server, client)
    print(f"This device is now {client.name} ({client.player}).")
    return 0


async def cmd_forget_me(args: argparse.Namespace, console: Console) -> int:
    """``arena forget-me --yes``: delete this CLI's player on ``args.server`` for good (every
    device's token and its claim; its races stay, shown as ``deleted player``) and here. Exit 2
    without ``--yes``, or when no player is kept for the server."""
    from client.connection import ArenaClient
    from client.identity import KeptPlayers, identity_path

    if not args.yes:
        return _fail(console, "forget-me deletes your player for good: run it again with --yes")
    kept_players = KeptPlayers(identity_path())
    kept = kept_players.get(args.server)
    if kept is None:
        return _fail(console, f"no player is kept for {args.server}: nothing to delete")
    client = await ArenaClient.connect(args.server, kept.name, token=kept.token)
    async with client:
        races = await client.forget_me()
    with contextlib.suppress(OSError):
        kept_players.forget(args.server)
    print(f"Deleted {kept.name} ({kept.player}); {races} archived races now show 'deleted player'.")
    return 0
