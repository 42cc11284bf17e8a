"""A bot that races: it sees only what a player sees, picks moves with a simple strategy, and plays.

The bot never sees a face-down card. `game_from_board` turns the `Board` it receives into an engine
`Game` whose hidden cards are stand-ins: the cards of the pack that are visible nowhere, in pack
order, face down. No game here lets legality depend on the identity of a face-down card, so the
stand-in game has exactly the legal moves of the real one, and the strategy asks it freely; only
what a move would *reveal* is made up, and the strategy never relies on that.

`choose_move` is one generic strategy over `Game.legal_moves`, in order of preference:

1. a card to a foundation (or any move that clears cards);
2. a move that turns up a face-down card, or empties a pile that something useful can then fill
   (the reserve filling it by itself counts);
3. a card from the waste or a reserve onto the tableau (on the nearest higher card if the pile
   takes any card); a card from a cell back onto the tableau;
4. a tableau move that frees a card for a foundation or a space for the waste;
5. a card into a cell, only if that frees a card for a foundation;
6. any other game action (``turn``...), then ``deal``; ``redeal`` only if some card moved since
   the last redeal (else nothing new can happen: the bot is stuck).

Moves that bring back a layout seen before (the stock and waste aside) are never chosen, which
rules out back-and-forth moves and makes every game end. A few games get small tweaks
(`GolfStrategy` looks ahead along runs of plays; `ClockStrategy` picks where the fourth King
goes; `DigStrategy` digs out the cards the foundations want, in Eight Off, Penguin...);
`strategy_for` finds the strategy of a game.

`run_bot` plays one race over an `ArenaClient`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from dataclasses import dataclass, field

from client.connection import ArenaClient, ArenaConnectionError, ArenaError
from engine.cards import UNKNOWN, Card, new_pack
from engine.core import Game, Move, Pile, View
from engine.games import find_game
from server.protocol import Board, MoveResult, RaceFinished, RaceStarted, Snapshot

__all__ = [
    "BotMemory",
    "BotResult",
    "ClockStrategy",
    "DigStrategy",
    "Friday13Strategy",
    "GolfStrategy",
    "IdiotsDelightStrategy",
    "PerpetualMotionStrategy",
    "ScorpionStrategy",
    "Strategy",
    "TournamentStrategy",
    "choose_move",
    "game_from_board",
    "layout_key",
    "play_game",
    "run_bot",
    "run_tournament_bot",
    "strategy_for",
]

log = logging.getLogger(__name__)

#: Pile letters whose content cycles without progress: the stock and the waste.
_CYCLING = ("s", "w")


# ------------------------------------------------------------------------------- the board


def game_from_board(board: Board | View, options: dict[str, bool] | None = None) -> Game:
    """An engine `Game` with the visible cards of ``board`` and stand-ins for the hidden ones.

    ``board``: a wire `Board` (or an engine `View`) of any registered game; ``options``: the
    race's rule options (the board does not carry them; None: the game's defaults). Every
    ``"??"`` gets a card of the pack that is visible nowhere, face down; with two packs the
    copies are told apart in pack order. The returned game's `Game.legal_moves` equal the real
    game's. Raises `engine.games.UnknownGame` for an unknown game, ValueError if the board
    shows a card more often than the pack holds it or hides more cards than are left, and
    `engine.core.BadNotation` if the game refuses an option.

    >>> from engine.games import find_game
    >>> game = find_game("klondike")(seed=42)
    >>> twin = game_from_board(game.view())
    >>> twin.view().piles == game.view().piles, list(twin.legal_moves()) == list(game.legal_moves())
    (True, True)
    >>> str(choose_move(twin, BotMemory()))  # no card moves usefully at the start of this deal
    'deal'
    """
    game_cls = find_game(board.game)
    spare: dict[str, list[Card]] = {}
    for card in new_pack(game_cls.packs):
        spare.setdefault(card.code, []).append(card)
    texts: dict[str, list[str]] = {}
    hidden_slots = 0
    for pid, codes in board.piles.items():
        texts[pid] = []
        for code in codes:
            if code == UNKNOWN:
                hidden_slots += 1
                texts[pid].append("")
                continue
            copies = spare.get(code)
            if not copies:
                raise ValueError(f"{board.game} board shows {code!r} more often than the pack holds it")
            texts[pid].append(str(copies.pop(0)))
    hidden = [card for copies in spare.values() for card in copies]
    hidden.sort(key=lambda c: (c.pack, c.suit, c.rank))
    if hidden_slots > len(hidden):
        raise ValueError(f"{board.game} board hides {hidden_slots} cards but only {len(hidden)} are unseen")
    stand_ins = iter(hidden)
    words = [game_cls.key, _options_text(game_cls, options)]
    for pid, cards in texts.items():
        words.append(pid + ":" + "".join(c or str(next(stand_ins)).lower() for c in cards))
    for name in game_cls.state_fields:
        value = board.info[name]
        words.append(f"{name}={int(value) if isinstance(value, bool) else value}")
    return Game.from_position(" ".join(words))


def _options_text(game_cls: type[Game], options: dict[str, bool] | None) -> str:
    if not options:
        return "-"
    return ",".join(f"{name}={int(value)}" for name, value in options.items())


def layout_key(game: Game) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What the bot compares to spot a repeated layout: every pile but the stock and the waste,
    as the player sees it (``"??"`` for face-down cards)."""
    return tuple((pid, pile.codes()) for pid, pile in game.piles.items() if pid[0] not in _CYCLING)


