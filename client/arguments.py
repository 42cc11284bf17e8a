"""Number arguments for the ``arena`` commands: parsed, checked against a range, with one clear error.

>>> count = bounded(int, low=1)
>>> count("12"), count("1_000")
(12, 1000)
>>> try:
...     count("0")
... except argparse.ArgumentTypeError as exc:
...     print(exc)
expected a whole number of at least 1, not '0'
>>> bounded(float, low=0, high=1)("0.25"), bounded(float, above=0, nullable=True)("none")
(0.25, None)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["bounded"]


def bounded(
    kind: type[int] | type[float],
    *,
    low: float | None = None,
    high: float | None = None,
    above: float | None = None,
    nullable: bool = False,
) -> Callable[[str], int | float | None]:
    """An argparse ``type`` that reads ``kind`` (int or float; ``_`` between digits allowed) and
    checks ``low <= value <= high`` and ``value > above`` (None: no bound); with ``nullable``,
    "none" or "off" give None. It raises `argparse.ArgumentTypeError` saying what was expected."""
    parts = ["a whole number" if kind is int else "a number"]
    if above is not None:
        parts.append(f"above {above:g}")
    if low is not None and high is not None:
        parts.append(f"from {low:g} to {high:g}")
    elif low is not None:
        parts.append(f"of at least {low:g}")
    elif high is not None:
        parts.append(f"of at most {high:g}")
    expected = " ".join(parts) + (" or none" if nullable else "")

    def parse(text: str) -> int | float | None:
        if nullable and text.strip().lower() in ("none", "off"):
            return None
        try:
            value = kind(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}") from None
        if (
            (low is not None and value < low)
            or (high is not None and value > high)
            or (above is not None and value <= above)
        ):
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
        return value

    return parse
