"""The engine's model: piles, moves, the `Game` base class, its errors and audience views.

Errors (every one carries ``code``, ``reason`` and the offending ``text`` or move)::

    EngineError(ValueError)
     ├── BadNotation     text that is not a move or a position string (code "bad_notation",
     │                   "bad_position" or "bad_option")
     └── IllegalMove     a well-formed move the rules refuse (code: an `IllegalCode`)

A game is built from ``(seed, **options)``, deals itself from `engine.deal.shuffled`, and then reads
like a chess board: `Game.legal_moves`, `Game.apply`, `Game.cleared`, `Game.total`, `Game.won`,
`Game.over`, `Game.view`, and `Game.position` / `Game.from_position` for the whole state as text.

Words for people: an `IllegalMove`'s ``reason`` names cards as the player sees them ("the 7♣",
`engine.words.card_name`) and piles by `Game.pile_name` ("tableau pile 4"), and says the rule that
refuses the move; it never names a face-down card. `Game.describe` says a legal move the same way.

Move notation (`Move.parse`, ``str(move)``):

* a transfer names its source and destination piles, ``"t3>f0"`` (one card from tableau pile 3 to
  foundation 0), with ``xN`` for a block of N cards: ``"t3>t5x3"``;
* any other action is a word, optionally followed by one argument: ``"deal"``, ``"redeal"``,
  ``"turn"``, ``"exchange t4.2"``.

Pile ids are a letter and an index: ``f`` foundation, ``t`` tableau, ``r`` reserve, ``c`` cell,
``s`` stock, ``w`` waste (``s`` and ``w`` have no index when a game has one of each).

Position string (`Game.position`): the game key, the rule options (``-`` for none), every pile
as ``id:cards`` with cards bottom to top, face-down cards in lower case, then the game's state
fields as ``name=value``, all separated by single spaces::

    klondike - f0: f1: ... t1:ks2H ... s:ahtd w: redeals=0
"""

from __future__ import annotations

import abc
import enum
import functools
import inspect
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from engine.cards import UNKNOWN, BadCard, Card, new_pack
from engine.deal import shuffled
from engine.words import a, default_pile_name, kind_name, run_name

__all__ = [
    "Audience",
    "BadNotation",
    "EngineError",
    "Game",
    "IllegalCode",
    "IllegalMove",
    "LegalMoves",
    "Move",
    "Option",
    "Pile",
    "Reveal",
    "UNDO_DEPTH",
    "View",
]


class Audience(enum.StrEnum):
    """Who a view is for. Neither audience ever sees a face-down card or the stock order."""

    PLAYER = "player"
    SPECTATOR = "spectator"


class IllegalCode(enum.StrEnum):
    """Why the rules refuse a move; stable strings that the wire carries."""

    NO_SUCH_PILE = "no_such_pile"
    EMPTY_PILE = "empty_pile"
    FACE_DOWN = "face_down"
    WRONG_PILE = "wrong_pile"
    DOES_NOT_FIT = "does_not_fit"
    NOT_A_SEQUENCE = "not_a_sequence"
    BAD_COUNT = "bad_count"
    STOCK_EMPTY = "stock_empty"
    NO_REDEAL = "no_redeal"
    NOT_NOW = "not_now"
    UNKNOWN_ACTION = "unknown_action"
    GAME_OVER = "game_over"
    NO_UNDO = "no_undo"


class EngineError(ValueError):
    """Root of the engine's errors: a ``code`` (str), a human ``reason`` and the ``text`` at fault."""

    def __init__(self, code: str, reason: str, text: str = "") -> None:
        super().__init__(f"{reason} [{code}]")
        self.code = code
        self.reason = reason
        self.text = text


class BadNotation(EngineError):
    """Text that is not a move, a position string or a valid rule option."""


class IllegalMove(EngineError):
    """A well-formed move that the rules refuse; ``code`` is an `IllegalCode`."""

    def __init__(self, code: IllegalCode, reason: str, move: Move | None = None) -> None:
        super().__init__(code, reason, str(move) if move is not None else "")
        self.move = move


_PILE = r"[a-z](?:\d{1,2})?"
_TRANSFER = re.compile(rf"({_PILE})>({_PILE})(?:x(\d{{1,3}}))?")
_ACTION = re.compile(r"([a-z][a-z_]{0,15})(?: ([A-Za-z0-9.'_-]{1,16}))?")

#: Moves read so far, by notation (`Move.parse`), and transfers made so far, by (source,
#: destination, count) (`Move.transfer`): a `Move` is immutable, so the games' histories and
#: legal-move lists share one instance each instead of a new object per move. Bounded, as the
#: notations and piles a client may name are not: past `_PARSED_MOST` a move is made afresh.
_PARSED: dict[str, Move] = {}
_TRANSFERS: dict[tuple[str, str, int], Move] = {}
_PARSED_MOST = 4096


