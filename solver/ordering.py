"""Per-game knowledge for the search: which moves to try first, which positions look best, and
which positions are alike.

`ordered_moves` sorts a position's legal moves so that a depth-first search meets wins early:
a card to a foundation (clearing is always progress), then a move that turns a face-down card
up (new information is progress too), then a build onto another card, then anything else (a move
into an empty pile, a reserve or a cell), then dealing from the stock, and turning the waste
back into the stock last of all. In games that build up from the Ace onto piles that take any
card (`BLOCKERS`), a card put on one of lower rank comes after a move into an empty pile. The
sort is stable, so the engine's own order breaks ties.

`score` says how promising a position looks to best-first search: cards cleared, cards face up,
and in `BLOCKERS` games the fewer cards lying on a card of lower rank the better.

`canonical` writes a position in a form where piles the rules treat alike are sorted, so that
the transposition table sees two positions that differ only by a swap of such piles as one.
Piles are alike when every rule treats them the same and no rule names them by number: the
tableau of Klondike, Eight Off, Penguin, Canfield and Chameleon (the stock feeds only the waste),
the reserve columns of Golf, the waste piles of Strategy, and the cells of Eight Off and Penguin.
Games whose stock deals onto piles in order (Scorpion, Idiot's Delight, Little Spider...) or whose
piles have places (Clock, Pyramid, The Besieged City...) keep every pile as it is.

Games that need more than these shared rules have a module of their own under solver/, named
after the game, registered in `KNOWLEDGE`: its canonical form, score and move order replace the
shared ones. Calculation and Friday 13, where no rule looks at a suit, write positions with
ranks only; General's Patience and The Besieged City drop the mark that tells a card's two
copies apart, and leave out moves that only rearrange cards already in order (so that a search
of theirs that runs out of positions proves nothing: `proves_loss`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import solver.besieged_city as besieged_city
import solver.calculation as calculation
import solver.friday_13 as friday_13
import solver.generals_patience as generals_patience
from engine.cards import Card, new_pack
from engine.core import Game, Move
from engine.games._safe import stock_order_kept
from engine.rules import PileGame

__all__ = [
    "ALIKE",
    "BLOCKERS",
    "KNOWLEDGE",
    "SAFE_UP",
    "UNCOUNTED_REDEALS",
    "Knowledge",
    "canonical",
    "canonical_bytes",
    "ordered_moves",
    "proves_loss",
    "safe_move",
    "score",
]


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What the search knows about one game beyond its rules, each piece replacing the shared
    one below (`canonical`, `score`, `ordered_moves`); each game's lives in a module of its own,
    solver/<game key>.py.

    ``canonical(game)``: the position as text for one search's transposition table, where
    positions the rules cannot tell apart are written alike (the shared `canonical` otherwise).
    ``score(game)``: how promising a position looks to best-first search, higher first.
    ``ordered_moves(game)``: the moves to try, best first. ``complete``: True when these moves
    are every legal move, up to positions that ``canonical`` writes alike; False when the game
    leaves out moves it judges useless without a proof, so that a search that runs out of
    positions has proved nothing (its verdict stays unknown).
    """

    canonical: Callable[[Game], str] | None = None
    score: Callable[[Game], int] | None = None
    ordered_moves: Callable[[Game], list[Move]] | None = None
    complete: bool = True


#: Per-game knowledge, by game key.
KNOWLEDGE: dict[str, Knowledge] = {
    "besieged_city": Knowledge(
        canonical=besieged_city.canonical,
        score=besieged_city.score,
        ordered_moves=besieged_city.ordered_moves,
        complete=False,
    ),
    "calculation": Knowledge(
        canonical=calculation.canonical, score=calculation.score, ordered_moves=calculation.ordered_moves
    ),
    "friday_13": Knowledge(canonical=friday_13.canonical, score=friday_13.score, ordered_moves=friday_13.ordered_moves),
    "generals_patience": Knowledge(
        canonical=generals_patience.canonical,
        score=generals_patience.score,
        ordered_moves=generals_patience.ordered_moves,
        complete=False,
    ),
}
_NOTHING = Knowledge()

