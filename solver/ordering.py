"""Per-game knowledge for the search: which moves to try first, and which piles are alike.

`ordered_moves` sorts a position's legal moves so that a depth-first search meets wins early:
a card to a foundation (clearing is always progress), then a move that turns a face-down card
up (new information is progress too), then a build onto another card, then anything else (a move
into an empty pile, a reserve or a cell), then dealing from the stock, and turning the waste
back into the stock last of all. In games that build up from the Ace onto piles that take any
card (`BLOCKERS`), a card put on one of lower rank comes after a move into an empty pile. The sort is stable, so the engine's own order breaks ties.

`canonical` writes a position in a form where piles the rules treat alike are sorted, so that
the transposition table sees two positions that differ only by a swap of such piles as one.
Piles are alike when every rule treats them the same and no rule names them by number: the
tableau of Klondike, Eight Off, Penguin, Canfield and Chameleon (the stock feeds only the waste),
the reserve columns of Golf, the waste piles of Calculation and Strategy, and the cells of Eight
Off and Penguin. Games whose stock deals onto piles in order (Scorpion, Idiot's Delight, Little
Spider...) or whose piles have places (Clock, Pyramid, The Besieged City...) keep every pile as
it is.
"""

from __future__ import annotations

from engine.core import Game, Move

__all__ = ["ALIKE", "BLOCKERS", "SAFE_UP", "canonical", "ordered_moves", "safe_move"]

#: Games whose foundations build up from the Ace and whose piles take cards in any order: the
#: search prefers positions where fewer cards lie on a card of lower rank.
BLOCKERS = frozenset({"strategy", "try_again", "queens_quadrille", "little_spider", "eight_off", "penguin",
                      "bristol", "besieged_city", "generals_patience", "tournament"})

#: For each game, the pile letters whose piles are interchangeable.
ALIKE: dict[str, tuple[str, ...]] = {
    "klondike": ("t",),
    "eight_off": ("t", "c"),
    "penguin": ("t", "c"),
    "canfield": ("t",),
    "chameleon": ("t",),
    "golf": ("r",),
    "calculation": ("t",),
    "strategy": ("t",),
}


#: Games where a card sent to a foundation stays there, each card has one foundation, and the
#: tableau builds by the rule in the game's ``t`` declaration: there a card that no card left in
#: play could ever be built on may go up at once, without trying anything else (`safe_move`).
SAFE_UP = frozenset({"klondike", "eight_off", "penguin", "canfield", "chameleon", "dutchess", "four_seasons",
                     "kings_clover"})


def safe_move(game: Game, legal: list[Move]) -> Move | None:
    """A move to a foundation that cannot hurt, if ``game`` (one of `SAFE_UP`) has one: the card
    can go to exactly one foundation, and no card outside the foundations could ever be built on
    it in the tableau (so keeping it in play could only block the cards under it)."""
    if game.key not in SAFE_UP:
        return None
    ups: dict[object, list[Move]] = {}
    for move in legal:
        if move.is_transfer and move.count == 1 and move.dst.startswith("f"):
            ups.setdefault(game.piles[move.src].cards[-1], []).append(move)
    if not ups:
        return None
    build = type(game)._specs()["t"].build  # type: ignore[attr-defined]
    outside = [card for pid, pile in game.piles.items() if not pid.startswith("f") for card in pile.cards]
    for card, moves in ups.items():
        if len(moves) == 1 and not any(build(card, other) for other in outside if other is not card):
            return moves[0]
    return None


#: Games whose rules look at more of a foundation than its length and top card.
WHOLE_FOUNDATIONS = frozenset({"osmosis"})
#: Pile letters whose piles are interchangeable once they hold a card (empty ones keep their place).
ALIKE_ONCE_STARTED: dict[str, tuple[str, ...]] = {"friday_13": ("f",)}


def _rank(game: Game, move: Move) -> int:
    if move.is_transfer:
        if move.dst.startswith("f"):
            return 0
        src = game.piles.get(move.src)
        if src is not None and src.down and move.count == src.up:
            return 1
        dst = game.piles.get(move.dst)
        if dst is not None and dst.cards:
            if game.key in BLOCKERS and src is not None and src.cards:
                # onto a card of lower rank: the moved card will block it
                return 2 if dst.cards[-1].rank >= src.cards[-move.count].rank else 4
            return 2
        return 3
    if move.action == "redeal":
        return 7
    if move.action == "deal":
        return 6
    return 5


def ordered_moves(game: Game) -> list[Move]:
    """The legal moves of ``game``, most promising first (see the module docstring)."""
    return sorted(game.legal_moves(), key=lambda move: _rank(game, move))


def canonical(game: Game) -> str:
    """``game``'s position as text for the transposition table: interchangeable piles (`ALIKE`)
    sorted by content, and each foundation written as its length and top card, since cards on a
    foundation never leave it and no rule looks under its top card (except in Osmosis:
    `WHOLE_FOUNDATIONS`). In Friday 13 (`ALIKE_ONCE_STARTED`) only an empty foundation's place
    matters (it takes its label's rank, left to right), so started ones are sorted too.

    >>> from engine.games import find_game
    >>> a, b = find_game("eight_off")(3), find_game("eight_off")(3)
    >>> b.piles["t0"].cards, b.piles["t1"].cards = b.piles["t1"].cards, b.piles["t0"].cards
    >>> canonical(a) == canonical(b) and a.position() != b.position()
    True
    """
    alike = ALIKE.get(game.key, ())
    once_started = ALIKE_ONCE_STARTED.get(game.key, ())
    whole = game.key in WHOLE_FOUNDATIONS
    groups: dict[str, list[str]] = {}
    parts = []
    for pid, pile in game.piles.items():
        letter = pid[:1]
        if letter == "f" and not whole:
            text = f"{len(pile.cards)}{pile.cards[-1] if pile.cards else ''}"
        else:
            text = pile.text()
        if pid[1:].isdigit() and (letter in alike or (letter in once_started and pile.cards)):
            groups.setdefault(letter, []).append(text)
        else:
            parts.append(f"{pid}:{text}")
    for letter, texts in groups.items():
        parts.append(letter + "=" + "|".join(sorted(texts)))
    parts += [f"{name}={getattr(game, name)}" for name in game.state_fields]
    return " ".join(parts)
