"""Check a finished race from its record, trusting nothing the server says without proof.

`verify_record` rebuilds the race from ``(game, seed, options)`` and every entrant's accepted
moves (docs/design.md, invariant 3: a race is its log) and runs these checks, each reported pass or fail with a
reason:

* ``commitment``: SHA-256 of ``f"{seed}:{salt}"`` (hex) is the commitment published at the
  start, so the deal was fixed before anyone played. The commitment to check against is the one
  the verifier saw while the race ran (``race_starting``, kept by `client.connection.ArenaClient`)
  or was given (``arena verify --commitment``, or the ``arena`` command's cache:
  `client.commitments`): a dishonest server could otherwise swap seed, salt and commitment
  together in the record it sends at the end. Without one, the check uses the record's own and
  says so, and the report's verdict is "not verified" even when every check passes
  (`VerifyReport.verdict`);
* ``versions``: this engine's rules version and deal version are the race's (else the replay
  below would check other rules);
* ``replay``: each entrant's moves, in order, are legal in a fresh deal of the seed, with one
  race time (ms, never decreasing) per move; an ``undo`` only in a race that allows undo, and
  only where the rules do (never past a move that turned a card up or dealt from the stock);
* ``cleared``: each entrant's cards cleared after its last move, and its undos, are its
  standing's;
* ``order``: the standings run by cards cleared (most first), then time (least first), then
  join order, with places 1, 2, 3...;
* ``time``: each entrant's time is the race time of the move that brought its cleared count to
  its final value (0 if it never changed);
* ``bonus``: each Double or Naught round was committed to (SHA-256 of its seed and salt), its
  moves replay to its recorded outcome, only a winner of the race played, each stake is the
  points before it, and the standing's points are what the rounds leave.

A void race (``record.void``: the store lost moves the server had acknowledged, so the race
ended without a result) has no result to check: its report runs ``commitment``, ``versions`` and
``replay`` (the moves the store kept are legal), and says why it is void (`VerifyReport.void`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core import EngineError, Game
from engine.deal import DEAL_VERSION, commitment_of
from engine.games import UnknownGame, find_game
from engine.games.double_or_naught import DoubleOrNaught
from server.protocol import EntrantRecord, RaceRecord

__all__ = ["CHECKS", "Check", "VerifyReport", "commitment_of", "verify_record"]

#: The checks of a report, in the order they run.
CHECKS = ("commitment", "versions", "replay", "cleared", "order", "time", "bonus")


@dataclass(frozen=True)
class Check:
    """One check of a report: its ``name`` (one of `CHECKS`), whether it passed, and why."""

    name: str
    ok: bool
    reason: str


@dataclass
class VerifyReport:
    """The outcome of `verify_record`: the race ``code``, one `Check` per entry of `CHECKS` (for a
    void race, only those before ``cleared``), whether the commitment was checked against one the
    verifier trusts (``trusted``: one given to `verify_record`, not the record's own), and
    ``void``: why the race has no result, in the server's words ("" if it has one)."""

    code: str
    checks: list[Check] = field(default_factory=list)
    trusted: bool = False
    void: str = ""

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return all(check.ok for check in self.checks)

    @property
    def failed(self) -> list[str]:
        """The names of the checks that failed."""
        return [check.name for check in self.checks if not check.ok]

    @property
    def verified(self) -> bool:
        """True when every check passed against a trusted commitment."""
        return self.ok and self.trusted

    @property
    def verdict(self) -> str:
        """``verified``; ``FAILED: CHECK, ...``; or, when every check passed but only against the
        record's own commitment, ``not verified: ...`` with why. A void race's verdict ends with
        ``; void, no result: WHY``."""
        if not self.ok:
            verdict = "FAILED: " + ", ".join(self.failed)
        elif not self.trusted:
            verdict = (
                "not verified: no commitment published at the start to check the seed against (the "
                "record's own proves nothing: a dishonest server can swap seed, salt and commitment together)"
            )
        else:
            verdict = "verified"
        return f"{verdict}; void, no result: {self.void}" if self.void else verdict

    def check(self, name: str) -> Check:
        """The check called ``name``; raises KeyError if the report has none."""
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(name)

    def __str__(self) -> str:
        lines = [f"race {self.code}: {self.verdict}"]
        lines += [f"  {'pass' if c.ok else 'FAIL'}  {c.name:<10} {c.reason}" for c in self.checks]
        return "\n".join(lines)


@dataclass
class _Replay:
    """One entrant's replay: cleared count after its last good move, the time (ms) it reached
    it, and the first problem found (empty if none)."""

    cleared: int = 0
    time_ms: int = 0
    won: bool = False
    undos: int = 0
    problem: str = ""


def verify_record(record: RaceRecord, commitment: str | None = None) -> VerifyReport:
    """Check ``record`` (a `server.protocol.RaceRecord`) and return a `VerifyReport`.

    ``commitment``: the commitment (hex) published at the race's start, as the verifier saw it
    or was told; None checks against the record's own (which only the server vouches for): the
    report is then not ``verified``, whatever its checks say.
    Never raises for a bad record: every problem becomes a failed check. A game this engine
    does not know fails ``versions`` and ``replay`` (and the checks that need the replay). A void
    record (``record.void``) stops after ``replay``.
    """
    race = record.race
    report = VerifyReport(race.code, trusted=commitment is not None, void=record.void)
    add = report.checks.append
    add(_check_commitment(record, commitment))

    try:
        game_cls = find_game(race.game)
    except UnknownGame as exc:
        reason = f"this engine does not know the game: {exc.reason}"
        for name in ("versions", "replay", "cleared", "time"):
            add(Check(name, False, reason))
        add(_check_order(record))
        add(_check_bonus(record))
        report.checks.sort(key=lambda c: CHECKS.index(c.name))
        return report

    if (game_cls.rules_version, DEAL_VERSION) != (race.rules_version, race.deal_version):
        add(
            Check(
                "versions",
                False,
                f"race has rules v{race.rules_version}, deal v{race.deal_version}; "
                f"this engine has rules v{game_cls.rules_version}, deal v{DEAL_VERSION}",
            )
        )
    else:
        add(Check("versions", True, f"rules v{race.rules_version}, deal v{race.deal_version}"))

    replays = {e.player: _replay(game_cls, record, e) for e in record.entrants}
    problems = [
        f"{e.name} ({e.player}): {replays[e.player].problem}" for e in record.entrants if replays[e.player].problem
    ]
    moves = sum(len(e.moves) for e in record.entrants)
    add(
        Check(
            "replay",
            not problems,
            "; ".join(problems) if problems else f"{moves} moves of {len(record.entrants)} entrants replayed",
        )
    )
    if record.void:  # no result: the standings are what the server acknowledged, not what it kept
        return report

    standings = {s.player: s for s in record.standings}
    wrong_cleared, wrong_time = [], []
    for entrant in record.entrants:
        replay = replays[entrant.player]
        standing = standings.get(entrant.player)
        if standing is None:
            wrong_cleared.append(f"{entrant.name} ({entrant.player}) has no standing")
            continue
        if standing.cleared != replay.cleared:
            wrong_cleared.append(
                f"{entrant.name}: standings say {standing.cleared} cleared, replay gives {replay.cleared}"
            )
        elif (standing.status == "won") != replay.won:
            wrong_cleared.append(
                f"{entrant.name}: status {standing.status!r} but the replay {'wins' if replay.won else 'does not win'}"
            )
        if standing.undos != replay.undos:
            wrong_cleared.append(f"{entrant.name}: standings say {standing.undos} undos, the record has {replay.undos}")
        if standing.time_ms != replay.time_ms:
            wrong_time.append(
                f"{entrant.name}: standings say {standing.time_ms} ms, "
                f"the move that reached {replay.cleared} cleared was at {replay.time_ms} ms"
            )
    strangers = set(standings) - set(replays)
    wrong_cleared += [f"standing for {p}, who has no moves in the record" for p in sorted(strangers)]
    add(
        Check(
            "cleared",
            not wrong_cleared,
            "; ".join(wrong_cleared) if wrong_cleared else "every entrant's cleared count matches its replay",
        )
    )
    add(_check_order(record))
    add(
        Check(
            "time",
            not wrong_time,
            "; ".join(wrong_time) if wrong_time else "every entrant's time is that of its last scoring move",
        )
    )
    add(_check_bonus(record))
    return report


def _check_commitment(record: RaceRecord, kept: str | None) -> Check:
    """The revealed seed and salt hash to the commitment published at the start."""
    race = record.race
    expected = commitment_of(record.seed, record.salt)
    claimed = {c.lower() for c in (record.commitment, race.commitment) if c}
    if kept is not None and kept.lower() != expected:
        return Check(
            "commitment",
            False,
            f"sha256('{record.seed}:{record.salt}') is {expected[:16]}..., which does not match "
            f"{kept.lower()[:16]}..., the commitment published at the start: the seed is not the one "
            f"committed to",
        )
    if not claimed and kept is None:
        return Check("commitment", False, "the record carries no commitment")
    if claimed - {expected}:
        return Check(
            "commitment",
            False,
            f"sha256('{record.seed}:{record.salt}') is {expected[:16]}..., "
            f"not the record's {sorted(claimed - {expected})[0][:16]}...",
        )
    if race.seed is not None and race.seed != record.seed:
        return Check("commitment", False, f"the race's public seed {race.seed} is not the record's {record.seed}")
    if kept is None:
        return Check(
            "commitment",
            True,
            f"sha256(seed:salt) matches the record's {expected[:16]}... (the "
            f"record's own: pass the commitment published at the start to check it against that)",
        )
    return Check("commitment", True, f"sha256(seed:salt) matches {expected[:16]}..., published at the start")


def _check_bonus(record: RaceRecord) -> Check:
    """Every Double or Naught round was fair and the standings' points follow from them."""
    standings = {s.player: s for s in record.standings}
    problems: list[str] = []
    rounds = 0
    for entrant in record.entrants:
        standing = standings.get(entrant.player)
        if standing is None:
            continue
        points = standing.cleared
        if entrant.bonus and standing.status != "won":
            problems.append(f"{entrant.name} played Double or Naught without winning the race")
        for number, bonus in enumerate(entrant.bonus, start=1):
            rounds += 1
            where = f"{entrant.name}, round {number}"
            if commitment_of(bonus.seed, bonus.salt) != bonus.commitment:
                problems.append(f"{where}: the seed and salt do not match the commitment")
            if bonus.stake != points:
                problems.append(f"{where}: stakes {bonus.stake} points, but {points} were left")
            game = DoubleOrNaught(bonus.seed)
            try:
                for text in bonus.moves:
                    game.apply(text)
            except EngineError as exc:
                problems.append(f"{where}: move refused: {exc.reason}")
                continue
            if game.outcome != bonus.outcome:
                problems.append(f"{where}: the moves give {game.outcome!r}, the record says {bonus.outcome!r}")
            points = {"win": bonus.stake * 2, "loss": 0}.get(game.outcome, points)
        if standing.points != points:
            problems.append(f"{entrant.name}: standings give {standing.points} points, the rounds leave {points}")
    if problems:
        return Check("bonus", False, "; ".join(problems))
    return Check("bonus", True, f"{rounds} Double or Naught rounds checked" if rounds else "no Double or Naught round")


def _replay(game_cls: type[Game], record: RaceRecord, entrant: EntrantRecord) -> _Replay:
    """Replay one entrant's moves; stops at the first problem."""
    out = _Replay()
    try:
        game = game_cls(record.seed, **record.race.options)
    except (EngineError, ValueError) as exc:
        out.problem = f"cannot deal the seed: {exc}"
        return out
    if len(entrant.times_ms) != len(entrant.moves):
        out.problem = f"{len(entrant.moves)} moves but {len(entrant.times_ms)} times"
        return out
    out.cleared = game.cleared
    last_ms = 0
    for number, (text, at_ms) in enumerate(zip(entrant.moves, entrant.times_ms), start=1):
        if at_ms < last_ms:
            out.problem = f"move {number} ({text!r}) at {at_ms} ms is earlier than the move before"
            return out
        last_ms = at_ms
        before = game.cleared
        if text == "undo":
            if not record.race.undo:
                out.problem = f"move {number} is an undo, and the race does not allow undo"
                return out
            out.undos += 1
        try:
            game.apply(text)
        except EngineError as exc:
            out.problem = f"move {number} ({text!r}) is refused: {exc.reason} [{exc.code}]"
            return out
        if game.cleared != before:
            out.time_ms = at_ms
        out.cleared = game.cleared
    out.won = game.won
    return out


def _check_order(record: RaceRecord) -> Check:
    """The standings follow the ranking rule and number their places 1, 2, 3..."""
    standings = record.standings
    for place, (a, b) in enumerate(zip(standings, standings[1:]), start=1):
        if (-a.cleared, a.time_ms, a.order) > (-b.cleared, b.time_ms, b.order):
            return Check(
                "order",
                False,
                f"{a.name} (place {place}: {a.cleared} cleared, {a.time_ms} ms, "
                f"joined #{a.order}) ranks above {b.name} ({b.cleared} cleared, {b.time_ms} ms, "
                f"joined #{b.order})",
            )
    places = [s.place for s in standings]
    if places != list(range(1, len(standings) + 1)):
        return Check("order", False, f"places are {places}, not 1 to {len(standings)}")
    return Check("order", True, "most cleared, then least time, then earliest join")