# ------------------------------------------------------------------------------- strategy


@dataclass
class BotMemory:
    """What the bot remembers across moves of one game.

    ``seen``: every layout key (see `layout_key`) it has chosen a move in; ``moved_since_redeal``: a move
    other than ``deal``/``redeal`` happened since the last redeal (or the start); ``refused``:
    (layout, move notation) pairs the server refused, never tried again; ``moves``: moves
    played; ``notes``: counters kept by a game's own strategy.
    """

    seen: set[tuple[tuple[str, tuple[str, ...]], ...]] = field(default_factory=set)
    moved_since_redeal: bool = False
    refused: set[tuple[object, str]] = field(default_factory=set)
    moves: int = 0
    #: counters a game's strategy keeps between moves (by name)
    notes: dict[str, int] = field(default_factory=dict)

    def remember(self, game: Game) -> None:
        """Note the layout of ``game`` as seen (call it for every position the bot is in)."""
        self.seen.add(layout_key(game))

    def played(self, move: Move) -> None:
        """Note that ``move`` was played (and accepted)."""
        self.moves += 1
        if move.action == "redeal":
            self.moved_since_redeal = False
        elif move.action != "deal":
            self.moved_since_redeal = True


class Strategy:
    """The generic strategy (see the module docstring). Subclasses override `score` or
    `choose` for one game's mechanics.

    ``variety``: None plays deterministically; an int seeds a random tie-break between moves the
    strategy likes equally, so that several bots on one deal play differently.
    """

    def __init__(self, variety: int | None = None) -> None:
        self.variety = variety
        self._rng = random.Random(variety) if variety is not None else None

    def jitter(self) -> float:
        """A tie-break below 0.5 (0 without variety): never outweighs a real preference."""
        return self._rng.random() / 2 if self._rng is not None else 0.0

    def choose(self, game: Game, memory: BotMemory) -> Move | None:
        """The move to play in ``game``, or None when nothing useful is left (the bot is stuck).

        Never returns a move that brings back a layout in ``memory.seen`` (deal and redeal
        aside) or one the server refused in this layout.
        """
        memory.remember(game)
        here = layout_key(game)
        best: tuple[float, int, Move] | None = None
        for index, move in enumerate(game.legal_moves()):
            if (here, str(move)) in memory.refused:
                continue
            if move.action in ("deal", "redeal"):
                after = None
            else:
                after = game.copy()
                after.apply(move)
                if layout_key(after) in memory.seen:
                    continue
            value = self.score(game, move, after, memory)
            if value is None:
                continue
            value += self.jitter()
            if best is None or value > best[0]:
                best = (value, -index, move)
        return best[2] if best is not None else None

    def score(self, game: Game, move: Move, after: Game | None, memory: BotMemory) -> float | None:
        """How much the bot likes ``move`` (higher first), or None to never play it.

        ``after``: the position after the move (None for deal and redeal).
        """
        if move.action == "deal":
            return 10
        if move.action == "redeal":
            return 5 if memory.moved_since_redeal else None
        if after is None:
            return None
        if not move.is_transfer:
            return 30 + (after.cleared - game.cleared) * 100
        src, dst = game.piles[move.src], game.piles[move.dst]
        reveals = move.count == src.up and src.down > 0
        if after.cleared > game.cleared:
            return 100 + (20 + src.down if reveals else 0)
        if move.dst[0] == "f":
            return None  # onto a foundation without clearing: a game with odd counting
        if reveals:
            return 80 + src.down
        if move.src[0] in ("w", "r"):
            return 50 + (_placement(game, move) if move.dst[0] == "t" else 0)
        if move.src[0] == "t" and move.dst[0] == "t":
            if move.count == len(src):
                if not dst.cards:
                    return None  # a whole pile from one space to another
                if _reserve_cards(after) < _reserve_cards(game):
                    return 70  # the space was filled from the reserve by itself
                return 60 if _fills_usefully(after, move.src) else None
            return 40 if _unlocks(after, move.src) else None
        if move.src[0] == "f":
            return None
        if move.dst[0] == "c":
            return 15 if _unlocks(after, move.src) else None  # a cell only to free a card
        if move.src[0] == "c":
            return 45
        return 20

    def __repr__(self) -> str:
        return f"{type(self).__name__}(variety={self.variety!r})"


