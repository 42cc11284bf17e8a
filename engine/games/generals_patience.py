"""General's Patience (Thirteen): two packs, a base rank chosen among four cards, nine piles.

Rules text: 000_9969d46f4a8b5ed6.txt. In the project's words:

* Two packs (104 cards). Four cards are dealt face up to tableau piles ``t0`` to ``t3`` and thirteen
  to the reserve ``r``, spread face up so that all can be examined; only its top card may be
  played, and only to a foundation. The other 87 cards form the stock ``s``.
* First the player chooses the base rank: ``choose t2`` moves the card of ``t2`` to the foundation
  ``f0``, and its rank starts every foundation. Then six stock cards are dealt at once: the first
  to the emptied pile, the others to ``t4`` to ``t8``, making nine piles of one card.
* Eight foundations ``f0`` to ``f7``: each starts with a card of the base rank and builds up in suit,
  round the corner (an Ace on a King), to thirteen cards.
* The nine tableau piles build down in alternate colours, round the corner (a King on an Ace).
  Cards move one at a time; a run built that way may move together when the moves one card at a
  time could be made through the empty piles: at most ``2 ** e`` cards, ``e`` being the number of
  empty tableau piles (not counting the one moved to).
* A space may be filled with any card from the waste or from the tableau (``t4>t0``, ``w>t0x1``).
* ``deal`` turns one stock card onto the waste ``w``; its top card plays to a foundation or the
  tableau.
* ``redeal`` (once, with the stock empty) turns the waste back into the stock. After it nothing is
  discarded any more: ``deal`` turns the next card only when the waste is empty, that is once the
  card turned before has been played; and if a turned card can go nowhere, the game ends.
* Cleared: cards on the foundations (104 to win).
* Any top card of the base rank may start an empty foundation, wherever it lies: the waste, the
  reserve or a tableau pile, a pile's only card included (``t3>f1`` then leaves a space).

Rules version 2 (version 1 refused a tableau pile's only card to an empty foundation, taking the
move for a pointless shift of a whole pile into a space; a base-rank card left alone on a pile
could then never start its foundation, and deals that the text wins were lost).

Choices where the text is unclear:

* The four cards stay where they were dealt; the chosen one leaves a space that the first of the
  six new cards fills.
* A whole tableau pile is never moved into an empty tableau pile: the move would change nothing
  (and could be played back and forth for ever). This applies to tableau spaces only: an empty
  foundation is not a space, and a lone card that fits it may always go up.
* The reserve lies spread, face up: the text asks the player to examine its cards before choosing.
* "Each empty pile doubles the number of cards you can move": ``2 ** e`` cards, and a run moved
  into a space counts the other spaces only.
* "The game ends if it cannot be played", in the second pass: while the turned card can go to no
  foundation and no tableau pile, no move is legal (the game is over); while it can, other moves
  are allowed too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from engine.cards import Card, Rank, Suit
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile
from engine.rules import DOWN, UP, Suits, build, rule_words
from engine.words import a, card_name, counted, rank_name

__all__ = ["GeneralsPatience"]

_FOUNDATIONS = tuple(f"f{i}" for i in range(8))
_TABLEAU = tuple(f"t{i}" for i in range(9))
_OFFERED = _TABLEAU[:4]
_RESERVE_SIZE = 13
_FULL = 13
_up_in_suit = build(UP, Suits.SAME, wrap=True)
_down_alternate = build(DOWN, Suits.ALTERNATE, wrap=True)
_PILE = re.compile(r"t[0-3]")


class GeneralsPatience(Game):
    """General's Patience (Thirteen): choose the base rank among four cards after seeing a
    thirteen-card reserve; nine piles down in alternate colours; one redeal, after which each
    turned card must be played (000_9969d46f4a8b5ed6.txt)."""

    key = "generals_patience"
    name = "General's Patience"
    aliases = ("thirteen",)
    summary = "Two packs: choose the base rank, build eight foundations up in suit round the corner; one redeal."
    rules_text = "000_9969d46f4a8b5ed6.txt"
    #: 2: a tableau pile's only card may start an empty foundation (1 refused it).
    rules_version = 2
    packs = 2
    total = 104
    state_fields = ("redeals",)
    redeals: int = 0
    #: `_stalled` for one position: (the length of ``history`` then, the answer); None after a move.
    _stalled_cache: tuple[int, bool] | None

    def _deal(self, cards: list[Card]) -> None:
        for pid in _FOUNDATIONS:
            self.piles[pid] = Pile(pid)
        for i, pid in enumerate(_TABLEAU):
            self.piles[pid] = Pile(pid, [cards[i]] if i < len(_OFFERED) else [])
        start = len(_OFFERED)
        self.piles["r"] = Pile("r", cards[start : start + _RESERVE_SIZE])
        rest = cards[start + _RESERVE_SIZE :]
        self.piles["s"] = Pile("s", rest[::-1], len(rest))
        self.piles["w"] = Pile("w")
        self.redeals = 0

    @property
    def cleared(self) -> int:
        piles = self.piles
        return sum([len(piles[pid].cards) for pid in _FOUNDATIONS])

    @property
    def base(self) -> Rank | None:
        """The base rank, once chosen (the first card of ``f0``)."""
        f0 = self.piles["f0"].cards
        return f0[0].rank if f0 else None

    # ------------------------------------------------------------------------------ rules

    def _fits(self, pid: str, card: Card) -> bool:
        pile = self.piles[pid]
        if pid[0] == "f":
            if not pile.cards:
                return card.rank == self.base
            return len(pile.cards) < _FULL and _up_in_suit(pile.cards[-1], card)
        return not pile.cards or _down_alternate(pile.cards[-1], card)

    def _safe(self, move: Move) -> bool:
        """From 000_9969d46f4a8b5ed6.txt: two packs, two foundations per suit, and the layout builds
        down in alternate colours round the corner. A card is safe when the other copy of it has a
        foundation waiting too (or is up already), and, unless it comes from the reserve (which
        plays only to the foundations), when both copies of each card of the other colour one step
        below it are up: nothing could be built on it. A base card holds the last cards of the
        other colour, so it is safe from the reserve only."""
        if not self._clears(move):
            return False
        base = self.base
        if base is None:
            return False
        card = self.piles[move.src].cards[-1]
        steps = (card.rank - base) % 13
        if steps == 0:
            return move.src == "r"  # (eight foundations for eight base cards: none is left waiting)
        heights: dict[Suit, list[int]] = {suit: [] for suit in Suit}
        for pid in _FOUNDATIONS:
            cards = self.piles[pid].cards
            if cards:
                heights[cards[0].suit].append(len(cards))
        own = heights[card.suit]
        if own.count(steps) < 2 - sum(1 for height in own if height > steps):
            return False
        if move.src == "r":
            return True
        return all(
            len(found) == 2 and min(found) >= steps for suit, found in heights.items() if suit.colour != card.colour
        )

    def _capacity(self, dst: str) -> int:
        spaces = sum(1 for pid in _TABLEAU if pid != dst and not self.piles[pid].cards)
        capacity: int = 2**spaces  # (int ** int is typed Any: a negative power gives a float)
        return capacity

    def _run(self, pile: Pile) -> int:
        """How many cards on top of ``pile`` form a run built down in alternate colours."""
        cards = pile.cards
        n = 1 if cards else 0
        while n < len(cards) and _down_alternate(cards[-1 - n], cards[-n]):
            n += 1
        return n

    def _stalled(self) -> bool:
        """In the second pass, a turned card lies on the waste and can go nowhere: the game ends."""
        waste = self.piles["w"]
        if self.redeals == 0 or not waste.cards:
            return False
        cached = getattr(self, "_stalled_cache", None)
        if cached is None or cached[0] != len(self.history):
            card = waste.cards[-1]
            cached = (len(self.history), not any(self._fits(pid, card) for pid in _FOUNDATIONS + _TABLEAU))
            self._stalled_cache = cached
        return cached[1]

    def _wanted_ranks(self) -> dict[str, tuple[int, ...] | None]:
        """For each foundation and tableau pile, the ranks that `_fits` may accept now (None: any
        rank, for a space), so that the candidates skip cards that cannot fit."""
        base = self.base
        wanted: dict[str, tuple[int, ...] | None] = {}
        for pid in _FOUNDATIONS:
            cards = self.piles[pid].cards
            if not cards:
                wanted[pid] = (base,) if base is not None else ()
            else:
                ranks = _up_in_suit.ranks  # type: ignore[attr-defined]
                wanted[pid] = ranks[cards[-1].rank] if len(cards) < _FULL else ()
        for pid in _TABLEAU:
            cards = self.piles[pid].cards
            wanted[pid] = _down_alternate.ranks[cards[-1].rank] if cards else None  # type: ignore[attr-defined]
        return wanted

    def _candidates(self) -> Iterator[Move]:
        if self.base is None:
            for pid in _OFFERED:
                yield Move(action="choose", arg=pid)
            return
        wanted = self._wanted_ranks()
        for src in ("w", "r", *_TABLEAU):
            pile = self.piles[src]
            if not pile.cards:
                continue
            top = pile.cards[-1]
            for dst in _FOUNDATIONS:
                ranks = wanted[dst]  # (a foundation's is never None)
                if ranks is not None and top.rank in ranks and self._fits(dst, top):
                    yield Move(src=src, dst=dst)
            if src == "r":
                continue
            run = self._run(pile) if src[0] == "t" else 1
            for dst in _TABLEAU:
                if dst == src:
                    continue
                ranks = wanted[dst]
                for count in range(1, run + 1):
                    card = pile.cards[-count]
                    if (
                        (ranks is None or card.rank in ranks)
                        and self._fits(dst, card)
                        and (self.piles[dst].cards or src == "w" or count < len(pile))
                    ):
                        yield Move(src=src, dst=dst, count=count)
        yield Move(action="deal")
        yield Move(action="redeal")

    def _check(self, move: Move) -> None:
        if move.action == "choose":
            if self.base is not None:
                raise IllegalMove(IllegalCode.NOT_NOW, "the base rank is already chosen", move)
            if not _PILE.fullmatch(move.arg):
                raise IllegalMove(
                    IllegalCode.NO_SUCH_PILE, f"choose the card of one of tableau piles 1 to 4, not {move.arg!r}", move
                )
            return
        if self.base is None:
            raise IllegalMove(
                IllegalCode.NOT_NOW, "first choose the base rank: one of the cards of tableau piles 1 to 4", move
            )
        if self._stalled():
            raise IllegalMove(IllegalCode.NOT_NOW, "the turned card cannot be played: the game has ended", move)
        if move.is_transfer:
            self._check_transfer(move)
        elif move.action not in ("deal", "redeal"):
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{self.name} has no action {move.action!r}", move)
        elif move.arg:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{move.action!r} takes no argument", move)
        elif move.action == "deal":
            if not self.piles["s"].cards:
                raise IllegalMove(IllegalCode.STOCK_EMPTY, "the stock is empty", move)
            if self.redeals and self.piles["w"].cards:
                raise IllegalMove(IllegalCode.NOT_NOW, "after the redeal, play the turned card first", move)
        else:
            if self.piles["s"].cards:
                raise IllegalMove(IllegalCode.NOT_NOW, "you may redeal only when the stock is empty", move)
            if self.redeals:
                raise IllegalMove(IllegalCode.NO_REDEAL, "the one redeal has been used", move)
            if not self.piles["w"].cards:
                raise IllegalMove(IllegalCode.EMPTY_PILE, "the waste is empty: nothing to redeal", move)

    def _check_transfer(self, move: Move) -> None:
        src, dst = self.pile(move.src, move), self.pile(move.dst, move)
        if src is dst:
            raise IllegalMove(IllegalCode.WRONG_PILE, "a card cannot move onto its own pile", move)
        if src.id not in ("w", "r", *_TABLEAU):
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be taken from {self.pile_name(src.id)}", move)
        if dst.id not in _FOUNDATIONS + _TABLEAU:
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be played to {self.pile_name(dst.id)}", move)
        if src.id == "r" and dst.id[0] != "f":
            raise IllegalMove(IllegalCode.WRONG_PILE, "the reserve plays only to the foundations", move)
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, f"{self.pile_name(src.id)} is empty", move)
        if move.count > 1:
            if src.id[0] != "t" or dst.id[0] != "t":
                raise IllegalMove(
                    IllegalCode.BAD_COUNT, "only a run from one tableau pile to another moves several cards", move
                )
            if move.count > len(src) or move.count > self._run(src):
                raise IllegalMove(
                    IllegalCode.NOT_A_SEQUENCE,
                    f"the top {move.count} cards of {self.pile_name(src.id)} are not a built run",
                    move,
                )
            capacity = self._capacity(dst.id)
            if move.count > capacity:
                raise IllegalMove(
                    IllegalCode.BAD_COUNT,
                    f"only {counted(capacity, 'card')} may move together now: "
                    f"each empty tableau pile besides the one moved to doubles it",
                    move,
                )
        if src.id[0] == "t" and dst.id[0] == "t" and not dst.cards and move.count == len(src):
            raise IllegalMove(
                IllegalCode.DOES_NOT_FIT,
                f"moving all of {self.pile_name(src.id)} to an empty pile changes nothing",
                move,
            )
        card = src.cards[-move.count]
        if not self._fits(dst.id, card):
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, self._misfit(dst, card), move)

    def _misfit(self, pile: Pile, card: Card) -> str:
        """Why `_fits` refuses ``card`` on ``pile``, in words."""
        what = card_name(card)
        if pile.id[0] == "t":
            return f"the {what} cannot go on the {card_name(pile.cards[-1])}: {rule_words(_down_alternate)}"
        if not pile.cards:
            base = self.base
            assert base is not None, "a transfer is checked only once the base rank is chosen"
            return f"the {what} cannot go on an empty foundation: a foundation starts with {a(rank_name(base))}"
        if len(pile.cards) >= _FULL:
            return f"{self.pile_name(pile.id)} is complete: a foundation holds {_FULL} cards"
        return (
            f"the {what} cannot go on the {card_name(pile.cards[-1])} on {self.pile_name(pile.id)}: "
            f"foundations {rule_words(_up_in_suit)}"
        )

    def _describe(self, move: Move) -> str:
        if move.action == "choose":
            card = self.piles[move.arg].cards[-1]
            return f"choose the {card_name(card)} from {self.pile_name(move.arg)}: its rank starts every foundation"
        return super()._describe(move)

    def _perform(self, move: Move) -> None:
        self._stalled_cache = None
        if move.action == "choose":
            self.piles["f0"].cards.extend(self._take(self.piles[move.arg], 1))
            stock = self.piles["s"]
            for pid in (move.arg, *_TABLEAU[len(_OFFERED) :]):
                self._add(self.piles[pid], self._take(stock, 1))
        elif move.is_transfer:
            self.piles[move.dst].cards.extend(self._take(self.piles[move.src], move.count))
        elif move.action == "deal":
            self._add(self.piles["w"], self._take(self.piles["s"], 1))
        else:
            waste, stock = self.piles["w"], self.piles["s"]
            stock.cards = waste.cards[::-1]
            stock.down = len(stock.cards)
            waste.cards = []
            self.redeals += 1
