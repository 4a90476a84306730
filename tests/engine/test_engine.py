"""The engine: events played through the referee give the same coups as the table itself."""

from __future__ import annotations

import pytest
from busutil import simulated
from tables import rules_for

from controller.bus.schema import ButtonPressed, CardIdentified, CardPlaced, ChipsChanged, DealerOperation, Envelope
from controller.referee import Referee
from controller.rules.operations import DEALER
from controller.rules.profile import TableRules
from controller.rules.table import Phase


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
    # What the croupier's display says, the latest last.
    assert [(r["action_fr"], r["reason_fr"]) for r in referee.state()["refusals"]] == [
        ("carte donnée refusée", "carte « Zz » inconnue"),
        ("fin de donne refusée", "la table est en phase « table fermée », pas « donne »"),
        ("saisie du croupier refusée", "ligne illisible : « fold seat=banana »"),
        ("relance refusée", "jetons dans la case relance de la place 2 hors de sa décision"),
    ]


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


def _bought_card_unseen() -> tuple[TableRules, list[Envelope]]:
    """Seat 1 raises and buys a card that the camera sees placed but never reads; seat 3 folds."""
    from tables import dealt_table

    from controller.sim.events import bus_events

    rules = rules_for("fr-2007", card_purchase=True)
    table = dealt_table(rules, {1: "As Ad 7c 8h 9s", 3: "2c 3d 9h Jc Qs", DEALER: "Ac Kc 4d 5d 6s"})
    t = table.log[-1].t
    table.raise_(t + 1, 1, 2000)
    table.buy_card(t + 2, 1, 4, 1000)
    table.fold(t + 3, 3)
    table.deal_bought_card(t + 4, 1, None)
    bodies = [body for _ms, _topic, body in bus_events(table.log)] + [DealerOperation("show-dealer")]
    return rules, [_envelope(seq, body) for seq, body in enumerate(bodies, start=1)]


def test_the_display_learns_why_the_coup_cannot_end_and_how_often_it_was_asked():
    """The dealer presses « paiement terminé » twice while the coup waits for a bought card the camera never read:
    the refusal says so in French, counted; once the card is read the coup is settled and the refusals go."""
    rules, envelopes = _bought_card_unseen()
    referee = Referee(rules)
    outcomes = [referee.handle(envelope) for envelope in envelopes]
    assert outcomes[-1].settlement_waits == "settle refused: seat 1's bought card has not been seen"
    seq = len(envelopes)
    for press in (1, 2):
        outcome = referee.handle(_envelope(seq + press, ButtonPressed("payment_done")))
        assert outcome.refused == "end-coup refused: seat 1's bought card has not been seen"
    refusals = [(r["kind"], r["action_fr"], r["reason_fr"], r["count"]) for r in referee.state()["refusals"]]
    assert refusals == [("settle", "règlement du coup refusé", "carte achetée place 1 non vue", 1),
                        ("end-coup", "fin de coup refusée", "carte achetée place 1 non vue", 2)]
    # The showdown's next accepted event tries the settlement again: its wait is not counted again.
    referee.handle(_envelope(seq + 3, CardIdentified(1, 0, "As")))
    assert [r["count"] for r in referee.state()["refusals"]] == [1, 2]
    referee.handle(_envelope(seq + 4, CardIdentified(1, 4, "Qh")))
    assert referee.table.phase is Phase.PAYING
    assert referee.state()["refusals"] == []


def test_a_refusal_stands_while_its_reason_holds(tmp_path):
    """Each accepted operation checks the refused ones again: one the table would now take goes, one still refused
    stays; the next phase starts afresh. A late joiner gets the same list: the engine's state after replaying its
    store carries it."""
    from webutil import recorded_store, table_config

    config = table_config(tmp_path)
    deck = ",".join(f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs")
    bodies = [DealerOperation(f"open-session cards={deck}"), DealerOperation("sit seat=1"),
              ButtonPressed("no_more_bets"), DealerOperation("sit seat=9")]
    envelopes = [("dealer.keypad", _envelope(seq, body)) for seq, body in enumerate(bodies, start=1)]
    referee = Referee(config.rules)
    for _topic, envelope in envelopes:
        referee.handle(envelope)
    assert [(r["kind"], r["reason_fr"]) for r in referee.state()["refusals"]] == [
        ("no-more-bets", "aucune place occupée n'a d'ante"),
        ("sit", "la place 9 n'est pas une place de la table (1 à 7)")]
    assert recorded_store(config, envelopes)["refusals"] == referee.state()["refusals"]
    referee.handle(_envelope(5, ChipsChanged(1, "ante", 1000)))  # « rien ne va plus » would now go through
    assert [r.kind for r in referee.refusals] == ["sit"]
    referee.handle(_envelope(6, DealerOperation("sit seat=2")))  # another seat taken: seat 9 is still no seat
    assert [r.kind for r in referee.refusals] == ["sit"]
    referee.handle(_envelope(7, ButtonPressed("no_more_bets")))
    assert referee.table.phase is Phase.DEALING and referee.refusals == []


def test_a_refused_end_of_coup_says_which_seats_are_still_to_pay_as_they_are_paid():
    """« Fin de coup refusée : places 3, 1 encore à payer » becomes « place 1 » once seat 3 is paid, and goes once
    every seat is paid."""
    from tables import dealt_table, showdown

    from controller.sim.events import bus_events

    rules = rules_for("fr-2007")
    table = showdown(dealt_table(rules, {1: "As Ad 7c 8h 9s", 3: "Kc Kd 9h Jc Qs", DEALER: "Ac Kh 4d 5d 6s"}),
                     {1: True, 3: True})
    referee = Referee(rules)
    bodies = [body for _ms, _topic, body in bus_events(table.log)]
    for seq, body in enumerate(bodies, start=1):
        referee.handle(_envelope(seq, body))
    assert referee.table.phase is Phase.PAYING and referee.table.payments_due() == [3, 1]
    seq = len(bodies)
    assert referee.handle(_envelope(seq + 1, DealerOperation("end-coup"))).refused

    def standing() -> list[str]:
        return [r["reason_fr"] for r in referee.state()["refusals"]]

    assert standing() == ["places 3, 1 encore à payer"]
    referee.handle(_envelope(seq + 2, ButtonPressed("payment_done")))  # seat 3 paid
    assert standing() == ["place 1 encore à payer"]
    referee.handle(_envelope(seq + 3, ButtonPressed("payment_done")))  # seat 1 paid: the coup may end now
    assert standing() == []