def _placement(game: Game, move: Move) -> float:
    """A preference between -3 and 3 among tableau piles for a waste or reserve card: best on a
    higher card (the nearest first, so that piles come off in order), then in a space (high cards
    first), then on the nearest lower card of another suit, last on a lower card of its suit."""
    card, top = game.piles[move.src].cards[-1], game.piles[move.dst].top
    if top is None:
        return 1 + card.rank / 14
    if top.rank > card.rank:
        return 3 - (top.rank - card.rank) / 14
    if top.suit == card.suit:
        return -3  # it would bury a lower card of its own suit for good
    return -(card.rank - top.rank) / 14  # bury the highest card, the one wanted last


def _reserve_cards(game: Game) -> int:
    """Cards left in the reserve piles."""
    return sum(len(pile) for pid, pile in game.piles.items() if pid[0] == "r")


def _fills_usefully(game: Game, space: str) -> bool:
    """True if a card from the waste or a reserve, or a run that turns up a face-down card,
    may now move into the empty pile ``space``."""
    for pid, pile in game.piles.items():
        if pid == space or not pile.up:
            continue
        if pid[0] in ("w", "r") and game.is_legal(Move(src=pid, dst=space)):
            return True
        if pid[0] == "t" and pile.down and game.is_legal(Move(src=pid, dst=space, count=pile.up)):
            return True
    return False


def _unlocks(game: Game, pile_id: str) -> bool:
    """True if the top card of ``pile_id`` may now go to a foundation, or a card of the waste or
    a reserve may now go onto it."""
    for pid, pile in game.piles.items():
        if pid[0] == "f" and game.is_legal(Move(src=pile_id, dst=pid)):
            return True
        if pid[0] in ("w", "r") and pile.up and game.is_legal(Move(src=pid, dst=pile_id)):
            return True
    return False


