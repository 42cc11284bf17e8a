"""The fair-play report of one tournament deal: pure analysis of its move logs, no I/O.

Input: the deal (`DealLog`: game, options, seed) and every entrant's accepted moves with their
race times in milliseconds and the wall-clock instant its race started (`EntrantLog`; a rounds
deal has one race for everyone, an arena deal one race per entrant, played at different times).
Each entrant's game is replayed with the engine, which says which cards each move turned face
up. Three parts (docs/tournaments.md, "Fair play", says how to read them):

* **Scouting pairs** (`scouting_pairs`): entrant B made an *informed use* of card X when one of
  B's moves turned X face up in B's game and B's very next move, chosen by B (not a move the
  server played for it: collect, finish, auto-collect), moved X or played a card onto X less
  than ``reflex_ms`` (200 ms) of race time later. The server accepted the revealing move, sent
  its answer, and received the next move within that time: the next move was decided before B
  could have seen X. The pair (A, B) counts X when entrant A had turned X face up in its own
  game earlier on the wall clock (A's race start + A's move time), so A could have told B.
* **Solver agreement** (`solver_agreement`): at up to ``positions`` positions sampled along an
  entrant's line (each with a face-down card and 2 to ``max_legal`` legal moves), every legal
  move is valued by the all-seeing solver (`solver.solve` on the position after it, a small
  node budget: won, then most cards cleared); the same is done on a *blind* copy where the
  face-down cards are shuffled among their places (a deal the entrant cannot tell from the real
  one). A position counts when the all-seeing choice is one move and the blind choice does not
  include it: only hidden knowledge prefers it. The rate is how often the entrant played it.
* **Move times** (`move_times`): the time between two moves the entrant chose (ms): median,
  10th percentile, spread (75th minus 25th percentile), and how many moves came less than
  ``reflex_ms`` after a move that turned a card up.

`analyse_deal` builds the whole `FairPlayDeal` (CPU-bound: the server runs it in a par worker
process, `server.fair_play_reports`).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine.cards import Card
from engine.core import Game, Move
from engine.games import find_game
from server.protocol import FairPlayDeal, MoveTimes, RaceRecord, ScoutedUse, ScoutingPair, SolverAgreement

__all__ = [
    "DealLog",
    "EntrantLog",
    "FairPlayLimits",
    "Step",
    "analyse_deal",
    "from_record",
    "move_times",
    "replay",
    "scouting_pairs",
    "solver_agreement",
]


@dataclass(frozen=True, slots=True)
class FairPlayLimits:
    """Thresholds and budgets of the report.

    ``reflex_ms``: a move chosen sooner than this after a reveal was decided before the card was
    seen (ms). ``scout_min_cards``: a pair is flagged from this many informed uses of distinct
    cards. ``positions``: positions sampled per entrant for solver agreement; ``max_legal``:
    positions with more legal moves are skipped; ``nodes``: the solver's budget per move valued
    (moves tried); ``seconds``: the whole deal's solver work stops after this (wall clock,
    shared fairly: every entrant's first position before anyone's second); ``min_positions``
    and ``agreement_rate``: an entrant is flagged from this many counted positions, agreeing at
    this rate or more.
    """

    reflex_ms: int = 200
    scout_min_cards: int = 2
    positions: int = 8
    max_legal: int = 16
    nodes: int = 300
    seconds: float = 20.0
    min_positions: int = 5
    agreement_rate: float = 0.8


@dataclass(frozen=True, slots=True)
class EntrantLog:
    """One entrant's line in one deal: ``moves`` in notation and their race times ``times_ms``
    (ms since its race started, same length), ``started_at_ms`` its race's start on the wall
    clock (Unix epoch ms), ``race`` its race's code."""

    player: str
    name: str
    race: str
    started_at_ms: int
    moves: Sequence[str]
    times_ms: Sequence[int]


