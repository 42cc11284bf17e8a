"""The server frames an event once and hands the same bytes to every receiver: the frames it
builds itself are the ones websockets would build, at every length boundary of RFC 6455. A
busy server writes the batches of its ticks one slice per loop turn, reading what comes in
between."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from websockets.frames import Frame, Opcode

from server.transport.fanout import Fanout, FanoutChannel
from server.transport.frames import framed, websocket_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
def test_a_frame_built_once_is_the_frame_websockets_builds(size):
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert websocket_frame(payload) == Frame(Opcode.BINARY, payload).serialize(mask=False, extensions=[])


def test_the_same_payload_object_is_framed_once_and_equal_bytes_are_never_mixed_up():
    first, second = b"\x81\xa4type", bytearray(b"\x81\xa4type")
    frame = framed(first)
    assert framed(first) is frame
    assert framed(bytes(second)) == frame and framed(bytes(second)) is not frame
    other = b"other"
    assert framed(other) == websocket_frame(other)


class _Receiver:
    """What the fan-out asks of a session or a race's channel: its waiting flags and `_flush`.
    Each flush takes ``write_s`` of the loop's time, as a write to a socket would."""

    def __init__(self, name: int, log: list, write_s: float) -> None:
        self.name, self.log, self.write_s = name, log, write_s
        self._flush_pending = self._tick_pending = self._standings_pending = False

    def _flush(self) -> None:
        self._flush_pending = self._tick_pending = self._standings_pending = False
        self.log.append(self.name)
        time.sleep(self.write_s)


async def mark_turns_until_written(log: list, count: int, meanwhile: Callable[[], None] = lambda: None) -> None:
    """Put a "turn" mark in ``log`` at each turn of the event loop (a callback that stands for a
    read), calling ``meanwhile`` there too, until ``count`` receivers were written (2 s at most)."""
    loop = asyncio.get_running_loop()

    def turn() -> None:
        log.append("turn")
        meanwhile()
        if len([x for x in log if x != "turn"]) < count:
            loop.call_soon(turn)

    loop.call_soon(turn)
    for _ in range(200):
        await asyncio.sleep(0.01)
        if len([x for x in log if x != "turn"]) >= count:
            break


async def test_a_ticks_batch_is_written_a_slice_at_a_time_and_the_loop_turns_between_slices():
    """A tick's batch of 30 receivers of 1 ms each is written in slices of at most
    `Fanout.SLICE_S` (1 ms: one receiver of 1 ms) plus one, with the event loop turning (here, a
    callback that stands for a read) between them; every receiver is written once, in order,
    and one written meanwhile (its own answer) is not written again."""
    fanout = Fanout(tick_ms=5, busy_share=0.0)  # the tick always on
    log: list = []
    receivers = [_Receiver(i, log, 0.001) for i in range(30)]
    for receiver in receivers:
        receiver._tick_pending = True
        fanout.on_tick(receiver)

    def meanwhile() -> None:
        if 25 in log and 27 not in log:
            receivers[27]._flush()  # written meanwhile: not again with the rest of the batch

    await mark_turns_until_written(log, 30, meanwhile)
    written = [x for x in log if x != "turn"]
    assert sorted(written) == list(range(30)) and written.count(27) == 1
    assert written[:25] == list(range(25))
    slices = turns_and_writes(log)
    assert len(slices) >= 5, log  # not in one go
    assert max(slices) <= int(Fanout.SLICE_S / 0.001) + 1, log


def turns_and_writes(log: list) -> list[int]:
    """How many receivers were written in each loop turn, from a log of names and "turn" marks."""
    slices, run = [], 0
    for x in log:
        if x == "turn":
            if run:
                slices.append(run)
            run = 0
        else:
            run += 1
    return slices


async def test_the_batches_of_ticks_that_come_due_together_share_one_slice_per_loop_turn():
    """Five ticks' batches made in five loop turns come due at once after the loop was held up
    (as after a long read or a pause of the machine): they are written oldest first, in
    slices of `Fanout.SLICE_S` (1 ms: one receiver of 1 ms) plus one per loop turn, not a
    slice each in one go."""
    fanout = Fanout(tick_ms=5, busy_share=0.0)
    log: list = []
    receivers = [_Receiver(i, log, 0.001) for i in range(30)]
    for batch in range(5):
        for receiver in receivers[batch * 6 : batch * 6 + 6]:
            receiver._tick_pending = True
            fanout.on_tick(receiver)
        await asyncio.sleep(0)  # the next loop turn: a batch of its own
        await asyncio.sleep(0)
    time.sleep(0.02)  # the loop held up: every batch is due when it turns again
    await mark_turns_until_written(log, 30)
    assert [x for x in log if x != "turn"] == list(range(30))
    assert max(turns_and_writes(log)) <= int(Fanout.SLICE_S / 0.001) + 1, log


