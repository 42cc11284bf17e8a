"""Background tasks stop when told (`server.stopping`), even when a cancellation is lost in a
Redis command (Python 3.11's `asyncio.wait_for`, which redis-py wraps around every send)."""

from __future__ import annotations

import asyncio

from server.stopping import cancel_and_wait, stop_if_cancelled
from server.store.redis import RedisStore

TRIALS = 100


async def test_a_task_that_lost_its_cancellation_is_cancelled_again_until_it_ends():
    """One cancellation lost: the next one stops the task, well within the time allowed."""
    lost = 0

    async def loses_one() -> None:
        nonlocal lost
        while True:
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                if lost:
                    raise
                lost += 1  # (as `wait_for` does on 3.11: the cancellation is gone)

    task = asyncio.create_task(loses_one())
    await asyncio.sleep(0.02)
    assert await cancel_and_wait([task], 5) == set()
    assert task.cancelled() and lost == 1


async def test_a_task_that_never_ends_is_given_back_after_the_time_allowed():
    """A task that ignores every cancellation is returned once ``timeout_s`` has passed."""
    stop = asyncio.Event()

    async def stubborn() -> None:
        while not stop.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                pass

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0.02)
    loop = asyncio.get_running_loop()
    began = loop.time()
    assert await cancel_and_wait([task], 0.2) == {task}
    assert 0.2 <= loop.time() - began < 1.0
    stop.set()
    await task


async def test_stop_if_cancelled_raises_only_once_a_cancellation_was_asked_for():
    """Outside a cancellation it does nothing; after one that was lost it raises."""
    stop_if_cancelled()  # (a task not cancelled goes on)

    async def loses_one() -> str:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass
        stop_if_cancelled()
        return "ran on"

    task = asyncio.create_task(loses_one())
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.wait([task], timeout=1)
    assert task.cancelled()


async def _beating(store: RedisStore, *, check: bool) -> None:
    """A loop that is always in a Redis command, like a node's heartbeat under load."""
    while True:
        await store.heartbeat(10)
        if check:
            stop_if_cancelled()


async def test_loops_over_a_real_redis_stop_when_told(redis_server, redis_prefix):
    """Over a real Redis, a loop that sends commands without pause is stopped every time: by
    `cancel_and_wait` (it cancels again), and by a single cancellation when the loop calls
    `stop_if_cancelled` after each command."""
    store = RedisStore(redis_server.url, prefix=redis_prefix, node_id="stopping")
    await store.open()
    try:
        for check in (False, True):
            for _ in range(TRIALS):
                task = asyncio.create_task(_beating(store, check=check))
                await asyncio.sleep(0.002)
                if check:
                    task.cancel()
                    await asyncio.wait([task], timeout=1)
                    assert task.done(), "a single cancellation did not stop a loop that checks"
                else:
                    assert await cancel_and_wait([task], 1) == set(), "the loop did not stop"
                assert task.cancelled()
    finally:
        await store.close()
