"""Undo, auto-collect and finish over real websockets: each is ordinary moves, checked, stored,
in the record, and replayed by `arena verify`; undo never crosses a move that turned a card up."""

from __future__ import annotations

import msgspec

from client.verify import verify_record
from engine.games import find_game
from server import protocol as p

#: A winnable Klondike deal of the public catalog and its winning line (seeds/klondike.txt).
SEED = 15


def winning_line() -> list[str]:
    for line in open("seeds/klondike.txt").read().splitlines():
        if line.startswith(f"{SEED}:"):
            return line.split(":", 1)[1].strip().split(",")
    raise AssertionError("seed 15 is no longer in the Klondike catalog")


LINE = winning_line()


async def _race(peers, *, undo: bool | None = None, watch: bool = False):
    """A started one-entrant Klondike race on SEED: (entrant peer, race code, spectator or None)."""
    ann = await peers("ann")
    create = p.CreateRace(req=1, game="klondike", seed=SEED, countdown_s=0)
    if undo is not None:
        create = msgspec.structs.replace(create, undo=undo)
    created = await ann.request(create, p.RaceReply)
    code = created.race.code
    assert created.race.undo is (undo is not False)
    sue = None
    if watch:
        sue = await peers("sue")
        await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    await ann.expect(p.RaceStarted)
    return ann, code, sue


async def _play(peer, code: str, moves: list[str], first_seq: int = 1) -> p.MoveResult:
    result = None
    for seq, move in enumerate(moves, start=first_seq):
        result = await peer.move(code, seq, move)
        assert result.ok, (seq, move, result.reason)
        assert result.next_seq == seq + 1
    return result


async def test_undo_is_refused_across_a_flip_and_a_deal_and_accepted_otherwise(server, peers):
    ann, code, sue = await _race(peers, watch=True)
    flip = await ann.move(code, 1, LINE[0])  # t5>t6 turns a card up
    assert flip.revealed and flip.board.undo is False
    refused = await ann.move(code, 2, "undo")
    assert (refused.ok, refused.code, refused.next_seq) == (False, "no_undo", 2)
    assert "turned a card face up" in refused.reason
    await _play(ann, code, LINE[1:7], first_seq=2)  # up to three deals from the stock
    refused = await ann.move(code, 8, "undo")
    assert (refused.ok, refused.code) == (False, "no_undo")
    plain = await ann.move(code, 8, LINE[7])  # w>t3: a waste card to the tableau, nothing turned up
    assert plain.ok and not plain.revealed and plain.board.undo is True
    undone = await ann.move(code, 9, "undo")
    assert undone.ok and undone.move == "undo" and undone.next_seq == 10
    assert undone.board.undo is False and LINE[7] in undone.board.legal
    assert undone.board.piles == board_after(LINE[:7])
    again = await ann.move(code, 10, LINE[7])
    assert again.ok
    standings = [f for f in ann.frames if isinstance(f, p.Progress)][-1].standings  # (ahead of the answer)
    assert (standings[0].moves, standings[0].undos) == (10, 1)
    shown = [await sue.expect(p.Progress, move=move) for move in (LINE[7], "undo", LINE[7])]
    assert [f.version for f in shown] == sorted(f.version for f in shown)  # spectators see the undo in its place


def board_after(moves: list[str]) -> dict[str, list[str]]:
    """The player's piles after ``moves`` on SEED, as the engine has them."""
    game = find_game("klondike")(SEED)
    for move in moves:
        game.apply(move)
    return {pid: list(codes) for pid, codes in game.view().piles.items()}


async def test_a_race_without_undo_refuses_it(server, peers):
    ann, code, _ = await _race(peers, undo=False)
    await _play(ann, code, LINE[:8])
    result = await ann.move(code, 9, "undo")
    assert (result.ok, result.code) == (False, "not_allowed")
    assert result.reason == "this race does not allow undo"
    snapshot = await ann.request(p.Sync(req=5, race=code, since=0), p.Snapshot)
    assert snapshot.board.undo is False and snapshot.race.undo is False


