"""The Besieged City for the solver: the generic search's knowledge, and an exact search of its own.

Rules: 004_b8ac959bf00b6dc2.txt, as engine/games/besieged_city.py states them: four foundations,
one per suit, built A K 2 Q 3 J 4 T 5 9 6 8 7 and back to an Ace (26 cards); a Rampart packet's
top card goes to a foundation or onto another packet's top card of its suit that neighbours it
(one rank apart or next in the playing order); a Reserve card goes only onto a Rampart at an end
of its row or column; an emptied Rampart is refilled from its line of the Reserve at once; an
emptied Reserve place from the talon, else the pack; a dealt card goes to its foundation if it
fits, else onto the talon; with the pack and the talon used up, two Reserve cards may change
places when one of them can then go to a Rampart.

The generic search's knowledge (registered in solver/ordering.py, used by ``solve(...,
exact=False)``):

* `canonical`: the two copies of a card obey the same rules, so the pack mark is dropped; the
  four foundations are alike (any Ace starts any of them), so they are sorted, and the pack is
  written as its length (its order is the deal's). Ramparts and Reserve places keep their places.
* `ordered_moves`: cards to a foundation first, then Reserve cards onto the Ramparts (each one
  brings a talon card into play), then moves between packets, then deal. A move between packets
  is kept only when it does something: it empties a packet (a Reserve card then fills it), the
  card it uncovers goes to a foundation or takes a Reserve card of its line, or the card moved
  lies above a card of its packet needed sooner (see `score`). The others only rearrange cards
  already in order, so they are left out without a proof that they cannot matter: a search
  that runs out of positions proves nothing (`Knowledge.complete` is False).
* `score`: a card's *need* is how far down its suit's playing order it comes after the card
  its foundation needs now; a card lying on a card needed sooner, in a packet or the talon,
  must move again first. Cards cleared count most, then the fewer such cards, then the fewer
  cards in the pack.

The exact search (`solve_exact`, on the model `Besieged`). State: each suit's foundation height,
which suit each foundation ``f0`` to ``f3`` holds (for the engine's notation only), each
Rampart packet's cards and each Reserve place's card as codes ``suit * 16 + rank`` (the two
copies of a card obey the same rules, so the pack mark is dropped), how many pack cards are
gone (the pack's order is the deal's, so the count says which come next) and the talon's cards.
The model computes the engine's moves in the engine's order and plays them, refilling the
Reserve as the engine does (tests/solver/test_besieged_city.py compares moves and next states
move for move, transpositions included). Positions are keyed without the foundations' order.

The search is best first (8 per card cleared, less 2 per card in a packet or the talon lying on
a card needed sooner, plus 1 per pack card gone; then deepest first, then first pushed) in two
rounds, each with its own table of positions seen: a quick one (30,000 moves at most) that
leaves out the moves between packets `ordered_moves` leaves out, which wins most deals in a
tenth of a second, then the whole one, which tries every move but one kind: an Ace goes only to
the first empty foundation, since the foundations are alike (the positions after the others are
the same but for the foundations' names, and so are their lines of play). So a win replays in
the engine, and a whole round that ends without a win has searched every reachable position:
the deal is lost, and the most cards on the foundations in any position reached is the most
that can be cleared. Budgets: ``nodes`` counts moves tried, ``positions`` positions kept in the
round under way, ``memory_mb`` those and the frontier at measured sizes (about 250 bytes a
position kept and 700 a frontier entry, as tracemalloc counts); the clock is read every 1,024
moves.

Cost, measured on deals 1000 to 1049 with `Budget()` (10 s), one process under ``nice -n 5`` on
this project's two-core machine while others measured too (load average 8 to 10): 46 decided,
all won, 4 unknown (1015, 1026, 1032 at 102 cards at best, 1045 at 94); 0.98 s a deal on
average, median 0.09 s, 10.1 s at most. No deal was proved lost: a whole deal's positions are
far too many (the Ramparts' cards can be shuffled between packets in many ways), and deals
1015 and 1026 end with the last two cards of a suit in one packet in the wrong order. Reproduce
with ``solve_exact(find_game("besieged_city")(seed))`` over those seeds.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, Rank, Suit, new_pack
from engine.core import Game, Move
from engine.games.besieged_city import ENDS, LINE_OF, ORDER, packs_on
from solver.budget import Budget, Verdict
from solver.exact import Spent, finished, start_verdict

__all__ = ["Besieged", "State", "Step", "canonical", "ordered_moves", "score", "solve_exact"]

_FOUNDATIONS = ("f0", "f1", "f2", "f3")
_RAMPARTS = tuple(f"t{i}" for i in range(14))
_RESERVE = tuple(f"r{i}" for i in range(12))
#: Every card's notation without the pack mark, looked up rather than rebuilt.
_CODE = {card: f"{card.rank:x}{card.suit.letter}" for card in new_pack(2)}
#: For each rank, its places in the playing order (two: going out and coming back).
_PLACES = {rank: tuple(i for i, r in enumerate(ORDER) if r == rank) for rank in set(ORDER)}
_FAR = 99


def canonical(game: Game) -> str:
    """The position for one search's transposition table (see the module docstring)."""
    piles = game.piles
    found = sorted(
        f"{len(piles[pid].cards)}{_CODE[piles[pid].cards[-1]] if piles[pid].cards else ''}" for pid in _FOUNDATIONS
    )
    places = " ".join("".join([_CODE[card] for card in piles[pid].cards]) for pid in (*_RAMPARTS, *_RESERVE))
    talon = "".join([_CODE[card] for card in piles["w"].cards])
    return f"{'.'.join(found)} {places} s{len(piles['s'].cards)} w:{talon}"


