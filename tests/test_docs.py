"""The documents keep up with the code: every server limit is in docs/security.md, and every
error code in docs/protocol.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.protocol import ErrorCode
from server.service import ServerConfig

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize("limit", ServerConfig.limits(), ids=lambda f: f.name)
def test_every_limit_is_listed_with_its_flag_and_variable(limit):
    security = (DOCS / "security.md").read_text()
    flag, variable = "--" + limit.name.replace("_", "-"), "ARENA_" + limit.name.upper()
    row = next((line for line in security.splitlines() if f"`{flag}`" in line), "")
    assert row and f"`{variable}`" in row, f"{flag} is not in the limits table of docs/security.md"


@pytest.mark.parametrize("code", list(ErrorCode), ids=str)
def test_every_error_code_is_in_the_protocol_reference(code):
    assert f"| `{code}` |" in (DOCS / "protocol.md").read_text()
