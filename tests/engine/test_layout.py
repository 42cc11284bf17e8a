"""Table layouts for the browser renderer (engine/layout.py): every pile placed once, on the table,
without collisions, with room for fans, and where each rules text puts it."""

from __future__ import annotations

import json
import math

import pytest

from engine.games import GAMES, UnknownGame, find_game
from engine.games.besieged_city import LINE_OF
from engine.games.pyramid import COVERS
from engine.layout import Fan, Kind, Layout, Slot, layout_of

EPS = 1e-9
#: The least room a cascade has below its card (card heights) and a spread right of it (widths).
DOWN_ROOM, RIGHT_ROOM = 1.2, 0.75
MAX_WIDTH = 10.5

#: Games whose rules lay cards over one another, with the pairs of piles allowed to overlap.
OVERLAP_ALLOWED = {
    # 003_08087bb95aa03446.txt: each pyramid card is half covered by the two cards below it.
    "pyramid": lambda a, b: a.pile[0] == "r" and b.pile[0] == "r",
    # 002_5e8f4a23aea861b2.txt: a turned card goes face up under its hour's pile (tN and fN).
    "clock": lambda a, b: {a.pile[0], b.pile[0]} == {"t", "f"} and a.pile[1:] == b.pile[1:],
}

by_key = pytest.mark.parametrize("game", GAMES, ids=[g.key for g in GAMES])


def slots_of(key: str) -> dict[str, Slot]:
    return {slot.pile: slot for slot in layout_of(key).slots}


def centre(slot: Slot) -> tuple[float, float]:
    return slot.x + 0.5, slot.y + 0.5


Box = tuple[float, float, float, float]  # left, top, right, bottom


def card(slot: Slot) -> Box:
    return slot.x, slot.y, slot.x + 1, slot.y + 1


def meet(a: Box, b: Box) -> bool:
    """Whether two boxes share some area (touching edges do not count)."""
    return a[0] < b[2] - EPS and b[0] < a[2] - EPS and a[1] < b[3] - EPS and b[1] < a[3] - EPS


def fan_room(slot: Slot) -> Box | None:
    """The least room a fanned slot keeps for its fan, right below or right of its card."""
    if slot.fan is Fan.DOWN:
        return slot.x, slot.y + 1, slot.x + 1, slot.y + 1 + DOWN_ROOM
    if slot.fan is Fan.RIGHT:
        return slot.x + 1, slot.y, slot.x + 1 + RIGHT_ROOM, slot.y + 1
    return None


def room(layout: Layout, slot: Slot) -> float:
    """Free room from a fanned slot's card to the table's edge or the nearest slot in the way:
    below it for a cascade (slots whose x-range overlaps), right of it for a spread."""
    if slot.fan is Fan.DOWN:
        edge = slot.y + 1
        ahead = [s.y for s in layout.slots if s.x < slot.x + 1 - EPS and slot.x < s.x + 1 - EPS and s.y > edge - EPS]
        return min([layout.height, *ahead]) - edge
    edge = slot.x + 1
    ahead = [s.x for s in layout.slots if s.y < slot.y + 1 - EPS and slot.y < s.y + 1 - EPS and s.x > edge - EPS]
    return min([layout.width, *ahead]) - edge


# ------------------------------------------------------------------------------ every game


@by_key
def test_the_slots_name_every_pile_of_a_fresh_deal_once(game):
    piles = [slot.pile for slot in layout_of(game).slots]
    assert len(piles) == len(set(piles)), f"a pile placed twice: {sorted(p for p in piles if piles.count(p) > 1)}"
    assert set(piles) == set(game(1).piles)


@by_key
def test_a_key_an_alias_and_the_class_give_one_layout(game):
    layout = layout_of(game.key)
    assert layout.game == game.key
    assert layout_of(game) is layout
    assert layout_of(game.key.upper()) is layout
    for alias in game.aliases:
        assert layout_of(alias) is layout
        assert find_game(alias) is game


@by_key
def test_a_layout_is_json_ready(game):
    data = layout_of(game).as_dict()
    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["game", "width", "height", "slots", "regions"]
    assert [s["pile"] for s in data["slots"]] == [s.pile for s in layout_of(game).slots]
    for entry in data["slots"]:
        assert list(entry) == ["pile", "kind", "x", "y", "fan", "label"]
        assert type(entry["kind"]) is str and entry["kind"] in {k.value for k in Kind}
        assert type(entry["fan"]) is str and entry["fan"] in {f.value for f in Fan}
        assert isinstance(entry["x"], float) and isinstance(entry["y"], float)


