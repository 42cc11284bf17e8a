"""Deal catalogs: every listed winning move list wins its deal; races and tournaments draw from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.connection import ArenaClient, ArenaError
from engine.games import GAMES
from server.catalog import CatalogEntry, CatalogError, draw_seeds, format_catalog, load_catalog, parse_catalog, replay
from server.service import ArenaServer, ServerConfig

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
CATALOGS = sorted(SEEDS.glob("*.txt"))


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.stem)
def test_every_listed_solution_wins_its_deal(path):
    entries = parse_catalog(path.read_text())
    assert len(entries) >= 5 and len({e.seed for e in entries}) == len(entries)
    assert all(replay(path.stem, entry) for entry in entries)


#: Games the bot has never won (0 of 1,000 deals): no catalog until a solver finds winnable deals.
NO_CATALOG_YET = {"friday_13", "generals_patience", "besieged_city", "little_spider", "strategy"}


def test_every_game_the_bot_can_win_has_a_catalog():
    assert {g.key for g in GAMES} - NO_CATALOG_YET == {p.stem for p in CATALOGS}


def test_a_wrong_move_list_does_not_count_as_a_win():
    entry = parse_catalog((SEEDS / "golf.txt").read_text())[0]
    assert not replay("golf", CatalogEntry(entry.seed, entry.moves[:-1]))
    assert not replay("golf", CatalogEntry(entry.seed + 100_000, entry.moves))


def test_catalog_text_round_trips_and_bad_lines_are_named():
    entries = [CatalogEntry(5, ("deal", "r1>f0")), CatalogEntry(9, ("exchange t4.2",))]
    assert parse_catalog(format_catalog("golf", entries, "made by hand")) == entries
    with pytest.raises(CatalogError, match="line 2"):
        parse_catalog("# head\nseven: deal\n")


def test_seeds_are_drawn_without_repeats_and_a_small_catalog_is_refused():
    entries = [CatalogEntry(s, ()) for s in (1, 2, 3)]
    assert sorted(draw_seeds(entries, 3)) == [1, 2, 3]
    with pytest.raises(CatalogError):
        draw_seeds(entries, 4)


async def test_a_practice_race_can_ask_for_a_winnable_deal_from_the_public_catalog(tmp_path):
    """A race whose seed is public anyway may draw from the public catalog; without one for the
    game it gets no_catalog."""
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        async with await ArenaClient.connect(server.url, "ann") as ann:
            info = await ann.create_race("golf", winnable=True, seed_public=True)
            assert info.seed in {e.seed for e in load_catalog(SEEDS, "golf")}
    async with ArenaServer(ServerConfig(ping_interval_s=None, catalog_dir=tmp_path)) as server:
        async with await ArenaClient.connect(server.url, "ann") as ann:
            with pytest.raises(ArenaError) as caught:
                await ann.create_race("golf", winnable=True, seed_public=True)
            assert caught.value.code == "no_catalog"
