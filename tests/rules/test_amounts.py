"""Amounts in the rules core are whole numbers of cents, ``int``: anything else is refused before any other check,
with a reason, and leaves the table as it was."""

from __future__ import annotations

import copy
import dataclasses
from decimal import Decimal
from typing import Any

import pytest
from tables import HANDS, betting_table, dealt_table, rules_for, showdown

from controller.rules.errors import ActionRefused
from controller.rules.history import _MONEY_FIELDS
from controller.rules.operations import (
    AMOUNT_FIELDS,
    OPERATION_TYPES,
    Box,
    BuyCard,
    ConfirmAnte,
    PaymentSeen,
    PlaceBet,
    Raise,
    Settle,
)
from controller.rules.summary import table_summary
from controller.rules.table import Phase, Table

T = 10_000
NOT_CENTS = [True, False, 10.0, 10.5, -1.5, "1000", Decimal("1000"), Decimal("10.5"), None]


def _betting() -> Table:
    return betting_table(rules_for(), {1: 1000})


def _deciding() -> Table:
    return dealt_table(rules_for(card_purchase=True), HANDS)


def _raised() -> Table:
    table = _deciding()
    table.raise_(T, 1, 2000)
    return table


def _settling() -> Table:
    table = _deciding()
    table.raise_(T, 1, 2000)
    table.raise_(T, 3, 2000)
    table.show_dealer_hand(T)
    return table


def _paying() -> Table:
    return showdown(_deciding(), {1: True, 3: True})


# Each operation that carries an amount, in a state where it is taken with a good amount.
CASES = [
    ("bet", _betting, lambda amount: PlaceBet(T, 1, Box.ANTE, amount), 2000),
    ("confirm-ante", _deciding, lambda amount: ConfirmAnte(T, 1, amount), 1000),
    ("raise", _deciding, lambda amount: Raise(T, 1, amount), 2000),
    ("buy", _raised, lambda price: BuyCard(T, 1, 0, price), 1000),
    ("settle", _settling, lambda meter: Settle(T, meter), 0),
    ("paying", _paying, lambda amount: PaymentSeen(T, 1, "ante", amount), 2000),
    ("bet", _paying, lambda amount: PlaceBet(T, 1, Box.ANTE, amount), 2000),  # the dealer keys a payment
]


def _state(table: Table) -> Any:
    return (table.phase, copy.deepcopy(table.seats), copy.deepcopy(table.coup), list(table.log), list(table.flags),
            table_summary(table, True))


@pytest.mark.parametrize("kind, make_table, make_op, good", CASES, ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("amount", NOT_CENTS, ids=repr)
def test_an_amount_that_is_not_an_int_is_refused_and_changes_nothing(kind, make_table, make_op, good, amount):
    table = make_table()
    before = _state(table)
    op = make_op(amount)
    assert not table.can(op)
    with pytest.raises(ActionRefused, match=r"is not a whole number of cents \(an int, not a ") as caught:
        table.apply(op)
    assert caught.value.action == kind
    assert repr(amount) in caught.value.reason
    assert caught.value.reason.endswith(f"not a {type(amount).__name__})")
    assert repr(amount) in caught.value.reason_fr and "pas un nombre entier de centimes" in caught.value.reason_fr
    assert _state(table) == before


@pytest.mark.parametrize("kind, make_table, make_op, good", CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_an_int_amount_is_still_taken(kind, make_table, make_op, good):
    table = make_table()
    op = table.apply(make_op(good))
    assert table.log[-1] is op


def test_a_true_ante_is_no_one_cent_ante():
    table = _betting()
    with pytest.raises(ActionRefused, match=r"bet refused: the amount True is not a whole number of cents "
                                            r"\(an int, not a bool\)"):
        table.place_bet(T, 1, Box.ANTE, True)  # type: ignore[arg-type]
    assert table.seats[1].bets[Box.ANTE] == 1000


def test_the_refusal_names_the_amount():
    table = _raised()
    with pytest.raises(ActionRefused) as caught:
        table.buy_card(T, 1, 0, 10.0)  # type: ignore[arg-type]
    assert caught.value.reason == "the purchase price 10.0 is not a whole number of cents (an int, not a float)"
    assert caught.value.reason_fr == "prix d'achat invalide (10.0) : pas un nombre entier de centimes"


def test_a_float_is_refused_before_the_checks_that_would_write_it_in_euros():
    # a negative float once failed with a bare ValueError while the refusal's French text was built
    table = _betting()
    with pytest.raises(ActionRefused, match="the amount -1.5 is not a whole number of cents"):
        table.place_bet(T, 1, Box.ANTE, -1.5)  # type: ignore[arg-type]


def test_every_amount_field_is_marked():
    """The fields that the history writes as money are the fields the table checks as cents, and every operation
    has its entry."""
    assert set(AMOUNT_FIELDS) == set(OPERATION_TYPES.values())
    for op_type in OPERATION_TYPES.values():
        money = {f.name for f in dataclasses.fields(op_type) if f.name in _MONEY_FIELDS}
        assert {name for name, _what, _what_fr in AMOUNT_FIELDS[op_type]} == money, op_type
    assert sum(bool(marked) for marked in AMOUNT_FIELDS.values()) == 6


def test_phase_of_the_cases():
    # the cases' tables are where the good amounts are taken, not refused for another reason
    assert _paying().phase is Phase.PAYING and _settling().phase is Phase.SHOWDOWN
