"""The organisers' fair-play report (server/fair_play.py): scouting pairs, solver agreement and
move times, from move logs, and over a real server (a staged rounds tournament of Klondike)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import sys

import msgspec
import pytest

from client.connection import ArenaClient, ArenaError
from engine.core import Game
from engine.games import find_game
from server.app import ArenaServer
from server.config import ServerConfig
from server.fair_play import DealLog, EntrantLog, FairPlayLimits, analyse_deal
from tests.server.conftest import FastClock

ADMIN = "organiser-secret"
SEED = 1  # Klondike: each of the first two deals turns up a waste card that fits at once
LINE = ["deal", "w>t6", "deal", "w>t4"]
LIMITS = FairPlayLimits(nodes=80, seconds=5.0)


def entrant(player: str, start_ms: int, gaps: list[int], moves: list[str] = LINE) -> EntrantLog:
    times, t = [], 0
    for gap in gaps:
        t += gap
        times.append(t)
    return EntrantLog(player, player.upper(), "R" + player, start_ms, moves, times)


def deal_of(*entrants: EntrantLog) -> DealLog:
    return DealLog(0, "klondike", {}, SEED, list(entrants))


def test_a_player_who_uses_cards_it_turns_up_faster_than_it_could_see_them_is_paired_with_its_scout():
    """Arena: the scout played the deal an hour earlier at a person's pace; the player, later,
    played each turned-up card 40 ms after it turned it up. The pair is flagged, with both cards;
    the reverse pair does not exist, and the move times show the quick moves."""
    scout = entrant("a", 1_000_000, [2000, 1500, 2000, 1500])
    player = entrant("b", 1_000_000 + 3_600_000, [2000, 40, 2000, 40])
    report = analyse_deal(deal_of(scout, player), ["Ra", "Rb"], LIMITS, solver=False)
    [pair] = report.scouting
    assert (pair.scout, pair.player, pair.cards, pair.flagged) == ("a", "b", 2, True)
    assert pair.example.move == "w>t6" and pair.example.gap_ms == 40
    assert pair.example.scout_ms == 1_002_000 and pair.example.revealed_ms == 1_000_000 + 3_600_000 + 2000
    assert pair.first_ms == pair.example.revealed_ms + 40
    times = {t.player: t for t in report.times}
    assert times["b"].quick_after_reveal == 2 and times["a"].quick_after_reveal == 0
    assert (times["a"].moves, times["a"].median_ms, times["a"].p10_ms, times["a"].spread_ms) == (4, 1500, 1500, 500)


def test_a_fair_pair_is_not_reported():
    """The same lines where the later player takes a person's time over each turned-up card, or
    where the quick player turned its cards up first (wall clock): no pair."""
    scout = entrant("a", 1_000_000, [2000, 1500, 2000, 1500])
    slow = entrant("b", 1_000_000 + 3_600_000, [2000, 900, 2000, 700])
    assert analyse_deal(deal_of(scout, slow), [], LIMITS, solver=False).scouting == []
    quick_first = entrant("b", 1_000_000 - 3_600_000, [2000, 40, 2000, 40])
    assert analyse_deal(deal_of(scout, quick_first), [], LIMITS, solver=False).scouting == []


def test_a_move_the_server_played_for_the_player_is_not_a_quick_use():
    """Auto-collect: a safe move at the same race time as the move before is the server's."""
    for seed in range(200):  # a deal where dealing from the stock turns up a safe move
        game, line = find_game("klondike")(seed), []
        for _ in range(8):
            game.apply("deal")
            line.append("deal")
            if game.safe_moves():
                line.append(str(game.safe_moves()[0]))
                break
        if not line[-1] == "deal":
            break
    gaps = [1000] * (len(line) - 1) + [0]
    scout = entrant("a", 0, [1000] * len(line), line)
    player = entrant("b", 10_000_000, gaps, line)
    report = analyse_deal(DealLog(0, "klondike", {}, seed, [scout, player]), [], LIMITS, solver=False)
    assert report.scouting == []
    assert {t.player: t.moves for t in report.times}["b"] == len(line) - 1


def _play_by(knowing: bool, moves: int = 30) -> list[str]:
    """A line of Klondike deal SEED chosen by the all-seeing valuation (``knowing``) or by the
    blind one (the same valuation on a shuffle of the face-down cards)."""
    import random

    from server.fair_play import _best, _blind

    game = find_game("klondike")(SEED)
    line = []
    rng = random.Random(7)
    for _ in range(moves):
        legal = sorted(str(m) for m in game.legal_moves())
        if not legal:
            break
        if 2 <= len(legal) <= LIMITS.max_legal and any(p.down for p in game.piles.values()):
            seen = Game.from_position(game.position())  # (as the report sees it: no seed)
            best = _best(seen if knowing else _blind(seen, rng), LIMITS.nodes)
            move = sorted(best)[0]
        else:
            move = legal[0]
        game.apply(move)
        line.append(move)
    return line


@pytest.mark.slow
def test_solver_agreement_flags_a_line_chosen_with_the_hidden_cards_and_not_one_chosen_without():
    seeing = _play_by(knowing=True)
    blind = _play_by(knowing=False)
    # Hidden cards change the small-budget valuation at few positions: look at every one.
    limits = FairPlayLimits(nodes=LIMITS.nodes, seconds=60.0, positions=40, min_positions=1)
    report = analyse_deal(
        deal_of(entrant("c", 0, [1000] * len(seeing), seeing), entrant("h", 0, [1000] * len(blind), blind)),
        [],
        limits,
    )
    by = {a.player: a for a in report.agreement}
    assert by["c"].positions >= limits.min_positions and by["c"].rate == 1.0 and by["c"].flagged
    assert not by["h"].flagged and by["h"].rate < limits.agreement_rate
    assert report.solver


