"""Keeping each tournament deal's fair-play report (`server.fair_play`) once the deal is scored.

`deal_finished` is the tournament's hook (`server.tournament.Tournament`, where a deal's race
finishes): it reads the deal's finished races' move logs from the store and works the report
out off the event loop, in a par worker process (`server.par.ParService.run`) with the solver
part; on a server without par workers, in a thread without it (replaying the logs is cheap, the
solver is not). An arena deal is worked out again each time another entrant's race for it
finishes (one run at a time per deal; finishes meanwhile are taken in by one run more). The
reports live beside their tournament in memory and leave with it; a deal that finished before
a restart has none until `ensure` (the `fair_play_report` request) asks for it again.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from server.fair_play import DealLog, EntrantLog, FairPlayLimits, analyse_deal
from server.par import ParService
from server.protocol import FairPlayDeal, FairPlayReport
from server.race import Race
from server.store import Store

__all__ = ["LIMITS", "deal_finished", "ensure", "report"]

log = logging.getLogger("arena.server")

#: The report's thresholds and solver budgets (`FairPlayLimits`' defaults).
LIMITS = FairPlayLimits()


class _Host(Protocol):
    @property
    def store(self) -> Store: ...


class _Entrant(Protocol):
    @property
    def deal_races(self) -> Mapping[int, object]: ...


class _Tournament(Protocol):
    """What this module reads of a `server.tournament.Tournament`."""

    @property
    def id(self) -> str: ...
    @property
    def host(self) -> _Host: ...
    @property
    def entrants(self) -> Mapping[str, _Entrant]: ...


@dataclass(eq=False)
class _Reports:
    deals: dict[int, FairPlayDeal] = field(default_factory=dict)
    running: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    again: set[int] = field(default_factory=set)


#: Each tournament's reports, for as long as the tournament is in memory.
_KEPT: weakref.WeakKeyDictionary[object, _Reports] = weakref.WeakKeyDictionary()


def _reports(tournament: _Tournament) -> _Reports:
    kept = _KEPT.get(tournament)
    if kept is None:
        kept = _KEPT[tournament] = _Reports()
    return kept


def deal_finished(tournament: _Tournament, race: Race, deal: int) -> None:
    """A race of deal ``deal`` finished: work the deal's report out again in a task of its own
    (never raises; a failure is logged and the deal keeps the report it had)."""
    kept = _reports(tournament)
    if deal in kept.running:
        kept.again.add(deal)
        return
    task = asyncio.ensure_future(_work_out(tournament, kept, deal))
    kept.running[deal] = task


def ensure(tournament: _Tournament) -> None:
    """Work out the report of every deal with a finished race that has none (a restarted server's)."""
    kept = _reports(tournament)
    for deal, _ in _finished_races(tournament):
        if deal not in kept.deals and deal not in kept.running:
            kept.running[deal] = asyncio.ensure_future(_work_out(tournament, kept, deal))


def report(tournament: _Tournament, req: int) -> FairPlayReport:
    """The tournament's reports so far, by deal, and the deals still being worked out."""
    kept = _reports(tournament)
    return FairPlayReport(
        req=req,
        tournament=tournament.id,
        deals=[kept.deals[d] for d in sorted(kept.deals)],
        pending=sorted(kept.running),
    )


def _finished_races(tournament: _Tournament) -> list[tuple[int, Race]]:
    """(deal, race) for each finished deal race in memory, each race once, by deal."""
    seen: dict[str, tuple[int, Race]] = {}
    for entrant in tournament.entrants.values():
        for deal, race in entrant.deal_races.items():
            if isinstance(race, Race) and race.status == "finished" and race.started_at_ms is not None:
                seen.setdefault(race.code, (deal, race))
    return sorted(seen.values(), key=lambda item: (item[0], item[1].code))


async def _work_out(tournament: _Tournament, kept: _Reports, deal: int) -> None:
    try:
        while True:
            kept.again.discard(deal)
            try:
                found = await _analyse(tournament, deal)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournament %s: the fair-play report of deal %d failed", tournament.id, deal + 1)
                found = None
            if found is not None:
                kept.deals[deal] = found
            if deal not in kept.again:
                return
    finally:
        kept.running.pop(deal, None)


async def _analyse(tournament: _Tournament, deal: int) -> FairPlayDeal | None:
    """Read the deal's logs and work its report out off the loop; None if no race of it finished."""
    races = [race for d, race in _finished_races(tournament) if d == deal]
    if not races:
        return None
    store = tournament.host.store
    entrants = []
    for race in races:
        assert race.started_at_ms is not None
        for entrant in race.entrants.values():
            moves = await store.moves(race.code, entrant.player)
            entrants.append(
                EntrantLog(
                    entrant.player,
                    entrant.name,
                    race.code,
                    race.started_at_ms,
                    [m.move for m in moves],
                    [m.time_ms for m in moves],
                )
            )
    first = races[0]
    log_ = DealLog(deal, first.game_cls.key, dict(first.options), first.seed, entrants)
    codes = [race.code for race in races]
    par = getattr(tournament.host, "par", None)
    if isinstance(par, ParService) and par.workers > 0:
        found = await par.run(analyse_deal, log_, codes, LIMITS)
        if isinstance(found, FairPlayDeal):
            return found
    return await asyncio.to_thread(analyse_deal, log_, codes, LIMITS, solver=False)
