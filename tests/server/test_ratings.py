"""Ratings per game (server/ratings.py) and their storage in the archive.

The model: one update checked against a hand computation from the Plackett-Luce equations of
Weng & Lin (2011), Algorithm 4, written out here (not through openskill). The archive's rating
contract over every backend (memory, SQLite, a real PostgreSQL): a race applied twice changes
nothing, a stale update is refused whole, the board's order, paging, "around me" and active
filter, the history, and the board query read through its index (the database's own plan).
"""

from __future__ import annotations

import asyncio
import math
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from server.archive import Archive, ArchiveError, RatingConflict, RatingUpdate, open_archive
from server.archive.schema import BOARD_INDEX
from server.archive.sql import SqlArchive, async_url
from server.ratings import (
    MODEL,
    PROVISIONAL_SIGMA,
    Entrant,
    Rating,
    display,
    is_rated,
    new_rating,
    provisional,
    rate,
    shown,
)


def hand_update(entrants: list[tuple[float, float, int]]) -> list[tuple[float, float]]:
    """The new ``(mu, sigma)`` of each ``(mu, sigma, place)``, from Weng & Lin (2011), Algorithm 4
    (Plackett-Luce), one player per team, as openskill applies it:

    - dynamics first: sigma_i^2 <- sigma_i^2 + tau^2;
    - c = sqrt(sum_i (sigma_i^2 + beta^2));
    - C_q = {s : r(s) >= r(q)} (those placed at q's place or worse), A_q = |{s : r(s) = r(q)}|;
    - p_{i,q} = exp(mu_i / c) / sum_{s in C_q} exp(mu_s / c);
    - Omega_i = (sigma_i^2 / c) sum_{q : r(q) <= r(i)} ([q = i] - p_{i,q}) / A_q;
    - Delta_i = gamma_i (sigma_i^2 / c^2) sum_{q : r(q) <= r(i)} p_{i,q} (1 - p_{i,q}) / A_q,
      with gamma_i = sigma_i / c;
    - mu_i <- mu_i + Omega_i; sigma_i <- sigma_i sqrt(max(1 - Delta_i, kappa)).

    Entrants of one place tie through A_q and C_q only: each still moves by its own Omega.
    (openskill 6.2's code also means to give tied entrants the mean of their mu changes, but it
    takes that mean after writing the new mu over the old, so the mean change is 0 and the
    update is the paper's; this test holds it to the paper.)
    """
    beta, tau, kappa = 25 / 6, 25 / 300, 0.0001
    mus = [mu for mu, _, _ in entrants]
    variances = [sigma**2 + tau**2 for _, sigma, _ in entrants]
    places = [place for _, _, place in entrants]
    n = len(entrants)
    c = math.sqrt(sum(v + beta**2 for v in variances))
    weights = [math.exp(mu / c) for mu in mus]
    sums = [sum(weights[s] for s in range(n) if places[s] >= places[q]) for q in range(n)]
    tied = [sum(1 for s in range(n) if places[s] == places[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if places[q] <= places[i]:
                p = weights[i] / sums[q]
                omega += ((1.0 if q == i else 0.0) - p) / tied[q]
                delta += p * (1 - p) / tied[q]
        omega *= variances[i] / c
        delta *= (math.sqrt(variances[i]) / c) * variances[i] / c**2
        out.append((mus[i] + omega, math.sqrt(variances[i]) * math.sqrt(max(1 - delta, kappa))))
    return out


def test_one_update_matches_the_plackett_luce_equations_with_a_tie():
    assert (MODEL.beta, MODEL.tau, MODEL.kappa) == (25 / 6, 25 / 300, 0.0001)  # the hand computation's
    given = [
        Entrant("bo", 2, Rating(25.0, 25 / 3, 0)),
        Entrant("ada", 1, Rating(27.0, 6.0, 3)),
        Entrant("cy", 2, Rating(30.0, 4.0, 10)),  # tied with bo for second
    ]
    after = rate(given)
    expected = hand_update([(e.rating.mu, e.rating.sigma, e.place) for e in given])
    for entrant, (mu, sigma) in zip(given, expected):
        got = after[entrant.player_id]
        assert got.mu == pytest.approx(mu, abs=1e-9), entrant.player_id
        assert got.sigma == pytest.approx(sigma, abs=1e-9), entrant.player_id
        assert got.races == entrant.rating.races + 1
        assert got.sigma < entrant.rating.sigma
    assert after["ada"].mu > 27.0  # the winner gains
    assert after["bo"].mu < 25.0 and after["cy"].mu < 30.0  # tied behind the winner: both lose


def test_display_provisional_and_eligibility():
    fresh = new_rating()
    assert fresh == Rating(25.0, 25 / 3, 0)
    assert display(fresh) == pytest.approx(1000.0)
    assert provisional(fresh) and shown(fresh) == "1000?"
    settled = Rating(30.0, PROVISIONAL_SIGMA - 0.1, 40)
    assert not provisional(settled)
    assert shown(settled) == str(round(1000 + 40 * (30.0 - 3 * (PROVISIONAL_SIGMA - 0.1))))
    with pytest.raises(ValueError):
        rate([Entrant("solo", 1, fresh)])
    with pytest.raises(ValueError):
        rate([Entrant("a", 1, fresh), Entrant("a", 2, fresh)])
    assert is_rated(claimed_players=2, secret_seed=True, bots=0, chosen=True)
    assert not is_rated(claimed_players=1, secret_seed=True, bots=0, chosen=True)
    assert not is_rated(claimed_players=3, secret_seed=False, bots=0, chosen=True)
    assert not is_rated(claimed_players=3, secret_seed=True, bots=1, chosen=True)
    assert not is_rated(claimed_players=3, secret_seed=True, bots=0, chosen=False)


@pytest.fixture
def archive_url(request, tmp_path):
    """A URL of an empty archive of the backend ``request.param``."""
    kind = request.param
    if kind == "memory":
        return "memory://"
    if kind == "sqlite":
        return f"sqlite:///{tmp_path}/archive/races.db"
    server = request.getfixturevalue("postgres_server")
    return server.create_database(f"ratings_{uuid.uuid4().hex[:12]}")


@pytest.fixture
async def archive(archive_url):
    kept = open_archive(archive_url)
    await kept.open()
    yield kept
    await kept.close()


every_backend = pytest.mark.parametrize("archive_url", ["memory", "sqlite", "postgresql"], indirect=True)
sql_backends = pytest.mark.parametrize("archive_url", ["sqlite", "postgresql"], indirect=True)


async def play(archive: Archive, code: str, game: str, places: dict[str, int], finished_ms: int) -> bool:
    """Rate one race the way the race code will: read, compute, apply."""
    kept = {}
    for player in places:
        found = [row.rating for row in await archive.ratings_of(player) if row.game == game]
        kept[player] = found[0] if found else new_rating()
    after = rate([Entrant(player, place, kept[player]) for player, place in places.items()])
    updates = [RatingUpdate(player, kept[player], after[player]) for player in places]
    return await archive.apply_ratings(code, game, finished_ms, updates)


@every_backend
async def test_a_race_applied_twice_changes_nothing(archive: Archive):
    assert await play(archive, "R1", "klondike", {"ada": 1, "bo": 2, "cy": 2}, 1_000) is True
    first = await archive.ratings_of("ada")
    assert [(row.game, row.rating.races, row.updated_ms) for row in first] == [("klondike", 1, 1_000)]
    assert first[0].ordinal == pytest.approx(display(first[0].rating))
    # the same race again (a retry, a takeover): refused by code, whatever it carries
    again = [RatingUpdate("ada", first[0].rating, Rating(40.0, 1.0, 2))]
    assert await archive.apply_ratings("R1", "klondike", 1_000, again) is False
    assert await archive.ratings_of("ada") == first
    assert len(await archive.rating_history("ada", "klondike", 10)) == 1
    # another game is another rating
    assert await play(archive, "R2", "freecell", {"ada": 2, "bo": 1}, 2_000) is True
    assert [row.game for row in await archive.ratings_of("ada")] == ["freecell", "klondike"]
    assert await play(archive, "R3", "klondike", {"ada": 1, "cy": 2}, 3_000) is True
    history = await archive.rating_history("ada", "klondike", 10)
    assert [(line.race_code, line.finished_ms, line.before.races, line.after.races) for line in history] == [
        ("R3", 3_000, 1, 2),
        ("R1", 1_000, 0, 1),
    ]
    assert history[1].before == new_rating() and history[0].before == history[1].after
    assert (await archive.ratings_of("ada"))[1].rating == history[0].after
    assert [line.race_code for line in await archive.rating_history("ada", "klondike", 1)] == ["R3"]
    assert await archive.ratings_of("nobody") == []
    with pytest.raises(ArchiveError):
        await archive.rating_history("ada", "klondike", 0)
    with pytest.raises(ArchiveError):
        await archive.apply_ratings("R9", "klondike", 9_000, [])


@every_backend
async def test_a_stale_update_is_refused_whole(archive: Archive):
    """Two races read the same ratings; the second to apply finds them changed: nothing of it is
    written (not even the players whose rating did not change), and applied anew it lands."""
    await play(archive, "S1", "klondike", {"ada": 1, "bo": 2}, 1_000)
    ada, bo = (await archive.ratings_of("ada"))[0].rating, (await archive.ratings_of("bo"))[0].rating
    stale_cy = new_rating()
    await play(archive, "S2", "klondike", {"ada": 2, "bo": 1}, 2_000)
    after = rate([Entrant("cy", 1, stale_cy), Entrant("ada", 2, ada)])
    with pytest.raises(RatingConflict):
        await archive.apply_ratings(
            "S3", "klondike", 3_000, [RatingUpdate("cy", stale_cy, after["cy"]), RatingUpdate("ada", ada, after["ada"])]
        )
    assert await archive.ratings_of("cy") == []
    assert [line.race_code for line in await archive.rating_history("ada", "klondike", 5)] == ["S2", "S1"]
    assert (await archive.ratings_of("bo"))[0].rating != bo
    assert await play(archive, "S3", "klondike", {"cy": 1, "ada": 2}, 3_000) is True
    assert (await archive.ratings_of("cy"))[0].rating.races == 1


async def seed_board(archive: Archive, count: int) -> list[tuple[float, str, int]]:
    """``count`` players in klondike, one rated race each against a shared opponent who is
    applied as a plain update (so each player's rating is chosen: mu spread out, some tied),
    active at times that alternate old and new; returns ``(ordinal, id, updated_ms)`` of each."""
    rows = []
    for i in range(count):
        player = f"p{i:03d}"
        after = Rating(20.0 + (i % 7), 5.0, 1)  # seven distinct values: many ties broken by id
        finished = 1_000 if i % 3 == 0 else 5_000
        await archive.apply_ratings(f"B{i}", "klondike", finished, [RatingUpdate(player, new_rating(), after)])
        rows.append((display(after), player, finished))
    await archive.apply_ratings("OTHER", "freecell", 5_000, [RatingUpdate("p001", new_rating(), Rating(50, 1, 1))])
    return rows


@every_backend
async def test_the_board_pages_best_first_and_filters_the_inactive(archive: Archive):
    seeded = await seed_board(archive, 40)
    best_first = sorted(seeded, reverse=True)
    seen, cursor, pages = [], None, 0
    while True:
        rows, cursor = await archive.rating_board("klondike", active_since_ms=0, after=cursor, limit=7)
        pages += 1
        assert 1 <= len(rows) <= 7 and all(row.game == "klondike" for row in rows)
        seen += [row.player_id for row in rows]
        if cursor is None:
            break
    assert pages == 6 and seen == [player for _, player, _ in best_first]
    active = [player for _, player, ms in best_first if ms >= 3_000]
    rows, cursor = await archive.rating_board("klondike", active_since_ms=3_000, limit=len(active))
    assert [row.player_id for row in rows] == active and cursor is None
    rows, cursor = await archive.rating_board("klondike", active_since_ms=3_000, limit=5)
    rows2, _ = await archive.rating_board("klondike", active_since_ms=3_000, after=cursor, limit=5)
    assert [row.player_id for row in rows + rows2] == active[:10]
    # around me: my row with about half a page above it (active players only)
    me = active[12]
    rows, cursor = await archive.rating_board("klondike", active_since_ms=3_000, around=me, limit=6)
    assert [row.player_id for row in rows] == active[9:15]
    rows, _ = await archive.rating_board("klondike", active_since_ms=3_000, after=cursor, limit=2)
    assert [row.player_id for row in rows] == active[15:17]
    top = active[1]
    rows, _ = await archive.rating_board("klondike", active_since_ms=3_000, around=top, limit=6)
    assert [row.player_id for row in rows] == active[:6]  # near the top: more below instead
    assert await archive.rating_board("klondike", active_since_ms=0, around="nobody", limit=5) == ([], None)
    assert await archive.rating_board("chess", active_since_ms=0, limit=5) == ([], None)
    with pytest.raises(ArchiveError):
        await archive.rating_board("klondike", active_since_ms=0, after="nope", limit=5)
    with pytest.raises(ArchiveError):
        await archive.rating_board("klondike", active_since_ms=0, limit=0)
    with pytest.raises(ArchiveError):
        await archive.rating_board("klondike", active_since_ms=0, after=cursor, around=me, limit=5)


@sql_backends
async def test_concurrent_applies_of_one_race_land_once(archive: Archive):
    update = [RatingUpdate("ada", new_rating(), Rating(27.0, 7.0, 1))]
    results = await asyncio.gather(*(archive.apply_ratings("C1", "klondike", 1_000, update) for _ in range(6)))
    assert sorted(results) == [False] * 5 + [True]
    assert len(await archive.rating_history("ada", "klondike", 10)) == 1


@sql_backends
async def test_a_board_page_is_read_through_its_index(archive: SqlArchive, archive_url: str):
    """The plan of a board page names the board index, from the top and after a cursor, and
    sorts nothing; on PostgreSQL over 50,000 analysed ratings, half of them klondike's, so that the planner
    weighs a real table."""
    await seed_board(archive, 5)
    if archive.dialect == "postgresql":
        engine = create_async_engine(async_url(archive_url))
        async with engine.begin() as connection:
            await connection.execute(
                sa.text(
                    "INSERT INTO ratings (player_id, game, mu, sigma, races, ordinal, updated_ms)"
                    " SELECT 'x' || n, CASE WHEN n % 2 = 0 THEN 'klondike' ELSE 'g' || (n % 5) END, 25, 8, 1,"
                    " (n * 7919) % 10007, n"
                    " FROM generate_series(1, 50000) AS n"
                )
            )
            await connection.execute(sa.text("ANALYZE ratings"))
        await engine.dispose()
    _, cursor = await archive.rating_board("klondike", active_since_ms=0, limit=2)
    for game, after in (("klondike", None), ("klondike", cursor), ("g3", None)):
        plan = await archive.explain_board(game, 3_000, after, 20)
        assert BOARD_INDEX in plan, plan
        assert "TEMP B-TREE" not in plan.upper() and "Sort" not in plan, plan