@by_key
def test_every_card_lies_on_a_table_a_phone_can_show(game):
    layout = layout_of(game)
    assert 0 < layout.width <= MAX_WIDTH
    assert 0 < layout.height
    for slot in layout.slots:
        assert slot.x >= -EPS and slot.y >= -EPS, slot
        assert slot.x + 1 <= layout.width + EPS and slot.y + 1 <= layout.height + EPS, slot
    # Nothing is wasted: some card touches each edge of the table (fans aside).
    assert min(s.x for s in layout.slots) == pytest.approx(0)
    assert min(s.y for s in layout.slots) == pytest.approx(0)


@by_key
def test_no_two_cards_overlap_unless_the_rules_lay_them_so(game):
    slots = layout_of(game).slots
    allowed = OVERLAP_ALLOWED.get(game.key, lambda a, b: False)
    clashes = [
        (a.pile, b.pile)
        for i, a in enumerate(slots)
        for b in slots[i + 1 :]
        if meet(card(a), card(b)) and not allowed(a, b)
    ]
    assert not clashes


@by_key
def test_fans_have_room_to_grow(game):
    layout = layout_of(game)
    for slot in layout.slots:
        if slot.fan is Fan.DOWN:
            assert room(layout, slot) >= DOWN_ROOM - EPS, f"{slot.pile}: {room(layout, slot):.2f} below"
        elif slot.fan is Fan.RIGHT:
            assert room(layout, slot) >= RIGHT_ROOM - EPS, f"{slot.pile}: {room(layout, slot):.2f} right"
    # The least room of one fan is free of every card and of every other fan's least room.
    for slot in layout.slots:
        mine = fan_room(slot)
        if mine is None:
            continue
        for other in layout.slots:
            if other is not slot:
                assert not meet(mine, card(other)), (slot.pile, other.pile)
                theirs = fan_room(other)
                assert theirs is None or not meet(mine, theirs), (slot.pile, other.pile)


@by_key
def test_kinds_follow_the_pile_letters_roles(game):
    for slot in layout_of(game).slots:
        if slot.pile == "s":
            assert slot.kind is Kind.STOCK
        elif slot.pile[0] == "f":
            assert slot.kind is Kind.FOUNDATION
        elif slot.pile[0] == "c":
            assert slot.kind is Kind.CELL


def test_every_game_has_a_layout_and_unknown_names_have_none():
    assert {layout_of(g).game for g in GAMES} == {g.key for g in GAMES}
    with pytest.raises(UnknownGame):
        layout_of("no such game")

    class Variant(find_game("klondike")):
        key = "klondike_variant"

    with pytest.raises(UnknownGame):
        layout_of(Variant)


# ------------------------------------------------------------------------------ the rules' tables


def test_klondike_foundations_lie_right_of_the_stock_above_the_tableau():
    slots = slots_of("klondike")
    stock = slots["s"]
    for i in range(4):
        found = slots[f"f{i}"]
        assert found.x >= stock.x + 1 and found.y == stock.y
    for i in range(7):
        pile = slots[f"t{i}"]
        assert pile.fan is Fan.DOWN and pile.y >= stock.y + 1
    assert [slots[f"t{i}"].x for i in range(7)] == sorted(slots[f"t{i}"].x for i in range(7))
    assert room(layout_of("klondike"), slots["t6"]) >= 2.5  # a long Klondike cascade fits


def test_the_pyramid_apex_is_centred_over_the_bottom_row_and_each_card_rests_on_two():
    slots = slots_of("pyramid")
    bottom = [slots[f"r{i}"] for i in range(21, 28)]
    apex = slots["r0"]
    assert apex.y < min(s.y for s in bottom)
    assert centre(apex)[0] == pytest.approx(sum(centre(s)[0] for s in bottom) / len(bottom))
    for pile, (left, right) in ((p, c) for p, c in COVERS.items() if c):
        low, a, b = slots[pile], slots[left], slots[right]
        assert meet(card(low), card(a)) and meet(card(low), card(b)), pile
        assert a.y > low.y and b.y > low.y and a.x < low.x < b.x, pile
    # Lower rows are drawn over the rows above them.
    order = [s.pile for s in layout_of("pyramid").slots]
    assert all(order.index(p) < order.index(c) for p, covers in COVERS.items() for c in covers)