@dataclass(frozen=True, slots=True)
class DealLog:
    """One tournament deal: ``deal`` (index from 0), the game's key and rule ``options``, the
    ``seed`` and every entrant's line."""

    deal: int
    game: str
    options: dict[str, bool]
    seed: int
    entrants: Sequence[EntrantLog]


@dataclass(slots=True)
class Step:
    """One replayed move: ``move`` (notation), race time ``time_ms``, wall clock ``wall_ms``;
    ``assisted``: played by the server for the entrant (same race time as the move before and a
    move collect or finish would play); ``uncovered``: cards it turned face up for the first time
    in this game; ``used``: cards it moved, and the card it played onto."""

    move: str
    time_ms: int
    wall_ms: int
    assisted: bool
    uncovered: tuple[Card, ...] = ()
    used: tuple[Card, ...] = ()


@dataclass(slots=True)
class _Line:
    entrant: EntrantLog
    steps: list[Step] = field(default_factory=list)
    first_seen_ms: dict[Card, int] = field(default_factory=dict)  # card -> wall ms it was first turned up


def from_record(record: RaceRecord) -> DealLog:
    """A `DealLog` from a finished race's record (`server.protocol.RaceRecord`). Raises
    ValueError if the race is no tournament deal or never started."""
    info = record.race
    if info.deal is None or info.starts_at_ms is None:
        raise ValueError(f"race {info.code} is not a started tournament deal")
    entrants = [
        EntrantLog(e.player, e.name, info.code, info.starts_at_ms, e.moves, e.times_ms) for e in record.entrants
    ]
    return DealLog(info.deal, info.game, dict(info.options), record.seed, entrants)


def _face_up(game: Game) -> Iterable[Card]:
    for pile in game.piles.values():
        yield from pile.cards[pile.down :]


def _used(game: Game, move: Move) -> tuple[Card, ...]:
    """The cards a transfer moves and the card it lands on (none for any other action)."""
    if not move.is_transfer:
        return ()
    src, dst = game.piles.get(move.src), game.piles.get(move.dst)
    moved = tuple(src.cards[-move.count :]) if src is not None else ()
    onto = (dst.cards[-1],) if dst is not None and dst.cards and len(dst.cards) > dst.down else ()
    return moved + onto


def _assist(game: Game, move: Move) -> bool:
    """Whether ``move`` is one the server may have played for the entrant (collect, auto-collect
    or finish play safe moves and the finishing line only)."""
    if move in game.safe_moves():
        return True
    line = game.finishing_line()
    return line is not None and bool(line) and line[0] == move


def replay(deal: DealLog, entrant: EntrantLog) -> list[Step]:
    """Replay ``entrant``'s line on the deal and describe each move (`Step`). Raises
    `engine.core.EngineError` for a line that does not replay (never for a stored log)."""
    return _replay(find_game(deal.game), deal, entrant).steps


def _replay(game_cls: type[Game], deal: DealLog, entrant: EntrantLog) -> _Line:
    game = game_cls(deal.seed, **deal.options)
    seen = set(_face_up(game))
    line = _Line(entrant)
    before = None
    for notation, time_ms in zip(entrant.moves, entrant.times_ms, strict=True):
        move = Move.parse(notation)
        wall_ms = entrant.started_at_ms + time_ms
        assisted = time_ms == before and _assist(game, move)
        used = _used(game, move)
        revealed = game.apply(move)
        new = tuple(dict.fromkeys(r.card for r in revealed if r.card not in seen))
        seen.update(new)
        for card in new:
            line.first_seen_ms[card] = wall_ms
        line.steps.append(Step(notation, time_ms, wall_ms, assisted, new, used))
        before = time_ms
    return line


def _informed_uses(line: _Line, reflex_ms: int) -> list[tuple[Card, Step, Step]]:
    """(card, revealing step, using step) for each informed use in ``line`` (module docstring)."""
    found = []
    steps = line.steps
    for shown, then in zip(steps, steps[1:]):
        if not shown.uncovered or then.assisted or then.time_ms - shown.time_ms >= reflex_ms:
            continue
        found += [(card, shown, then) for card in shown.uncovered if card in then.used]
    return found


