"""Shared test settings: a time unit that an environment variable scales for slow machines."""

import os

#: One millisecond of test time, in seconds; ARENA_TEST_TIME_SCALE=3 makes every wait 3x longer.
MS = 0.001 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))