class GolfStrategy(Strategy):
    """Golf: play the card that starts the longest run of plays from the visible reserve tops
    (a small search, without dealing), preferring deep piles on ties; deal only when no play
    is left."""

    #: Positions explored per decision, at most (cards).
    budget: int = 4000

    def choose(self, game: Game, memory: BotMemory) -> Move | None:
        memory.remember(game)
        plays = [m for m in game.legal_moves() if m.is_transfer]
        if not plays:
            return next((m for m in game.legal_moves() if m.action == "deal"), None)
        tops = {pid: list(p.cards) for pid, p in game.piles.items() if pid[0] == "r"}
        foundation = game.piles["f0"].top
        assert foundation is not None
        budget = [self.budget]
        best_move, best_value = plays[0], (-1, -1.0)
        for move in plays:
            piles = {pid: list(cards) for pid, cards in tops.items()}
            card = piles[move.src].pop()
            run = 1 + _longest_run(game, card, piles, budget)
            value = (run, len(tops[move.src]) + self.jitter())
            if value > best_value:
                best_move, best_value = move, value
        return best_move


def _longest_run(game: Game, top: Card, piles: dict[str, list[Card]], budget: list[int]) -> int:
    """The most reserve cards playable in a row onto ``top`` (searching at most ``budget[0]``
    positions in all)."""
    best = 0
    for pid, cards in piles.items():
        if not cards or budget[0] <= 0:
            continue
        card = cards[-1]
        if not game._fits(_single(top), card):  # type: ignore[attr-defined]
            continue
        budget[0] -= 1
        cards.pop()
        best = max(best, 1 + _longest_run(game, card, piles, budget))
        cards.append(card)
    return best


def _single(card: Card) -> Pile:
    return Pile("f0", [card])


class DigStrategy(Strategy):
    """Games where the wanted cards must be dug out of open piles (Eight Off, Penguin, King's
    Clover, Little Spider): besides the generic preferences, take the top card off a pile where a
    card that a foundation takes lies least deep, onto the tableau if it fits, or into a cell
    while the empty cells can hold the whole dig."""

    def score(self, game: Game, move: Move, after: Game | None, memory: BotMemory) -> float | None:
        value = super().score(game, move, after, memory)
        if value is not None or after is None or not move.is_transfer or move.src[0] != "t":
            return value
        depth = _dig_depth(game, move.src)
        if depth is None or move.count > depth:
            return None
        free = sum(1 for pid, pile in game.piles.items() if pid[0] == "c" and not pile.cards)
        if move.dst[0] == "c" and free < depth:
            return None
        return 30 - depth + (5 if move.dst[0] == "t" else 0)


def _dig_depth(game: Game, pile_id: str) -> int | None:
    """How many cards lie above the card of ``pile_id`` nearest its top that some foundation
    takes now (None if no card of the pile fits a foundation)."""
    cards = game.piles[pile_id].cards
    foundations = [pile for pid, pile in game.piles.items() if pid[0] == "f"]
    for depth in range(len(cards)):
        card = cards[-1 - depth]
        if any(game._fits(f, card) for f in foundations):  # type: ignore[attr-defined]
            return depth
    return None


class ClockStrategy(Strategy):
    """Clock: turn while possible; when the fourth King blocks, exchange it with the bottom card
    of the pile holding the most face-down cards, so that it turns up again as late as can be."""

    def choose(self, game: Game, memory: BotMemory) -> Move | None:
        memory.remember(game)
        moves = list(game.legal_moves())
        for move in moves:
            if move.action == "turn":
                return move
        exchanges = [m for m in moves if m.action == "exchange"]
        if not exchanges:
            return None

        def depth(move: Move) -> tuple[float, int]:
            pile, _, index = move.arg.partition(".")
            return (len(game.piles[pile]) + self.jitter(), -int(index))

        return max(exchanges, key=depth)


class PerpetualMotionStrategy(Strategy):
    """Perpetual Motion: clear four of a kind, else stack a whole group of one rank leftwards,
    else deal; redeal unless ``patience`` rounds in a row cleared nothing (then the bot is
    stuck, so every game ends)."""

    patience: int = 3

    def choose(self, game: Game, memory: BotMemory) -> Move | None:
        memory.remember(game)
        moves = list(game.legal_moves())
        clears = [m for m in moves if (m.is_transfer and m.dst[0] == "f") or m.action == "clear"]
        if clears:
            return clears[0]
        stacks = [m for m in moves if m.is_transfer]
        if stacks:
            return max(stacks, key=lambda m: (m.count, self.jitter()))
        if any(m.action == "deal" for m in moves):
            return Move(action="deal")
        if any(m.action == "redeal" for m in moves):
            notes = memory.notes
            fruitless = game.cleared <= notes.get("cleared_at_redeal", -1)
            notes["fruitless"] = notes.get("fruitless", 0) + 1 if fruitless else 0
            notes["cleared_at_redeal"] = game.cleared
            if notes["fruitless"] < self.patience:
                return Move(action="redeal")
        return None