async def test_finish_plays_a_decided_game_to_the_win_in_one_request_and_verify_accepts_it(server, peers):
    ann, code, sue = await _race(peers, watch=True)
    early = await ann.move(code, 1, "finish")
    assert (early.ok, early.code, early.next_seq) == (False, "not_decided", 1)
    game = find_game("klondike")(SEED)
    decided_at = 0
    while not game.decided:  # (the line's first position from which finish wins)
        game.apply(LINE[decided_at])
        decided_at += 1
    assert 0 < decided_at < len(LINE)
    last = await _play(ann, code, LINE[:decided_at])
    assert last.board.decided and not last.board.won
    line = game.finishing_line()
    finish = await ann.move(code, decided_at + 1, "finish")
    assert finish.ok and [finish.move, *finish.then] == [str(m) for m in line]
    assert finish.next_seq == decided_at + 1 + len(line)
    assert finish.board.won and finish.board.cleared == 52
    assert await ann.move(code, decided_at + 1, "finish") == finish  # a repeat gets the same answer
    done = await ann.expect(p.RaceFinished)
    assert done.standings[0].status == "won" and done.standings[0].moves == decided_at + len(line)
    record = await ann.request(p.GetRecord(req=9, race=code), p.RaceRecord)
    moves = record.entrants[0].moves
    assert moves == LINE[:decided_at] + [str(m) for m in line]
    times = record.entrants[0].times_ms[decided_at:]
    assert len(set(times)) == 1  # the whole finish at the race time of its request
    report = verify_record(record)
    assert report.ok, str(report)
    await sue.expect(p.RaceFinished)  # (after every move's frame)
    # the spectator gets the finish's last board: each board took the place of the one before it,
    # all being sent in one turn of the server's loop (boards are states, not a log)
    shown = [f for f in sue.frames if isinstance(f, (p.Progress, p.DelayedBoard)) and f.move]
    assert shown[-1].move == str(line[-1]) and shown[-1].board.won
    assert [f.version for f in shown] == sorted(f.version for f in shown)


async def test_auto_collect_follows_a_move_with_the_safe_moves_it_makes_possible(server, peers):
    game = find_game("klondike")(SEED)
    at = None
    for i, move in enumerate(LINE):
        game.apply(move)
        if game.safe_moves():
            at = i
            break
    assert at is not None, "no move of the line makes a safe move possible"
    expected = []
    twin = game.copy()
    while safe := twin.safe_moves():
        twin.apply(safe[0])
        expected.append(str(safe[0]))
    ann, code, _ = await _race(peers)
    if at:
        await _play(ann, code, LINE[:at])
    collect = p.MoveRequest(race=code, seq=at + 1, move=LINE[at], collect=True)
    await ann.send(collect)
    result = await ann.expect(p.MoveResult, seq=at + 1)
    assert result.ok and result.move == LINE[at] and result.then == expected
    assert result.next_seq == at + 2 + len(expected)
    assert result.board.cleared == twin.cleared
    nothing = await ann.move(code, result.next_seq, "collect")
    assert (nothing.ok, nothing.code) == (False, "no_safe_move")


async def test_verify_rejects_an_undo_across_a_reveal_and_one_the_race_did_not_allow(server, peers):
    ann, code, _ = await _race(peers)
    await _play(ann, code, LINE[:8] + ["undo", LINE[7]])
    await ann.request(p.Resign(req=3, race=code), p.RaceReply)
    record = await ann.request(p.GetRecord(req=4, race=code), p.RaceRecord)
    assert verify_record(record).ok, str(verify_record(record))
    game = find_game("klondike")(SEED)
    for step, move in enumerate(record.entrants[0].moves, start=1):  # the replay steps through the undo
        game.apply(move)
        shown = await ann.request(p.Replay(req=10 + step, race=code, player=ann.player, step=step), p.ReplayStep)
        assert shown.board.piles == {pid: list(c) for pid, c in game.view().piles.items()}, step
        assert shown.move == move
    entrant = record.entrants[0]
    crossing = msgspec.structs.replace(
        entrant, moves=[entrant.moves[0], "undo", *entrant.moves[1:]], times_ms=[0, 0, *entrant.times_ms[1:]]
    )
    report = verify_record(msgspec.structs.replace(record, entrants=[crossing]))
    assert "replay" in report.failed
    assert (
        "move 2 ('undo') is refused" in report.check("replay").reason and "[no_undo]" in report.check("replay").reason
    )
    no_undo = msgspec.structs.replace(record, race=msgspec.structs.replace(record.race, undo=False))
    report = verify_record(no_undo)
    assert "replay" in report.failed and "does not allow undo" in report.check("replay").reason
    miscounted = msgspec.structs.replace(record, standings=[msgspec.structs.replace(record.standings[0], undos=0)])
    assert verify_record(miscounted).failed == ["cleared"]
