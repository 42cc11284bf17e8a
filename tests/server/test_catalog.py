"""Deal catalogs: every listed winning move list wins its deal; races and tournaments draw from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.connection import ArenaClient, ArenaError
from engine.games import GAMES
from server.app import ArenaServer
from server.catalog import (
    CatalogEntry,
    CatalogError,
    DealSource,
    draw_seeds,
    format_catalog,
    load_catalog,
    parse_catalog,
    public_catalogs,
    replay,
)
from server.config import ServerConfig

SEEDS = public_catalogs()
CATALOGS = sorted(SEEDS.glob("*.txt"))


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.stem)
def test_every_listed_solution_wins_its_deal(path):
    entries = parse_catalog(path.read_text())
    assert len(entries) >= 5 and len({e.seed for e in entries}) == len(entries)
    assert all(replay(path.stem, entry) for entry in entries)


#: Games the bot has never won (0 of 1,000 deals): no catalog until a solver finds winnable deals.
NO_CATALOG_YET: set[str] = set()


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


def test_a_catalog_folder_that_is_not_there_is_named_as_missing(tmp_path):
    """A public catalog folder that does not exist (a wrong --catalog) says so, rather than that
    it holds no deals."""
    with pytest.raises(CatalogError, match="there is no catalog folder"):
        DealSource(tmp_path / "nowhere", private=False).draw("golf", 1)
    assert DealSource(public_catalogs(), private=False).draw("golf", 2)


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


# ------------------------------------------------------------------ winnable deals stay secret


def private_catalog(folder: Path, game: str, count: int) -> list[int]:
    """A private catalog of ``count`` winnable deals of ``game`` for a test: entries copied from
    the public catalog, so that no bot has to find them (a real private catalog holds fresh
    secret seeds: see the command's test below). Returns their seeds."""
    entries = parse_catalog((SEEDS / f"{game}.txt").read_text())[:count]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{game}.txt").write_text(format_catalog(game, entries, "test"))
    return [e.seed for e in entries]


async def test_a_winnable_tournament_without_a_private_catalog_is_refused(tmp_path):
    """The public catalogs never serve a secret deal: an organiser asking for winnable deals on a
    server without a private catalog gets no_private_catalog and no tournament."""
    config = ServerConfig(ping_interval_s=None, admin_token="s3cret")
    async with ArenaServer(config) as server:
        async with await ArenaClient.connect(server.url, "org") as org:
            with pytest.raises(ArenaError) as caught:
                await org.create_tournament(
                    "s3cret", "Open book", "klondike", 2, winnable=True, starts_at="2099-01-01T20:00:00+00:00"
                )
            assert caught.value.code == "no_private_catalog"
            assert "--private" in caught.value.reason
            assert server.tournaments == {}
            with pytest.raises(ArenaError) as caught:
                await org.create_race("klondike", winnable=True)  # a secret seed: private only
            assert caught.value.code == "no_private_catalog"


async def test_secret_winnable_deals_come_from_the_private_catalog_and_are_never_drawn_twice(tmp_path):
    """Drawn seeds come from the private catalog only, are written to its .used file, and are
    never drawn again, by this server or the next one; when the unused ones run out, the
    request is refused."""
    private = tmp_path / "private"
    seeds = private_catalog(private, "golf", 3)
    config = ServerConfig(ping_interval_s=None, admin_token="s3cret", private_catalog_dir=private)
    async with ArenaServer(config) as server:
        async with await ArenaClient.connect(server.url, "org") as org:
            info = await org.create_tournament(
                "s3cret", "Golf night", "golf", 2, winnable=True, starts_at="2099-01-01T20:00:00+00:00"
            )
            drawn = list(server.tournaments[info.id].plan.seeds)
            assert info.seeds is None and set(drawn) <= set(seeds)
            race = await org.create_race("golf", winnable=True)
            assert race.seed is None and server.races[race.code].seed in set(seeds) - set(drawn)
            with pytest.raises(ArenaError) as caught:
                await org.create_race("golf", winnable=True)
            assert caught.value.code == "no_private_catalog"
    used = {int(line) for line in (private / "golf.used").read_text().split()}
    assert used == set(seeds)
    async with ArenaServer(config) as server:  # a restarted server remembers what was drawn
        async with await ArenaClient.connect(server.url, "org") as org:
            with pytest.raises(ArenaError) as caught:
                await org.create_tournament(
                    "s3cret", "Again", "golf", 1, winnable=True, starts_at="2099-01-01T20:00:00+00:00"
                )
            assert caught.value.code == "no_private_catalog"


def test_the_private_catalog_command_makes_fresh_secret_seeds(tmp_path):
    """`arena catalog GAME --private DIR`, typed in a shell: winnable deals under fresh random
    seeds (none from the public catalog), each with a line that wins it, readable by the owner only."""
    import os
    import stat
    import subprocess
    import sys

    folder = tmp_path / "secret"
    arena = Path(sys.executable).parent / "arena"
    done = subprocess.run(
        [str(arena), "catalog", "clock", "--count", "3", "--private", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "(private: keep it secret)" in done.stderr and "(secret)" in done.stdout
    entries = parse_catalog((folder / "clock.txt").read_text())
    assert len(entries) == 3 and all(replay("clock", e) for e in entries)
    public = {e.seed for e in load_catalog(SEEDS, "clock")}
    assert not {e.seed for e in entries} & public and min(e.seed for e in entries) > 1_000_000
    assert stat.S_IMODE(os.stat(folder / "clock.txt").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