class IdiotsDelightStrategy(Strategy):
    """Idiot's Delight: discard first; else fill a space, choosing the fill that makes the most
    discards possible (then from the tallest pile); deal last."""

    def score(self, game: Game, move: Move, after: Game | None, memory: BotMemory) -> float | None:
        if move.action == "deal":
            return 10
        if after is None or not move.is_transfer:
            return None
        if after.cleared > game.cleared:
            return 100
        discards = sum(1 for m in after.legal_moves() if m.is_transfer and after.piles[m.dst].cards)
        return 50 + 10 * discards + len(game.piles[move.src]) / 100


class ScorpionStrategy(Strategy):
    """Scorpion: any move to a layout not seen before (so every game ends), preferring those that
    lengthen the King-headed suit runs, then those that turn up a face-down card."""

    def score(self, game: Game, move: Move, after: Game | None, memory: BotMemory) -> float | None:
        if move.action == "deal":
            return 10
        if after is None or not move.is_transfer:
            return None
        src = game.piles[move.src]
        reveals = move.count == src.up and src.down > 0
        return 50 + 10 * (after.cleared - game.cleared) + (30 if reveals else 0)


class Friday13Strategy(Strategy):
    """Friday 13: as the generic strategy, but a card whose own foundation is still empty is kept
    for it rather than built on another foundation, and starting a foundation comes first (the
    text's tips)."""

    def score(self, game: Game, move: Move, after: Game | None, memory: BotMemory) -> float | None:
        value = super().score(game, move, after, memory)
        if value is None or not move.is_transfer or move.dst[0] != "f":
            return value
        if not game.piles[move.dst].cards:
            return value + 10
        card = game.piles[move.src].cards[-1]
        own = f"f{_FRIDAY_LABELS.index(card.rank)}"
        return None if not game.piles[own].cards else value


#: Friday 13's foundation labels, f0 to f12 (Jack, Queen, King, Ace, Two ... Ten).
_FRIDAY_LABELS = (11, 12, 13, *range(1, 11))


class TournamentStrategy(Strategy):
    """Tournament: as the generic strategy, but a dormitzer card goes to an empty kibitzer only
    when the card it uncovers can then be played to a foundation (the text's hint: keep the
    kibitzers free)."""

    def score(self, game: Game, move: Move, after: Game | None, memory: BotMemory) -> float | None:
        if after is not None and move.is_transfer and move.dst[0] == "r":
            frees = any(m.is_transfer and m.src == move.src and m.dst[0] == "f" for m in after.legal_moves())
            return 50 if frees else None
        return super().score(game, move, after, memory)


_STRATEGIES: dict[str, type[Strategy]] = {
    "golf": GolfStrategy,
    "clock": ClockStrategy,
    "perpetual_motion": PerpetualMotionStrategy,
    "idiots_delight": IdiotsDelightStrategy,
    "scorpion": ScorpionStrategy,
    "tournament": TournamentStrategy,
    "friday_13": Friday13Strategy,
    "eight_off": DigStrategy,
    "penguin": DigStrategy,
    "kings_clover": DigStrategy,
    "little_spider": DigStrategy,
}


def strategy_for(game_key: str, variety: int | None = None) -> Strategy:
    """The strategy for a game key (the generic `Strategy` unless the game has its own);
    ``variety`` as in `Strategy`."""
    return _STRATEGIES.get(game_key, Strategy)(variety)


