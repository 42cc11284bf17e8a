"""Helpers that find card codes in decoded frames, to check that hidden cards never leave."""

from __future__ import annotations

import re

import msgspec

from engine.core import Game

_CARD = re.compile(r"[A2-9TJQK][CDHS]")


def cards_in(message: msgspec.Struct) -> set[str]:
    """Every card code anywhere in a decoded frame (values and keys, at any depth)."""
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, str):
            if _CARD.fullmatch(node):
                found.add(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(key)
                walk(value)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    walk(msgspec.to_builtins(message))
    return found


def face_up(game: Game) -> set[str]:
    """Codes of the cards lying face up in ``game`` now."""
    return {card.code for pile in game.piles.values() for card in pile.cards[pile.down :]}
