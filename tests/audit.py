"""The frame audit: every frame any in-process server sends, in any test, checked as it is sent.

`FrameAudit.install` wraps the ways out of the server (`server.transport.session.Session.send`, a race
channel's `Session.send_shared`, and `RemoteSession.send` for another node's connection), so
that each frame is decoded and checked at the moment it leaves, against the server's own state
then:

* **Nothing hidden reaches anyone.** Every card a frame names (a value that is a card code, or a
  card code or a card's name, "7♣", inside a ``reason``) lay face up, at some moment, on a board
  of the race the frame is about (a Double or Naught frame: on the bonus round's own board).
* **An entrant learns nothing from the others** (docs/design.md, invariant 1). For a receiver that is
  playing a race (not finished, not done), a frame about any race on the same deal (same game,
  seed and options: a tournament's arena deals are separate races) may name only cards that have
  been face up on the receiver's own board; and a frame about its own race may carry no other
  entrant's move or board (`Progress`), no delayed board, no spectator snapshot and no record.
  A record or a replay step of a race no longer in memory may name any card when it comes from
  a finished race's record read back from the store or the archive (`server.replay.Replays`).
* **A fair-play report names only finished races' cards.** A `FairPlayReport` may name only
  cards that lay face up in the races its deals name, each of them finished.
* **Spectators of a prize deal see no board while it runs.** For a race whose ``spectating`` is
  not "live" (a tournament's deal), nobody but its entrants receives, while it runs, a board
  (`Progress`, `DelayedBoard`, a snapshot's ``boards``) or a card of the deal (`RaceStarted`),
  except, under "delayed", a delayed board at least ``spectator_delay_s`` old.
* **A spoiler-locked deal stays unseen.** While a race is spoiler-locked (a daily challenge's
  race before its UTC day ends; an arena tournament's deal, whatever its ``spectating``, before
  the tournament ends: `server.handlers.daily.check_spoiler_lock`), nobody receives its record or a replay step,
  its seed, or, but for its entrants, a frame with its boards (`Progress`, `DelayedBoard`,
  `Snapshot`).

Violations are collected, not raised inside the server; the autouse fixture in tests/conftest.py
fails the test that caused them. The counts are printed at the end of the test run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import msgspec

from engine.core import Game
from server import protocol as p
from server.daily import day_end_ms
from server.nodes import RemoteSession
from server.transport.session import Session

__all__ = ["FrameAudit", "cards_in", "face_up"]

_CARD = re.compile(r"[A2-9TJQK][CDHS]")
_CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])")
#: A card by its name, as refusals write it (`engine.words.card_name`): "7♣", "10♥".
_CARD_NAME_IN_TEXT = re.compile(r"(10|[A2-9JQK])([♠♥♦♣])")
_SUIT_LETTERS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def cards_in(message: msgspec.Struct) -> set[str]:
    """Every card code anywhere in a decoded frame: values and keys at any depth that are card
    codes, and the cards a ``reason`` text names, by code or by name."""
    found: set[str] = set()

    def walk(node: object, key: str = "") -> None:
        if isinstance(node, str):
            if _CARD.fullmatch(node):
                found.add(node)
            elif key == "reason":
                found.update(_CARD_IN_TEXT.findall(node))
                found.update(
                    ("T" if rank == "10" else rank) + _SUIT_LETTERS[suit]
                    for rank, suit in _CARD_NAME_IN_TEXT.findall(node)
                )
        elif isinstance(node, dict):
            for name, value in node.items():
                walk(name)
                walk(value, name if isinstance(name, str) else "")
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    walk(msgspec.to_builtins(message))
    return found


def face_up(game: Game) -> set[str]:
    """Codes of the cards lying face up in ``game`` now."""
    return {card.code for pile in game.piles.values() for card in pile.cards[pile.down :]}


def _race_of(message: msgspec.Struct) -> str | None:
    race = getattr(message, "race", None)
    if isinstance(race, p.RaceInfo):
        return race.code
    return race if isinstance(race, str) else None


def _spoiler_locked(server: object, race: object) -> bool:
    """Whether ``race`` is spoiler-locked now (the rule, worked out here independently)."""
    daily = getattr(race, "daily", None)
    if daily is not None:
        return server.clock.wall_ms() < day_end_ms(daily)  # type: ignore[attr-defined]
    if getattr(race, "casual", True):
        return False
    found = server.tournaments.get(race.creator)  # type: ignore[attr-defined]
    return found is not None and found.plan.format == "arena" and found.status not in ("finished", "cancelled")


def _deal(race: object) -> tuple[object, ...]:
    return (race.game_cls.key, race.seed, tuple(sorted(race.options.items())))  # type: ignore[attr-defined]


@dataclass
class FrameAudit:
    """Counts of frames checked, and the violations found (each a sentence)."""

    frames: int = 0
    with_cards: int = 0
    violations: list[str] = field(default_factory=list)
    _public: dict[int, set[str]] = field(default_factory=dict, repr=False)  # id(race) -> cards ever face up
    _seen: dict[tuple[int, str], set[str]] = field(default_factory=dict, repr=False)  # (id(race), player) -> own

    def install(self, monkeypatch: object) -> None:
        """Wrap `Session.send` (every frame a connection is sent alone, broadcast or not),
        `Session.send_shared` (a race channel's frames, checked for each receiver) and
        `RemoteSession.send` (a frame for another node's connection, checked on the node that
        owns the race) for the length of one test (``monkeypatch``: pytest's fixture)."""
        audit = self
        for cls in (Session, RemoteSession):
            original = cls.send

            def send(
                session: Session, frame: bytes, *, later: bool = False, standings: bool = False, original=original
            ) -> None:
                audit.check(session, frame)
                original(session, frame, later=later, standings=standings)

            monkeypatch.setattr(cls, "send", send)  # type: ignore[attr-defined]
        send_shared = Session.send_shared

        def checked_send_shared(session: Session, wire: bytes, frames: list[bytes], *rest: object) -> bool:
            for frame in frames:  # (a race channel's frames, framed together for all its receivers)
                audit.check(session, frame)  # (one that waits for a client behind leaves later, never earlier)
            return send_shared(session, wire, frames, *rest)  # type: ignore[arg-type]

        monkeypatch.setattr(Session, "send_shared", checked_send_shared)  # type: ignore[attr-defined]

    def check(self, session: Session, frame: bytes) -> None:
        """Check one outgoing frame to ``session``; record what is wrong with it."""
        message = p.decode_server(frame)
        self.frames += 1
        cards = cards_in(message)
        self.with_cards += bool(cards)
        server = session.server
        code = _race_of(message)
        race = server.races.get(code) if code else None
        if race is None and code and server.link is not None and not session.remote:
            self.frames -= 1  # relayed from the node that owns the race, which checked it as it left
            return
        who = session.player.name if session.player else "a connection before hello"
        kind = type(message).__name__
        if cards:
            allowed = self._public_cards(race) if race is not None else set()
            if race is None and code and isinstance(message, (p.RaceRecord, p.ReplayStep)):
                kept = server.replays.archived(code, server.clock.monotonic())  # (read back: store, archive)
                if kept is not None and kept[0].race.status == "finished":
                    allowed = cards  # a finished race's record is public
            if isinstance(message, p.Bonus) and race is not None and session.player is not None:
                rounds = race.entrants[session.player.id].bonus
                allowed = face_up(rounds[-1].game) if rounds else set()
            if isinstance(message, p.FairPlayReport):  # (about the finished races each deal names)
                named = [server.races.get(c) for deal in message.deals for c in deal.races]
                allowed = set().union(*(self._public_cards(r) for r in named if r is not None))
                allowed = allowed if all(r is not None and r.status == "finished" for r in named) else set()
            if cards - allowed:
                self.violations.append(
                    f"{who} received {kind} naming cards never face up there: {sorted(cards - allowed)}"
                )
        if session.player is not None and race is not None and not isinstance(message, p.Bonus):
            self._check_entrant(session, message, race, cards, who, kind)
        if race is not None and getattr(race, "spectating", "live") != "live" and race.status != "finished":
            self._check_spectator(session, message, race, cards, who, kind)
        if race is not None and _spoiler_locked(server, race):
            self._check_locked(session, message, race, who, kind)

    def _check_locked(self, session: Session, message: msgspec.Struct, race: object, who: str, kind: str) -> None:
        """A frame about a spoiler-locked race: no record, replay, seed, or others' boards."""
        info = getattr(message, "race", None)
        seed = info.seed if isinstance(info, p.RaceInfo) else getattr(message, "seed", None)
        if isinstance(message, (p.RaceRecord, p.ReplayStep)) or seed is not None:
            self.violations.append(f"{who} received {kind} (a record, replay or seed) of locked race {race.code}")  # type: ignore[attr-defined]
        entrant = session.player is not None and session.player.id in race.entrants  # type: ignore[attr-defined]
        if not entrant and isinstance(message, (p.Progress, p.DelayedBoard, p.Snapshot)):
            self.violations.append(f"{who} received {kind} of locked race {race.code}, not being its entrant")  # type: ignore[attr-defined]

    def _check_spectator(
        self, session: Session, message: msgspec.Struct, race: object, cards: set[str], who: str, kind: str
    ) -> None:
        """A frame about a running race that shows spectators no live board, to anyone who is not
        one of its entrants."""
        if session.player is not None and session.player.id in race.entrants:  # type: ignore[attr-defined]
            return
        if isinstance(message, p.DelayedBoard):
            age_ms = race.clock.wall_ms() - message.server_ms  # type: ignore[attr-defined]
            if race.spectating == "delayed" and age_ms >= race.spectator_delay_s * 1000:  # type: ignore[attr-defined]
                return
            self.violations.append(f"{who} received a board {age_ms} ms old while race {race.code} ran")  # type: ignore[attr-defined]
        elif (isinstance(message, p.Progress) and message.board is not None) or (
            isinstance(message, p.Snapshot) and message.boards
        ):
            self.violations.append(f"{who} received {kind} with boards while race {race.code} ran")  # type: ignore[attr-defined]
        elif isinstance(message, p.RaceStarted) and cards:
            self.violations.append(f"{who} received the deal's cards while race {race.code} ran")  # type: ignore[attr-defined]

    def _public_cards(self, race: object) -> set[str]:
        public = self._public.setdefault(id(race), set())
        for entrant in race.entrants.values():  # type: ignore[attr-defined]
            if entrant.game is not None:
                public |= face_up(entrant.game)
        return public

    def _check_entrant(
        self, session: Session, message: msgspec.Struct, about: object, cards: set[str], who: str, kind: str
    ) -> None:
        """The receiver's own races still in play, on the same deal as the race ``about``."""
        player = session.player
        assert player is not None
        for code in player.races:
            own = session.server.races.get(code)
            if own is None or own.status == "finished" or _deal(own) != _deal(about):
                continue
            entrant = own.entrants.get(player.id)
            if entrant is None or entrant.done or entrant.game is None:
                continue
            seen = self._seen.setdefault((id(own), player.id), set())
            seen |= face_up(entrant.game)
            if cards - seen:
                self.violations.append(
                    f"{who}, playing race {code}, received {kind} naming cards hidden from "
                    f"it on the same deal: {sorted(cards - seen)}"
                )
            if own is not about:
                continue
            if isinstance(message, p.Progress) and message.player != player.id and (message.move or message.board):
                self.violations.append(
                    f"{who}, playing race {code}, received another entrant's "
                    f"{'move ' + repr(message.move) if message.move else 'board'}"
                )
            if isinstance(message, p.DelayedBoard) or (isinstance(message, p.Snapshot) and message.boards):
                self.violations.append(f"{who}, playing race {code}, received the spectators' {kind}")
            if isinstance(message, (p.RaceRecord, p.ReplayStep)):
                self.violations.append(f"{who}, playing race {code}, received its record before the end")
