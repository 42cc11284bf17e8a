"""End to end over real websockets on 127.0.0.1: entrants race one deal while a spectator watches."""

from __future__ import annotations

import hashlib

from engine.core import Audience, Game, Move
from engine.games import find_game
from server import protocol as p
from server.protocol import board_of
from tests.audit import cards_in, face_up

SEED = 7


def pick_move(game: Game, redeals_without_play: int) -> Move | None:
    """A plain Klondike heuristic for the test's entrant: foundations, then tableau plays that turn
    up a card, then the waste, then the stock; None once a whole pass of the stock changed nothing."""
    moves = list(game.legal_moves())
    for move in moves:
        if move.is_transfer and move.dst.startswith("f"):
            return move
    for move in moves:
        if move.is_transfer and move.src.startswith("t") and move.dst.startswith("t"):
            src = game.piles[move.src]
            if src.down and move.count == src.up:
                return move
    for move in moves:
        if move.is_transfer and move.src == "w":
            return move
    for move in moves:
        if move.action == "deal":
            return move
    if redeals_without_play < 1:
        return next((m for m in moves if m.action == "redeal"), None)
    return None


async def test_two_entrants_and_a_spectator_race_a_klondike_deal(server, peers):
    """Both entrants get the same deal; an illegal move is refused with its code; standings come
    out in order; and no frame any client received holds a card hidden from it at that time."""
    ann, bob, sue = await peers("ann"), await peers("bob"), await peers("sue")
    created = await ann.request(p.CreateRace(req=1, game="klondike", seed=SEED, countdown_s=0), p.RaceReply)
    code = created.race.code
    await bob.request(p.JoinRace(req=1, race=code), p.RaceReply)
    await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    starts = [await peer.expect(p.RaceStarted) for peer in (ann, bob, sue)]
    assert starts[0].board == starts[1].board == starts[2].board
    assert starts[0].board.piles["s"] == ["??"] * 24

    race = server.races[code]
    games = {peer: race.entrants[peer.player].game for peer in (ann, bob)}
    seen: dict[object, set[str]] = {ann: set(), bob: set(), sue: set()}
    checked = {ann: 0, bob: 0, sue: 0}

    def check_frames() -> None:
        seen[ann] |= face_up(games[ann])
        seen[bob] |= face_up(games[bob])
        seen[sue] |= seen[ann] | seen[bob]
        for peer in (ann, bob, sue):
            for frame in peer.frames[checked[peer] :]:
                leaked = cards_in(frame) - seen[peer]
                assert not leaked, f"{peer.player} received hidden cards {leaked} in {frame}"
                if peer is not sue and isinstance(frame, p.Progress):
                    assert frame.board is None, "an entrant received another entrant's board"
            checked[peer] = len(peer.frames)

    async def play(peer, seq: int, move: str) -> p.MoveResult:
        result = await peer.move(code, seq, move)
        if result.ok:
            assert result.board == board_of(games[peer].view(Audience.PLAYER))
            for other in {ann, bob, sue} - {peer}:
                await other.expect(p.Progress, player=peer.player)
        check_frames()
        return result

    # ann plays a simple strategy until it is stuck or has played 150 moves.
    replica = find_game("klondike")(SEED)
    seq, idle = 0, 0
    while seq < 150 and (move := pick_move(replica, idle)) is not None:
        seq += 1
        result = await play(ann, seq, str(move))
        assert result.ok, result
        replica.apply(move)
        idle = idle + 1 if move.action == "redeal" else (0 if move.action != "deal" else idle)
    assert replica.cleared > 0, "the test's deal should let ann clear some cards"

    # bob turns the stock twice, then tries a card that does not fit.
    assert (await play(bob, 1, "deal")).ok
    assert (await play(bob, 2, "deal")).ok
    bad = next(
        str(Move(src="w", dst=f"t{i}")) for i in range(7) if Move(src="w", dst=f"t{i}") not in games[bob].legal_moves()
    )
    refused = await play(bob, 3, bad)
    assert (refused.ok, refused.code) == (False, "does_not_fit")
    assert games[bob].view().moves == 2

    for peer in (bob, ann):
        reply = await peer.request(p.Resign(req=9, race=code), p.RaceReply)
        assert isinstance(reply, p.RaceReply), reply
    finished = [await peer.expect(p.RaceFinished) for peer in (ann, bob, sue)]
    check_frames()
    standings = finished[0].standings
    assert [s.name for s in standings] == ["ann", "bob"]
    assert [(s.cleared, s.status) for s in standings] == [(replica.cleared, "resigned"), (0, "resigned")]
    assert standings == sorted(standings, key=lambda s: (-s.cleared, s.time_ms, s.order))
    reveal = finished[2]
    assert (reveal.seed, hashlib.sha256(f"{reveal.seed}:{reveal.salt}".encode()).hexdigest()) == (
        SEED,
        reveal.commitment,
    )

    record = await sue.request(p.GetRecord(req=5, race=code), p.RaceRecord)
    replay = find_game("klondike")(record.seed)
    for move in record.entrants[0].moves:
        replay.apply(move)
    assert replay.position() == replica.position()
    assert len(record.entrants[1].moves) == 2


async def test_every_entrant_receives_the_deal_at_the_same_instant_after_the_countdown(server, peers):
    """The deal is dealt at one server instant for everyone, after the countdown."""
    ann, bob = await peers("ann"), await peers("bob")
    created = await ann.request(p.CreateRace(req=1, game="golf", countdown_s=1), p.RaceReply)
    code = created.race.code
    assert created.race.seed is None, "a random seed stays secret"
    await bob.request(p.JoinRace(req=1, race=code), p.RaceReply)
    reply = await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    starting = await bob.expect(p.RaceStarting)
    assert starting.commitment == reply.race.commitment and reply.race.seed is None
    early = await bob.move(code, 1, "deal")
    assert (early.ok, early.code) == (False, "not_started")
    started = [await peer.expect(p.RaceStarted, timeout_ms=3000) for peer in (ann, bob)]
    assert started[0].started_at_ms == started[1].started_at_ms >= starting.starts_at_ms - 5
    assert started[0].board == started[1].board
    assert (await bob.move(code, 1, "deal")).ok