def scouting_pairs(lines: Sequence[_Line], limits: FairPlayLimits) -> list[ScoutingPair]:
    """Every pair (scout A, player B) with at least one informed use by B of a card A had turned
    up earlier on the wall clock, most cards first."""
    pairs = []
    for b in lines:
        uses = _informed_uses(b, limits.reflex_ms)
        if not uses:
            continue
        for a in lines:
            if a is b:
                continue
            scouted = [
                (card, shown, then) for card, shown, then in uses if a.first_seen_ms.get(card, math.inf) < shown.wall_ms
            ]
            if not scouted:
                continue
            card, shown, then = scouted[0]
            cards = len({card for card, _, _ in scouted})
            pairs.append(
                ScoutingPair(
                    scout=a.entrant.player,
                    scout_name=a.entrant.name,
                    player=b.entrant.player,
                    name=b.entrant.name,
                    cards=cards,
                    first_ms=then.wall_ms,
                    example=ScoutedUse(
                        card=card.code,
                        scout_ms=a.first_seen_ms[card],
                        revealed_ms=shown.wall_ms,
                        move=then.move,
                        gap_ms=then.time_ms - shown.time_ms,
                    ),
                    flagged=cards >= limits.scout_min_cards,
                )
            )
    pairs.sort(key=lambda p: (-p.cards, p.first_ms, p.player, p.scout))
    return pairs


def _percentile(ordered: Sequence[int], share: float) -> int:
    """The nearest-rank percentile of sorted ``ordered`` (not empty), ``share`` in [0, 1]."""
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def move_times(line: _Line, limits: FairPlayLimits) -> MoveTimes:
    """The entrant's move-time statistics (ms) over the moves it chose itself."""
    entrant = line.entrant
    gaps, quick = [], 0
    previous: Step | None = None
    for step in line.steps:
        if step.assisted:
            previous = step
            continue
        if previous is not None:
            gap = step.time_ms - previous.time_ms
            gaps.append(gap)
            quick += bool(previous.uncovered) and gap < limits.reflex_ms
        previous = step
    chosen = sum(not s.assisted for s in line.steps)
    if not gaps:
        return MoveTimes(player=entrant.player, name=entrant.name, moves=chosen, quick_after_reveal=quick)
    gaps.sort()
    return MoveTimes(
        player=entrant.player,
        name=entrant.name,
        moves=chosen,
        median_ms=int(statistics.median(gaps)),
        p10_ms=_percentile(gaps, 0.10),
        spread_ms=_percentile(gaps, 0.75) - _percentile(gaps, 0.25),
        quick_after_reveal=quick,
    )


# The clock's bound on one valuation, per move tried (seconds): 25 times or more what one costs
# (Klondike, 80 to 300 moves tried: 0.16 to 0.4 ms a move on this project's two-core machine).
_SECONDS_A_NODE = 0.01


def _value(game: Game, nodes: int) -> tuple[int, int]:
    """The all-seeing solver's value of ``game``'s position: won (2), unknown (1) or lost (0)
    within ``nodes`` moves tried, then the most cards it cleared."""
    from solver import Budget, solve  # (the solver is loaded only where the report is worked out)

    # (the generic search: its moves tried mean the same in every game, which a game's exact
    # search, counting its own larger steps, does not). The moves tried bound it; the clock is
    # only a safety net, far above what they take, so a loaded machine values alike.
    verdict = solve(game, Budget(nodes=nodes, seconds=nodes * _SECONDS_A_NODE), exact=False)
    return ({"lost": 0, "unknown": 1, "won": 2}[verdict.result], verdict.best_cleared)


def _best(game: Game, nodes: int) -> set[str]:
    """The legal moves of ``game`` whose positions the solver values highest."""
    values: dict[str, tuple[int, int]] = {}
    for move in game.legal_moves():
        child = game.copy()
        child.apply_checked(move)
        values[str(move)] = _value(child, nodes)
    top = max(values.values())
    return {m for m, v in values.items() if v == top}


