"""docs/protocol.md keeps up with server/protocol.py: every message and every structure inside one
has its own section in the message reference, and that section's table documents every field
with its wire type, its default (or "required") and its limits, as msgspec sees them.

How the doc and the code are matched: each message type (a msgspec `Struct` with a tag) is the
section whose heading starts with its tag in backticks (``#### `create_race` ...``); each untagged
structure (`Board`, `Standing`, `RaceInfo`...) the section whose heading starts with its class name
in backticks. A section runs to the next heading of the same or a higher level, so a field
documented under another message does not count. In it, every field is one table row
``| `name` | wire type | default | limits and meaning |``:

* the wire type in MessagePack terms, as `wire_type` names it (``int``, ``str or nil``,
  ``array of Standing (map)``, ``(array of int) or nil``, ``map of str to bool``);
* the default as `wire_default` writes it (``required``, ``nil``, ``true``, ``8``, ``"open"``, ``[]``);
* every bound that msgspec enforces, as `limit_phrases` writes it (``1 to 64``, ``at most 40
  characters``, ``at most 8 entries``), and every value of a literal type in backticks.

The error codes: tests/test_docs.py checks that each `ErrorCode` has a row somewhere in the doc;
here each must have one in the Errors section, no row there may name a code the server does not
have, and the engine's rule codes (`IllegalCode`, the other codes a refused move may carry) must be
listed there too.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import msgspec
import msgspec.inspect as mi
import pytest

from engine.core import IllegalCode
from server import protocol

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"

#: The level-3 headings of the message reference that hold each kind of section.
REQUESTS, SERVER_MESSAGES, STRUCTURES = "Requests", "Replies and events", "Structures inside messages"

_NAMED_NUMBERS = {2**31 - 1: "2^31-1", 2**63 - 1: "2^63-1"}


# ------------------------------------------------------------------------ the code's side


def message_structs() -> dict[str, mi.StructType]:
    """Every Struct a client may send or receive, by section name (tag, or class name when it has
    no tag): those reachable from the two unions, and any other public Struct of server/protocol.py
    (one defined but not yet put in a union is still on its way to the wire)."""
    found: dict[str, mi.StructType] = {}

    def walk(t: mi.Type) -> None:
        if isinstance(t, mi.StructType):
            name = t.tag if t.tag is not None else t.cls.__name__
            if name in found:
                return
            found[name] = t
            for f in t.fields:
                walk(f.type)
        elif isinstance(t, mi.UnionType):
            for member in t.types:
                walk(member)
        elif isinstance(t, (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)):
            walk(t.item_type)
        elif isinstance(t, mi.TupleType):
            for item in t.item_types:
                walk(item)
        elif isinstance(t, mi.DictType):
            walk(t.key_type)
            walk(t.value_type)

    for info in mi.multi_type_info([protocol.ClientMessage, protocol.ServerMessage]):
        walk(info)
    for name, value in sorted(vars(protocol).items()):
        if (
            isinstance(value, type)
            and issubclass(value, msgspec.Struct)
            and not name.startswith("_")
            and value.__module__ == protocol.__name__
        ):
            walk(mi.type_info(value))
    return found


def _client_tags() -> set[str]:
    return {cls.__struct_config__.tag for cls in protocol.ClientMessage.__args__}


def _number(n: int | float) -> str:
    return _NAMED_NUMBERS.get(n, str(n))  # type: ignore[arg-type]


def wire_type(t: mi.Type) -> str:
    """The field's type in MessagePack terms, as the doc's type column writes it."""
    if isinstance(t, mi.IntType):
        return "int"
    if isinstance(t, mi.FloatType):
        return "float"
    if isinstance(t, mi.StrType):
        return "str"
    if isinstance(t, mi.BoolType):
        return "bool"
    if isinstance(t, mi.NoneType):
        return "nil"
    if isinstance(t, mi.LiteralType):
        return "str" if all(isinstance(v, str) for v in t.values) else "int"
    if isinstance(t, mi.ListType):
        return f"array of {_inner(t.item_type)}"
    if isinstance(t, mi.DictType):
        return f"map of {_inner(t.key_type)} to {_inner(t.value_type)}"
    if isinstance(t, mi.StructType):
        return f"{t.cls.__name__} ({'array' if t.array_like else 'map'})"
    if isinstance(t, mi.UnionType):
        return " or ".join(_inner(member) for member in t.types)
    raise AssertionError(f"this test cannot name {t!r} in MessagePack terms yet: teach wire_type")


def _inner(t: mi.Type) -> str:
    """A type inside another, in parentheses where the words would be ambiguous: ``(array of
    int) or nil``, ``map of str to (int or str or bool)``."""
    name = wire_type(t)
    return f"({name})" if isinstance(t, (mi.UnionType, mi.ListType, mi.DictType)) else name


def wire_default(f: mi.Field) -> str:
    """The field's default as the doc's default column writes it ("required" if it has none)."""
    if f.required:
        return "required"
    value = f.default if f.default is not msgspec.NODEFAULT else f.default_factory()
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, separators=(",", ":"))


def _bounds(lo: object, hi: object, unit: str) -> list[str]:
    unit = f" {unit}" if unit else ""
    if lo is not None and hi is not None:
        return [f"{_number(lo)} to {_number(hi)}{unit}"]  # type: ignore[arg-type]
    if lo is not None:
        return [f"at least {_number(lo)}{unit}"]  # type: ignore[arg-type]
    if hi is not None:
        return [f"at most {_number(hi)}{unit}"]  # type: ignore[arg-type]
    return []


def limit_phrases(t: mi.Type) -> list[str]:
    """Every bound msgspec enforces on a field, as the doc writes it: ``0 to 60``, ``1 to 32
    characters``, ``at most 20 items``, ``at most 8 entries`` (those of keys and items included)."""
    if isinstance(t, (mi.IntType, mi.FloatType)):
        if t.gt is not None or t.lt is not None:
            raise AssertionError(f"exclusive bounds ({t!r}): teach limit_phrases how the doc writes them")
        return _bounds(t.ge, t.le, "")
    if isinstance(t, mi.StrType):
        return _bounds(t.min_length, t.max_length, "characters")
    if isinstance(t, mi.ListType):
        return _bounds(t.min_length, t.max_length, "items") + limit_phrases(t.item_type)
    if isinstance(t, mi.DictType):
        return _bounds(t.min_length, t.max_length, "entries") + limit_phrases(t.key_type) + limit_phrases(t.value_type)
    if isinstance(t, mi.UnionType):
        return [phrase for member in t.types for phrase in limit_phrases(member)]
    return []


def literal_values(t: mi.Type) -> list[str]:
    """The values a literal type allows (inside a union too)."""
    if isinstance(t, mi.LiteralType):
        return [str(v) for v in t.values]
    if isinstance(t, mi.UnionType):
        return [v for member in t.types for v in literal_values(member)]
    return []


# ------------------------------------------------------------------------- the doc's side


@dataclasses.dataclass
class Section:
    level: int
    title: str
    key: str | None  # the first `backticked` word of the heading
    lines: list[str]
    parents: list[str]  # the titles of the enclosing headings, outermost first


def sections(text: str) -> list[Section]:
    """The doc's sections, each from its heading to the next heading of the same or a higher level
    (headings inside code fences are not headings)."""
    headings: list[tuple[int, int, str]] = []
    lines = text.splitlines()
    fenced = False
    for number, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)):
            headings.append((number, len(m.group(1)), m.group(2)))
    found = []
    enclosing: list[tuple[int, str]] = []  # (level, title) of the headings above this one
    for i, (number, level, title) in enumerate(headings):
        end = next((n for n, lv, _ in headings[i + 1 :] if lv <= level), len(lines))
        enclosing = [(lv, t) for lv, t in enclosing if lv < level]
        key = re.match(r"`([^`]+)`", title)
        found.append(
            Section(level, title, key.group(1) if key else None, lines[number + 1 : end], [t for _, t in enclosing])
        )
        enclosing.append((level, title))
    return found


def table_rows(section: Section) -> dict[str, list[list[str]]]:
    """The section's table rows keyed by their first cell's `name`, each a list of cells."""
    rows: dict[str, list[list[str]]] = {}
    for line in section.lines:
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if m := re.fullmatch(r"`([^`]+)`", cells[0]):
            rows.setdefault(m.group(1), []).append(cells)
    return rows


def _plain(cell: str) -> str:
    return cell.replace("`", "").strip()


def undocumented(struct: mi.StructType, section: Section) -> list[str]:
    """What the section leaves out of, or gets wrong about, the struct's fields (empty: none)."""
    problems = []
    rows = table_rows(section)
    names = {f.encode_name for f in struct.fields}
    for name in sorted(set(rows) - names):
        problems.append(f"a row for `{name}`, which the message does not have")
    for f in struct.fields:
        found = rows.get(f.encode_name, [])
        if len(found) != 1:
            problems.append(f"`{f.encode_name}`: {len(found)} rows, not one")
            continue
        cells = found[0]
        if len(cells) != 4:
            problems.append(f"`{f.encode_name}`: {len(cells)} cells, not 4 (field, type, default, meaning)")
            continue
        row = " | ".join(cells)
        if _plain(cells[1]) != wire_type(f.type):
            problems.append(f"`{f.encode_name}`: type {_plain(cells[1])!r}, not {wire_type(f.type)!r}")
        if _plain(cells[2]) != wire_default(f):
            problems.append(f"`{f.encode_name}`: default {_plain(cells[2])!r}, not {wire_default(f)!r}")
        for phrase in limit_phrases(f.type):
            if phrase.lower() not in row.lower():  # a row may begin with "At most..."
                problems.append(f"`{f.encode_name}`: the limit {phrase!r} is not in its row")
        for value in literal_values(f.type):
            if f"`{value}`" not in row:
                problems.append(f"`{f.encode_name}`: the value `{value}` is not in its row")
    return problems