#: Games whose foundations build up from the Ace and whose piles take cards in any order: the
#: search prefers positions where fewer cards lie on a card of lower rank.
BLOCKERS = frozenset(
    {"strategy", "try_again", "queens_quadrille", "little_spider", "eight_off", "penguin", "bristol", "tournament"}
)

#: For each game, the pile letters whose piles are interchangeable.
ALIKE: dict[str, tuple[str, ...]] = {
    "klondike": ("t",),
    "eight_off": ("t", "c"),
    "penguin": ("t", "c"),
    "canfield": ("t",),
    "chameleon": ("t",),
    "golf": ("r",),
    "strategy": ("t",),
}


#: Games where a card sent to a foundation stays there, each card has one foundation, and the
#: tableau builds by the rule in the game's ``t`` declaration: there a card that no card left in
#: play could ever be built on may go up at once, without trying anything else (`safe_move`).
SAFE_UP = frozenset(
    {"klondike", "eight_off", "penguin", "canfield", "chameleon", "dutchess", "four_seasons", "kings_clover"}
)


def safe_move(game: Game, legal: list[Move]) -> Move | None:
    """A move to a foundation that cannot hurt, if ``game`` (one of `SAFE_UP`) has one: the card
    can go to exactly one foundation, no card outside the foundations could ever be built on
    it in the tableau (so keeping it in play could only block the cards under it), and taking it
    leaves the stock's later deals as they were (`engine.games._safe.stock_order_kept`: a waste
    card taken in a three-card deal regroups every later pass, which can bury a card for good)."""
    if game.key not in SAFE_UP or not isinstance(game, PileGame):
        return None
    ups: dict[Card, list[Move]] = {}
    for move in legal:
        if move.is_transfer and move.count == 1 and move.dst.startswith("f") and stock_order_kept(game, move):
            ups.setdefault(game.piles[move.src].cards[-1], []).append(move)
    if not ups:
        return None
    build = getattr(type(game)._specs()["t"], "build", None)
    if not callable(build):  # (one rule in every game of SAFE_UP)
        return None
    outside = [card for pid, pile in game.piles.items() if not pid.startswith("f") for card in pile.cards]
    for card, moves in ups.items():
        if len(moves) == 1 and not any(build(card, other) for other in outside if other is not card):
            return moves[0]
    return None


#: Games whose stock may be turned over without limit and whose rules look at the count of
#: redeals nowhere else: `canonical` leaves the count out, so that the same cards after one more
#: pass are one position.
UNCOUNTED_REDEALS = frozenset({"klondike", "canfield"})


#: Games whose rules look at more of a foundation than its length and top card.
WHOLE_FOUNDATIONS = frozenset({"osmosis"})


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
    """The legal moves of ``game``, most promising first (see the module docstring); a game with
    `KNOWLEDGE` of its own may leave out moves (see `Knowledge.complete`)."""
    own = KNOWLEDGE.get(game.key, _NOTHING).ordered_moves
    if own is not None:
        return own(game)
    return sorted(game.legal_moves(), key=lambda move: _rank(game, move))


def proves_loss(game: Game) -> bool:
    """Whether a search of ``game`` that runs out of positions has proved it lost: True unless
    the game's `ordered_moves` leave out moves without a proof that they cannot matter."""
    return KNOWLEDGE.get(game.key, _NOTHING).complete


def _inversions(game: Game) -> int:
    """Cards lying above a card of lower rank in the same pile (outside foundations and stock):
    each one must move again before the lower card can go up."""
    count = 0
    for pid, pile in game.piles.items():
        if pid[0] in "fs":
            continue
        low = 99
        for card in pile.cards:
            if card.rank > low:
                count += 1
            low = min(low, card.rank)
    return count


