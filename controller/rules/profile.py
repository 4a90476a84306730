"""Rule profiles: the rules of one game, as data drawn from a seed text.

A profile is a TOML file in ``seeds/profiles/``. Each of its rule tables names
the seed file it comes from (``source``) and either the seed's own words
(``quote``) or, where the seed is silent, the value assumed and why
(``assumption``). ``parse_profile`` validates everything and names the key and
the line of any mistake; it reads no file (the caller passes the text).

``TableRules`` is one table's setting of a profile: limits, marked seats, which
side bets are open, each checked against the profile's bounds, here only: a
``TableRulesError`` names the field, for the configuration and the history's
header to name their own key.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .errors import ProfileError, TableRulesError
from .ranking import Category
from .tomlread import TomlReader, load_toml, suggest

SEED_FILES = (
    "000_c9fcc3ffc2ce3fc5.txt",
    "002_87ba72c7b4f0f571.txt",
    "003_e5ded94c426459f5.txt",
    "004_7c01d0bb29454e1d.txt",
)

CATEGORY_KEYS = {category.key: category for category in Category}


@dataclass(frozen=True)
class Citation:
    source: str
    quote: str | None
    assumption: str | None


@dataclass(frozen=True)
class JackpotAward:
    """A progressive award: a share of the meter, or a fixed amount in cents."""

    meter_percent: int | None = None
    fixed_cents: int | None = None

    def amount(self, meter_cents: int) -> int:
        if self.fixed_cents is not None:
            return self.fixed_cents
        assert self.meter_percent is not None
        return meter_cents * self.meter_percent // 100


@dataclass(frozen=True)
class Profile:
    name: str
    title: str
    #: the language of the seed, for the croupier's announcements
    language: str
    marked_seats_min: int
    marked_seats_max: int
    players_min: int
    players_max: int
    raise_multiple: int
    #: raise paid by this table when the dealer qualifies and is beaten
    raise_paytable: Mapping[Category, int]
    ante_pays_when_not_qualified: int
    #: when the dealer does not qualify, hands of at least this category have
    #: their raise paid by the raise paytable (None: the raise is always returned)
    raise_paid_when_not_qualified_from: Category | None
    card_purchase: bool
    purchase_price_in_antes: int
    purchase_forfeits_bonus: bool
    bonus: bool
    bonus_stake_fraction_of_minimum: Fraction
    bonus_paytable: Mapping[Category, int]
    bonus_paid_when_not_qualified: bool
    jackpot: bool
    jackpot_stake_cents: int
    jackpot_paytable: Mapping[Category, JackpotAward]
    jackpot_forfeited_by_fold: bool
    decision_timer: bool
    decision_seconds: int
    auto_raise_from: Category | None
    citations: Mapping[str, Citation] = field(default_factory=dict)

    def raise_pays(self, category: Category) -> int:
        """The raise's multiple for a hand of this category (0: not in the paytable)."""
        return self.raise_paytable.get(category, 0)

    def bonus_pays(self, category: Category) -> int:
        return self.bonus_paytable.get(category, 0)


class _Reader(TomlReader):
    """Adds the profile's own kinds of value: hand categories, paytables, citations."""

    def category(self, key: str, default: Any = ...) -> Category | None:
        value = self.raw(key, default)
        if value is None:
            return None
        return self.category_name(key, value)

    def category_name(self, key: str, value: Any) -> Category:
        if value not in CATEGORY_KEYS:
            raise self.fail(key, f"{value!r} is not a hand category{suggest(value, CATEGORY_KEYS)}")
        return CATEGORY_KEYS[value]

    def paytable(self, table: str) -> dict[Category, int]:
        entries = self.raw(table)
        if not isinstance(entries, dict):
            raise self.fail(table, "expected a table of category = multiple")
        pays: dict[Category, int] = {}
        for name in entries:
            if name in _CITATION_KEYS:
                continue
            key = f"{table}.{name}"
            pays[self.category_name(key, name)] = self.integer(key, 1, 1_000_000)
        return pays

    def citation(self, table: str) -> Citation:
        source = self.string(f"{table}.source")
        if source not in SEED_FILES:
            raise self.fail(f"{table}.source", f"{source!r} is not a seed file{suggest(source, SEED_FILES)}")
        quote = self.raw(f"{table}.quote", None)
        assumption = self.raw(f"{table}.assumption", None)
        if quote is None and assumption is None:
            raise self.fail(table, "cites no 'quote' from its seed and states no 'assumption'")
        return Citation(source, quote, assumption)


