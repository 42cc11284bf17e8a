"""Cards, packs and card notation (engine/cards.py)."""

from collections import Counter

import pytest

from engine.cards import UNKNOWN, BadCard, Card, Colour, Rank, Suit, new_pack, parse_cards


def test_every_card_of_one_pack_round_trips_through_its_notation():
    for card in new_pack(1):
        assert Card.parse(str(card)) == card
        assert len(str(card)) == 2


def test_every_card_of_two_packs_round_trips_and_the_second_copy_carries_the_mark():
    for card in new_pack(2):
        text = str(card)
        assert Card.parse(text) == card
        assert text.endswith("'") == (card.pack == 1)


def test_notation_is_rank_then_suit():
    assert Card.parse("TD") == Card(Rank.TEN, Suit.DIAMONDS)
    assert Card.parse("AS") == Card(Rank.ACE, Suit.SPADES, 0)
    assert Card.parse("KH'") == Card(Rank.KING, Suit.HEARTS, 1)
    assert str(Card(Rank.QUEEN, Suit.CLUBS)) == "QC"


def test_parsing_ignores_letter_case():
    assert Card.parse("qh") == Card.parse("QH")


def test_code_hides_which_pack_a_card_came_from():
    first, second = Card.parse("7C"), Card.parse("7C'")
    assert first != second
    assert first.code == second.code == "7C"
    assert str(second) == "7C'"


def test_repr_rebuilds_the_card():
    card = Card.parse("JD'")
    assert eval(repr(card)) == card


@pytest.mark.parametrize("junk", ["", "A", "1S", "10S", "AX", "ZZ", "AS''", "AS!", "??", " AS", "AS ", None, 12, b"AS"])
def test_junk_is_not_a_card(junk):
    with pytest.raises(BadCard) as info:
        Card.parse(junk)
    assert info.value.text == junk
    assert isinstance(info.value, ValueError)


def test_parse_cards_reads_cards_written_together():
    assert parse_cards("AS2H3D'") == [Card.parse("AS"), Card.parse("2H"), Card.parse("3D'")]
    assert parse_cards("") == []
    with pytest.raises(BadCard):
        parse_cards("AS2")


def test_a_pack_holds_52_different_cards_and_two_packs_two_of_each():
    one, two = new_pack(1), new_pack(2)
    assert len(one) == 52 and len(set(one)) == 52
    assert len(two) == 104 and len(set(two)) == 104
    assert Counter(c.code for c in two) == Counter({c.code: 2 for c in one})
    assert new_pack() == one


def test_a_new_pack_is_ordered_pack_by_pack_suit_by_suit_ace_to_king():
    pack = new_pack(2)
    assert [str(c) for c in pack[:3]] == ["AC", "2C", "3C"]
    assert str(pack[12]) == "KC" and str(pack[13]) == "AD"
    assert str(pack[51]) == "KS" and str(pack[52]) == "AC'" and str(pack[103]) == "KS'"


@pytest.mark.parametrize("packs", [0, 3, -1, "1"])
def test_only_one_or_two_packs_exist(packs):
    with pytest.raises(ValueError):
        new_pack(packs)


def test_hearts_and_diamonds_are_red_clubs_and_spades_black():
    assert Card.parse("AH").colour == Colour.RED
    assert Card.parse("KD").colour == Colour.RED
    assert Card.parse("5C").colour == Colour.BLACK
    assert Card.parse("5S").colour == Colour.BLACK
    assert Counter(c.colour for c in new_pack()) == {Colour.RED: 26, Colour.BLACK: 26}


def test_ranks_have_their_usual_values_and_letters():
    assert [r.letter for r in Rank] == list("A23456789TJQK")
    assert Rank.ACE == 1 and Rank.JACK == 11 and Rank.KING == 13
    assert [s.letter for s in Suit] == list("CDHS")


def test_unknown_card_is_written_as_two_question_marks():
    assert UNKNOWN == "??"
