"""An exact search for Osmosis: the rules as bit masks, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("Osmosis"), as engine/games/osmosis.py states them: four reserve
piles ``r0`` to ``r3`` (only the top card plays), four foundations ``f0`` to ``f3`` of one suit
each, in any order of rank; ``f0`` holds the deal's first card and takes any card of its suit;
an empty foundation takes a card of that first card's rank (the base); any other foundation
takes a card of its suit only when a card of the same rank lies on ``f0``. ``deal`` turns three
stock cards onto the waste ``w`` (fewer when fewer are left), ``redeal`` turns the waste back
into the stock when the stock is empty, as often as wanted. The top card of a reserve or of the
waste may go to a foundation. Won with all 52 cards on the foundations.

State. Cards never go back, so a position is: the set of cards on the foundations (a 52-bit
mask, card ``suit * 13 + rank - 1``), which also fixes each reserve pile's height (cards leave a
pile from the top only); the talon (stock and waste together, in the order the next pass deals
them: the deal's talon without the cards played from it), with ``k``, how many of them lie on
the waste; and, for the engine's notation only, which suit each foundation holds. The talon is
fixed by the mask, so the search keys positions by (mask, k) alone.

Why it is exact. Whether a card may go up depends only on the mask, and a larger mask allows
every card a smaller one allows (the rule only asks for cards that are up). So a reserve card
that may go up is played at once: the position after it has the same talon and a larger mask,
and every line from the position before can be played from it (the moves that played that card
left out), so it wins if that one wins and clears at least as much. Otherwise every move is tried:
the search then tries both the waste's top card (when it may go up) and ``deal`` (or
``redeal``), and where the waste's top card may not go up, deals on (it is the only move; a
position where a whole pass turns up nothing that goes up is a dead end). Each (mask, k) is
searched once. One move is left out: when the stock is empty and the waste's top card
(then the talon's last card) may go up, only taking it is tried, not ``redeal``. Taking the last
card changes no group of three in any later pass (every other card keeps its place in the
talon), so each line from the position without taking it is matched, move for move, by a line
from the position after taking it, at the same talon place (or one short of the end) with that
card more up; where the first line deals that card onto the waste again, or takes it, the
second stays put. So a search that ends without a win visited every reachable position (the
positions it passed over are matched by ones with more cards up, as above): the deal
is lost, and the most cards on the foundations in any position searched is the most that can
be cleared. A win comes back as moves in the engine's notation, which the engine replays to
``won``. tests/solver/test_osmosis.py checks the model's moves and next positions against the
engine's, and the verdicts against a plain search of the model's own moves.

One more stop, also a proof: before searching, the search works out which cards can never go
up even if every talon card could be taken at any time (a card that needs a card lying under it
in its reserve pile, or a card that can never go up; and every card under such a card). When it
reaches a position with all the others up, and that is fewer than 52, the deal is lost and that
is the most that can be cleared.

Budgets: ``nodes`` counts moves tried (two for each position expanded: the waste's top card up,
and deal on), ``positions`` the (mask, k) pairs kept, ``memory_mb`` those and the search's stack
at measured sizes (about 88 bytes a position kept, as tracemalloc counts); the clock is read
every 2,048 moves.

Cost, measured on deals 0 to 99 with a 10 s budget, one process under ``nice -n 5`` on this
project's two-core machine while others measured too (load average about 5): 97 decided (42
won, 55 lost), 3 unknown (deals 26, 69, 96); 0.56 s a deal on average, median under 0.01 s,
10 s at most (the next longest 5.6 s); 81,000 positions kept a deal on average, 2 million at
most; 186 MB peak resident memory. A lost deal must be searched whole, and the talon's
three-card groups change with every card taken from it, which is what makes some deals large.
Reproduce with ``arena solve osmosis --deals 100 --seconds 10 --nodes 100000000 --jobs 1`` once
the game is registered in ``solver.search.EXACT``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["Osmosis", "State", "solve_exact"]

#: (mask of the cards on the foundations, cards of the talon on the waste, each foundation's
#: suit: -1 while empty)
State = tuple[int, int, tuple[int, ...]]

_DEAL, _REDEAL = "deal", "redeal"
#: A line of play, last steps first: (the line before, its last steps as (kind, card) pairs);
#: kind >= 0 a reserve pile's card up, -1 deal, -2 redeal, -3 the waste's top card up.
_Link = tuple[Any, list[tuple[int, int]]] | None
_TURN = 3
#: Bytes a kept (mask, k) key costs in the search's set (an int of up to 58 bits and its slot),
#: and one frame of the search's stack (a tuple of an int, a tuple of up to 35 ints, ...),
#: as measured with tracemalloc on deals 0 to 19 (the largest seen, rounded up).
_KEY_BYTES = 100
_FRAME_BYTES = 700


def _card(card: object) -> int:
    return int(card.suit) * 13 + int(card.rank) - 1  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Osmosis:
    """One Osmosis position's cards as numbers (``suit * 13 + rank - 1``), from which every later
    position follows.

    ``columns``: each reserve pile's cards bottom to top; ``talon``: the stock and waste cards in
    the order the next pass after a redeal deals them (the waste's bottom card first); ``start``:
    the `State` read; ``needs``: for each card, the mask of the cards that must be up before it
    may go up (0: it may go up now and always); ``total``: 52.
    """

    columns: tuple[tuple[int, ...], ...]
    talon: tuple[int, ...]
    start: State
    needs: tuple[int, ...]
    total: int

    @classmethod
    def from_game(cls, game: Game) -> Osmosis:
        """The model of ``game`` (an Osmosis `Game` at any position with a card on ``f0``).
        Raises ValueError for another game or an empty ``f0``."""
        if game.key != "osmosis":
            raise ValueError(f"not an osmosis game: {game.key!r}")
        first = game.piles["f0"].cards
        if not first:
            raise ValueError("osmosis: f0 is empty (the deal always plays a card there)")
        suit0, base = int(first[0].suit), int(first[0].rank)
        needs = []
        for card in range(52):
            suit, rank = divmod(card, 13)
            rank += 1
            if suit == suit0 or rank == base:
                needs.append(0)
            else:
                needs.append(1 << (suit0 * 13 + rank - 1) | 1 << (suit * 13 + base - 1))
        ids = sorted((pid for pid in game.piles if pid[0] == "r"), key=lambda pid: int(pid[1:]))
        columns = tuple(tuple(_card(c) for c in game.piles[pid].cards) for pid in ids)
        waste = [_card(c) for c in game.piles["w"].cards]
        talon = tuple(waste + [_card(c) for c in reversed(game.piles["s"].cards)])
        model = cls(columns, talon, (0, 0, ()), tuple(needs), game.total)
        object.__setattr__(model, "start", model.state_of(game))
        return model

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (the tests compare the engine's positions with the model's)."""
        mask = 0
        suits = []
        for fid in ("f0", "f1", "f2", "f3"):
            cards = game.piles[fid].cards
            suits.append(int(cards[0].suit) if cards else -1)
            for card in cards:
                mask |= 1 << _card(card)
        return mask, len(game.piles["w"].cards), tuple(suits)

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return state[0].bit_count()

    def talon_of(self, mask: int) -> tuple[int, ...]:
        """The talon left when the cards in ``mask`` are up (the deal's order kept)."""
        return tuple(card for card in self.talon if not mask >> card & 1)

    def tops(self, state: State) -> list[tuple[str, int]]:
        """The playable piles' top cards in ``state``: (pile id, card), reserves then waste."""
        mask, k, _ = state
        found = []
        for i, column in enumerate(self.columns):
            height = len(column) - sum(mask >> card & 1 for card in column)
            if height:
                found.append((f"r{i}", column[height - 1]))
        if k:
            found.append(("w", self.talon_of(mask)[k - 1]))
        return found

    def homes(self, state: State, card: int) -> list[int]:
        """The foundations (indices) that take ``card`` in ``state``, in order."""
        mask, _, suits = state
        if mask & self.needs[card] != self.needs[card]:
            return []
        suit = card // 13
        if suit in suits:
            return [suits.index(suit)]
        return [j for j, held in enumerate(suits) if held < 0]

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        moves = [f"{pid}>f{j}" for pid, card in self.tops(state) for j in self.homes(state, card)]
        mask, k, _ = state
        left = len(self.talon_of(mask))
        if k < left:
            moves.append(_DEAL)
        elif k:
            moves.append(_REDEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        mask, k, suits = state
        if move == _DEAL:
            return mask, min(k + _TURN, len(self.talon_of(mask))), suits
        if move == _REDEAL:
            return mask, 0, suits
        src, dst = move.split(">")
        card = dict(self.tops(state))[src]
        j = int(dst[1:])
        return mask | 1 << card, k - (src == "w"), suits[:j] + (card // 13,) + suits[j + 1 :]


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Osmosis, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown with
    the budget that ran out (its best clear then a lower bound)."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Osmosis.from_game(game)
    deadline = began + budget.seconds
    columns, needs, full = model.columns, model.needs, (1 << 52) - 1
    piles = range(len(columns))

    # below[c] / above[c]: the cards under / over card c in its reserve pile
    below = [0] * 52
    above = [0] * 52
    for column in columns:
        for i, card in enumerate(column):
            for other in column[:i]:
                below[card] |= 1 << other
            for other in column[i + 1 :]:
                above[card] |= 1 << other

    def ceiling(mask: int) -> int:
        """The most cards that can be up from ``mask``, if every talon card could be taken at
        any time: cards that can never go up are those needing a card below them in their pile,
        or a card that can never go up, and those under such a card."""
        dead = 0
        left = [c for c in range(52) if not mask >> c & 1]
        changed = True
        while changed:
            changed = False
            for c in left:
                if dead >> c & 1:
                    continue
                if needs[c] & ~mask & (dead | below[c]) or above[c] & dead:
                    dead |= 1 << c
                    changed = True
        return 52 - dead.bit_count()

    cap = ceiling(model.start[0])
    seen: set[int] = set()
    best = game.cleared
    nodes = 0
    mask0, k0, _ = model.start
    heights0 = tuple(len(column) - sum(mask0 >> card & 1 for card in column) for column in columns)
    # A frame: (mask, talon, k, reserve heights, the line that reached it)
    stack: list[tuple[int, tuple[int, ...], int, tuple[int, ...], _Link]] = [
        (mask0, model.talon_of(mask0), k0, heights0, None)
    ]
    won_link: _Link = None
    try:
        while stack:
            mask, talon, k, heights, link = stack.pop()
            # settle: reserve cards up, then deal past waste cards that may not go up
            steps: list[tuple[int, int]] = []
            hs = list(heights)
            moved = link is None or link[1][0][0] == -3  # (only a card up lets a reserve card follow)
            while moved:
                moved = False
                for i in piles:
                    h = hs[i]
                    while h:
                        card = columns[i][h - 1]
                        need = needs[card]
                        if mask & need != need:
                            break
                        mask |= 1 << card
                        h -= 1
                        moved = True
                        steps.append((i, card))
                    hs[i] = h
            redeals = 0
            n = len(talon)
            while n:
                if k:
                    need = needs[talon[k - 1]]
                    if mask & need == need:
                        break
                if k < n:
                    k = min(k + _TURN, n)
                    steps.append((-1, 0))
                else:
                    redeals += 1
                    if redeals == 2:  # a whole pass turned up nothing that may go up
                        break
                    k = 0
                    steps.append((-2, 0))
            if steps:
                link = (link, steps)
            if mask == full:
                won_link = link
                break
            count = mask.bit_count()
            if count > best:
                best = count
                if best == cap:  # as many as can ever be up, and fewer than all: lost
                    break
            key = mask << 6 | k
            if key in seen:
                continue
            seen.add(key)
            if not n or redeals == 2:
                continue
            # two moves: the waste's top card up (tried first), or deal on (or redeal)
            nodes += 2
            if nodes >= budget.nodes:
                raise Spent(f"node budget ({budget.nodes:,} moves) spent")
            if not nodes & 2047:
                reason = budget.spent(
                    nodes,
                    len(seen),
                    time.monotonic(),
                    deadline,
                    len(seen) * _KEY_BYTES + len(stack) * _FRAME_BYTES,
                )
                if reason:
                    raise Spent(reason)
            hs_t = tuple(hs)
            if k < n:
                stack.append((mask, talon, min(k + _TURN, n), hs_t, (link, [(-1, 0)])))
            # (else the talon's last card may go up: taking it changes no later deal, and only
            # that is tried; see the module docstring)
            card = talon[k - 1]
            stack.append((mask | 1 << card, talon[: k - 1] + talon[k:], k - 1, hs_t, (link, [(-3, card)])))
        if won_link is None:
            verdict.result = "lost"
    except Spent as spent:
        verdict.reason = spent.args[0]
    if won_link is not None:
        verdict.result = "won"
        verdict.solution = _notation(model, won_link)
        best = model.total
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, len(seen), began)


def _notation(model: Osmosis, link: _Link) -> list[str]:
    """The moves of a line (a chain of links, last first) in the engine's notation, each card
    sent to the foundation of its suit, or the first empty one."""
    chunks = []
    while link is not None:
        link, steps = link
        chunks.append(steps)
    suits = list(model.start[2])
    moves = []
    for steps in reversed(chunks):
        for kind, card in steps:
            if kind == -1:
                moves.append(_DEAL)
            elif kind == -2:
                moves.append(_REDEAL)
            else:
                suit = card // 13
                j = suits.index(suit) if suit in suits else suits.index(-1)
                suits[j] = suit
                moves.append(f"{'w' if kind == -3 else f'r{kind}'}>f{j}")
    return moves
