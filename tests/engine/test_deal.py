"""Deterministic deals (engine/deal.py), checked against pinned vectors and an independent
reimplementation of the specification in docs/deals.md."""

import ast
import hashlib
import hmac
from collections import Counter
from pathlib import Path

import pytest

import engine.deal
from engine.cards import new_pack
from engine.deal import DEAL_VERSION, MAX_SEED, check_seed, random_seed, shuffled
from engine.games import GAMES, find_game

VECTORS = Path(__file__).with_name("deal_vectors.txt")
SEEDS = (0, 1, 42, 2**63 - 1)


def read_vectors():
    rows = []
    for line in VECTORS.read_text(encoding="ascii").splitlines():
        if line.strip() and not line.startswith("#"):
            key, seed, *cards = line.split()
            rows.append((key, int(seed), cards))
    return rows


def reference_shuffle(game, seed, packs):
    """The version 1 shuffle, written again from the specification alone."""
    cards = [str(c) for c in new_pack(packs)]
    stream = b""
    block = 0
    pos = 0

    def word():
        nonlocal stream, block, pos
        while pos + 4 > len(stream):
            msg = f"{game}:{seed}:{block}".encode("ascii")
            stream += hmac.new(b"patience-arena/deal/v1", msg, hashlib.sha256).digest()
            block += 1
        value = int.from_bytes(stream[pos : pos + 4], "big")
        pos += 4
        return value

    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        while (x := word()) >= 2**32 - 2**32 % n:
            pass
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def test_deal_version_is_one():
    assert DEAL_VERSION == 1


def test_the_vector_file_covers_every_game_and_seed():
    covered = {(key, seed) for key, seed, _ in read_vectors()}
    assert covered == {(game.key, seed) for game in GAMES for seed in SEEDS}


@pytest.mark.parametrize("key,seed,cards", read_vectors(), ids=lambda v: str(v)[:20])
def test_deals_match_the_pinned_vectors(key, seed, cards):
    game = find_game(key)
    assert [str(c) for c in shuffled(key, seed, game.packs)[:10]] == cards


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.key)
@pytest.mark.parametrize("seed", SEEDS + (7, 123456789))
def test_deals_match_an_independent_implementation_of_the_specification(game, seed):
    assert [str(c) for c in shuffled(game.key, seed, game.packs)] == reference_shuffle(game.key, seed, game.packs)


@pytest.mark.parametrize("seed", [0, 99])
def test_two_pack_deals_follow_the_same_specification(seed):
    cards = shuffled("two_pack_example", seed, 2)
    assert [str(c) for c in cards] == reference_shuffle("two_pack_example", seed, 2)
    assert Counter(cards) == Counter(new_pack(2))


def test_the_first_swap_picks_the_last_card_from_the_first_four_bytes_of_block_zero():
    # Fisher-Yates starts at index 51: the card that lands there is never touched again.
    digest = hmac.new(b"patience-arena/deal/v1", b"klondike:42:0", hashlib.sha256).digest()
    x = int.from_bytes(digest[:4], "big")
    assert x < 2**32 - 2**32 % 52  # a rejection here has odds of about 1 in 90 million
    assert shuffled("klondike", 42)[51] == new_pack()[x % 52]


def test_a_word_at_or_above_the_rejection_limit_is_skipped(monkeypatch):
    # For n = 52 the limit is 2**32 - 48; the words 2**32 - 1 and 2**32 - 48 must both be skipped,
    # 5 is then read, so the last card is the sixth card of a new pack; every later word is 0.
    def fake_stream(game, seed):
        yield 2**32 - 1
        yield 2**32 - 48
        yield 5
        while True:
            yield 0

    monkeypatch.setattr(engine.deal, "_stream", fake_stream)
    cards = shuffled("klondike", 0)
    pack = new_pack()
    assert cards[51] == pack[5]
    # With j = 0 from there on, each step swaps cards[i] with cards[0].
    expected = list(pack)
    expected[51], expected[5] = expected[5], expected[51]
    for i in range(50, 0, -1):
        expected[i], expected[0] = expected[0], expected[i]
    assert cards == expected


def test_the_limit_just_below_is_accepted(monkeypatch):
    def fake_stream(game, seed):
        yield 2**32 - 49  # the largest accepted word for n = 52: (2**32 - 49) % 52 == 51
        while True:
            yield 0

    monkeypatch.setattr(engine.deal, "_stream", fake_stream)
    assert shuffled("klondike", 0)[51] == new_pack()[(2**32 - 49) % 52]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.key)
def test_every_deal_is_a_permutation_of_the_pack(game):
    for seed in range(200):
        cards = shuffled(game.key, seed, game.packs)
        assert Counter(cards) == Counter(new_pack(game.packs))


def test_the_same_game_and_seed_always_deal_the_same_order():
    assert shuffled("klondike", 5) == shuffled("klondike", 5)


def test_different_games_and_seeds_deal_different_orders():
    assert shuffled("klondike", 5) != shuffled("klondike", 6)
    assert shuffled("klondike", 5) != shuffled("golf", 5)


def test_a_new_game_deals_from_its_own_key():
    klondike = find_game("klondike")(seed=42)
    order = shuffled("klondike", 42)
    assert klondike.piles["t0"].cards == order[:1]
    assert klondike.piles["t6"].cards == order[21:28]


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, True, False, "3", None])
def test_seeds_outside_the_range_are_refused(seed):
    with pytest.raises(ValueError):
        shuffled("klondike", seed)
    with pytest.raises(ValueError):
        check_seed(seed)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.key)
def test_a_game_refuses_a_bad_seed(game):
    with pytest.raises(ValueError):
        game(seed=-1)


def test_the_extreme_seeds_are_accepted():
    assert check_seed(0) == 0
    assert check_seed(MAX_SEED) == MAX_SEED == 2**63 - 1


def test_random_seeds_are_in_range():
    for _ in range(20):
        assert 0 <= check_seed(random_seed()) <= MAX_SEED


def test_the_deal_module_does_not_import_random():
    tree = ast.parse(Path(engine.deal.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert "random" not in imported
    assert "numpy" not in imported
