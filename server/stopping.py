"""Stopping background tasks for sure.

On Python 3.11, `asyncio.wait_for` returns the wrapped call's result instead of raising when a
cancellation lands in the same turn of the loop as that call ends: the cancellation is lost and
the task carries on (fixed in 3.12). redis-py wraps the send of every command in
``wait_for(..., socket_timeout)``, so a task cancelled while it talks to Redis may not stop; a
loop that calls Redis then runs on forever, and whatever waits for it (a node's stop, the event
loop's end) waits forever too. About half of the cancellations that land during a command are
lost this way on this machine.

`cancel_and_wait` cancels again until the task ends; `stop_if_cancelled` lets a loop notice a
cancellation it lost (``Task.cancelling()`` still counts it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection

#: Seconds between two cancellations of a task that has not stopped yet (`cancel_and_wait`).
AGAIN_S = 0.05


async def cancel_and_wait(tasks: Collection[asyncio.Task[object]], timeout_s: float) -> set[asyncio.Task[object]]:
    """Cancel ``tasks`` and wait up to ``timeout_s`` seconds for all of them to end, cancelling
    those still running again every `AGAIN_S` seconds. Returns the tasks still running at the
    end (empty when all stopped); raises nothing of theirs (read it from each task)."""
    pending = set(tasks)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while pending:
        for task in pending:
            task.cancel()
        left = deadline - loop.time()
        if left <= 0:
            break
        _, pending = await asyncio.wait(pending, timeout=min(AGAIN_S, left))
    return pending


def stop_if_cancelled() -> None:
    """Raise `asyncio.CancelledError` if the current task was asked to stop but is still
    running (a cancellation lost in a Redis command): a loop that runs until cancelled calls it
    after each round that talked to Redis."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