_CITATION_KEYS = {"source", "quote", "assumption"}

#: Every table a profile has, and the keys each may hold besides its citation.
_SCHEMA: dict[str, set[str]] = {
    "seats": {"marked_min", "marked_max"},
    "players": {"min", "max"},
    "raise": {"multiple_of_ante"},
    "raise_paytable": set(CATEGORY_KEYS),
    "dealer": {"qualifies_with"},
    "not_qualified": {"ante_pays", "raise_paid_from"},
    "card_purchase": {"allowed", "price_in_antes", "forfeits_bonus"},
    "bonus": {"allowed", "stake_fraction_of_minimum", "paid_when_dealer_not_qualified"},
    "bonus_paytable": set(CATEGORY_KEYS),
    "jackpot": {"allowed", "stake_cents", "forfeited_by_fold"},
    "jackpot_paytable": set(CATEGORY_KEYS),
    "decision_timer": {"allowed", "seconds", "auto_raise_from"},
}
_TOP_LEVEL = {"name", "title", "language"}
LANGUAGES = ("fr", "it", "en")


def _jackpot_paytable(reader: _Reader) -> dict[Category, JackpotAward]:
    entries = reader.raw("jackpot_paytable", {})
    awards: dict[Category, JackpotAward] = {}
    for name, award in entries.items():
        if name in _CITATION_KEYS:
            continue
        key = f"jackpot_paytable.{name}"
        category = reader.category_name(key, name)
        if isinstance(award, dict) and set(award) == {"meter_percent"}:
            awards[category] = JackpotAward(meter_percent=reader.integer(f"{key}.meter_percent", 1, 100))
        elif isinstance(award, dict) and set(award) == {"fixed_cents"}:
            awards[category] = JackpotAward(fixed_cents=reader.integer(f"{key}.fixed_cents", 1, 10**9))
        else:
            raise reader.fail(key, "expected { meter_percent = N } or { fixed_cents = N }")
    return awards


def _language(reader: _Reader) -> str:
    language = reader.string("language", "fr")
    if language not in LANGUAGES:
        raise reader.fail("language", f"{language!r} is not one of {', '.join(LANGUAGES)}")
    return language


def parse_profile(text: str, source: str = "<profile>") -> Profile:
    """Validate a profile's TOML text; ``source`` names it in error messages."""
    data = load_toml(text, source, ProfileError)
    reader = _Reader(text, source, data, ProfileError)
    reader.check_keys(_SCHEMA, _TOP_LEVEL, _CITATION_KEYS)

    citations = {table: reader.citation(table) for table in _SCHEMA if table in data}
    for required in ("seats", "players", "raise", "raise_paytable", "dealer", "not_qualified"):
        if required not in data:
            raise reader.fail(required, "missing table")

    if reader.string("dealer.qualifies_with") != "ace-king":
        raise reader.fail("dealer.qualifies_with", "every seed game qualifies the dealer with 'ace-king'")
    marked_min = reader.integer("seats.marked_min", 1, 7)
    marked_max = reader.integer("seats.marked_max", marked_min, 7)
    players_min = reader.integer("players.min", 1, marked_max)
    players_max = reader.integer("players.max", players_min, marked_max)

    purchase = reader.boolean("card_purchase.allowed", False)
    bonus = reader.boolean("bonus.allowed", False)
    fraction_text = reader.raw("bonus.stake_fraction_of_minimum", "1/5")
    try:
        fraction = Fraction(str(fraction_text))
    except (ValueError, ZeroDivisionError):
        key = "bonus.stake_fraction_of_minimum"
        raise reader.fail(key, f"{fraction_text!r} is not a fraction like '1/5'") from None
    if fraction <= 0:
        raise reader.fail("bonus.stake_fraction_of_minimum", f"{fraction_text!r} is not a positive fraction")
    jackpot = reader.boolean("jackpot.allowed", False)
    timer = reader.boolean("decision_timer.allowed", False)
    profile = Profile(
        name=reader.string("name"),
        title=reader.string("title"),
        language=_language(reader),
        marked_seats_min=marked_min,
        marked_seats_max=marked_max,
        players_min=players_min,
        players_max=players_max,
        raise_multiple=reader.integer("raise.multiple_of_ante", 1, 10),
        raise_paytable=reader.paytable("raise_paytable"),
        ante_pays_when_not_qualified=reader.integer("not_qualified.ante_pays", 0, 10),
        raise_paid_when_not_qualified_from=reader.category("not_qualified.raise_paid_from", None),
        card_purchase=purchase,
        purchase_price_in_antes=reader.integer("card_purchase.price_in_antes", 1, 10, 1),
        purchase_forfeits_bonus=reader.boolean("card_purchase.forfeits_bonus", True),
        bonus=bonus,
        bonus_stake_fraction_of_minimum=fraction,
        bonus_paytable=reader.paytable("bonus_paytable") if bonus else {},
        bonus_paid_when_not_qualified=reader.boolean("bonus.paid_when_dealer_not_qualified", True),
        jackpot=jackpot,
        jackpot_stake_cents=reader.integer("jackpot.stake_cents", 1, 10**6, 50),
        jackpot_paytable=_jackpot_paytable(reader) if jackpot else {},
        jackpot_forfeited_by_fold=reader.boolean("jackpot.forfeited_by_fold", True),
        decision_timer=timer,
        decision_seconds=reader.integer("decision_timer.seconds", 1, 600, 30),
        auto_raise_from=reader.category("decision_timer.auto_raise_from", None),
        citations=citations,
    )
    if bonus and not profile.bonus_paytable:
        raise reader.fail("bonus_paytable", "the bonus is allowed but has no paytable")
    if jackpot and not profile.jackpot_paytable:
        raise reader.fail("jackpot_paytable", "the jackpot is allowed but has no paytable")
    return profile