# --------------------------------------------------------------------------------- tests

STRUCTS = message_structs()
DOC_TEXT = DOC.read_text()
SECTIONS = sections(DOC_TEXT)


def _section_of(name: str) -> Section:
    found = [s for s in SECTIONS if s.key == name]
    assert len(found) == 1, (
        f"docs/protocol.md needs exactly one section whose heading starts with `{name}` (found {len(found)})"
    )
    return found[0]


def test_every_message_type_is_found():
    """A guard on the walk itself: it sees both directions and the structures inside messages."""
    expected = {"hello", "move", "move_result", "race_finished", "Board", "Standing", "RaceInfo", "Revealed"}
    assert expected <= set(STRUCTS)
    assert _client_tags() <= set(STRUCTS)


@pytest.mark.parametrize("name", sorted(STRUCTS))
def test_every_message_has_its_own_section_in_the_reference(name):
    struct = STRUCTS[name]
    section = _section_of(name)
    if struct.tag is None:
        expected = STRUCTURES
    elif struct.tag in _client_tags():
        expected = REQUESTS
    else:
        expected = SERVER_MESSAGES
    assert any(p.startswith(expected) for p in section.parents), (
        f"the section of `{name}` belongs under the heading {expected!r}; it is under {section.parents}"
    )


@pytest.mark.parametrize("name", sorted(STRUCTS))
def test_every_field_is_documented_in_its_own_message_section(name):
    problems = undocumented(STRUCTS[name], _section_of(name))
    assert not problems, f"docs/protocol.md, section `{name}`:\n  " + "\n  ".join(problems)