def choose_move(game: Game, memory: BotMemory) -> Move | None:
    """The bot's move in ``game`` (its own game's strategy), or None when it is stuck."""
    return strategy_for(game.key).choose(game, memory)


def play_game(game: Game, *, max_moves: int = 5000) -> BotMemory:
    """Play ``game`` to its end with `choose_move`, in place, without a server (for tests and
    benchmarks); stops after ``max_moves`` moves. Returns the bot's memory.

    The bot sees only views of the game, as it would over the wire.
    """
    memory = BotMemory()
    strategy = strategy_for(game.key)
    while memory.moves < max_moves and not game.won:
        seen_by_bot = game_from_board(game.view(), game.rule_options)
        move = strategy.choose(seen_by_bot, memory)
        if move is None:
            break
        game.apply(move)
        memory.played(move)
    return memory


# ----------------------------------------------------------------------------- over the wire


@dataclass
class BotResult:
    """How a bot's race went: ``cleared`` and ``total`` (cards), ``won``, ``moves`` accepted,
    and ``end``: "won", "stuck" (the board has no move), "resigned", "race_over" or "done"."""

    cleared: int = 0
    total: int = 0
    won: bool = False
    moves: int = 0
    end: str = ""


async def run_bot(
    client: ArenaClient,
    race_code: str,
    *,
    delay_ms: int = 0,
    reconnect_attempts: int = 3,
    variety: int | None = None,
) -> BotResult:
    """Play race ``race_code`` with ``client``, already an entrant, and return how it went.

    Waits for the deal (`RaceStarted`, or a snapshot if the race already runs), then plays
    `choose_move` moves one at a time, ``delay_ms`` milliseconds apart, until it wins, the race
    ends, or it is stuck (then it resigns, unless its board has no move left anyway, which the
    server already counts as stuck). ``variety``: see `Strategy`. Rebuilds its board from each `MoveResult`. If the
    connection drops it reconnects up to ``reconnect_attempts`` times in a row. Raises
    `ArenaError` for a refusal it cannot play on from (``unknown_race``, ``not_entrant``...).
    """
    for attempt in range(reconnect_attempts + 1):
        try:
            board, options = await _wait_for_deal(client, race_code)
            break
        except ArenaConnectionError:
            if attempt == reconnect_attempts:
                raise
            await _reconnect(client, reconnect_attempts)
    result = BotResult(cleared=board.cleared if board else 0, total=board.total if board else 0)
    if board is None:
        result.end = "race_over"
        return result
    memory = BotMemory()
    strategy = strategy_for(board.game, variety)
    failures = unavailable = 0
    while True:
        result.cleared, result.total, result.won = board.cleared, board.total, board.won
        if board.won or board.over:
            result.end = "won" if board.won else "stuck"
            return result
        if race_code in client.finished:
            result.end = "race_over"
            return result
        game = game_from_board(board, options)
        move = strategy.choose(game, memory)
        if move is None:
            try:
                await client.resign(race_code)
                result.end = "resigned"
            except ArenaError as exc:
                if exc.code not in ("done", "race_over"):
                    raise
                result.end = exc.code
            return result
        if delay_ms:
            await asyncio.sleep(delay_ms / 1000)
        try:
            answer = await _move(client, race_code, str(move), reconnect_attempts)
        except ArenaConnectionError:
            failures += 1
            if failures > reconnect_attempts:
                raise
            continue
        failures = 0
        client.pending_events()  # the bot needs no event but the end (client.finished)
        if answer is not None and not (isinstance(answer, MoveResult) and answer.code == "unavailable"):
            unavailable = 0
        if answer is None:
            continue
        if isinstance(answer, Board):  # reconnected: the snapshot's board is the latest
            board = answer
            continue
        if answer.ok and answer.board is not None:
            board = answer.board
            result.moves += 1
            memory.played(move)
        elif answer.code in ("race_over", "done"):
            result.end = answer.code
            return result
        elif answer.code == "not_started":
            await asyncio.sleep(0.05)
        elif answer.code == "unavailable":  # the store is away, or the race is moving to another node
            unavailable += 1
            if unavailable > _UNAVAILABLE_TRIES:
                raise ArenaError("unavailable", f"move {move} refused as unavailable {unavailable} times in a row")
            await asyncio.sleep(0.2)  # then the same move again (same board, same choice)
        else:
            log.warning("%s: move %s refused: %s [%s]", client.name, move, answer.reason, answer.code)
            memory.refused.add((layout_key(game), str(move)))