def _blind(game: Game, rng: random.Random) -> Game:
    """A copy of ``game`` with its face-down cards shuffled among their places."""
    twin = game.copy()
    hidden = [pile for pile in twin.piles.values() if pile.down]
    cards = [card for pile in hidden for card in pile.cards[: pile.down]]
    rng.shuffle(cards)
    for pile in hidden:
        pile.cards[: pile.down], cards = cards[: pile.down], cards[pile.down :]
    return twin


def _sample(game_cls: type[Game], deal: DealLog, line: _Line, limits: FairPlayLimits) -> list[tuple[str, str]]:
    """Up to ``limits.positions`` (position, the entrant's move) pairs, evenly spread over the
    moves it chose at a position with a face-down card and 2 to ``max_legal`` legal moves."""
    game = game_cls(deal.seed, **deal.options)
    candidates = []
    for step in line.steps:
        if not step.assisted and step.move != "undo" and any(p.down for p in game.piles.values()):
            if 2 <= len(game.legal_moves()) <= limits.max_legal:
                candidates.append((game.position(), step.move))
        game.apply(step.move)
    if len(candidates) <= limits.positions:
        return candidates
    every = len(candidates) / limits.positions
    return [candidates[int(i * every)] for i in range(limits.positions)]


def solver_agreement(
    game_cls: type[Game], deal: DealLog, lines: Sequence[_Line], limits: FairPlayLimits
) -> list[SolverAgreement]:
    """Each entrant's agreement with the all-seeing solver where only hidden knowledge prefers
    its choice (module docstring), within ``limits.seconds`` for the whole deal."""
    deadline = time.monotonic() + limits.seconds
    samples = [_sample(game_cls, deal, line, limits) for line in lines]
    counted = [0] * len(lines)
    agreed = [0] * len(lines)
    looked = [0] * len(lines)
    for round_ in range(limits.positions):
        for i, positions in enumerate(samples):
            if round_ >= len(positions) or time.monotonic() > deadline:
                continue
            position, chosen = positions[round_]
            game = game_cls.from_position(position)
            looked[i] += 1
            seeing = _best(game, limits.nodes)
            if len(seeing) != 1:
                continue
            rng = random.Random(f"{deal.seed}:{lines[i].entrant.player}:{round_}")
            if seeing <= _best(_blind(game, rng), limits.nodes):
                continue
            counted[i] += 1
            agreed[i] += chosen in seeing
    report = []
    for i, line in enumerate(lines):
        rate = agreed[i] / counted[i] if counted[i] else 0.0
        report.append(
            SolverAgreement(
                player=line.entrant.player,
                name=line.entrant.name,
                looked=looked[i],
                positions=counted[i],
                agreed=agreed[i],
                rate=round(rate, 3),
                flagged=counted[i] >= limits.min_positions and rate >= limits.agreement_rate,
            )
        )
    return report


def analyse_deal(deal: DealLog, races: Sequence[str], limits: FairPlayLimits, *, solver: bool = True) -> FairPlayDeal:
    """The whole report of ``deal`` (races: the codes of its races). ``solver``: False leaves
    out solver agreement (each entrant is listed with nothing looked at). Raises
    `engine.core.EngineError` for a log that does not replay, `engine.games.UnknownGame`."""
    game_cls = find_game(deal.game)
    lines = [_replay(game_cls, deal, entrant) for entrant in deal.entrants]
    if solver:
        agreement = solver_agreement(game_cls, deal, lines, limits)
    else:
        agreement = [SolverAgreement(player=line.entrant.player, name=line.entrant.name) for line in lines]
    return FairPlayDeal(
        deal=deal.deal,
        races=list(races),
        scouting=scouting_pairs(lines, limits),
        agreement=agreement,
        times=[move_times(line, limits) for line in lines],
        solver=solver,
    )