def _heights(game: Game) -> dict[int, int]:
    """How many cards each suit's foundation holds (0 for a suit not started)."""
    heights = {suit: 0 for suit in range(4)}
    for pid in _FOUNDATIONS:
        cards = game.piles[pid].cards
        if cards:
            heights[cards[0].suit] = len(cards)
    return heights


def _need(heights: dict[int, int], card: Card) -> int:
    """How many cards the card's foundation takes before it (0: it goes up now)."""
    height = heights[card.suit]
    return min((place - height for place in _PLACES[card.rank] if place >= height), default=_FAR)


def _blocked(game: Game, heights: dict[int, int]) -> int:
    """Cards lying on a card needed sooner, in the Ramparts and the talon."""
    count = 0
    for pid in (*_RAMPARTS, "w"):
        low = _FAR
        for card in game.piles[pid].cards:
            mine = _need(heights, card)
            if mine > low:
                count += 1
            else:
                low = mine
    return count


def score(game: Game) -> int:
    """How promising a position looks: 8 per card cleared, less 2 per blocking card (`_blocked`)
    and 1 per card left in the pack."""
    return 8 * game.cleared - 2 * _blocked(game, _heights(game)) - len(game.piles["s"].cards)


def _worth_uncovering(game: Game, src: str, card: Card) -> bool:
    """Whether ``card``, once on top of Rampart ``src``, goes to a foundation or takes a Reserve
    card of its line."""
    if any(game._fits_foundation(f, card) for f in _FOUNDATIONS):  # type: ignore[attr-defined]
        return True
    return any(
        src in ENDS[place] and game.piles[place].cards and packs_on(card, game.piles[place].cards[-1])
        for place in _RESERVE
    )


def _blocking(game: Game, packet: list[Card]) -> bool:
    """Whether the top card of ``packet`` lies above a card of the packet needed sooner."""
    heights = _heights(game)
    mine = _need(heights, packet[-1])
    return any(_need(heights, card) < mine for card in packet[:-1])


def ordered_moves(game: Game) -> list[Move]:
    """The moves of ``game`` worth trying, best first (see the module docstring)."""
    piles = game.piles
    keyed: list[tuple[int, Move]] = []
    landed: set[tuple[str, str]] = set()
    for move in game.legal_moves():
        if not move.is_transfer:
            keyed.append((4 if move.action == "deal" else 5, move))
            continue
        src = piles[move.src].cards
        if move.dst[0] == "f":
            dst = piles[move.dst].cards
            landing = (move.src, _CODE[dst[-1]] if dst else "")
            if landing not in landed:
                landed.add(landing)
                keyed.append((0, move))
        elif move.src[0] == "r":
            keyed.append((1 if piles[move.dst].cards else 2, move))
        elif len(src) == 1 or _worth_uncovering(game, move.src, src[-2]) or _blocking(game, src):
            keyed.append((3, move))
    keyed.sort(key=lambda pair: pair[0])
    return [move for _, move in keyed]


# ------------------------------------------------------------------------------ the exact model

