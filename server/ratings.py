"""Ratings per game: the Plackett-Luce model of Weng & Lin, "A Bayesian Approximation Method for
Online Ranking" (JMLR 12, 2011, Algorithm 4), through the `openskill` package's ``PlackettLuce``
(https://openskill.me), with that package's defaults: a new player's skill is a normal belief of
mean ``mu`` 25 and deviation ``sigma`` 25/3, the performance noise ``beta`` 25/6, and before each
race every sigma grows by the dynamics ``tau`` 25/300 (so a rating never freezes).

A rating is kept per player and game (`Rating`). A race of N entrants updates every entrant at once
from the final places (`rate`; equal places are a tie). What players see is the conservative
estimate ``mu - 3 sigma`` (the skill a player has with 99.7% confidence), scaled for display:
`display` = ``1000 + 40 (mu - 3 sigma)``, so a new player shows 1000 and it rises as races remove
the doubt. A rating whose sigma is still above `PROVISIONAL_SIGMA` is provisional (shown with
"?", `shown`).

Which races count is decided by `is_rated` (plain facts about the race, no I/O). This module only
computes; the archive keeps ratings (`server.archive.Archive.apply_ratings`).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from openskill.models import PlackettLuce

__all__ = [
    "DISPLAY_BASE",
    "DISPLAY_SCALE",
    "DISPLAY_Z",
    "MODEL",
    "PROVISIONAL_SIGMA",
    "Entrant",
    "Rating",
    "display",
    "is_rated",
    "new_rating",
    "provisional",
    "rate",
    "shown",
]

#: The model with openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 1e-4).
MODEL = PlackettLuce()
#: Standard deviations taken off mu for the conservative estimate (3: 99.7% confidence).
DISPLAY_Z = 3.0
#: Display points per unit of skill (mu - 3 sigma).
DISPLAY_SCALE = 40.0
#: What a new player (mu - 3 sigma = 0) shows.
DISPLAY_BASE = 1000.0
#: A rating with sigma above this (skill units; a new player's is 25/3, about 8.33) is
#: provisional: about 13 two-entrant races bring it under, fewer with more entrants.
PROVISIONAL_SIGMA = 5.0


class Rating(msgspec.Struct, frozen=True):
    """One player's rating in one game: ``mu`` (mean skill) and ``sigma`` (its standard deviation),
    both in the model's skill units (a new player: 25 and 25/3), and ``races``, how many rated
    races it came from."""

    mu: float
    sigma: float
    races: int = 0


class Entrant(msgspec.Struct, frozen=True):
    """One entrant of a finished rated race: ``player_id``, its final ``place`` (1 is first;
    equal places are a tie) and its ``rating`` in the race's game before the race."""

    player_id: str
    place: int
    rating: Rating


def new_rating() -> Rating:
    """The rating of a player who has not played a rated race of the game: the model's prior."""
    return Rating(mu=MODEL.mu, sigma=MODEL.sigma, races=0)


def rate(entrants: Sequence[Entrant]) -> dict[str, Rating]:
    """The ratings after one race, by player id, for every entrant (each ``races`` + 1): one
    Plackett-Luce update from the final places, each entrant its own team (equal places tie: they
    count as one place in the model's sums, A_q and C_q of the paper). Raises ValueError for fewer than two
    entrants, a place below 1, or a player listed twice."""
    if len(entrants) < 2:
        raise ValueError(f"a rated race needs at least two entrants, not {len(entrants)}")
    ids = [entrant.player_id for entrant in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError("a player is listed twice among the entrants")
    if any(entrant.place < 1 for entrant in entrants):
        raise ValueError("places start at 1")
    teams = [[MODEL.rating(mu=entrant.rating.mu, sigma=entrant.rating.sigma)] for entrant in entrants]
    after = MODEL.rate(teams, ranks=[float(entrant.place) for entrant in entrants])
    return {
        entrant.player_id: Rating(mu=team[0].mu, sigma=team[0].sigma, races=entrant.rating.races + 1)
        for entrant, team in zip(entrants, after, strict=True)
    }


def display(rating: Rating) -> float:
    """The value shown and ranked by (display points, unrounded): ``1000 + 40 (mu - 3 sigma)``."""
    return DISPLAY_BASE + DISPLAY_SCALE * (rating.mu - DISPLAY_Z * rating.sigma)


def provisional(rating: Rating) -> bool:
    """True while the rating's uncertainty (sigma, skill units) is above `PROVISIONAL_SIGMA`."""
    return rating.sigma > PROVISIONAL_SIGMA


def shown(rating: Rating) -> str:
    """The rating as players read it: the rounded `display` value, with "?" while `provisional`
    (``"1000?"``, ``"1187"``)."""
    return f"{round(display(rating))}{'?' if provisional(rating) else ''}"


def is_rated(*, claimed_players: int, secret_seed: bool, bots: int, chosen: bool) -> bool:
    """Whether a finished race updates ratings: at least two entrants with a claimed name
    (``claimed_players``), a deal whose seed stayed secret until the end (``secret_seed``: not a
    practice deal, a replayed seed or a public catalog deal), no bot among the entrants
    (``bots``), and the creator's or organiser's choice to rate it (``chosen``)."""
    return chosen and secret_seed and bots == 0 and claimed_players >= 2