def test_a_field_added_to_a_message_fails_the_check_until_documented():
    """The check itself: a message with one field more than the doc describes is caught, and the
    field named; a field documented under another message does not count."""

    class Hello(protocol.Hello, tag="hello"):
        throwaway_field: int = 0

    problems = undocumented(mi.type_info(Hello), _section_of("hello"))
    assert problems == ["`throwaway_field`: 0 rows, not one"]

    class Hello2(protocol.Hello, tag="hello"):
        race: str = ""

    # `race` has a row in many sections, but not in hello's
    assert undocumented(mi.type_info(Hello2), _section_of("hello")) == ["`race`: 0 rows, not one"]


def _errors_section() -> Section:
    found = [s for s in SECTIONS if s.level == 2 and s.title == "Errors"]
    assert len(found) == 1, "docs/protocol.md needs one '## Errors' section"
    return found[0]


def test_the_errors_section_lists_every_error_code_and_no_other():
    rows = table_rows(_errors_section())
    codes = {c.value for c in protocol.ErrorCode}
    assert not codes - set(rows), f"error codes missing from the Errors table: {sorted(codes - set(rows))}"
    assert not set(rows) - codes, f"the Errors table lists codes the server does not have: {sorted(set(rows) - codes)}"


def test_the_errors_section_lists_every_rule_code_a_refused_move_may_carry():
    text = "\n".join(_errors_section().lines)
    missing = [c.value for c in IllegalCode if f"`{c.value}`" not in text]
    assert not missing, f"rule codes missing from the Errors section: {missing}"


def test_the_doc_says_how_to_tell_replies_from_events():
    """The interleaving section exists and names the examples a client author tripped on."""
    found = [s for s in SECTIONS if s.title.startswith("Replies, events and their order")]
    assert len(found) == 1
    text = "\n".join(found[0].lines)
    for word in ("`req`", "`entrant_joined`", "`progress`", "`move_result`", "`race_finished`", "`race_starting`"):
        assert word in text, f"{word} is not in the section on the order of replies and events"
