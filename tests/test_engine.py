"""The engine: events played through the referee give the same coups as the table itself."""

from __future__ import annotations

import pytest
from busutil import simulated
from tables import rules_for

from controller.bus.schema import ButtonPressed, CardPlaced, ChipsChanged, DealerOperation, Envelope
from controller.engine import Referee


@pytest.mark.parametrize("profile, options", [("fr-2007", {"bonus": True, "card_purchase": True}),
                                              ("caribbean", {"jackpot": True}), ("fr-1959", {})])
def test_bus_events_through_the_referee_settle_as_the_table_did(profile, options):
    rules = rules_for(profile, **options)
    reference, envelopes = simulated(rules, seed=11, coups=8)
    referee = Referee(rules, jackpot_meter=1_000_000)
    refused = [referee.handle(envelope).refused for _topic, envelope in envelopes]
    assert [r for r in refused if r] == []
    assert referee.table.settlements == reference.settlements
    assert referee.table.coup.number == reference.coup.number


def _envelope(seq, body, ms=None):
    return Envelope("test", seq, (ms or seq) * 1_000_000, 0, body)


def test_a_bad_event_is_refused_with_its_reason_and_changes_nothing():
    referee = Referee(rules_for("fr-1959"))
    outcome = referee.handle(_envelope(1, CardPlaced(3, "Zz", False)))
    assert outcome.refused and "unknown card 'Zz'" in outcome.refused
    outcome = referee.handle(_envelope(2, ButtonPressed("end_of_deal")))
    assert outcome.refused == "end-deal refused: the table is in phase 'closed', not dealing"
    outcome = referee.handle(_envelope(3, DealerOperation("fold seat=banana")))
    assert outcome.refused and "history line 1" in outcome.refused
    outcome = referee.handle(_envelope(4, ChipsChanged(2, "raise", 2000)))
    assert outcome.refused == "chips in the raise box are a raise only while the seat decides"
    assert referee.table.log == []


def test_the_table_clock_never_goes_back_even_if_events_do():
    referee = Referee(rules_for("fr-1959"))
    deck = " ".join(f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs")
    assert referee.handle(_envelope(1, DealerOperation(f"open-session cards={deck.replace(' ', ',')}"),
                                    ms=5000)).refused is None
    assert referee.handle(_envelope(2, DealerOperation("sit seat=1"), ms=4000)).refused is None
    assert [op.t for op in referee.table.log] == [5000, 5000]