def test_the_clock_hours_go_round_the_centre_pile_like_a_dial():
    slots = slots_of("clock")
    cx, cy = centre(slots["t12"])
    offsets = {h: (centre(slots[f"t{h - 1}"])[0] - cx, centre(slots[f"t{h - 1}"])[1] - cy) for h in range(1, 13)}
    across, down = offsets[3][0], -offsets[12][1]
    assert across > 1 and down > 1
    for hour, (dx, dy) in offsets.items():
        u, v = dx / across, -dy / down
        assert math.hypot(u, v) == pytest.approx(1, abs=0.01), hour
        assert math.degrees(math.atan2(u, v)) % 360 == pytest.approx(hour * 30 % 360, abs=0.5), hour
    assert [slots[f"t{h}"].label for h in range(13)] == "A 2 3 4 5 6 7 8 9 10 J Q K".split()


def test_each_clock_hour_keeps_its_face_up_cards_tucked_under_its_pile():
    order = [s.pile for s in layout_of("clock").slots]
    slots = slots_of("clock")
    for h in range(13):
        down, up = slots[f"t{h}"], slots[f"f{h}"]
        assert up.x == down.x and down.y - 0.5 < up.y < down.y  # its top edge shows above the pile
        assert order.index(up.pile) < order.index(down.pile)  # drawn first, so under it


def test_the_besieged_city_ramparts_close_each_line_of_the_reserve():
    slots = slots_of("besieged_city")
    for rampart, line in LINE_OF.items():
        end, cards = slots[rampart], [slots[r] for r in line]
        if len(line) == 3:  # a row: same height, the rampart beyond its left or right end
            assert {c.y for c in cards} == {end.y}, rampart
            assert end.x < min(c.x for c in cards) or end.x > max(c.x for c in cards), rampart
        else:  # a column: same x, the rampart above or below it
            assert {c.x for c in cards} == {end.x}, rampart
            assert end.y < min(c.y for c in cards) or end.y > max(c.y for c in cards), rampart


def test_the_besieged_city_boxes_its_reserve_and_names_its_ramparts_in_an_empty_corner():
    layout = layout_of("besieged_city")
    reserve, ramparts = layout.regions
    reserve_cards = [card(s) for s in layout.slots if s.kind is Kind.RESERVE]
    assert reserve.label == "Reserve" and reserve.box
    box = (reserve.x, reserve.y, reserve.x + reserve.width, reserve.y + reserve.height)
    assert all(box[0] < c[0] and c[2] < box[2] and box[1] < c[1] and c[3] < box[3] for c in reserve_cards)
    others = [card(s) for s in layout.slots if s.kind is not Kind.RESERVE]
    assert not any(meet((box[0], box[1] - 0.1, box[2], box[1] + 0.1), c) for c in others)  # its legend's strip is free
    assert ramparts.label == "Ramparts" and not ramparts.box
    corner = (ramparts.x, ramparts.y, ramparts.x + ramparts.width, ramparts.y + ramparts.height)
    assert not any(meet(corner, card(s)) for s in layout.slots)


def test_friday_13_labels_its_foundations_jack_to_ten_in_two_rows():
    slots = slots_of("friday_13")
    found = [slots[f"f{i}"] for i in range(13)]
    assert [f.label for f in found] == "J Q K A 2 3 4 5 6 7 8 9 10".split()
    assert len({f.y for f in found}) == 2


def test_tournament_has_ace_foundations_over_king_foundations_between_the_kibitzers():
    slots = slots_of("tournament")
    aces, kings = [slots[f"f{i}"] for i in range(4)], [slots[f"f{i}"] for i in range(4, 8)]
    assert {f.label for f in aces} == {"A"} and {f.label for f in kings} == {"K"}
    assert max(f.y for f in aces) < min(f.y for f in kings)
    left, right = [slots[f"r{i}"] for i in range(4)], [slots[f"r{i}"] for i in range(4, 8)]
    wastes = [slots[f"w{i}"] for i in range(6)]
    assert max(r.x for r in left) < min(w.x for w in wastes) and max(w.x for w in wastes) < min(r.x for r in right)
    assert all(w.fan is Fan.DOWN and w.kind is Kind.WASTE for w in wastes)
