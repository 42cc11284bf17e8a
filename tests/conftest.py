"""Shared test settings: a time unit that an environment variable scales for slow machines, and
the frame audit that checks every frame every in-process server sends (tests/audit.py)."""

from __future__ import annotations

import os

import pytest

from tests.audit import FrameAudit

#: `arena serve` works out each finished race's par in a worker process; servers the tests start
#: as child processes leave it off (tests/server/test_par.py turns it on where it is tested).
os.environ.setdefault("ARENA_PAR_WORKERS", "0")

#: One millisecond of test time, in seconds; ARENA_TEST_TIME_SCALE=3 makes every wait 3x longer.
MS = 0.001 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))

_TOTALS = {"tests": 0, "frames": 0, "with_cards": 0}


@pytest.fixture(autouse=True)
def frame_audit(monkeypatch: pytest.MonkeyPatch):
    """Check every frame sent during the test; fail the test on any frame that shows an entrant
    something hidden from it, or a card nobody could see."""
    audit = FrameAudit()
    audit.install(monkeypatch)
    yield audit
    if audit.frames:
        _TOTALS["tests"] += 1
        _TOTALS["frames"] += audit.frames
        _TOTALS["with_cards"] += audit.with_cards
    if audit.violations:
        pytest.fail("frames that leak:\n" + "\n".join(audit.violations[:20]), pytrace=False)


def pytest_terminal_summary(terminalreporter) -> None:
    if _TOTALS["frames"]:
        terminalreporter.write_line(
            f"frame audit: {_TOTALS['frames']} frames checked in {_TOTALS['tests']} tests "
            f"({_TOTALS['with_cards']} naming cards); every one passed"
            if not terminalreporter.stats.get("failed") else
            f"frame audit: {_TOTALS['frames']} frames checked in {_TOTALS['tests']} tests"
        )
