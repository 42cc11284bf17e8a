"""What one search may spend (`Budget`) and what it found (`Verdict`): shared by the generic
search (`solver.search`) and the exact per-game searches (solver/<game>.py), which import them
from here so that no search module needs another."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Budget", "Verdict"]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much one search may spend: ``nodes`` (moves tried), ``seconds`` (wall clock),
    ``positions`` (distinct positions remembered) and ``memory_mb`` (mebibytes of what the search
    holds: its table of positions seen and its frontier, as the search itself counts them).
    The defaults are a race's par budget (the server's ``par_*`` limits): time and memory decide,
    the counts only cap them."""

    nodes: int = 100_000_000
    seconds: float = 10.0
    positions: int = 100_000_000
    memory_mb: float = 256.0

    def spent(self, nodes: int, positions: int, now: float | None, deadline: float, memory_bytes: int = 0) -> str:
        """Which budget is spent after ``nodes`` moves tried and ``positions`` remembered, holding
        ``memory_bytes`` (the search's own count), at ``now`` (monotonic seconds; None: the clock
        was not read) against ``deadline``, as the reason a verdict gives; "" while none is."""
        if nodes >= self.nodes:
            return f"node budget ({self.nodes:,} moves) spent"
        if now is not None and now > deadline:
            return f"time budget ({self.seconds:g} s) spent"
        if positions > self.positions:
            return f"memory budget ({self.positions:,} positions) spent"
        if memory_bytes > self.memory_mb * 1024 * 1024:
            return f"memory budget ({self.memory_mb:g} MB) spent"
        return ""


@dataclass(slots=True)
class Verdict:
    """The outcome of one search.

    ``result``: ``won`` (``solution`` holds the moves, in notation, from the position searched to
    a won game), ``lost`` (proved: no reachable position is won) or ``unknown`` (``reason`` says
    which budget ran out). ``best_cleared``: the most cards cleared in any position reached, out
    of ``total``; exact unless the result is unknown. ``nodes``: moves tried; ``positions``:
    distinct positions reached; ``seconds``: wall-clock time.
    """

    game: str
    seed: int | None
    result: Literal["won", "lost", "unknown"]
    total: int
    best_cleared: int
    solution: list[str] = field(default_factory=list)
    nodes: int = 0
    positions: int = 0
    seconds: float = 0.0
    reason: str = ""

    def as_dict(self) -> dict[str, object]:
        """The verdict as plain JSON values."""
        return {name: getattr(self, name) for name in self.__slots__}