async def test_how_late_each_ticks_batch_was_written_is_told_once_at_its_last_write():
    """A tick's batch (four receivers of 1 ms each, written over several slices) that comes due
    while the loop is held up 30 ms is told to `Fanout.observe_delay` once, when its last
    receiver is written: late by the hold-up less the 5 ms tick, plus its writes. A standings
    tick's batch, which may wait longer by design, is not told."""
    fanout = Fanout(tick_ms=5, busy_share=0.0, standings_tick_ms=10)
    delays: list[float] = []
    fanout.observe_delay = delays.append
    log: list = []
    for i in range(4):
        fanout.later(_Receiver(i, log, 0.001))
    fanout.later(_Receiver(4, log, 0.0), standings=True)
    time.sleep(0.03)  # the loop held up past the tick
    await mark_turns_until_written(log, 5)
    assert sorted(x for x in log if x != "turn") == list(range(5))
    assert len(turns_and_writes(log)) >= 2, log  # the batch took more than one slice
    assert len(delays) == 1, delays
    assert 0.025 + 0.003 <= delays[0] < 1.0, delays


class _Failing(_Receiver):
    def _flush(self) -> None:
        super()._flush()
        raise RuntimeError("a write that failed")


async def test_a_write_that_raises_leaves_the_others_of_its_batch_and_the_later_batches_written():
    """The fan-out's error does not stop it: the loop reports it, and every other receiver of
    that tick, and of the ticks after it, is written still."""
    fanout = Fanout(tick_ms=5, busy_share=0.0)
    log: list = []
    errors: list = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda loop, context: errors.append(context.get("exception")))
    try:
        for batch in range(2):
            for i in range(batch * 4, batch * 4 + 4):
                receiver = (_Failing if i == 1 else _Receiver)(i, log, 0.0)
                receiver._tick_pending = True
                fanout.on_tick(receiver)
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        for _ in range(100):
            await asyncio.sleep(0.01)
            if len(log) >= 8:
                break
    finally:
        loop.set_exception_handler(None)
    assert log == list(range(8))
    assert [str(e) for e in errors] == ["a write that failed"]


class _Listener:
    """A receiver of a race channel that takes each frame with ``send`` (as another node's
    connection does): what it got, in order."""

    def __init__(self) -> None:
        self.got: list[bytes] = []

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        self.got.append(frame)


async def test_standings_held_are_replaced_by_later_ones_and_whoever_had_them_gets_the_new_ones():
    """Standings take the place of standings still held (each carries the whole table): a
    receiver caught up with the frame replaced (a mover, ahead of its answer) gets the new one at
    the write, the others only the new one; the new one goes last, so it never jumps ahead of an
    event older than itself (which stays)."""
    fanout = Fanout(tick_ms=50, busy_share=0.0, standings_tick_ms=200)
    ann, bob, sue = _Listener(), _Listener(), _Listener()
    channel = FanoutChannel(fanout, lambda: [ann, bob, sue])
    channel.send(b"joined")
    channel.send(b"s1", standings=True)
    channel.catch_up(ann)  # (ann moved: the standings of her move ahead of its answer)
    channel.send(b"s2", standings=True)
    channel.catch_up(bob)
    channel.send(b"s3", standings=True)
    channel._flush()
    assert ann.got == [b"joined", b"s1", b"s3"]
    assert bob.got == [b"joined", b"s2", b"s3"]
    assert sue.got == [b"joined", b"s3"]
    assert fanout.tally.standings_superseded == 2
    for frame, standings in [(b"s4", True), (b"finished", False), (b"s5", True), (b"s6", True)]:
        channel.send(frame, standings)
    channel._flush()
    assert sue.got[2:] == [b"finished", b"s6"]
    assert fanout.tally.standings_superseded == 4


async def test_a_spectators_boards_held_are_replaced_per_entrant_and_the_versions_held_still_rise():
    """A spectator's progress frame carries one entrant's board: a newer one of the same entrant
    drops the older one still held and goes last; other entrants' boards and events stay, so
    what leaves is in version order and holds the newest board of each entrant."""
    fanout = Fanout(tick_ms=50, busy_share=0.0)
    eve = _Listener()
    channel = FanoutChannel(fanout, lambda: [eve])
    sent = [(b"ann-1", "ann"), (b"bob-2", "bob"), (b"ann-3", "ann"), (b"joined-4", None), (b"ann-5", "ann")]
    sent += [(b"bob-6", "bob")]
    for frame, state in sent:
        channel.send(frame, state=state)
    channel._flush()
    assert eve.got == [b"joined-4", b"ann-5", b"bob-6"]
    assert fanout.tally.standings_superseded == 3
    channel.send(b"ann-7", state="ann")
    channel._flush()
    assert eve.got[-1] == b"ann-7"


def test_the_tick_starts_after_the_loop_stays_busy_and_stops_once_it_is_quiet():
    """Busy measurements for less than a second (a burst: races starting together) leave the tick
    off; four in a row (`Fanout.LOAD_SUSTAINED`, a quarter second each) turn it on; it stays on
    until the busy share falls below the threshold less the hysteresis."""
    fanout = Fanout(tick_ms=80, busy_share=0.5)
    assert fanout.LOAD_SUSTAINED == 4 and fanout.tick_s == 0
    assert not any([fanout.adapt(0.9), fanout.adapt(0.9), fanout.adapt(0.9)]) and fanout.tick_s == 0
    assert not fanout.adapt(0.2)  # (the run is broken)
    assert not any(fanout.adapt(0.6) for _ in range(3)) and fanout.adapt(0.6) and fanout.tick_s == 0.08
    assert not fanout.adapt(0.4) and fanout.tick_s == 0.08  # (within the hysteresis)
    assert fanout.adapt(0.3) and fanout.tick_s == 0
