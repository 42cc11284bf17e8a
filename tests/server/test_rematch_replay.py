"""What the web client leans on: legal moves in each entrant's board, rematches, replays, and the
page and its files served on the websocket's own port."""

from __future__ import annotations

import json

import pytest

from engine.core import Audience
from engine.games import GAMES, find_game
from server import protocol as p
from server.replay import CHECKPOINT_EVERY
from tests.conftest import http_get


async def _race(ann, bob, game: str = "klondike", seed: int = 7) -> str:
    created = await ann.request(p.CreateRace(req=1, game=game, seed=seed, countdown_s=0), p.RaceReply)
    code = created.race.code
    await bob.request(p.JoinRace(req=1, race=code), p.RaceReply)
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    return code


async def test_each_entrant_board_lists_its_legal_moves_and_spectators_get_none(server, peers):
    ann, bob, sue = await peers("ann"), await peers("bob"), await peers("sue")
    code = await _race(ann, bob)
    await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    started = await ann.expect(p.RaceStarted)
    game = find_game("klondike")(7)
    assert started.board.legal == [str(m) for m in game.legal_moves()]
    move = started.board.legal[0]
    result = await ann.move(code, 1, move)
    game.apply(move)
    assert result.ok and result.board.legal == [str(m) for m in game.legal_moves()]
    progress = await sue.expect(p.Progress, player=ann.player)
    assert progress.board is not None and progress.board.legal == []
    snapshot = await ann.request(p.Sync(req=5, race=code, since=0), p.Snapshot)
    assert snapshot.board.legal == result.board.legal


async def test_a_rematch_is_one_new_race_for_every_entrant_who_accepts(server, peers):
    ann, bob, sue = await peers("ann"), await peers("bob"), await peers("sue")
    code = await _race(ann, bob)
    await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    refused = await ann.request(p.Rematch(req=3, race=code), p.RaceReply)
    assert isinstance(refused, p.Error) and refused.code == "not_finished"
    for peer in (ann, bob):
        await peer.request(p.Resign(req=4, race=code), p.RaceReply)
    await ann.expect(p.RaceFinished)

    first = await ann.request(p.Rematch(req=5, race=code), p.RaceReply)
    new = first.race.code
    assert new != code and first.race.status == "open" and first.race.entrants == ["ann"]
    assert first.race.game == "klondike" and first.race.seed is None  # a new, secret deal
    offer = await bob.expect(p.RematchOffer)
    assert (offer.race, offer.rematch, offer.accepted) == (code, new, [ann.player])
    await sue.expect(p.RematchOffer, accepted=[ann.player])

    second = await bob.request(p.Rematch(req=6, race=code), p.RaceReply)
    assert second.race.code == new and second.race.entrants == ["ann", "bob"]
    await ann.expect(p.RematchOffer, accepted=[ann.player, bob.player])
    assert server.races[code].info().rematch == new
    assert server.races[new].seed != server.races[code].seed

    nosy = await sue.request(p.Rematch(req=7, race=code), p.RaceReply)
    assert isinstance(nosy, p.Error) and nosy.code == "not_entrant"
    await bob.request(p.StartRace(req=8, race=new), p.Error)  # only the rematch's creator starts it
    started = await ann.request(p.StartRace(req=9, race=new), p.RaceReply)
    assert started.race.status in ("starting", "running")


async def test_joining_the_rematch_by_its_code_counts_as_accepting(server, peers):
    ann, bob = await peers("ann"), await peers("bob")
    code = await _race(ann, bob)
    for peer in (ann, bob):
        await peer.request(p.Resign(req=4, race=code), p.RaceReply)
    new = (await ann.request(p.Rematch(req=5, race=code), p.RaceReply)).race.code
    await bob.request(p.JoinRace(req=6, race=new), p.RaceReply)
    await ann.expect(p.RematchOffer, accepted=[ann.player, bob.player])


async def test_a_finished_race_replays_any_entrant_move_by_move(server, peers):
    ann, bob = await peers("ann"), await peers("bob")
    code = await _race(ann, bob)
    game = find_game("klondike")(7)
    boards = [p.board_of(game.view(Audience.SPECTATOR))]
    words = []
    for seq in range(1, CHECKPOINT_EVERY + 6):  # past a checkpoint
        move = next(m for m in game.legal_moves())
        assert (await ann.move(code, seq, str(move))).ok
        words.append(game.describe(move))
        game.apply(move)
        boards.append(p.board_of(game.view(Audience.SPECTATOR)))
    early = await bob.request(p.Replay(req=1, race=code, player=ann.player, step=0), p.ReplayStep)
    assert isinstance(early, p.Error) and early.code == "not_finished"
    for peer in (ann, bob):
        await peer.request(p.Resign(req=4, race=code), p.RaceReply)
    steps = len(boards) - 1
    for step in (0, 1, CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY, steps, 3):
        reply = await bob.request(p.Replay(req=10 + step, race=code, player=ann.player, step=step), p.ReplayStep)
        assert (reply.step, reply.steps, reply.board) == (step, steps, boards[step])
        assert reply.move == (str(game.history[step - 1]) if step else "")
        assert reply.said == (words[step - 1] if step else "")  # the move in words, said before it was played
    past = await bob.request(p.Replay(req=99, race=code, player=ann.player, step=steps + 1), p.ReplayStep)
    assert isinstance(past, p.Error) and past.code == "bad_field"
    nobody = await bob.request(p.Replay(req=98, race=code, player="pnobody", step=0), p.ReplayStep)
    assert isinstance(nobody, p.Error) and nobody.code == "not_entrant"
    assert server.replays.kept == 1


@pytest.mark.parametrize("path", ["/", "/r/AB12CD", "/w/AB12CD", "/t/T1A2B3"])
async def test_the_page_is_served_on_the_websocket_port(server, path):
    import asyncio

    base = server.url.replace("ws://", "http://")
    status, headers, body = await asyncio.to_thread(http_get, base + path)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'<script type="module" src="/static/app.js">' in body
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    again = await asyncio.to_thread(http_get, base + path, **{"If-None-Match": headers["ETag"]})
    assert again[0] == 304


async def test_static_files_games_and_rules_pages(server):
    import asyncio

    base = server.url.replace("ws://", "http://")
    status, headers, body = await asyncio.to_thread(http_get, base + "/static/vendor/msgpack-3.1.3.min.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript") and b"MessagePack" in body
    status, headers, body = await asyncio.to_thread(http_get, base + "/api/games")
    games = json.loads(body)
    assert [g["key"] for g in games] == [g.key for g in GAMES]
    klondike = games[0]
    assert klondike["summary"] == GAMES[0].summary and klondike["rules"] == "/rules/klondike"
    assert {s["pile"] for s in klondike["layout"]["slots"]} == set(GAMES[0](1).piles)
    status, headers, body = await asyncio.to_thread(http_get, base + "/rules/klondike")
    assert status == 200 and b"<h1>Klondike</h1>" in body and b"<table>" in body
    for missing in ("/rules/nothing", "/static/../service.py", "/static/nope.js", "/x"):
        assert (await asyncio.to_thread(http_get, base + missing))[0] == 404, missing
    status, _, body = await asyncio.to_thread(http_get, base + "/healthz")
    assert status == 200 and json.loads(body)["status"] == "ok"
