"""Every game's rules page (docs/games/KEY.md, read as the installed package reads it:
`server.rules_page.rules_text`) teaches a player: the same sections in the same order, the
game's key and aliases, a drawn table, and a worked example whose moves are legal in turn;
rendered by `server.rules_page` with its footer."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from engine.games import GAMES
from server.rules_page import BadExample, Example, render_rules, rules_text

SECTIONS = ["How to win", "The table", "Moves", "An example", "Tips", "Notation", "Choices"]

by_game = pytest.mark.parametrize("game", GAMES, ids=[g.key for g in GAMES])


def fences(text: str) -> list[tuple[str, str]]:
    return [(t.info.strip(), t.content) for t in MarkdownIt("commonmark").parse(text) if t.type == "fence"]


@by_game
def test_the_page_has_the_players_sections_in_order(game):
    text = rules_text(game.key)
    assert text.startswith(f"# {game.name}\n")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert [h for h in SECTIONS if h in headings] == headings, headings
    assert {"How to win", "The table", "Moves", "An example", "Notation", "Choices"} <= set(headings)
    keys = ", ".join(f"`{name}`" for name in (game.key, *game.aliases))
    intro = " ".join(text.split("\n## ", 1)[0].split())
    assert f"Key `{game.key}`" in intro and all(f"`{alias}`" in intro for alias in game.aliases), keys


@by_game
def test_the_table_is_drawn_and_the_example_plays(game):
    found = fences(rules_text(game.key))
    kinds = [info for info, _ in found]
    assert kinds.count("layout") == 1 and kinds.count("example") == 1
    example = Example.parse(next(body for info, body in found if info == "example"))
    steps = example.steps(game)  # raises BadExample for an illegal move
    assert len(steps) == len(example.then) + 1 >= 3
    assert all(step["said"] for step in steps[1:])


@by_game
def test_the_page_renders_with_boards_and_a_footer(game):
    page = render_rules(game.key, rules_text(game.key))
    assert page.count('class="rules-board') == 2 and 'class="error"' not in page
    assert f"<code>{game.rules_text}</code>" in page and f"rules version {game.rules_version}" in page
    assert "language-layout" not in page and "language-example" not in page


def test_a_bad_example_is_refused_with_its_reason():
    klondike = GAMES[0]
    with pytest.raises(BadExample, match="seed"):
        Example.parse("moves: deal")
    with pytest.raises(BadExample, match="not 'play: deal'"):
        Example.parse("seed: 1\nplay: deal")
    with pytest.raises(BadExample, match="klondike example"):
        Example.parse("seed: 1\nthen: redeal").steps(klondike)
    assert 'class="error"' in render_rules("klondike", "# Klondike\n\n```example\nseed: 1\nthen: redeal\n```\n")