@dataclass(frozen=True, slots=True)
class Move:
    """One player action. A transfer has ``src``, ``dst`` and ``count`` (cards); any other action
    has ``action`` (a word) and an optional ``arg``.

    >>> Move.parse("t3>t5x3")
    Move.parse('t3>t5x3')
    >>> str(Move.parse("exchange t4.2")), Move.parse("t3>f0").count
    ('exchange t4.2', 1)
    """

    src: str = ""
    dst: str = ""
    count: int = 1
    action: str = ""
    arg: str = ""
    #: The notation, once worked out (`str`).
    notation: str = field(default="", init=False, repr=False, compare=False)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a move in notation (for a transfer, the instance `transfer` gives, and for
        the same text the same instance, mostly: `_PARSED`); raises `BadNotation` (code
        ``bad_notation``)."""
        if not isinstance(text, str) or len(text) > 40:
            raise BadNotation("bad_notation", f"not a move: {text!r}", repr(text)[:60])
        move = _PARSED.get(text)
        if move is not None:
            return move
        if m := _TRANSFER.fullmatch(text):
            count = int(m[3]) if m[3] else 1
            if count < 1:
                raise BadNotation("bad_notation", f"a move needs at least one card: {text!r}", text)
            move = Move.transfer(m[1], m[2], count)
        elif m := _ACTION.fullmatch(text):
            move = Move(action=m[1], arg=m[2] or "")
        else:
            raise BadNotation(
                "bad_notation",
                f"not a move: {text!r} (expected e.g. 't3>f0', 't3>t5x3', 'deal' or 'exchange t4.2')",
                text,
            )
        if len(_PARSED) < _PARSED_MOST:
            _PARSED[text] = move
        return move

    @staticmethod
    def transfer(src: str, dst: str, count: int = 1) -> Move:
        """The move of ``count`` cards from pile ``src`` to pile ``dst``: one shared instance
        for the same three, mostly (`_TRANSFERS`)."""
        key = (src, dst, count)
        move = _TRANSFERS.get(key)
        if move is None:
            move = Move(src=src, dst=dst, count=count)
            if len(_TRANSFERS) < _PARSED_MOST:
                _TRANSFERS[key] = move
        return move

    @property
    def is_transfer(self) -> bool:
        """True for a move of cards from one pile to another."""
        return not self.action

    def __str__(self) -> str:
        text = self.notation
        if not text:
            if self.action:
                text = f"{self.action} {self.arg}" if self.arg else self.action
            else:
                text = f"{self.src}>{self.dst}" + (f"x{self.count}" if self.count != 1 else "")
            object.__setattr__(self, "notation", text)  # (frozen: set once, as `dataclass` does)
        return text

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


class Pile:
    """A pile of cards, bottom to top. The first ``down`` cards are face down.

    A stock keeps every card face down; a waste or foundation keeps every card face up.
    """

    __slots__ = ("id", "cards", "down")

    def __init__(self, pile_id: str, cards: list[Card] | None = None, down: int = 0) -> None:
        self.id = pile_id
        self.cards: list[Card] = cards if cards is not None else []
        self.down = down

    @property
    def top(self) -> Card | None:
        """The top card, or None for an empty pile."""
        return self.cards[-1] if self.cards else None

    @property
    def up(self) -> int:
        """How many cards are face up (at the top of the pile)."""
        return len(self.cards) - self.down

    def __len__(self) -> int:
        return len(self.cards)

    def codes(self) -> tuple[str, ...]:
        """The pile as an audience sees it: ``"??"`` for each face-down card, codes for the rest."""
        down = self.down
        if down:
            return (UNKNOWN,) * down + tuple(map(_code_of, self.cards[down:]))
        return tuple(map(_code_of, self.cards))

    def text(self) -> str:
        """The pile in a position string: face-down cards in lower case."""
        down = self.down
        return "".join([_TEXT[c].lower() for c in self.cards[:down]] + [_TEXT[c] for c in self.cards[down:]])

    def __repr__(self) -> str:
        return f"Pile({self.id!r}, {self.text()!r})"


#: Every card's notation and code, looked up rather than rebuilt (position strings and views are
#: written after every move); `_CHUNKS` reads a card of a position string back, face down when
#: written in lower case.
_TEXT = {card: str(card) for card in new_pack(2)}
_CODE = {card: card.code for card in new_pack(2)}
_code_of = _CODE.__getitem__
_CHUNKS = {text: (card, False) for card, text in _TEXT.items()} | {
    text.lower(): (card, True) for card, text in _TEXT.items()
}


class Reveal(NamedTuple):
    """A card that a move made visible: it now lies face up at ``pile[index]``."""

    pile: str
    index: int  # type: ignore[assignment]  # (the field hides tuple.index, which no caller wants of a Reveal)
    card: Card


@dataclass(frozen=True, slots=True)
class View:
    """A board as one audience sees it.

    ``piles`` maps pile id to card codes bottom to top, with ``"??"`` for every card the audience
    may not see (face-down cards, the stock); ``info`` holds the game's public state fields
    (passes through the stock, the current pile...). ``cleared`` and ``total`` count cards.
    ``legal``: for the player's own view, every legal move in notation, so that a client needs no
    rules of its own; they depend only on what the player can see (face-down cards and the stock
    order never change them; tests/engine/test_views.py checks it for every game). Empty for
    spectators. ``undo``: the player may take back the last move now (`Game.can_undo`; False for
    spectators). ``decided``: a win is forced and `Game.finishing_line` plays it (`Game.decided`).
    """

    game: str
    piles: dict[str, tuple[str, ...]]
    info: dict[str, int | str | bool]
    cleared: int
    total: int
    won: bool
    over: bool
    moves: int
    legal: tuple[str, ...] = ()
    undo: bool = False
    decided: bool = False


@dataclass(frozen=True, slots=True)
class Option:
    """A rule option a game offers: its default and a one-line description."""

    default: bool
    help: str


class LegalMoves:
    """The legal moves of a position, computed lazily.

    Supports iteration, ``len``, ``bool`` and ``in``; ``in`` asks `Game.is_legal` rather than
    generating every move. ``undo`` is never among them (`Game.can_undo` says whether it may be
    played): the legal moves are the moves of the game's rules.
    """

    __slots__ = ("_game",)

    def __init__(self, game: Game) -> None:
        self._game = game

    def __iter__(self) -> Iterator[Move]:
        return iter(self._game._legal_list())

    def __len__(self) -> int:
        return len(self._game._legal_list())

    def __bool__(self) -> bool:
        return bool(self._game._legal_list())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and move.action != "undo" and self._game.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoves: {', '.join(map(str, self))}>"


class Game(abc.ABC):
    """Base class of every game: the state of one player's board.

    Subclasses set the class attributes (``key``, ``name``, ``summary``, ``rules_text``, ``packs``,
    ``total``, ``options``, ``state_fields``) and fill in the hooks ``_deal``, ``_candidates``,
    ``_check`` and ``_perform`` (and ``cleared``). ``Game(seed, **options)`` deals a new game;
    `apply` always validates, because the server trusts no client.

    >>> from engine.games import find_game
    >>> game = find_game("klondike")(seed=42)
    >>> game.total, game.cleared, game.won
    (52, 0, False)
    >>> Move.parse("deal") in game.legal_moves()
    True
    """

    key: ClassVar[str] = ""
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    summary: ClassVar[str] = ""
    rules_text: ClassVar[str] = ""
    #: The rules text's own estimate of the odds against winning ("25 to 1"), if it gives one.
    quoted_odds: ClassVar[str] = ""
    packs: ClassVar[int] = 1
    rules_version: ClassVar[int] = 1
    total: ClassVar[int] = 52
    options: ClassVar[dict[str, Option]] = {}
    state_fields: ClassVar[tuple[str, ...]] = ()
    #: The game's own names for its piles, where they differ from the defaults (`pile_name`):
    #: a pile id (``"t12"``) maps to that pile's name, a letter (``"t"``) to the name of every
    #: other pile of that letter, with ``{n}`` for its number counted from 1 (``"rampart {n}"``).
    pile_words: ClassVar[dict[str, str]] = {}

    piles: dict[str, Pile]
    rule_options: dict[str, bool]
    history: list[Move]

    #: Every game class by its key, as each is defined (`from_position` reads a position's key
    #: here, so that the core needs no registry of its own: `engine.games` is that).
    _by_key: ClassVar[dict[str, type[Game]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.key and not inspect.isabstract(cls):
            Game._by_key[cls.key] = cls

    def __init__(self, seed: int = 0, **options: bool) -> None:
        self._setup(options)
        self.seed = seed
        self._deal(shuffled(self.key, seed, self.packs))

    def _setup(self, options: dict[str, Any]) -> None:
        unknown = set(options) - set(self.options)
        if unknown:
            raise BadNotation(
                "bad_option",
                f"{self.key} has no rule option {sorted(unknown)[0]!r} (it has: {', '.join(self.options) or 'none'})",
                sorted(unknown)[0],
            )
        for name, value in options.items():
            if not isinstance(value, bool):
                raise BadNotation("bad_option", f"rule option {name!r} takes true or false", name)
        self.rule_options = {name: options.get(name, opt.default) for name, opt in self.options.items()}
        self.piles = {}
        self.history = []
        self._legal_cache: list[Move] | None = None  # the legal moves at `_legal_at` moves played
        self._legal_at = 0
        self._revealed: list[Reveal] = []
        self._undo: list[Move] = []  # the moves `undo` may take back, oldest first (`_take_back`)
        self._marks: list[_State] = []  # the states before some moves of _undo (`_state`)
        self._finish_at = -1  # `finishing_line` as found at this many moves played
        self._finish: list[Move] | None = None

    # ----------------------------------------------------------------------------------- hooks

    @abc.abstractmethod
    def _deal(self, cards: list[Card]) -> None:
        """Lay out the shuffled ``cards`` (index 0 dealt first) into ``self.piles``."""

    @abc.abstractmethod
    def _candidates(self) -> Iterator[Move]:
        """Yield every move that might be legal; `legal_moves` keeps those `_check` accepts."""

    @abc.abstractmethod
    def _check(self, move: Move) -> None:
        """Raise `IllegalMove` unless ``move`` is legal now. Must not change any state."""

    @abc.abstractmethod
    def _perform(self, move: Move) -> None:
        """Carry out a move that `_check` accepted, plus any automatic steps the rules impose."""

    @property
    @abc.abstractmethod
    def cleared(self) -> int:
        """Cards cleared so far (played to foundations, or discarded); ``won`` iff it equals total."""

    # ------------------------------------------------------------------------------ the model

    @property
    def won(self) -> bool:
        """True when every card is cleared."""
        return self.cleared == self.total

    @property
    def over(self) -> bool:
        """True when no legal move is left (won, or blocked)."""
        return not self._legal_list()

    def legal_moves(self) -> LegalMoves:
        """The legal moves now, as a lazy `LegalMoves` view."""
        return LegalMoves(self)

    def is_legal(self, move: Move) -> bool:
        """True if `apply` would accept ``move`` now."""
        try:
            self._check_any(move)
        except IllegalMove:
            return False
        return True

    def check(self, move: Move) -> None:
        """Raise `IllegalMove` (with its code and reason) unless ``move`` is legal now. A move
        in the legal moves listed since the last move passes at once: they are the moves the
        rules accept (the server lists them after every move, and checks the next one)."""
        legal = self._legal_cache
        if legal is not None and self._legal_at == len(self.history) and move in legal:
            return
        self._check_any(move)

    def apply(self, move: Move | str) -> tuple[Reveal, ...]:
        """Validate and play ``move`` (a `Move` or its notation); return the cards it revealed.

        Raises `BadNotation` for text that is not a move and `IllegalMove` for a move the rules
        refuse; in both cases the game is left exactly as it was.
        """
        if not isinstance(move, Move):
            move = Move.parse(move)
        self._check_any(move)
        return self.apply_checked(move)

    def apply_checked(self, move: Move) -> tuple[Reveal, ...]:
        """Play ``move``, which `check` accepted with nothing played since, without checking it
        again (the server checks a move before it stores it, then plays it); return the cards it
        revealed. A move not checked so leaves the game in a state the rules do not allow."""
        if move.action == "undo":
            self._take_back()
            self.history.append(move)
            self._legal_cache = None
            return ()
        line = self._undo
        final = self._final(move)
        if not final:
            down = sum(pile.down for pile in self.piles.values())
            if not len(line) % _MARK_EVERY:
                if len(line) >= UNDO_DEPTH + _MARK_EVERY:
                    self._forget_oldest()
                self._marks.append(self._state(len(line)))
        revealed = self._revealed
        revealed.clear()
        self._perform(move)
        self.history.append(move)
        self._legal_cache = None
        if final or sum(pile.down for pile in self.piles.values()) != down:  # (a card turned up)
            line.clear()
            self._marks.clear()
        else:
            line.append(move)
        found = tuple(revealed)
        revealed.clear()  # (so that no move's reveals outlive its answer: see `Move.parse`)
        return found

    def _check_any(self, move: Move) -> None:
        if self.won:
            raise IllegalMove(IllegalCode.GAME_OVER, "the game is won", move)
        if move.action == "undo":
            self._check_undo(move)
            return
        self._check(move)

    # ---------------------------------------------------------------------------- undo

    @property
    def can_undo(self) -> bool:
        """True if ``"undo"`` would be accepted now: the last move in effect turned no card face
        up (left as many cards face down as before), was not an action (a deal, a redeal...) nor
        a transfer to or from the stock, and the game is not won. Undo takes back at least
        `UNDO_DEPTH` moves in a row (and at most 15 more). Whether a race allows undo at all is the race's option, not
        the game's.

        >>> from engine.games import find_game
        >>> game = find_game("eight_off")(seed=3)
        >>> game.apply("c1>t7"); game.can_undo
        ()
        True
        """
        return bool(self._undo) and not self.won

    @staticmethod
    def _final(move: Move) -> bool:
        """Whether ``move`` can never be taken back whatever it turns up: an action (a deal from
        the stock, a redeal, a shuffle, a choice...) or a transfer to or from the stock. A move
        that turns a card face up is final too (`apply_checked` sees that as it plays: fewer cards
        lie face down after it)."""
        return not move.is_transfer or move.src[0] == "s" or move.dst[0] == "s"

    def _forget_oldest(self) -> None:
        """Keep undo within `UNDO_DEPTH` + `_MARK_EVERY` - 1 moves: forget the oldest
        `_MARK_EVERY` moves of the line and the state kept before them."""
        del self._undo[:_MARK_EVERY]
        marks = self._marks
        del marks[0]
        marks[:] = [(state[0] - _MARK_EVERY, *state[1:]) for state in marks]

    def checkpoint(self) -> tuple[str, tuple[Move, ...]]:
        """This game as a position string and the moves to play on it (the moves undo may take
        back now, oldest first: fewer than `UNDO_DEPTH` + 16), so that `from_checkpoint` rebuilds it with
        what undo may take back (a bare `position` has nothing to take back)."""
        if not self._undo:
            return self.position(), ()
        twin = self.copy()
        twin._restore(self._marks[0])
        return twin.position(), tuple(self._undo)

    @classmethod
    def from_checkpoint(cls, checkpoint: tuple[str, tuple[Move, ...]]) -> Game:
        """The game a `checkpoint` was taken of (history: only the checkpoint's moves). Raises
        `BadNotation` for a bad position string, `IllegalMove` for moves that do not replay."""
        position, moves = checkpoint
        game = cls.from_position(position)
        for move in moves:
            game.apply(move)
        return game

    def _check_undo(self, move: Move) -> None:
        if move.arg:
            raise IllegalMove(IllegalCode.NO_UNDO, "undo takes back one move at a time and takes no argument", move)
        if not self._undo:
            if not self.history:
                raise IllegalMove(IllegalCode.NO_UNDO, "there is no move to take back yet", move)
            raise IllegalMove(
                IllegalCode.NO_UNDO,
                "the last move turned a card face up or dealt from the stock, and such a move cannot be taken back",
                move,
            )

    def _state(self, index: int) -> _State:
        """The whole state as `position` has it, to restore (`_restore`), as one flat tuple, so
        that it leaves one object for the garbage collector to follow: ``index`` (in ``_undo``),
        the state fields' values, each pile's length and face-down count in layout order, then
        every pile's cards."""
        piles = self.piles.values()
        state: list[Any] = [index]
        state += [getattr(self, name) for name in self.state_fields]
        for pile in piles:
            state += (len(pile.cards), pile.down)
        for pile in piles:
            state += pile.cards
        return tuple(state)

    def _restore(self, state: _State) -> None:
        at = 1 + len(self.state_fields)
        for name, value in zip(self.state_fields, state[1:at], strict=True):
            setattr(self, name, value)
        start = at + 2 * len(self.piles)
        for pile in self.piles.values():
            size = state[at]
            pile.cards[:] = state[start : start + size]
            pile.down = state[at + 1]
            at += 2
            start += size

    def _take_back(self) -> None:
        """Undo the last move in effect (`_check_undo` accepted it): restore the nearest state
        kept at or before it and play again the moves from there to it (fewer than
        `_MARK_EVERY`). Those moves turned no card up when first played and, the engine being
        deterministic, turn none up again."""
        line = self._undo
        line.pop()
        target = len(line)
        marks = self._marks
        while marks[-1][0] > target:
            marks.pop()
        state = marks[-1]
        index = state[0]
        self._restore(state)
        for move in line[index:target]:
            self._perform(move)
        self._revealed.clear()
        if index == target:
            marks.pop()  # (the state now: the next move keeps it again)

    # ------------------------------------------------------------------- assists

    def safe_moves(self) -> list[Move]:
        """The legal moves now that auto-collect may play for the player: moves that clear a card
        (`_clears`) which no card still in play could need, by the game's own rule (`_safe`,
        from its rules text). A function of what the player sees, like `legal_moves`; empty
        when the game has no such rule or is won.

        >>> from engine.games import find_game
        >>> game = find_game("eight_off")(seed=4)   # an Ace lies free on tableau pile 7
        >>> [str(m) for m in game.safe_moves()]
        ['t6>f0', 't6>f1', 't6>f2', 't6>f3']
        """
        if self.won:
            return []
        return [m for m in self._legal_list() if self._clears(m) and self._safe(m)]

    def _clears(self, move: Move) -> bool:
        """Whether ``move`` (legal now) clears a card: by default, a transfer from a pile that is
        not a foundation to a foundation. A game that clears cards otherwise says so here."""
        return move.is_transfer and move.dst[0] == "f" and move.src[0] != "f"

    def _safe(self, move: Move) -> bool:
        """Whether auto-collect may play ``move``, a legal move that `_clears`: no card still in
        play could need the card it clears (the game's rule, from its rules text). Must depend
        only on face-up cards. By default no move is safe."""
        return False

    @property
    def decided(self) -> bool:
        """True when a win is forced from here and `finishing_line` plays it (every card face up,
        and cards can be cleared one after another to the end). Never True of a position with
        a face-down card: it would tell the player something of that card."""
        return self.finishing_line() is not None

    def finishing_line(self) -> list[Move] | None:
        """The moves that win from here, if the game is decided: with every card face up (the
        stock empty), clear a card (`_clears`, the first such legal move) again and again until
        the game is won; None if some card is face down, the game is won, or clearing so gets
        stuck. Worked out once per position, and not again along the line it found."""
        at = len(self.history)
        if self._finish_at != at:
            line = self._finish
            if self._finish_at == at - 1 and line and self.history[-1] == line[0]:
                self._finish = line[1:] if len(line) > 1 else None  # (the rest of the line wins from here)
            else:
                self._finish = self._find_finish()
            self._finish_at = at
        return list(self._finish) if self._finish is not None else None

    def _deadlocked(self) -> bool:
        """Whether clearing cards alone can never win from here, seen at a glance (every card
        face up): a game that can tell spares `finishing_line` its search. By default it cannot."""
        return False

    def _find_finish(self) -> list[Move] | None:
        if self.won or any(pile.down for pile in self.piles.values()) or self._deadlocked():
            return None
        clears = self._clears
        if not any(clears(m) for m in self._legal_list()):
            return None
        twin = self.copy()
        line: list[Move] = []
        for _ in range(self.total * 2):
            if twin.won:
                return line
            move = next((m for m in twin._legal_list() if twin._clears(m)), None)
            if move is None:
                return None
            twin.apply_checked(move)
            line.append(move)
        return None

    # ------------------------------------------------------------------------------- words

    @classmethod
    def pile_name(cls, pile_id: str) -> str:
        """The player's name of pile ``pile_id``, as the web page labels it, in lower case (a
        caller that starts a sentence with it capitalises it). By default from the id's letter,
        numbered from 1 (``t3`` is "tableau pile 4", ``f0`` "foundation 1", or "the foundation"
        in a game with one; ``s`` "the stock"; see `engine.words.default_pile_name`); a game
        names its own piles in ``pile_words``. Works on the class: no deal is needed.

        >>> from engine.games import find_game
        >>> find_game("klondike").pile_name("t3"), find_game("golf").pile_name("f0")
        ('tableau pile 4', 'the foundation')
        >>> find_game("clock").pile_name("t0"), find_game("clock").pile_name("t12")
        ("the 1 o'clock pile", 'the centre pile')
        """
        names = _PILE_NAMES.get(cls)
        if names is None:
            names = _PILE_NAMES[cls] = _name_piles(cls)
        name = names.get(pile_id)
        return name if name is not None else default_pile_name(pile_id)

    @classmethod
    def _pile_kind(cls, pile_id: str) -> str:
        """What pile ``pile_id`` is, for a rule about every pile of its kind: its own name when
        it is the only one of its letter ("the waste"), else its kind with an article ("a cell",
        "a waste pile")."""
        kinds = _PILE_KINDS.get(cls)
        if kinds is None:
            cls.pile_name(pile_id)
            kinds = _PILE_KINDS[cls]
        kind = kinds.get(pile_id[:1])
        return kind if kind is not None else a(kind_name(pile_id[:1]))

    def describe(self, move: Move | str) -> str:
        """A legal ``move`` (a `Move` or its notation) in words, as the position is now (before
        it is played), for a caption or a screen reader: its cards by name, its piles by
        `pile_name`. It never names a face-down card: a move that turns one up describes the
        move, not the card. Raises `BadNotation` and `IllegalMove` as `apply` does.

        >>> from engine.games import find_game
        >>> game = find_game("klondike")(seed=0)
        >>> game.describe("t1>t2"), game.describe("deal")
        ('the 5♠ from tableau pile 2 to tableau pile 3', 'deal three cards from the stock')
        """
        if not isinstance(move, Move):
            move = Move.parse(move)
        self.check(move)
        return self._describe(move)

    def _describe(self, move: Move) -> str:
        """`describe` for a move that `check` accepted: a transfer names its cards and both
        piles; a game with actions of its own, or other transfers, says them in its module."""
        if move.is_transfer:
            cards = self.piles[move.src].cards[-move.count :]
            return f"{run_name(cards)} from {self.pile_name(move.src)} to {self.pile_name(move.dst)}"
        return _ACTION_WORDS.get(move.action, move.action)

    def _legal_list(self) -> list[Move]:
        moves = self._legal_cache
        if moves is None or self._legal_at != len(self.history):
            moves = self._legal_cache = [] if self.won else self._legal_now()
            self._legal_at = len(self.history)
        return moves

    def _legal_now(self) -> list[Move]:
        """Every legal move now (the game not won): the `_candidates` that `_check` accepts, in
        their order. A game may override it with a quicker way to exactly the same list (the
        server lists the mover's legal moves after every move)."""
        return [m for m in self._candidates() if self._passes(m)]

    def _passes(self, move: Move) -> bool:
        try:
            self._check(move)
        except IllegalMove:
            return False
        return True

    def view(self, audience: Audience = Audience.PLAYER) -> View:
        """The board as ``audience`` may see it: face-down cards and the stock order hidden; the
        player's view also lists the legal moves."""
        legal = self._legal_list()
        cleared = self.cleared
        return View(
            game=self.key,
            piles={pid: pile.codes() for pid, pile in self.piles.items()},
            info={name: getattr(self, name) for name in self.state_fields},
            cleared=cleared,
            total=self.total,
            won=cleared == self.total,  # (`won`, without counting again)
            over=not legal,
            moves=len(self.history),
            legal=tuple(map(str, legal)) if audience is Audience.PLAYER else (),
            undo=audience is Audience.PLAYER and bool(self._undo) and cleared != self.total,
            decided=self.finishing_line() is not None,
        )

    # -------------------------------------------------------------------- helpers for games

    def pile(self, pile_id: str, move: Move | None = None) -> Pile:
        """The pile called ``pile_id``; raises `IllegalMove` (``no_such_pile``) if there is none."""
        try:
            return self.piles[pile_id]
        except KeyError:
            raise IllegalMove(IllegalCode.NO_SUCH_PILE, f"{self.name} has no pile {pile_id!r}", move) from None

    def _add(self, pile: Pile, cards: list[Card], face_up: bool = True) -> None:
        """Put ``cards`` on top of ``pile``, face up (recording what they reveal) or face down."""
        if not face_up:
            if pile.up:
                raise AssertionError(f"face-down cards on face-up ones in {pile.id}")
            pile.down += len(cards)
        pile.cards.extend(cards)
        if face_up:
            start = len(pile.cards) - len(cards)
            self._revealed.extend(Reveal(pile.id, start + i, c) for i, c in enumerate(cards))

    def _take(self, pile: Pile, count: int = 1) -> list[Card]:
        """Remove and return the top ``count`` cards of ``pile`` (bottom to top order kept)."""
        taken = pile.cards[-count:]
        del pile.cards[-count:]
        pile.down = min(pile.down, len(pile.cards))
        return taken

    def _turn_up(self, pile: Pile) -> None:
        """Turn the top card of ``pile`` face up if it is face down, recording the reveal."""
        if pile.cards and pile.down == len(pile.cards):
            pile.down -= 1
            self._revealed.append(Reveal(pile.id, len(pile.cards) - 1, pile.cards[-1]))

    # ----------------------------------------------------------------- position strings

    def position(self) -> str:
        """The whole state as one line of text; `Game.from_position` reads it back."""
        opts = ",".join(f"{k}={int(v)}" for k, v in self.rule_options.items()) or "-"
        parts = [self.key, opts]
        parts += [f"{pid}:{pile.text()}" for pid, pile in self.piles.items()]
        parts += [f"{name}={_field_text(getattr(self, name))}" for name in self.state_fields]
        return " ".join(parts)

    @classmethod
    def from_position(cls, text: str) -> Game:
        """Rebuild a game from `position` text; raises `BadNotation` (code ``bad_position``).

        Called on `Game` itself it finds the game class from the key that the text starts with
        (among the games defined: `engine.games` defines them all).
        """
        words = text.split(" ") if isinstance(text, str) else []
        if len(words) < 2:
            raise BadNotation("bad_position", f"not a position string: {text!r}", str(text)[:80])
        game_cls = Game._by_key.get(words[0])
        if game_cls is None:
            raise BadNotation("bad_position", f"no game called {words[0]!r}", words[0][:40])
        if cls is not Game and game_cls is not cls:
            raise BadNotation("bad_position", f"a {words[0]!r} position is not a {cls.key!r}", text)
        game = game_cls.__new__(game_cls)
        options: dict[str, Any] = {}
        if words[1] != "-":
            for item in words[1].split(","):
                name, _, value = item.partition("=")
                if value not in ("0", "1"):
                    raise BadNotation("bad_position", f"rule option {item!r} needs =0 or =1", text)
                options[name] = value == "1"
        game._setup(options)
        game.seed = -1
        fields = {}
        try:
            for word in words[2:]:
                if ":" in word:
                    pid, _, cards = word.partition(":")
                    if pid in game.piles:
                        raise ValueError(f"pile {pid!r} given twice")
                    game.piles[pid] = _read_pile(pid, cards)
                else:
                    name, _, value = word.partition("=")
                    if name not in game.state_fields:
                        raise ValueError(f"unknown state field {name!r}")
                    fields[name] = _field_value(type(getattr(game_cls, name, "")), value)
            layout = _pile_ids(game_cls)
            if set(game.piles) != set(layout):
                raise ValueError(f"the piles must be exactly {' '.join(layout)}")
        except (ValueError, BadCard) as exc:
            raise BadNotation("bad_position", f"bad position string {text!r}: {exc}", text) from None
        missing = set(game.state_fields) - set(fields)
        if missing:
            raise BadNotation("bad_position", f"position lacks {sorted(missing)}", text)
        game.piles = {pid: game.piles[pid] for pid in layout}
        for name, value in fields.items():
            setattr(game, name, value)
        return game

    def copy(self) -> Game:
        """An independent copy of this game, history included: the game `from_position` would
        read back from `position` (same piles, state fields and rule options, no cached moves),
        with this game's seed, history and undo; built directly, not through the text (the
        solver and the bot copy a game for every move they weigh)."""
        cls = type(self)
        twin = cls.__new__(cls)
        twin._setup(dict(self.rule_options))
        twin.piles = {pid: Pile(pid, list(pile.cards), pile.down) for pid, pile in self.piles.items()}
        for name in self.state_fields:
            setattr(twin, name, getattr(self, name))
        twin.seed = self.seed
        twin.history = list(self.history)
        twin._undo = list(self._undo)
        twin._marks = list(self._marks)
        return twin

    def __repr__(self) -> str:
        return f"Game.from_position({self.position()!r})"

    def __str__(self) -> str:
        lines = [f"{self.name} ({self.cleared}/{self.total} cleared)"]
        for pid, pile in self.piles.items():
            lines.append(f"{pid:>3}: {' '.join(pile.codes())}")
        return "\n".join(lines)


@functools.cache
def _pile_ids(game_cls: type[Game]) -> tuple[str, ...]:
    """The pile ids of ``game_cls``'s layout, in order (the same for every seed)."""
    return tuple(game_cls(0).piles)


#: Words for the actions many games share (`Game._describe`); a game says its others itself.
_ACTION_WORDS = {
    "deal": "deal a card from the stock",
    "redeal": "turn the waste over to make a new stock",
    "undo": "take back the last move",
}

#: A game's whole state as `Game._state` keeps it, flat: an index in ``Game._undo``, the state
#: fields, each pile's length and face-down count, every card.
_State = tuple[Any, ...]
#: `Game._take_back` keeps the state before every this many moves that may be taken back, so that
#: an undo plays again fewer moves than this whatever the length of the line.
_MARK_EVERY = 16
#: Undo takes back at least this many moves in a row, and fewer than `_MARK_EVERY` more (the line
#: is trimmed a block at a time), so that what a game keeps for undo, and a replay's checkpoint
#: (`Game.checkpoint`), stays small however long the game.
UNDO_DEPTH = 64

#: Each game class's pile names by id, and by letter the words for a pile of that kind, worked
#: out once (`Game.pile_name`): refusals name piles while the legal moves are listed.
_PILE_NAMES: dict[type[Game], dict[str, str]] = {}
_PILE_KINDS: dict[type[Game], dict[str, str]] = {}


def _name_piles(game_cls: type[Game]) -> dict[str, str]:
    """The names of ``game_cls``'s piles by id (see `Game.pile_name`); also files their kinds in
    `_PILE_KINDS`. A class that deals no game (a base class) has only the defaults."""
    ids = _pile_ids(game_cls) if game_cls.key and not inspect.isabstract(game_cls) else ()
    letters = Counter(pid[0] for pid in ids)
    own = game_cls.pile_words
    names = {}
    for pid in ids:
        name = own.get(pid)
        if name is None and pid[0] in own:
            name = own[pid[0]].format(n=int(pid[1:] or 0) + 1)
        names[pid] = name if name is not None else default_pile_name(pid, alone=letters[pid[0]] == 1)
    kinds = {}
    for letter, many in letters.items():
        pattern = own.get(letter, "")
        if many == 1:
            kinds[letter] = next(name for pid, name in names.items() if pid[0] == letter)
        elif pattern.endswith(" {n}"):
            kinds[letter] = a(pattern.removesuffix(" {n}"))
    _PILE_KINDS[game_cls] = kinds
    return names


def _field_text(value: object) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def _field_value(kind: type, text: str) -> Any:
    if kind is bool:
        if text not in ("0", "1"):
            raise ValueError(f"expected 0 or 1, not {text!r}")
        return text == "1"
    if kind is int:
        if not re.fullmatch(r"\d{1,9}", text):
            raise ValueError(f"expected a whole number, not {text!r}")
        return int(text)
    return text


def _read_pile(pid: str, text: str) -> Pile:
    if not re.fullmatch(_PILE, pid):
        raise ValueError(f"bad pile id {pid!r}")
    cards: list[Card] = []
    down = 0
    i = 0
    while i < len(text):
        width = 3 if text[i + 2 : i + 3] == "'" else 2
        chunk = text[i : i + width]
        known = _CHUNKS.get(chunk)
        card, face_down = known if known else (Card.parse(chunk.upper()), chunk[:2].islower())
        if face_down and down != len(cards):
            raise ValueError(f"face-down card {chunk!r} above a face-up one in {pid}")
        cards.append(card)
        down += face_down
        i += width
    return Pile(pid, cards, down)
