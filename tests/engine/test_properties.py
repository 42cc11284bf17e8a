"""Properties every game keeps, checked over seeded random playouts.

For each game, PLAYOUTS games are dealt from seeds 0, 1, 2... and played with moves picked at
random (reproducibly: `random.Random(seed)`) from `legal_moves()`, up to MOVE_CAP moves. After
every move the board must still hold the whole pack, the flags must agree with the counts, and
every card a move reports as revealed must lie face up where it says. Every VIEW_EVERY moves
(and at the end), every view must hide exactly what is face down, and the position string and
the notation of every legal move must round-trip. Every CHECK_EVERY moves (and at the end), a
wide set of candidate moves is tried as well: each legal one must be accepted, each other one
refused with `IllegalMove` and no change. At the end, replaying the history on a fresh deal must
rebuild the same position. A failure names the seed, so it can be replayed. (The checks are
spaced so that the playouts of every game fit the test suite's time on two cores.) `make test`,
the day-to-day loop, plays 20 of each (``ARENA_PLAYOUTS=20``); `make test-all` and CI play 200;
``ARENA_PLAYOUTS=1000 .venv/bin/pytest tests/engine`` is the long run (README, "Tests").
"""

import functools
import multiprocessing
import os
import random
import threading
from collections import Counter

import pytest

from engine.cards import UNKNOWN, new_pack
from engine.core import Audience, Game, IllegalCode, IllegalMove, Move
from engine.games import GAMES, find_game

PLAYOUTS = int(os.environ.get("ARENA_PLAYOUTS", "200"))
MOVE_CAP = 150
VIEW_EVERY = 3
CHECK_EVERY = 15
SAMPLED_TRANSFERS = 60  # of the candidate transfers, how many are tried at each check
CODES = set(IllegalCode)


def options_for(game_cls, seed):
    """Alternate every boolean rule option between playouts, so both settings are played."""
    return {name: bool((seed >> i) & 1) for i, name in enumerate(sorted(game_cls.options))}


@functools.cache
def candidate_transfers(game_cls):
    """Every transfer between two piles (the same pile included) with 1 to 3 cards, plus moves
    from and to a pile that does not exist."""
    ids = list(game_cls(0).piles) + ["z9"]
    return [Move(src=a, dst=b, count=n) for a in ids for b in ids for n in (1, 2, 3)]


ACTIONS = [
    Move.parse(text)
    for text in (
        "deal",
        "redeal",
        "turn",
        "exchange t0.0",
        "exchange t12.3",
        "exchange t4.9",
        "exchange f0.0",
        "exchange",
        "fly",
        "deal x",
        "redeal 2",
        "turn t0",
    )
]


def check_board(game, pack, where):
    """The invariants checked after every move; returns the legal moves."""
    cards = Counter(card for pile in game.piles.values() for card in pile.cards)
    assert cards == pack, f"{where}: the board does not hold exactly one pack"

    assert 0 <= game.cleared <= game.total, where
    assert game.won == (game.cleared == game.total), where
    legal = list(game.legal_moves())
    assert game.over == (not legal), where
    assert not game.won or game.over, where
    return legal


def check_views(game, legal, position, where):
    """Views hide exactly the face-down cards (and the stock); text forms round-trip."""
    for audience in Audience:
        view = game.view(audience)
        assert list(view.piles) == list(game.piles), where
        for pid, pile in game.piles.items():
            shown = view.piles[pid]
            assert len(shown) == len(pile.cards), f"{where}: {pid}"
            if pid == "s":
                expected = (UNKNOWN,) * len(pile.cards)
            else:
                expected = tuple(UNKNOWN if i < pile.down else card.code for i, card in enumerate(pile.cards))
            assert shown == expected, f"{where}: {audience} view of {pid} shows {shown}"
        assert (view.cleared, view.total, view.won, view.over, view.moves) == (
            game.cleared,
            game.total,
            game.won,
            game.over,
            len(game.history),
        ), where

    assert Game.from_position(position).position() == position, where
    for move in legal:
        assert Move.parse(str(move)) == move, f"{where}: {move!r}"


