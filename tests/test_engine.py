"""The engine: events played through the referee give the same coups as the table itself."""

from __future__ import annotations

import pytest
from busutil import simulated
from tables import rules_for

from controller.bus.schema import ButtonPressed, CardPlaced, ChipsChanged, DealerOperation, Envelope
from controller.referee import Referee
from controller.rules.operations import DEALER


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
    return Envelope("test", seq, (ms or seq) * 1_000_000, (ms or seq) * 1_000_000, body)


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
    assert referee.handle(_envelope(3, DealerOperation("sit seat=2"), ms=7500)).refused is None
    # Milliseconds of wall time since the first event, held when the clock steps back.
    assert [op.t for op in referee.table.log] == [0, 0, 2500]


def test_a_hand_holding_a_card_twice_is_refused_settlement_not_crashed():
    """The camera reads seat 1's fourth card as the ace of spades it already holds: the engine must not stop.
    Settlement waits with a reason; the table chief can void the coup."""
    from tables import dealt_table

    from controller.rules.table import Phase
    from controller.sim.events import bus_events

    rules = rules_for("fr-1959")
    table = dealt_table(rules, {1: "As Kd 7h As 2c", DEALER: "Ac Kc 4d 5d 6s"})
    table.raise_(table.log[-1].t + 1, 1, 2000)
    events = bus_events(table.log) + [(0, "dealer.keypad", DealerOperation("show-dealer"))]
    referee = Referee(rules)
    outcomes = [referee.handle(_envelope(seq, body, ms=1000 + seq)) for seq, (_ms, _topic, body) in
                enumerate(events, start=1)]
    assert [f.kind.value for o in outcomes for f in o.flags] == ["duplicate_card"]
    assert referee.table.phase is Phase.SHOWDOWN
    assert outcomes[-1].refused is None  # the dealer's hand is shown...
    assert "seat 1 holds As twice (a foreign card)" in outcomes[-1].settlement_waits  # ...the payouts wait
    voided = referee.handle(_envelope(len(events) + 1, DealerOperation("void reason='carte étrangère'"),
                                      ms=99_000))
    assert voided.refused is None
    referee.handle(_envelope(len(events) + 2, DealerOperation("settle jackpot_meter=0.00"), ms=99_001))
    assert referee.table.settlement is not None and referee.table.settlement.void