# --- one table's setting ------------------------------------------------------


def _cents(cents: int) -> str:
    """« 500 cents (5.00 €) »: a configuration sets cents, a history writes euros."""
    sign = "-" if cents < 0 else ""
    return f"{cents} cents ({sign}{abs(cents) // 100}.{abs(cents) % 100:02d} €)"


@dataclass(frozen=True)
class TableRules:
    """A table's limits and options, within its profile's bounds."""

    profile: Profile
    minimum_cents: int
    maximum_cents: int
    marked_seats: int
    bonus: bool = False
    jackpot: bool = False
    card_purchase: bool = False

    def __post_init__(self) -> None:
        """The one check of a table's setting against its profile (a configuration's and a history header's
        values come here): ``TableRulesError`` names the field of each problem."""
        profile = self.profile
        problems: list[tuple[str, str]] = []
        if self.marked_seats > profile.marked_seats_max:
            problems.append(("marked_seats", f"{self.marked_seats} is above the profile's {profile.marked_seats_max} "
                                             f"({profile.name})"))
        if self.marked_seats < profile.marked_seats_min:
            problems.append(("marked_seats", f"{self.marked_seats} is below the profile's {profile.marked_seats_min} "
                                             f"({profile.name})"))
        if self.minimum_cents <= 0:
            problems.append(("minimum_cents", f"{_cents(self.minimum_cents)} is not above zero"))
        if self.maximum_cents < self.minimum_cents:
            problems.append(("maximum_cents", f"{_cents(self.maximum_cents)} is below the minimum "
                                              f"{_cents(self.minimum_cents)}"))
        for option, offered, name in (("bonus", profile.bonus, "bonus"), ("jackpot", profile.jackpot, "jackpot"),
                                      ("card_purchase", profile.card_purchase, "card purchase")):
            if getattr(self, option) and not offered:
                problems.append((option, f"profile {profile.name} has no {name}"))
        if self.bonus and (self.minimum_cents * profile.bonus_stake_fraction_of_minimum).denominator != 1:
            problems.append(("minimum_cents", f"the bonus stake, {profile.bonus_stake_fraction_of_minimum} of the "
                                              f"minimum {self.minimum_cents} cents, is not a whole number of cents"))
        if problems:
            raise TableRulesError(problems)

    @functools.cached_property
    def bonus_stake_cents(self) -> int:
        # Computed once per table: it is asked at every « rien ne va plus ».
        return int(self.minimum_cents * self.profile.bonus_stake_fraction_of_minimum)

    @property
    def seats(self) -> range:
        return range(1, self.marked_seats + 1)
