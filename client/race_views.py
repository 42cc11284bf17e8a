"""How the ``arena`` commands show a race: its standings, its events, and the verification of its record.

Used by ``arena watch``, ``verify``, ``play`` and ``demo``. On a terminal the standings are a rich
table (`standings_table`), redrawn live while a race is followed (`follow_race`); in a pipe they
are a `client.output.Listing` (`standings_listing`) and a followed race prints one line per event
(`event_line`). Race times are in seconds from the race's start instant.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from client.connection import ArenaClient, RaceEvent
from client.output import Listing, print_line
from client.verify import VerifyReport
from server.protocol import (
    DelayedBoard,
    EntrantJoined,
    Progress,
    RaceFinished,
    RaceStarted,
    RaceStarting,
    Snapshot,
    Standing,
    TournamentEvent,
)

__all__ = ["event_line", "follow_race", "race_events", "report_table", "standings_listing", "standings_table"]

_STATUS_STYLE = {
    "won": "bold green",
    "playing": "cyan",
    "stuck": "yellow",
    "resigned": "yellow",
    "out_of_time": "red",
    "waiting": "dim",
}


def standings_table(standings: Sequence[Standing], *, title: str = "", caption: str = "") -> Table:
    """A rich table of standings: place, name, status, cards cleared, race time (s), moves."""
    table = Table(title=escape(title) or None, caption=escape(caption) or None)
    table.add_column("#", justify="right")
    table.add_column("player")
    table.add_column("status")
    table.add_column("cleared", justify="right")
    table.add_column("time", justify="right")
    table.add_column("moves", justify="right")
    for s in standings:
        style = _STATUS_STYLE.get(s.status, "")
        table.add_row(
            str(s.place),
            escape(s.name),
            f"[{style}]{s.status}[/]" if style else escape(s.status),
            f"{s.cleared}/{s.total}",
            f"{s.time_ms / 1000:.3f} s",
            str(s.moves),
        )
    return table


def standings_listing(standings: Sequence[Standing], *, title: str = "", notes: Sequence[str] = ()) -> Listing:
    """Standings as a `client.output.Listing` (the columns of `standings_table`)."""
    rows = [
        [str(s.place), s.name, s.status, f"{s.cleared}/{s.total}", f"{s.time_ms / 1000:.3f} s", str(s.moves)]
        for s in standings
    ]
    return Listing(
        title,
        ["#", "player", "status", "cleared", "time", "moves"],
        rows,
        list(standings),
        notes=list(notes),
        right=frozenset({"#", "cleared", "time", "moves"}),
    )


def report_table(report: VerifyReport) -> Table:
    """A rich table of a `client.verify.VerifyReport`: one row per check."""
    if report.verified:
        verdict = "[bold green]verified[/]"
    else:
        verdict = "[bold red]FAILED[/]" if not report.ok else "[bold yellow]not verified[/] (no trusted commitment)"
    if report.void:
        verdict += f"; [bold yellow]void[/], no result: {escape(report.void)}"
    table = Table(title=f"Verification of race {report.code}: {verdict}")
    table.add_column("check")
    table.add_column("result")
    table.add_column("details")
    for check in report.checks:
        table.add_row(check.name, "[green]pass[/]" if check.ok else "[red]FAIL[/]", escape(check.reason))
    return table


async def race_events(client: ArenaClient, snapshot: Snapshot) -> AsyncIterator[RaceEvent]:
    """The events of the watched race ``snapshot.race.code`` (reconnect snapshots of it
    included), as they arrive, until its `RaceFinished` (yielded last). Yields nothing if the
    race had already finished."""
    code = snapshot.race.code
    if snapshot.race.status == "finished":
        return
    async with contextlib.aclosing(client.events()) as events:
        async for event in events:
            if isinstance(event, Snapshot):
                if event.race.code == code:
                    yield event
                continue
            if isinstance(event, TournamentEvent) or event.race != code:
                continue
            yield event
            if isinstance(event, RaceFinished):
                return


def event_line(event: RaceEvent, standings: Sequence[Standing], snapshot: Snapshot) -> str:
    """One line of text for a race event (race time in seconds first where it has one), given
    the standings it leaves."""
    if isinstance(event, Snapshot):
        return f"{event.race.game} race {event.race.code}: {event.race.status}"
    if isinstance(event, EntrantJoined):
        return f"{event.name} joined"
    if isinstance(event, RaceStarting):
        return f"starting in {event.countdown_ms / 1000:.0f} s; commitment {event.commitment}"
    if isinstance(event, RaceStarted):
        return f"running; time limit {event.time_limit_ms // 1000} s"
    if isinstance(event, Progress):
        s = next((s for s in standings if s.player == event.player), None)
        text = f"{event.elapsed_ms / 1000:7.3f} s  {_name_of(standings, event.player)}"
        if event.move:  # spectators of a race without a delay get the move here
            text += f": {event.move}"
        if s is not None:
            text += f"  ({s.cleared}/{s.total} cleared, {s.moves} moves, {s.status})"
        return text
    if isinstance(event, DelayedBoard):
        return (
            f"{event.elapsed_ms / 1000:7.3f} s  {_name_of(standings, event.player)}: {event.move} "
            f"(shown {snapshot.race.spectator_delay_s} s late)"
        )
    if isinstance(event, RaceFinished):
        return f"finished: {event.reason}; seed {event.seed} revealed"
    return str(event.__struct_config__.tag)  # an event this client does not describe


async def follow_race(client: ArenaClient, snapshot: Snapshot, console: Console) -> RaceFinished | None:
    """Show the live standings of a watched race until it finishes; return its `RaceFinished`.

    ``snapshot``: what `ArenaClient.watch` returned. On a terminal it redraws on every event
    (rich `Live`, transient: the caller prints the final table); elsewhere it prints one line per
    event as it comes (`event_line`). Returns None at once if the race had already finished
    (the snapshot's standings are final then).
    """
    code = snapshot.race.code
    standings = snapshot.standings
    line = event_line(snapshot, standings, snapshot)
    finished: RaceFinished | None = None

    def view() -> Table:
        return standings_table(standings, title=f"Race {code} ({snapshot.race.game})", caption=line)

    live = Live(view(), console=console, refresh_per_second=8, transient=True) if console.is_terminal else None
    if live is None and snapshot.race.status != "finished":
        print_line(line, console)
    with live or contextlib.nullcontext():
        async for event in race_events(client, snapshot):
            if isinstance(event, (Snapshot, Progress, RaceFinished)):
                standings = event.standings
            line = event_line(event, standings, snapshot)
            if isinstance(event, RaceFinished):
                finished = event
            if live is not None:
                live.update(view())
            else:
                print_line(line, console)
    return finished


def _name_of(standings: Sequence[Standing], player: str) -> str:
    return next((s.name for s in standings if s.player == player), player)