@pytest.mark.slow
def test_a_slow_machine_values_the_moves_alike(monkeypatch):
    """The valuation is bounded by moves tried, not by the clock: with a clock that passes 1 ms
    each time a search reads it (a loaded machine), every position's best moves are the same."""
    import random

    import solver.search
    from server.fair_play import _best

    game, rng, positions = find_game("klondike")(SEED), random.Random(3), []
    for _ in range(30):
        positions.append(game.copy())
        game.apply(rng.choice(sorted(str(m) for m in game.legal_moves())))
    quick = [_best(position, LIMITS.nodes) for position in positions]

    class SlowClock:
        now = 0.0

        def monotonic(self) -> float:
            self.now += 0.001
            return self.now

    monkeypatch.setattr(solver.search, "time", SlowClock())
    assert [_best(position, LIMITS.nodes) for position in positions] == quick


# ------------------------------------------------------------------------- over a server


@pytest.fixture
async def arena():
    config = ServerConfig(ping_interval_s=None, admin_token=ADMIN, idle_timeout_s=None)
    async with ArenaServer(config, clock=FastClock(1)) as server:
        yield server


async def play_staged(scout: ArenaClient, player: ArenaClient, tid: str) -> str:
    """Register both for rounds tournament ``tid`` (Klondike deal SEED) and play its deal: the
    scout deals through the stock first, taking a person's time; then the player plays the same
    line, each use of a turned-up card straight after its reveal; both resign. Returns the race."""
    for client in (scout, player):
        await client.register_tournament(tid)
    await scout.wait_for(lambda: len(scout.tournaments[tid].races) == 1, timeout_s=10)
    code = scout.tournaments[tid].races[0]
    for _ in range(200):  # (until the race has started)
        if (first := await scout.move(code, LINE[0])).ok:
            break
        await asyncio.sleep(0.02)
    assert first.ok
    for move in LINE[1:]:
        await asyncio.sleep(0.3)
        assert (await scout.move(code, move)).ok
        await asyncio.sleep(0.3)
    for move in LINE:
        assert (await player.move(code, move)).ok
    for client in (scout, player):
        await client.resign(code)
    return code


async def _arena(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    """Run the ``arena`` command as typed in a shell: (exit code, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **env},
    )
    out, err = await asyncio.wait_for(process.communicate(), 90)
    return process.returncode or 0, out.decode(), err.decode()


@pytest.mark.slow
async def test_a_staged_rounds_tournament_reports_the_scouting_pair_to_its_organiser_only(arena, tmp_path):
    """Two entrants of one Klondike deal: the scout deals through the stock first, a person's
    time between its moves; then the player deals and plays each turned-up card at once. The
    organiser's report names the pair (scout, player), flagged; not the reverse. Anyone else is
    refused with a code; ``arena tournament report ID --json`` prints the report as the server
    sent it, and refuses a wrong token with the code."""
    org, scout, player = [await ArenaClient.connect(arena.url, n) for n in ("org", "scout", "player")]
    try:
        starts = dt.datetime.fromtimestamp(arena.clock.wall_ms() / 1000 + 2, dt.UTC).isoformat()
        info = await org.create_tournament(
            ADMIN,
            "Staged",
            "klondike",
            1,
            seeds=[SEED],
            starts_at=starts,
            countdown_s=1,
            deal_time_limit_s=60,
            max_entries_per_address=0,  # (both entrants connect from 127.0.0.1)
        )
        tid = info.id
        code = await play_staged(scout, player, tid)
        with pytest.raises(ArenaError) as refused:
            await player.fair_play_report("guess", tid)
        assert refused.value.code == "not_organiser"
        for _ in range(100):
            report = await org.fair_play_report(ADMIN, tid)
            if report.deals and not report.pending:
                break
            await asyncio.sleep(0.05)
        cache = {"ARENA_CACHE_DIR": str(tmp_path), "ARENA_ADMIN_TOKEN": ADMIN}
        code_, out, err = await _arena("tournament", "report", tid.lower(), "--json", "--server", arena.url, env=cache)
        refused_code, refused_out, refused_err = await _arena(
            "tournament", "report", tid, "--admin-token", "guess", "--server", arena.url, env=cache
        )
    finally:
        for client in (org, scout, player):
            await client.close()

    [deal] = report.deals
    assert deal.deal == 0 and deal.races == [code]
    [pair] = deal.scouting
    assert (pair.scout, pair.player, pair.cards, pair.flagged) == (scout.player, player.player, 2, True)
    assert {t.player: t.quick_after_reveal for t in deal.times} == {scout.player: 0, player.player: 2}
    assert code_ == 0, err
    shape = json.loads(out)  # (the CLI's --json: the server's reply as it came)
    assert shape["tournament"] == tid and shape["pending"] == []
    assert set(shape["deals"][0]) == {"deal", "races", "scouting", "agreement", "times", "solver"}
    [cli_pair] = shape["deals"][0]["scouting"]
    assert (cli_pair["scout"], cli_pair["player"], cli_pair["cards"], cli_pair["flagged"]) == (
        scout.player,
        player.player,
        2,
        True,
    )
    assert cli_pair["example"]["move"] == "w>t6" and cli_pair["example"]["gap_ms"] < 200
    assert shape["deals"][0] == msgspec.to_builtins(deal)
    assert refused_code == 2 and "[not_organiser]" in refused_out + refused_err