def score(game: Game) -> int:
    """How promising a position looks, higher first: cards cleared count most, then cards turned
    face up, and (in `BLOCKERS` games) the fewer cards blocking a lower one the better; a game
    with `KNOWLEDGE` of its own may score otherwise."""
    own = KNOWLEDGE.get(game.key, _NOTHING).score
    if own is not None:
        return own(game)
    down = sum(pile.down for pid, pile in game.piles.items() if pid != "s")
    result = 4 * game.cleared - 2 * down
    if game.key in BLOCKERS:
        result -= 2 * _inversions(game)
    return result


#: Each card's number (one byte) in `canonical_bytes`.
_CARD_BYTE = {card: n for n, card in enumerate(new_pack(2))}


def canonical_bytes(game: Game) -> bytes:
    """`canonical` written as bytes, quicker to build (the search digests every position it
    reaches): two positions of one game have the same bytes exactly when they have the same
    `canonical` text. Each pile is its length, its face-down count and its cards' numbers, one
    byte each (a foundation: its length and top card); interchangeable piles (`ALIKE`) are
    sorted. A game with its own canonical form gives that form's text, encoded."""
    own = KNOWLEDGE.get(game.key, _NOTHING).canonical
    if own is not None:
        return own(game).encode()
    alike = ALIKE.get(game.key, ())
    whole = game.key in WHOLE_FOUNDATIONS
    number = _CARD_BYTE.__getitem__
    groups: dict[str, list[bytes]] = {}
    parts = []
    for pid, pile in game.piles.items():
        letter = pid[:1]
        cards = pile.cards
        if letter == "f" and not whole:
            text = bytes((len(cards), number(cards[-1]) if cards else 255))
        else:
            text = bytes((len(cards), pile.down, *map(number, cards)))
        if letter in alike and pid[1:].isdigit():
            groups.setdefault(letter, []).append(text)
        else:
            parts.append(text)
    for letter, texts in groups.items():
        parts.append(letter.encode())
        parts += sorted(texts)
    fields = game.state_fields
    if fields:
        if game.key in UNCOUNTED_REDEALS:
            fields = tuple(name for name in fields if name != "redeals")
        parts.append(" ".join(f"{name}={getattr(game, name)}" for name in fields).encode())
    return b"".join(parts)


def canonical(game: Game) -> str:
    """``game``'s position as text for the transposition table: interchangeable piles (`ALIKE`)
    sorted by content, and each foundation written as its length and top card, since cards on a
    foundation never leave it and no rule looks under its top card (except in Osmosis:
    `WHOLE_FOUNDATIONS`). A game with `KNOWLEDGE` of its own may write positions its own way; a
    canonical form compares positions of one search (from one deal), not of different deals.

    >>> from engine.games import find_game
    >>> a, b = find_game("eight_off")(3), find_game("eight_off")(3)
    >>> b.piles["t0"].cards, b.piles["t1"].cards = b.piles["t1"].cards, b.piles["t0"].cards
    >>> canonical(a) == canonical(b) and a.position() != b.position()
    True
    """
    own = KNOWLEDGE.get(game.key, _NOTHING).canonical
    if own is not None:
        return own(game)
    alike = ALIKE.get(game.key, ())
    whole = game.key in WHOLE_FOUNDATIONS
    groups: dict[str, list[str]] = {}
    parts = []
    for pid, pile in game.piles.items():
        letter = pid[:1]
        if letter == "f" and not whole:
            text = f"{len(pile.cards)}{pile.cards[-1] if pile.cards else ''}"
        else:
            text = pile.text()
        if pid[1:].isdigit() and letter in alike:
            groups.setdefault(letter, []).append(text)
        else:
            parts.append(f"{pid}:{text}")
    for letter, texts in groups.items():
        parts.append(letter + "=" + "|".join(sorted(texts)))
    fields = game.state_fields
    if game.key in UNCOUNTED_REDEALS:
        fields = tuple(name for name in fields if name != "redeals")
    parts += [f"{name}={getattr(game, name)}" for name in fields]
    return " ".join(parts)
