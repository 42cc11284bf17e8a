"""What several games' safe-move rules (`engine.core.Game._safe`, for auto-collect) look at.

A move is safe when it clears a card that no card still in play could ever need, so that playing
it for the player can never turn a winnable position into a lost one. Each game says its own rule
in its ``_safe``, from its rules text; the helpers here read what those rules share, from what
the player sees only (foundation cards, counts, the rules' own parameters):

* `suit_heights`, `steps_from_base`, `built_on_cleared`: in a game whose foundations build up in
  suit from a base rank (Klondike's Ace, Canfield's first card), how far each suit has gone up,
  and whether every card that the tableau could build on a card is on the foundations already.
* `all_reached`: in a game whose foundations build up from the Ace by rank alone, whether every
  foundation has reached a rank, so that no card of the next rank waits for the one this card
  would take.
* `stock_order_kept`: whether taking the top waste card leaves the stock's later deals as they
  would have been (a three-card deal groups the cards differently once one of them is gone).
"""

from __future__ import annotations

from engine.cards import Card, Suit
from engine.core import Move
from engine.rules import PileGame, Suits

__all__ = ["all_reached", "built_on_cleared", "moved_card", "stock_order_kept", "steps_from_base", "suit_heights"]


def moved_card(game: PileGame, move: Move) -> Card:
    """The card that ``move`` (a legal transfer of one card) takes: the top card of its source."""
    return game.piles[move.src].cards[-1]


def suit_heights(game: PileGame) -> dict[Suit, int]:
    """For a game whose foundations build in suit: how many cards the foundation of each suit
    holds (0 for a suit that has none yet)."""
    heights = dict.fromkeys(Suit, 0)
    for pid in game._foundation_ids:
        cards = game.piles[pid].cards
        if cards:
            heights[cards[0].suit] = len(cards)
    return heights


def steps_from_base(game: PileGame, card: Card) -> int | None:
    """How many cards of ``card``'s suit lie below it on a complete foundation (0 for a card of the
    base rank, 12 for the last), counting round the corner from the base; None while the base rank
    is not known (Dutchess before its first foundation card)."""
    base = game.base_rank()
    return None if base is None else (card.rank - base) % 13


def built_on_cleared(game: PileGame, card: Card, suits: Suits, *, wrap: bool) -> bool:
    """Whether every card that a tableau building down by one (``suits``: in suit, in alternate
    colours or regardless of suit; ``wrap``: a King on an Ace) could put on ``card`` is on the
    foundations already, so that nothing can ever need ``card`` to build on. Such cards are one step
    lower (the base card's are the last cards of their suits, when the rank wraps); they are up
    once their suit's foundation holds as many cards as lie below ``card`` on its own."""
    steps = steps_from_base(game, card)
    if steps is None:
        return False
    if steps == 0 and not wrap:
        return True  # (nothing goes on a card of the base rank: Klondike's Ace)
    needed = steps if steps else 13
    heights = suit_heights(game)
    if suits is Suits.SAME:
        others: tuple[Suit, ...] = (card.suit,)
    elif suits is Suits.ALTERNATE:
        others = tuple(s for s in Suit if s.colour != card.suit.colour)
    else:
        others = tuple(Suit)
    return all(heights[s] >= needed for s in others)


def all_reached(game: PileGame, rank: int) -> bool:
    """For foundations that build up from the Ace whatever the suits: whether every foundation holds
    ``rank`` cards at least (has reached ``rank``)."""
    return all(len(game.piles[pid].cards) >= rank for pid in game._foundation_ids)


def stock_order_kept(game: PileGame, move: Move) -> bool:
    """Whether playing ``move`` leaves every later deal of the stock as it would have been. Only
    taking the top waste card can change them, and only where the stock turns several cards at a
    time and the waste may still be turned back into a stock: the next pass then groups its cards
    differently, and a card that would have come up on top may stay buried (a card needed first
    can then be out of reach for good). When the stock and the waste hold no more cards than one
    deal turns, every deal turns them all, and a card taken away changes nothing else."""
    if move.src != "w":
        return True
    spec = game._stock_spec()
    if spec is None or spec.auto or spec.to != "w" or spec.turn == 1:
        return True
    if spec.redeals is not None and game.redeals >= spec.redeals:
        return True
    return len(game.piles["s"]) + len(game.piles["w"]) <= spec.turn
