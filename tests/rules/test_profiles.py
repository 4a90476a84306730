"""Rule profiles: every shipped one is valid and quotes its seed; mistakes name key and line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.profiles import PROFILES_DIR, SEEDS_DIR, load_profile, profile_names
from controller.rules.errors import ProfileError, TableRulesError
from controller.rules.profile import TableRules, parse_profile
from controller.rules.ranking import Category

FR_2007 = (PROFILES_DIR / "fr-2007.toml").read_text(encoding="utf-8")


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("’", "'")).strip()


def test_the_five_profiles_ship():
    assert profile_names() == ["caribbean", "caribbean-us", "fr-1959", "fr-2007", "it"]


@pytest.mark.parametrize("name", profile_names())
def test_every_quote_is_the_seeds_own_words(name):
    """A quote may elide with [...]; each piece must stand in the cited seed file as written."""
    profile = load_profile(name)
    assert profile.citations, "a profile cites its seeds"
    for table, citation in profile.citations.items():
        seed = _normalize((SEEDS_DIR / citation.source).read_text(encoding="utf-8"))
        assert citation.quote or citation.assumption, table
        for piece in (citation.quote or "").split("[...]"):
            assert _normalize(piece) in seed, f"{name}.{table}: {piece!r} is not in {citation.source}"


def test_fr_2007_paytables_are_the_seeds():
    profile = load_profile("fr-2007")
    assert profile.raise_paytable == {
        Category.PAIR: 1, Category.TWO_PAIR: 2, Category.THREE_OF_A_KIND: 3, Category.STRAIGHT: 5,
        Category.FLUSH: 8, Category.FULL_HOUSE: 10, Category.FOUR_OF_A_KIND: 20,
        Category.STRAIGHT_FLUSH: 50, Category.ROYAL_FLUSH: 100,
    }
    assert profile.bonus_paytable == {
        Category.FLUSH: 100, Category.FULL_HOUSE: 150, Category.FOUR_OF_A_KIND: 1000,
        Category.STRAIGHT_FLUSH: 2000, Category.ROYAL_FLUSH: 5000,
    }
    assert profile.card_purchase and profile.purchase_price_in_antes == 1 and profile.purchase_forfeits_bonus


def test_caribbean_assumptions_are_marked():
    profile = load_profile("caribbean")
    for table in ("raise_paytable", "jackpot_paytable", "decision_timer"):
        assert profile.citations[table].assumption, f"{table} takes common values: it must say so"
    assert profile.players_max == 4 and profile.jackpot_stake_cents == 50


def _broken(old: str, new: str) -> str:
    assert old in FR_2007
    return FR_2007.replace(old, new, 1)


def _line_of(text: str, fragment: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_a_misspelt_key_is_named_with_its_line_and_a_suggestion():
    text = _broken("four_of_a_kind = 20", "four_of_a_kid = 20")
    with pytest.raises(ProfileError) as caught:
        parse_profile(text, "fr-2007.toml")
    error = caught.value
    assert error.key == "raise_paytable.four_of_a_kid"
    assert error.line == _line_of(text, "four_of_a_kid")
    assert "did you mean 'four_of_a_kind'" in str(error)
    assert str(error).startswith(f"fr-2007.toml, line {error.line}: ")


def test_a_wrong_type_is_named_with_its_line():
    text = _broken("multiple_of_ante = 2", 'multiple_of_ante = "two"')
    with pytest.raises(ProfileError) as caught:
        parse_profile(text, "p.toml")
    assert caught.value.key == "raise.multiple_of_ante"
    assert caught.value.line == _line_of(text, 'multiple_of_ante = "two"')
    assert "expected a whole number" in str(caught.value)


def test_an_unknown_table_is_named():
    text = FR_2007 + "\n[bonnus]\nallowed = true\n"
    with pytest.raises(ProfileError) as caught:
        parse_profile(text, "p.toml")
    assert caught.value.key == "bonnus" and caught.value.line == _line_of(text, "[bonnus]")
    assert "did you mean 'bonus'" in str(caught.value)


def test_a_toml_syntax_error_gives_its_line():
    text = _broken("flush = 8", "flush = = 8")
    with pytest.raises(ProfileError) as caught:
        parse_profile(text, "p.toml")
    assert caught.value.line == _line_of(text, "flush = = 8")


def test_a_seed_that_does_not_exist_is_refused():
    text = _broken('source = "002_87ba72c7b4f0f571.txt"', 'source = "002_87ba72c7b4f0f57.txt"')
    with pytest.raises(ProfileError, match="is not a seed file"):
        parse_profile(text, "p.toml")


def test_a_rule_without_quote_or_assumption_is_refused():
    text = re.sub(r'(\[dealer\]\nqualifies_with = "ace-king"\nsource = "[^"]+"\n)quote = .*\n', r"\1", FR_2007)
    with pytest.raises(ProfileError, match="cites no 'quote'") as caught:
        parse_profile(text, "p.toml")
    assert caught.value.key == "dealer"


def test_an_out_of_range_value_is_refused():
    text = _broken("marked_max = 7", "marked_max = 9")
    with pytest.raises(ProfileError, match="outside 5..7"):
        parse_profile(text, "p.toml")


def test_a_missing_profile_lists_the_shipped_ones():
    with pytest.raises(ProfileError, match="shipped: caribbean, caribbean-us, fr-1959"):
        load_profile("fr-2099")


def test_a_profile_can_be_read_from_any_path(tmp_path: Path):
    path = tmp_path / "house.toml"
    path.write_text(FR_2007.replace('name = "fr-2007"', 'name = "house"'), encoding="utf-8")
    assert load_profile(path).name == "house"


def test_table_rules_stay_within_the_profile():
    fr = load_profile("fr-1959")
    with pytest.raises(ValueError, match=r"marked_seats: 4 is below the profile's 5 \(fr-1959\)"):
        TableRules(fr, 1000, 50000, 4)
    with pytest.raises(ValueError, match=r"marked_seats: 8 is above the profile's 7 \(fr-1959\)"):
        TableRules(fr, 1000, 50000, 8)
    with pytest.raises(ValueError, match="bonus: profile fr-1959 has no bonus"):
        TableRules(fr, 1000, 50000, 7, bonus=True)
    with pytest.raises(ValueError, match=r"maximum_cents: 1000 cents \(10.00 €\) is below the minimum 5000 cents"):
        TableRules(fr, 5000, 1000, 7)
    with pytest.raises(ValueError, match=r"minimum_cents: 0 cents \(0.00 €\) is not above zero"):
        TableRules(fr, 0, 1000, 7)
    with pytest.raises(ValueError, match="minimum_cents: the bonus stake, 1/5 of the minimum 1001 cents, is not a "
                                         "whole number of cents"):
        TableRules(load_profile("fr-2007"), 1001, 50000, 7, bonus=True)
    with pytest.raises(TableRulesError) as caught:  # every problem, the first named by its field
        TableRules(fr, -5, -10, 9, jackpot=True)
    assert (caught.value.field, caught.value.message) == ("marked_seats", "9 is above the profile's 7 (fr-1959)")
    assert [field for field, _message in caught.value.problems] == [
        "marked_seats", "minimum_cents", "maximum_cents", "jackpot"]
    assert "minimum_cents: -5 cents (-0.05 €) is not above zero" in str(caught.value)
    assert TableRules(load_profile("fr-2007"), 1000, 50000, 7, bonus=True).bonus_stake_cents == 200