#: (foundation heights by suit, the suit of each foundation ``f0`` to ``f3`` (-1: none yet), the
#: Ramparts' packets (card codes, bottom to top), the Reserve places (a code, 0: empty), pack
#: cards gone (dealt or taken into the Reserve), the talon (codes, bottom to top))
State = tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...], int, tuple[int, ...]]
#: A move: (kind, source, destination); kinds: `_UP` Rampart ``src`` to foundation ``dst`` (its
#: index), `_PACK` Rampart to Rampart, `_OUT` Reserve place to Rampart, `_DEAL`, `_SWAP` (two
#: Reserve places).
Step = tuple[int, int, int]
_UP, _PACK, _OUT, _DEAL, _SWAP = range(5)
#: A line of play, last move first: (the line before, its last move).
_Link = tuple[Any, Step] | None
_WON = 104


def _code(card: Card) -> int:
    """A card as an int: suit * 16 + rank (1 to 61); 0 is no card."""
    return int(card.suit) * 16 + int(card.rank)


def _card(code: int) -> Card:
    """The card (first pack) that ``code`` stands for."""
    return Card(Rank(code % 16), Suit(code // 16))


#: The rank a foundation holding h cards takes next (h = 0 to 25).
_NEXT = tuple(int(rank) for rank in ORDER)
#: _PACKS[top][card]: a card (code) may be packed on ``top`` (code) in the Ramparts.
_PACKS = tuple(
    tuple(0 < top % 16 < 14 and 0 < card % 16 < 14 and packs_on(_card(top), _card(card)) for card in range(64))
    for top in range(64)
)
#: For each Reserve place, the Ramparts at the ends of its row and column (indices, in order).
_ENDS = tuple(tuple(_RAMPARTS.index(t) for t in ENDS[r]) for r in _RESERVE)
#: For each Rampart, the Reserve places of its line (indices, in order).
_LINE = tuple(tuple(_RESERVE.index(r) for r in LINE_OF[t]) for t in _RAMPARTS)
#: Bytes a kept position costs (a bytes key of about 130 bytes and its slot in the set), and one
#: frame of the search's stack, rounded up from tracemalloc.
_KEY_BYTES = 250
_FRAME_BYTES = 700
_NAMES = {card: _code(card) for card in new_pack(2)}


def _fill(reserve: list[int], talon: list[int], gone: int, stock: tuple[int, ...]) -> int:
    """Fill the empty places of ``reserve`` in order from the talon's top, or while it is empty
    from the pack (``stock[gone:]``), as the engine does; both lists change. Returns ``gone``."""
    for i, card in enumerate(reserve):
        if not card:
            if talon:
                reserve[i] = talon.pop()
            elif gone < len(stock):
                reserve[i] = stock[gone]
                gone += 1
            else:
                break
    return gone


@dataclass(frozen=True, slots=True)
class Besieged:
    """One position of The Besieged City as card codes, from which every later position follows.

    ``stock``: the pack's codes in the order they come (the next first); ``start``: the `State`
    read; ``total``: 104."""

    stock: tuple[int, ...]
    start: State
    total: int = _WON

    @classmethod
    def from_game(cls, game: Game) -> Besieged:
        """The model of ``game`` (a Besieged City `Game`, at any position). Raises ValueError for
        another game."""
        if game.key != "besieged_city":
            raise ValueError(f"not a besieged_city game: {game.key!r}")
        stock = tuple(_NAMES[card] for card in reversed(game.piles["s"].cards))
        model = cls(stock, ((), (), (), (), 0, ()), game.total)
        object.__setattr__(model, "start", model.state_of(game))
        return model

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (pack cards gone count from there)."""
        piles = game.piles
        heights = [0] * 4
        suits = []
        for pid in _FOUNDATIONS:
            cards = piles[pid].cards
            suits.append(int(cards[0].suit) if cards else -1)
            if cards:
                heights[cards[0].suit] = len(cards)
        return (
            tuple(heights),
            tuple(suits),
            tuple(tuple(_NAMES[card] for card in piles[pid].cards) for pid in _RAMPARTS),
            tuple(_NAMES[piles[pid].cards[-1]] if piles[pid].cards else 0 for pid in _RESERVE),
            len(self.stock) - len(piles["s"].cards),
            tuple(_NAMES[card] for card in piles["w"].cards),
        )

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(state[0])

    def steps(self, state: State) -> list[Step]:
        """The legal moves in ``state``, in the engine's order (see `legal`)."""
        heights, suits, ramparts, reserve, gone, talon = state
        if sum(heights) == _WON:
            return []
        vacant = [(t, line) for t, line in enumerate(_LINE) if not ramparts[t] and any(reserve[r] for r in line)]
        if vacant:
            return [(_OUT, r, t) for t, line in vacant for r in line if reserve[r]]
        moves: list[Step] = []
        for src, packet in enumerate(ramparts):
            if not packet:
                continue
            card = packet[-1]
            suit = card >> 4
            height = heights[suit]
            if height < 26 and _NEXT[height] == card & 15:
                if height:
                    moves.append((_UP, src, suits.index(suit)))
                else:
                    moves += [(_UP, src, f) for f in range(4) if suits[f] < 0]
            fits = _PACKS
            moves += [
                (_PACK, src, dst)
                for dst, other in enumerate(ramparts)
                if other and dst != src and fits[other[-1]][card]
            ]
        for src, card in enumerate(reserve):
            if card:
                moves += [
                    (_OUT, src, dst) for dst in _ENDS[src] if not ramparts[dst] or _PACKS[ramparts[dst][-1]][card]
                ]
        if gone < len(self.stock):
            moves.append((_DEAL, 0, 0))
        elif not talon:
            for a in range(12):
                for b in range(a + 1, 12):
                    if reserve[a] and reserve[b] and self._useful(ramparts, a, reserve[b], b, reserve[a]):
                        moves.append((_SWAP, a, b))
        return moves

    @staticmethod
    def _useful(ramparts: tuple[tuple[int, ...], ...], a: int, at_a: int, b: int, at_b: int) -> bool:
        """Whether, with ``at_a`` at place ``a`` and ``at_b`` at ``b``, either may go to a Rampart."""
        return any(
            not ramparts[t] or _PACKS[ramparts[t][-1]][card]
            for place, card in ((a, at_a), (b, at_b))
            for t in _ENDS[place]
        )

    def step(self, state: State, move: Step) -> State:
        """The state after ``move`` (one of `steps`'), the Reserve filled as the engine fills it."""
        heights, suits, ramparts, reserve, gone, talon = state
        kind, src, dst = move
        if kind == _UP:
            card = ramparts[src][-1]
            suit = card >> 4
            hs = list(heights)
            hs[suit] += 1
            if suits[dst] < 0:
                suits = suits[:dst] + (suit,) + suits[dst + 1 :]
            packets = list(ramparts)
            packets[src] = packets[src][:-1]
            return tuple(hs), suits, tuple(packets), reserve, gone, talon
        if kind == _PACK:
            packets = list(ramparts)
            packets[dst] += packets[src][-1:]
            packets[src] = packets[src][:-1]
            return heights, suits, tuple(packets), reserve, gone, talon
        places = list(reserve)
        waste = list(talon)
        if kind == _OUT:
            packets = list(ramparts)
            packets[dst] += (places[src],)
            places[src] = 0
            ramparts = tuple(packets)
        elif kind == _DEAL:
            card = self.stock[gone]
            gone += 1
            suit = card >> 4
            height = heights[suit]
            if height < 26 and _NEXT[height] == card & 15:
                hs = list(heights)
                hs[suit] += 1
                heights = tuple(hs)
                if not height:
                    f = suits.index(-1)
                    suits = suits[:f] + (suit,) + suits[f + 1 :]
            else:
                waste.append(card)
        else:
            places[src], places[dst] = places[dst], places[src]
        gone = _fill(places, waste, gone, self.stock)
        return heights, suits, ramparts, tuple(places), gone, tuple(waste)

    @staticmethod
    def notation(move: Step) -> str:
        """``move`` in the engine's notation."""
        kind, src, dst = move
        if kind == _UP:
            return f"{_RAMPARTS[src]}>{_FOUNDATIONS[dst]}"
        if kind == _PACK:
            return f"{_RAMPARTS[src]}>{_RAMPARTS[dst]}"
        if kind == _OUT:
            return f"{_RESERVE[src]}>{_RAMPARTS[dst]}"
        if kind == _DEAL:
            return "deal"
        return f"transpose {_RESERVE[src]}.{_RESERVE[dst]}"

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        return [self.notation(move) for move in self.steps(state)]

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s, in notation)."""
        return self.step(state, next(m for m in self.steps(state) if self.notation(m) == move))


def _key(state: State) -> bytes:
    """The position without the foundations' order (they are alike: see the module docstring)."""
    heights, _, ramparts, reserve, gone, talon = state
    return b"".join(
        [bytes(heights), b"\0".join(map(bytes, ramparts)), b"\xff", bytes(reserve), bytes([gone]), bytes(talon)]
    )


#: _NEED[height][rank]: how many cards a foundation holding ``height`` takes before a card of
#: ``rank`` of its suit (99: none can).
_RANK_PLACES: dict[int, tuple[int, ...]] = {int(rank): places for rank, places in _PLACES.items()}
_NEED = tuple(
    tuple(min((p - height for p in _RANK_PLACES.get(rank, ()) if p >= height), default=_FAR) for rank in range(16))
    for height in range(27)
)


def _needs(heights: tuple[int, ...], card: int) -> int:
    """How many cards ``card``'s foundation takes before it (99: none can)."""
    return _NEED[heights[card >> 4]][card & 15]


def _useful(state: State, move: Step) -> bool:
    """Whether a move between packets does something: empties a packet, uncovers a card that
    goes up or takes a Reserve card of its line, or moves a card lying on one needed sooner."""
    heights, _, ramparts, reserve, _, _ = state
    packet = ramparts[move[1]]
    if len(packet) == 1:
        return True
    under = packet[-2]
    if _NEED[heights[under >> 4]][under & 15] == 0:
        return True
    if any(reserve[r] and _PACKS[under][reserve[r]] for r in _LINE[move[1]]):
        return True
    mine = _needs(heights, packet[-1])
    return any(_needs(heights, card) < mine for card in packet[:-1])


#: Moves the first, narrower search may try (about a second).
_FIRST_MOVES = 30_000


def _score(state: State) -> int:
    """How promising ``state`` looks: 8 per card cleared, less 2 per card in the Ramparts or
    the talon lying on a card needed sooner, less 1 per card left in the pack."""
    heights, _, ramparts, _, gone, talon = state
    blocked = 0
    need = [_NEED[height] for height in heights]
    for packet in (*ramparts, talon):
        low = _FAR
        for card in packet:
            mine = need[card >> 4][card & 15]
            if mine > low:
                blocked += 1
            else:
                low = mine
    return 8 * sum(heights) - 2 * blocked + gone


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (The Besieged City, from its current position; it is not changed) exactly
    (see the module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in
    the engine's notation, lost (proved) with the most cards that can be cleared, or unknown with
    the budget that ran out (its best clear then a lower bound); the default budget is a race's
    par budget."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Besieged.from_game(game)
    deadline = began + budget.seconds
    nodes = 0
    best = game.cleared
    seen: set[bytes] = set()
    won_link: _Link = None

    def search(filtered: bool, cap: int) -> bool:
        """One best-first search from the start, with a table of its own; True when it won
        (``won_link`` set) or searched every position it generates, False at ``cap`` moves."""
        nonlocal nodes, best, won_link
        seen.clear()
        start = model.start
        seen.add(_key(start))
        # best first, then deepest first: (-score, -depth, order pushed, state, the line to it)
        frontier: list[tuple[int, int, int, State, _Link]] = [(0, 0, 0, start, None)]
        pushed = 0
        stop = min(nodes + cap, budget.nodes)
        while frontier:
            _, depth, _, state, link = heapq.heappop(frontier)
            for move in model.steps(state):
                if filtered and move[0] == _PACK and not _useful(state, move):
                    continue
                if move[0] == _UP and state[1][move[2]] < 0 and move[2] != state[1].index(-1):
                    continue  # an Ace: one empty foundation stands for all (they are alike)
                if nodes >= stop:
                    if stop == budget.nodes:
                        raise Spent(f"node budget ({budget.nodes:,} moves) spent")
                    return False
                nodes += 1
                if not nodes & 1023:
                    reason = budget.spent(
                        nodes,
                        len(seen),
                        time.monotonic(),
                        deadline,
                        len(seen) * _KEY_BYTES + len(frontier) * _FRAME_BYTES,
                    )
                    if reason:
                        raise Spent(reason)
                child = model.step(state, move)
                key = _key(child)
                if key in seen:
                    continue
                seen.add(key)
                count = sum(child[0])
                if count > best:
                    best = count
                    if count == _WON:
                        won_link = (link, move)
                        return True
                pushed += 1
                heapq.heappush(frontier, (-_score(child), depth - 1, pushed, child, (link, move)))
        return True

    try:
        # a quick search without the moves `_useful` leaves out, then the whole search
        if not search(True, _FIRST_MOVES) or won_link is None:
            search(False, budget.nodes)
            if won_link is None:
                verdict.result = "lost"
    except Spent as spent:
        verdict.reason = spent.args[0]
    if won_link is not None:
        verdict.result = "won"
        line: list[str] = []
        link: _Link = won_link
        while link is not None:
            link, step = link
            line.append(Besieged.notation(step))
        verdict.solution = line[::-1]
        best = _WON
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, len(seen), began)
