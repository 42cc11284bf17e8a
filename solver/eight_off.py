"""An exact search for Eight Off: the rules as small integers, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("Eight Off"), as engine/games/eight_off.py states them: eight
tableau piles ``t0`` to ``t7`` (six face-up cards each at the deal), eight one-card cells ``c0``
to ``c7`` (the first four filled at the deal) and four foundations ``f0`` to ``f3``, each started
by any Ace and built up in suit. One card moves at a time (no runs): the top card of a tableau
pile or a cell's card goes to a foundation, or onto a tableau pile whose top card is one rank
above it in its suit, or to an empty tableau pile if it is a King; a tableau pile's top card may
also go to an empty cell (a cell's card never goes to another cell). There is no stock. The game
is won with all 52 cards on the foundations. This is also Solvitaire's "eight-off" preset
(src/main/input-output/input/sol_preset_types.cpp in thecharlesblake/Solvitaire: same-suit
build, spaces take Kings, no built-group moves, 8 cells with 4 filled, foundations not removable).

State. A card is the integer ``13 * suit + rank - 1`` (suits in `engine.cards.Suit` order, ranks
Ace 1 to King 13), 255 for "no card". A position is the top card of each foundation, each
cell's card and each tableau pile's cards bottom to top (`State`); `EightOffModel` reads it from
an engine `Game` at any position and lists and plays moves on it in the engine's notation and
order (tests/solver/test_eight_off.py compares both with the engine move for move). The search
keeps the same values in lists and changes them in place (undoing on the way back), and keeps
each position seen as one bytes key: the cells' cards sorted, then the tableau piles sorted,
each as its cards' bytes, separated by 254. The foundations need no place in the key: within one
search the cards on the foundations are exactly the cards of the start that are in no cell and
no pile, and each suit's foundation holds its lowest ranks.

Why it is exact. Three rules shrink the search; each keeps every outcome:

* Cells are interchangeable, and so are tableau piles (the same cards in other cells or piles
  allow the same moves, under other names): positions equal up to such a renaming share one key
  and are searched once. For the same reason a card goes only to the first empty cell, and a
  King only to the first empty pile: the other choices reach positions with the same key.
* Every card that can go to a foundation goes at once (the engine's ``_safe``). If card X can go
  up in position P, then P' (P with X up) wins whenever P does, and reaches at least as many
  cleared cards: take any line of play from P and leave out X's moves. Each other move stays
  legal, because X's absence only leaves a cell, a pile or a space emptier, and no move of the
  line needs X where it was: the only card that goes on X is the card below it in its suit,
  already on its foundation (no card leaves a foundation), and the moves onto X's foundation
  come after X in the line anyway. Foundations are interchangeable, so an Ace's foundation is
  named when it goes up. So P' reaches each position of the line with X up instead of where it
  was: as many cards cleared or one more, and a win where the line wins.
* A position reached again is not searched again (its key is in the table): depth-first search
  over the positions with a table of every key seen visits each class once, and finds a win
  whenever one is reachable.

So a search that ends without a win proves the position lost, and the most cards on the
foundations in any position searched is the most that can be cleared. A win comes back as moves
in the engine's notation, which the engine replays to ``won``. Budgets apply as in
`solver.search`: ``nodes`` (moves tried, the foundation moves played at once included),
``seconds`` and ``positions`` (keys kept) and ``memory_mb`` (keys kept times `ENTRY_BYTES`, plus
the search's stack): a search cut short says unknown, with its best clear as a lower bound.

The order. Deals are nearly all won, so the order of the moves tried decides the cost: a card
from a cell to the tableau first (it frees a cell), then a tableau card onto another, then a card
to an empty cell; within each, a card that lies on the next card of its suit last, then from the
pile whose next card for a foundation lies nearest its top.

Cost, measured on deals 0 to 999 (one process, ``nice -n 5``, on this project's two-core machine
with a load average of about 4 to 5 from other work), with ``Budget(nodes=10**9, seconds=10,
positions=10**8, memory_mb=2048)`` and every win replayed in the engine: 996 decided (99.6%): 994
won, 2 proved lost (seeds 29 and 407: at most 4 and 3 cards clearable; the generic
`solver.search.solve_depth_first` proves both too), 4 unknown (seeds 204, 578, 618, 981: the time
budget; 204 is won at about 10 to 20 s). Seconds a deal: mean 0.13, median 0.01, max 10 (the
budget); positions kept a deal: mean about 2,300, at most about 155,000; the process's peak
resident memory 45 MB. Reproduce with `solve_exact` over those seeds and that budget (or ``arena
solve eight_off`` once `solver.search.EXACT` names this game).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.cards import Card
from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["ENTRY_BYTES", "NONE", "EightOffModel", "State", "solve_exact"]

#: "No card": an empty cell or foundation.
NONE = 255
#: Separates tableau piles in a position's key.
_SEP = b"\xfe"
_KING = 12  # rank - 1 of a King
#: Bytes one kept position costs: its key (a bytes object of about 60 bytes) and its slot in the
#: set, measured with tracemalloc over whole searches (tests/solver/test_eight_off.py checks it).
ENTRY_BYTES = 160
#: Bytes one frame of the search's stack costs (its list of moves to try and its undo record).
_FRAME_BYTES = 600

#: (foundation top cards f0..f3, cell cards c0..c7, tableau piles t0..t7 each bottom to top);
#: cards as in the module docstring, NONE where there is none.
State = tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]


def _code(card: Card) -> int:
    return 13 * int(card.suit) + int(card.rank) - 1


def _goes_on(card: int, top: int) -> bool:
    """Whether ``card`` may go on a tableau pile whose top card is ``top`` (NONE: empty)."""
    if top == NONE:
        return card % 13 == _KING
    return top == card + 1 and card % 13 != _KING


def _goes_up(card: int, top: int) -> bool:
    """Whether ``card`` may go on a foundation whose top card is ``top`` (NONE: empty)."""
    if top == NONE:
        return card % 13 == 0
    return card == top + 1 and card % 13 != 0


@dataclass(frozen=True, slots=True)
class EightOffModel:
    """One Eight Off position as plain integers (``start``, a `State`), with the rules on it.

    ``total``: the game's total (52); cards cleared are the foundations' cards, as the engine
    counts them."""

    start: State
    total: int = 52

    @classmethod
    def from_game(cls, game: Game) -> EightOffModel:
        """The model of ``game`` (an Eight Off `Game`, at any position). Raises ValueError for
        another game, a face-down card, a cell with more than one card, or a foundation that is not
        an Ace and the next ranks of its suit."""
        if game.key != "eight_off":
            raise ValueError(f"not an eight_off game: {game.key!r}")
        if any(pile.down for pile in game.piles.values()):
            raise ValueError("a face-down card: Eight Off deals every card face up")
        tops = []
        for k in range(4):
            cards = [_code(card) for card in game.piles[f"f{k}"].cards]
            if cards and cards != list(range(cards[0], cards[0] + len(cards))) or cards[:1] and cards[0] % 13:
                raise ValueError(f"foundation f{k} is not built up in suit from an Ace")
            tops.append(cards[-1] if cards else NONE)
        cells = []
        for k in range(8):
            held = game.piles[f"c{k}"].cards
            if len(held) > 1:
                raise ValueError(f"cell c{k} holds {len(held)} cards")
            cells.append(_code(held[0]) if held else NONE)
        piles = tuple(tuple(_code(card) for card in game.piles[f"t{k}"].cards) for k in range(8))
        return cls((tuple(tops), tuple(cells), piles), game.total)

    @staticmethod
    def state_of(game: Game) -> State:
        """The `State` of ``game`` (an Eight Off `Game`)."""
        return EightOffModel.from_game(game).start

    def cleared(self, state: State) -> int:
        """Cards cleared in ``state`` (cards on the foundations), as the engine counts them."""
        return sum(top % 13 + 1 for top in state[0] if top != NONE)

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order: sources c0..c7 then
        t0..t7, each to f0..f3, then c0..c7 (from a pile only), then t0..t7."""
        tops, cells, piles = state
        if self.cleared(state) == self.total:
            return []
        piles_tops = [pile[-1] if pile else NONE for pile in piles]
        moves = []
        sources = [(f"c{i}", card, False) for i, card in enumerate(cells) if card != NONE]
        sources += [(f"t{i}", pile[-1], True) for i, pile in enumerate(piles) if pile]
        for src, card, from_pile in sources:
            moves += [f"{src}>f{k}" for k, top in enumerate(tops) if _goes_up(card, top)]
            if from_pile:
                moves += [f"{src}>c{k}" for k, held in enumerate(cells) if held == NONE]
            moves += [f"{src}>t{k}" for k, top in enumerate(piles_tops) if f"t{k}" != src and _goes_on(card, top)]
        return moves

    def play(self, state: State, move: str) -> State:
        """The `State` after ``move`` (one of `legal`'s)."""
        tops, cells, piles = list(state[0]), list(state[1]), [list(pile) for pile in state[2]]
        src, _, dst = move.partition(">")
        i, k = int(src[1:]), int(dst[1:])
        if src[0] == "c":
            card, cells[i] = cells[i], NONE
        else:
            card = piles[i].pop()
        if dst[0] == "f":
            tops[k] = card
        elif dst[0] == "c":
            cells[k] = card
        else:
            piles[k].append(card)
        return tuple(tops), tuple(cells), tuple(tuple(pile) for pile in piles)


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Eight Off, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown when
    the budget ran out (``reason`` as `Budget.spent` words it). ``nodes`` counts moves tried,
    ``positions`` the positions kept. Raises ValueError as `EightOffModel.from_game` does."""
    began = time.monotonic()
    deadline = began + budget.seconds
    model = EightOffModel.from_game(game)
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)

    tops0, cells0, piles0 = model.start
    total = model.total
    found = [0, 0, 0, 0]  # per suit: cards on its foundation
    fid = [-1, -1, -1, -1]  # per suit: its foundation's index, -1 before its Ace goes up
    for k, top in enumerate(tops0):
        if top != NONE:
            found[top // 13] = top % 13 + 1
            fid[top // 13] = k
    cells = list(cells0)
    tab = [list(pile) for pile in piles0]
    path: list[str] = []
    cleared = sum(found)
    sep = _SEP

    # A primitive move is (card, source, destination): sources and destinations are 0..7 for
    # cells, 8..15 for tableau piles and 16 + foundation index for foundations.
    def put(card: int, src: int, dst: int) -> None:
        nonlocal cleared
        if src < 8:
            cells[src] = NONE
            name = f"c{src}>"
        else:
            tab[src - 8].pop()
            name = f"t{src - 8}>"
        if dst < 8:
            cells[dst] = card
            path.append(f"{name}c{dst}")
        elif dst < 16:
            tab[dst - 8].append(card)
            path.append(f"{name}t{dst - 8}")
        else:
            found[card // 13] += 1
            cleared += 1
            path.append(f"{name}f{dst - 16}")

    def take_back(card: int, src: int, dst: int) -> None:
        nonlocal cleared
        if dst < 8:
            cells[dst] = NONE
        elif dst < 16:
            tab[dst - 8].pop()
        else:
            suit = card // 13
            found[suit] -= 1
            cleared -= 1
            if not found[suit]:
                fid[suit] = -1
        if src < 8:
            cells[src] = card
        else:
            tab[src - 8].append(card)
        path.pop()

    def collect() -> list[tuple[int, int, int]]:
        """Play every card that can go up, until none can; the moves played."""
        done = []
        again = True
        while again:
            again = False
            for src in range(16):
                if src < 8:
                    card = cells[src]
                    if card == NONE:
                        continue
                else:
                    pile = tab[src - 8]
                    if not pile:
                        continue
                    card = pile[-1]
                suit = card // 13
                if card % 13 == found[suit]:
                    if fid[suit] < 0:
                        fid[suit] = min(set(range(4)) - set(fid))
                    put(card, src, 16 + fid[suit])
                    done.append((card, src, 16 + fid[suit]))
                    again = True
        return done

    def key() -> bytes:
        return bytes(sorted(cells)) + sep.join(sorted([bytes(pile) for pile in tab]))

    def choices() -> list[tuple[int, int, int]]:
        """The moves worth trying now (no foundation move is left: `collect` played them), in the
        order to try them."""
        first_cell = cells.index(NONE) if NONE in cells else -1
        space = -1
        on_top: dict[int, int] = {}
        near = [99] * 8  # per pile: cards above its nearest card for a foundation
        for i, pile in enumerate(tab):
            if not pile:
                if space < 0:
                    space = i
                continue
            on_top[pile[-1]] = i
            height = len(pile)
            for depth in range(height):
                card = pile[height - 1 - depth]
                if card % 13 == found[card // 13]:
                    near[i] = depth
                    break
        ranked = []
        for i, card in enumerate(cells):
            if card == NONE:
                continue
            if card % 13 == _KING:
                if space >= 0:
                    ranked.append((0, 0, card, i, 8 + space))
            elif card + 1 in on_top:
                ranked.append((0, 0, card, i, 8 + on_top[card + 1]))
        for i, pile in enumerate(tab):
            if not pile:
                continue
            card = pile[-1]
            # a card that lies on the next card of its suit moves last in its class
            built = 100 if len(pile) > 1 and pile[-2] == card + 1 and card % 13 != _KING else 0
            if card % 13 == _KING:
                if space >= 0 and len(pile) > 1:
                    ranked.append((1, near[i], card, 8 + i, 8 + space))
            elif card + 1 in on_top:
                ranked.append((1, built + near[i], card, 8 + i, 8 + on_top[card + 1]))
            if first_cell >= 0:
                ranked.append((2, built + near[i], card, 8 + i, first_cell))
        ranked.sort(reverse=True)  # tried from the end
        return [(card, src, dst) for _, _, card, src, dst in ranked]

    nodes = 0
    best = cleared
    seen: set[bytes] = set()
    budget_nodes, budget_positions = budget.nodes, budget.positions
    budget_bytes = budget.memory_mb * 1024 * 1024
    try:
        collect()
        best = cleared
        if cleared == total:
            verdict.result = "won"
        else:
            seen.add(key())
            # frames: [moves left to try (last first), the move that led here and the
            # foundation moves after it (None at the start)]
            stack: list[tuple[list[tuple[int, int, int]], tuple[int, int, int] | None, list]] = [(choices(), None, [])]
            while stack:
                moves, came, autos = stack[-1]
                if not moves:
                    stack.pop()
                    for step in reversed(autos):
                        take_back(*step)
                    if came is not None:
                        take_back(*came)
                    continue
                move = moves.pop()
                nodes += 1
                if nodes >= budget_nodes:
                    raise Spent(budget.spent(nodes, len(seen), None, deadline))
                if not nodes & 2047 and time.monotonic() > deadline:
                    raise Spent(budget.spent(nodes, len(seen), time.monotonic(), deadline))
                put(*move)
                played = collect()
                nodes += len(played)
                if cleared == total:
                    verdict.result = "won"
                    break
                here = key()
                if here in seen:
                    for step in reversed(played):
                        take_back(*step)
                    take_back(*move)
                    continue
                seen.add(here)
                kept = len(seen)
                if kept > budget_positions or kept * ENTRY_BYTES + len(stack) * _FRAME_BYTES > budget_bytes:
                    raise Spent(
                        budget.spent(nodes, kept, None, deadline, kept * ENTRY_BYTES + len(stack) * _FRAME_BYTES)
                    )
                if cleared > best:
                    best = cleared
                stack.append((choices(), move, played))
            else:
                verdict.result = "lost"
    except Spent as spent:
        verdict.reason = spent.args[0]
    if verdict.result == "won":
        verdict.solution = path
        best = total
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, len(seen), began)
