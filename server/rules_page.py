"""A game's rules page for players: docs/games/KEY.md rendered to HTML, its table and its
worked example drawn in the browser by the same renderer as a race (client/web/rules.js).

The pages are installed with the package as the data of ``server.rules_docs`` (pyproject.toml
maps it to docs/games/) and read through `importlib.resources` by `rules_text`, from a wheel as
from a checkout.

Two fenced blocks of the Markdown are not shown as code:

* a ``layout`` fence (empty) becomes the game's table as it is dealt (deal 1), each pile in its
  place and named;
* an ``example`` fence becomes a deal to step through. Its lines are ``name: value``:
  ``seed`` (a deal number), ``options`` (rule options set true, comma-separated), ``moves``
  (played before the board is shown) and ``then`` (the moves a reader steps through, each with
  its words from `engine.core.Game.describe`). Every move must be legal in turn: `Example.steps`
  raises `BadExample` otherwise, and tests/test_rules_pages.py checks every page.

The page ends with a footer naming the rules text the game follows and its rules version.

>>> example = Example.parse("seed: 7\\nthen: deal")
>>> example.seed, example.then
(7, ('deal',))
"""

from __future__ import annotations

import html
import importlib.resources
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from engine.core import Audience, EngineError, Game
from engine.games import find_game
from server.protocol import board_of

__all__ = ["BadExample", "Example", "render_rules", "rules_text"]

log = logging.getLogger("arena.server")

#: The package whose data are the rules pages: pyproject.toml maps it to the repository's docs/games/.
_PAGES = "server.rules_docs"


class BadExample(ValueError):
    """An ``example`` fence that cannot be played: a bad line, an unknown option, an illegal move."""


@dataclass(frozen=True)
class Example:
    """A worked example: a deal, the moves played before it is shown, the moves to step through."""

    seed: int
    options: tuple[str, ...] = ()
    moves: tuple[str, ...] = ()
    then: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Example:
        """Read an ``example`` fence's body; raises `BadExample` for a line it does not know."""
        fields: dict[str, str] = {}
        for line in text.splitlines():
            if not line.strip():
                continue
            name, sep, value = line.partition(":")
            if not sep or name.strip() not in ("seed", "options", "moves", "then"):
                raise BadExample(f"an example line is 'seed|options|moves|then: ...', not {line!r}")
            fields[name.strip()] = value.strip()
        if "seed" not in fields or not fields["seed"].isdigit():
            raise BadExample(f"an example needs 'seed: N' with a whole number, not {fields.get('seed')!r}")

        def items(name: str) -> tuple[str, ...]:
            return tuple(part.strip() for part in fields.get(name, "").split(",") if part.strip())

        return cls(int(fields["seed"]), items("options"), items("moves"), items("then"))

    def steps(self, game_cls: type[Game]) -> list[dict[str, object]]:
        """The boards a reader steps through: ``[{"board": ..., "said": ""}, {"board": ...,
        "said": "the 7♣ from ..."}, ...]``, the first after ``moves``, then one after each move of
        ``then`` with that move in words. Boards are as the player sees them (`Audience.PLAYER`,
        as wire maps). Raises `BadExample`."""
        try:
            game = game_cls(self.seed, **{name: True for name in self.options})
            for move in self.moves:
                game.apply(move)
            out: list[dict[str, object]] = [{"board": _board(game), "said": ""}]
            for move in self.then:
                said = game.describe(move)
                game.apply(move)
                out.append({"board": _board(game), "said": said})
        except EngineError as exc:
            raise BadExample(f"{game_cls.key} example (seed {self.seed}): {exc}") from exc
        return out


def _board(game: Game) -> object:
    board = msgspec.to_builtins(board_of(game.view(Audience.PLAYER)))
    board["legal"] = []  # a picture, not a position to play
    return board


def rules_text(key: str) -> str | None:
    """The Markdown of the rules page of game ``key`` (its key, not an alias): docs/games/KEY.md,
    read through `importlib.resources` as the data of ``server.rules_docs``; None if there is no
    such page (or ``key`` is not a name, such as ``../x``).

    >>> rules_text("klondike").startswith("# Klondike")
    True
    """
    page = importlib.resources.files(_PAGES) / f"{key}.md"
    return page.read_text(encoding="utf-8") if key.isidentifier() and page.is_file() else None


def render_rules(key: str, markdown: str) -> str:
    """The rules page of game ``key`` from its Markdown, as a whole HTML document."""
    game_cls = find_game(key)
    md = MarkdownIt("commonmark").enable("table")
    renderer = md.renderer
    assert isinstance(renderer, RendererHTML), "MarkdownIt's default renderer"
    fence = renderer.rules["fence"]

    def board_fence(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        token = tokens[idx]
        info = token.info.strip()
        if info in ("layout", "example"):
            try:
                steps = (Example(1) if info == "layout" else Example.parse(token.content)).steps(game_cls)
            except BadExample as exc:
                log.warning("rules page %s: %s", key, exc)
                return f'<p class="error">This example cannot be shown: {html.escape(str(exc))}</p>\n'
            data = html.escape(json.dumps(steps, ensure_ascii=False), quote=True)
            return f'<div class="rules-board {info}" data-game="{html.escape(key)}" data-steps="{data}"></div>\n'
        return fence(tokens, idx, options, env)

    md.add_render_rule("fence", board_fence)
    body = md.render(markdown)
    title = html.escape(game_cls.name)
    footer = (
        f"<footer>These rules follow <code>{html.escape(game_cls.rules_text)}</code> in the project's rules "
        f"texts, in the project's own words; rules version {game_cls.rules_version}.</footer>"
    )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>How to play {title}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/style.css">'
        '<script type="module" src="/static/rules.js"></script></head>'
        '<body class="rules"><header class="bar"><a class="brand" href="/">Patience Arena</a></header>'
        f"<main>{body}{footer}</main></body></html>"
    )
