"""The documents keep up with the code: every server limit is in docs/security.md, and every
error code in docs/protocol.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import ServerConfig
from server.protocol import ErrorCode

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


def test_the_readme_is_valid_markdown_whose_sections_and_games_table_render():
    """A code fence left open swallows everything after it (it once did: the sections and the
    games table rendered as one code block); CommonMark, as markdown-it-py reads it, must see
    every section as a heading and the games table as a table of every game."""
    from markdown_it import MarkdownIt

    from engine.games import GAMES

    tokens = MarkdownIt("commonmark").enable("table").parse((DOCS.parent / "README.md").read_text())
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    for wanted in ("Patience Arena", "A tour", "How it fits together", "Games"):
        assert wanted in headings, f"{wanted!r} is not a heading: {headings}"
    fences = [t for t in tokens if t.type == "fence"]
    assert fences and all(t.map and "\n## " not in t.content for t in fences)
    rows = [
        tokens[i + 2].content for i, t in enumerate(tokens) if t.type == "tr_open" and tokens[i + 1].type == "td_open"
    ]
    assert {f"`{g.key}`" for g in GAMES} <= set(rows)
