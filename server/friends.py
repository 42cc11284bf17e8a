"""Friends in a server's memory: the challenges waiting for each player (`Invitations`) and what
a node sees of a player's presence (`presence`).

A challenge (`server.handlers.friends.challenge`) creates a race and invites one player to it;
the invitation waits here, in memory, until that player joins or declines it, or its race stops
taking entrants (it started, or expired after ``open_race_ttl_s``). Bounds: each player keeps at
most `INVITATIONS_KEPT` invitations (the oldest go first), each leaves memory at the latest
``open_race_ttl_s`` after it was made, and each challenger may send ``challenges_per_hour``.

>>> kept = Invitations(ttl_s=60.0)
>>> kept.add("p-bea", Invitation(race="AB12CD", game="golf", from_player="p-ann", from_name="ann"), now=0.0)
>>> [i.race for i in kept.pending("p-bea", lambda code: True, now=1.0)]
['AB12CD']
>>> kept.pending("p-bea", lambda code: True, now=61.0)
[]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping

from server.limits import WindowCounter
from server.players import Player
from server.protocol import Invitation
from server.race import Race

__all__ = ["INVITATIONS_KEPT", "Invitations", "presence"]

#: Invitations kept per invited player; a new one past it drops the oldest.
INVITATIONS_KEPT = 20

_HOUR_S = 3600.0


class Invitations:
    """The invitations waiting, by invited player id (race code -> `Invitation`, the oldest
    first), each for at most ``ttl_s`` seconds (an open race's time to live), and the challenges
    each player sent in the last hour (``sent``, keyed by player id)."""

    def __init__(self, ttl_s: float) -> None:
        self.ttl_s = ttl_s
        self._by_player: dict[str, dict[str, Invitation]] = {}
        self._expiring: deque[tuple[float, str, str]] = deque()  # (when, invited player, race), oldest first
        self.sent = WindowCounter(_HOUR_S)

    def add(self, player_id: str, invitation: Invitation, *, now: float) -> None:
        """Keep ``invitation`` for ``player_id`` until ``now + ttl_s`` (monotonic seconds).
        Costs O(1) amortised (the expired ones leave as new ones come)."""
        self._expire(now)
        mine = self._by_player.setdefault(player_id, {})
        mine[invitation.race] = invitation
        while len(mine) > INVITATIONS_KEPT:
            del mine[next(iter(mine))]
        self._expiring.append((now + self.ttl_s, player_id, invitation.race))

    def pending(self, player_id: str, open_to: Callable[[str], bool], *, now: float) -> list[Invitation]:
        """The invitations waiting for ``player_id``, the oldest first; those whose race
        ``open_to(code)`` says no longer takes the player leave. O(its invitations)."""
        self._expire(now)
        mine = self._by_player.get(player_id)
        if not mine:
            return []
        for code in [code for code in mine if not open_to(code)]:
            del mine[code]
        if not mine:
            del self._by_player[player_id]
        return list(mine.values())

    def remove(self, player_id: str, race: str) -> Invitation | None:
        """Take the invitation to ``race`` away from ``player_id``'s; None if it had none."""
        mine = self._by_player.get(player_id)
        found = mine.pop(race, None) if mine else None
        if mine is not None and not mine:
            del self._by_player[player_id]
        return found

    def _expire(self, now: float) -> None:
        while self._expiring and self._expiring[0][0] <= now:
            _, player_id, race = self._expiring.popleft()
            self.remove(player_id, race)


def presence(player: Player | None, races: Mapping[str, Race]) -> tuple[bool, str | None]:
    """What this node sees of ``player`` (None: not in its memory), given its races in memory
    (``races``, by code): whether it is connected here, and the race it is playing here
    (starting or running, and it not done yet: its code), if any. O(its races in memory)."""
    if player is None:
        return False, None
    for code in player.races:
        race = races.get(code)
        if race is not None and race.status in ("starting", "running"):
            entrant = race.entrants.get(player.id)
            if entrant is not None and not entrant.done:
                return player.session is not None, code
    return player.session is not None, None