def check_moves(game, legal, rng, position, where):
    """Every legal move is accepted (on a copy); sampled other moves are refused, changing nothing."""
    for move in legal:
        twin = game.copy()
        twin.apply(move)
        assert twin.history[-1] == move, where
    transfers = candidate_transfers(type(game))
    for move in rng.sample(transfers, min(SAMPLED_TRANSFERS, len(transfers))) + ACTIONS:
        assert (move in game.legal_moves()) == (move in legal), f"{where}: {move} in/iter disagree"
        if move in legal:
            continue
        with pytest.raises(IllegalMove) as info:
            game.apply(move)
        assert info.value.code in CODES, f"{where}: {move} refused with {info.value.code!r}"
    assert game.position() == position, f"{where}: a refused move changed the position"


def playout(game_cls, seed):
    """Play one random game with every check; return it."""
    options = options_for(game_cls, seed)
    game = game_cls(seed, **options)
    pack = Counter(new_pack(game_cls.packs))
    rng = random.Random(seed)
    for step in range(MOVE_CAP + 1):
        where = f"{game_cls.key} seed={seed} options={options} after {step} moves"
        legal = check_board(game, pack, where)
        last = not legal or step == MOVE_CAP
        if step % VIEW_EVERY == 0 or step % CHECK_EVERY == 0 or last:
            position = game.position()
            where += f": {position!r}"
            check_views(game, legal, position, where)
            if step % CHECK_EVERY == 0 or last:
                check_moves(game, legal, rng, position, where)
        if last:
            break
        move = rng.choice(legal)
        for reveal in game.apply(move):
            pile = game.piles[reveal.pile]
            assert pile.cards[reveal.index] == reveal.card, f"{where}: {move} -> {reveal}"
            assert reveal.index >= pile.down, f"{where}: {move} revealed a face-down card"

    replay = game_cls(seed, **options)
    for move in game.history:
        replay.apply(str(move))
    assert replay.position() == game.position(), f"{game_cls.key} seed={seed}: replay differs"
    return game


def run_playouts(key, seeds):
    """Play the games of ``seeds``; count how they ended and the moves played."""
    game_cls = find_game(key)
    tally = Counter()
    for seed in seeds:
        game = playout(game_cls, seed)
        tally["won" if game.won else "lost" if game.over else "capped"] += 1
        tally["moves"] += len(game.history)
    return tally


def run_on_every_core(key, seeds):
    """`run_playouts`, spread over the machine's cores in forked workers.

    It runs serially on one core, where fork is missing, or while other threads run (forking
    a process with threads can deadlock the child). A worker's failure is raised again here,
    with its message (which names the seed).
    """
    workers = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 8)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return run_playouts(key, seeds)
    batches = [seeds[i::workers] for i in range(workers)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return sum(pool.starmap(run_playouts, [(key, batch) for batch in batches]), Counter())


#: Games whose every deal ends (won or lost) in fewer moves than MOVE_CAP, whatever is played.
ALWAYS_END = {"golf", "clock"}
#: Games where every card moves at most twice (turned card to a waste pile, waste pile to a
#: foundation), so that every deal ends within 104 moves.
ALWAYS_END |= {"calculation", "strategy", "try_again", "queens_quadrille"}
#: Removal games with one pass through the stock (each move discards cards, fills a space or
#: deals), Scorpion (each move but a deal puts a card on its next higher card of the suit, or a
#: King at the bottom of a pile), Double or Naught (a guess per six cards), Friday 13 (48 cards
#: turned twice, each played once).
ALWAYS_END |= {"baroness", "idiots_delight", "pyramid", "scorpion", "double_or_naught", "friday_13"}


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_random_playouts_keep_every_invariant(game_cls):
    tally = run_on_every_core(game_cls.key, list(range(PLAYOUTS)))
    assert tally["won"] + tally["lost"] + tally["capped"] == PLAYOUTS
    if game_cls.key in ALWAYS_END:
        assert tally["capped"] == 0, tally
    if game_cls.key in ("clock", "double_or_naught"):
        assert tally["won"] and tally["lost"], tally  # both endings are reached