#: Moves refused as ``unavailable`` in a row (0.2 s apart) before a bot gives up: about a minute,
#: longer than a Redis restart or a node's race being taken over by another.
_UNAVAILABLE_TRIES = 300


async def _move(client: ArenaClient, code: str, notation: str, attempts: int) -> MoveResult | Board | None:
    """Play one move. If the connection drops, reconnect and return the move's answer (the
    client sends it again), or our board from the reconnect's snapshot if no move was waiting."""
    try:
        return await client.move(code, notation)
    except ArenaConnectionError as exc:
        if attempts <= 0:
            raise
        snapshots = await _reconnect(client, attempts)
        if exc.seq is not None and exc.race == code:
            return await client.move_result(code, exc.seq)
        return snapshots[code].board if code in snapshots else None


async def _reconnect(client: ArenaClient, attempts: int) -> dict[str, Snapshot]:
    delay = 0.1
    for attempt in range(attempts):
        try:
            return await client.reconnect()
        except ArenaConnectionError:
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(delay)
            delay *= 2
    raise ArenaConnectionError("no reconnect attempt allowed")


async def _wait_for_deal(client: ArenaClient, code: str) -> tuple[Board | None, dict[str, bool]]:
    """Wait for the start of race ``code``; return our board (None if the race ended first)
    and the race's rule options."""
    info = client.races.get(code)
    if info is None or code in client.started or info.status in ("running", "finished"):
        snapshot = await client.sync(code, client.last_version.get(code, 0))
        info = snapshot.race
        if info.status == "running" and snapshot.board is not None:
            return snapshot.board, dict(info.options)
        if info.status == "finished":
            return None, dict(info.options)
    options = dict(info.options)
    if code in client.started:
        return client.started[code].board, options
    if code in client.finished:
        return None, options
    async with contextlib.aclosing(client.events()) as events:
        async for event in events:  # as long as it takes: the creator starts when ready
            if isinstance(event, RaceStarted) and event.race == code:
                return event.board, options
            if isinstance(event, RaceFinished) and event.race == code:
                return None, options
    raise ArenaConnectionError("the client was closed before the race started")


async def run_tournament_bot(client: ArenaClient, tournament: str, *, delay_ms: int = 0) -> list[BotResult]:
    """Register for ``tournament`` (unless registered already) and play every deal with
    `run_bot`: in a rounds tournament each deal as it starts, in an arena tournament each deal
    opened in turn as soon as the last one ends. Returns one `BotResult` per deal played.
    Raises `ArenaError` if registration is refused."""
    try:
        info = await client.register_tournament(tournament)
    except ArenaError as exc:
        if exc.code != "already_joined":
            raise
        info = (await client.follow_tournament(tournament)).tournament
    results: list[BotResult] = []
    if info.format == "arena":
        await client.wait_for(lambda: client.tournaments[tournament].status in ("running", "finished", "cancelled"))
        while client.tournaments[tournament].status == "running":
            try:
                race = await client.open_deal(tournament)
            except ArenaError as exc:
                if exc.code in ("no_deal", "not_registered"):
                    break
                raise
            results.append(await run_bot(client, race.code, delay_ms=delay_ms))
        return results
    for deal in range(info.deals):

        def deal_open_or_over(deal: int = deal) -> bool:
            latest = client.tournaments[tournament]
            return len(latest.races) > deal or latest.status in ("finished", "cancelled")

        await client.wait_for(deal_open_or_over)
        current = client.tournaments[tournament]
        if len(current.races) <= deal:
            break
        results.append(await run_bot(client, current.races[deal], delay_ms=delay_ms))
    return results
