"""The camera checks the dealer's payment: what each seat's zones hold once paid and collected, against the
settlement."""

from __future__ import annotations

import pytest
from refereeutil import HANDS, event, settled, settled_referee
from tables import dealt_table, rules_for, showdown

from controller.bus.schema import ButtonPressed, CameraStatus, ChipsChanged, DealerOperation
from controller.rules.errors import ActionRefused, HistoryError
from controller.rules.flags import FlagKind
from controller.rules.history import format_operation, parse_operation
from controller.rules.operations import DEALER, Box, DealCard, EndCoup, NoMoreBets, PaymentDone, PaymentSeen, PlaceBet
from controller.rules.summary import table_summary
from controller.rules.table import Phase, Table


def asked(seat: int, box: str, amount: int, at_least: bool = False) -> dict[str, object]:
    """A zone « à confirmer » as the referee's state gives it, no amount offered beside the reading."""
    return {"seat": seat, "box": box, "amount": amount, "at_least": at_least, "alternative": 0, "stacked": False}


def pay(table: Table, seat: int, zone: str, amount: int) -> None:
    table.apply(PaymentSeen(table.log[-1].t + 1, seat, zone, amount))


def done(table: Table, seat: int, watched: bool = True) -> None:
    table.apply(PaymentDone(table.log[-1].t + 1, seat, watched))


def kinds(table: Table) -> list[tuple[str, int | None]]:
    return [(flag.kind.value, flag.seat) for flag in table.coup_flags()]


def pay_right(table: Table, seat: int) -> None:
    """Ante 10 € paid 10 €, raise 20 € paid 20 €: each zone holds twice its stake."""
    pay(table, seat, "ante", 2000)
    pay(table, seat, "raise", 4000)


def pay_the_winners(table: Table) -> None:
    """Seats 6, 4 and 1, in paying order, each paid right and « paiement terminé » pressed."""
    for seat in (6, 4, 1):
        pay_right(table, seat)
        done(table, seat)


def test_a_right_payment_and_collection_raise_no_flag_and_the_display_says_paid():
    table = settled()
    pay_the_winners(table)
    pay(table, 3, "ante", 0)
    pay(table, 3, "raise", 0)
    assert kinds(table) == []
    payments = table_summary(table)["payments"]
    assert payments["6"] == {"checked": True, "watched": True, "over": 0, "short": 0, "not_collected": 0}
    assert payments["3"]["checked"] is False  # a seat owed nothing is checked at the coup's end
    table.apply(EndCoup(table.log[-1].t + 1, watched=True))
    assert kinds(table) == [] and table.phase is Phase.BETTING


def test_too_much_too_little_and_a_stake_left_are_flagged_with_their_amounts():
    table = settled()
    pay(table, 6, "ante", 2500)  # 5 € too much
    pay(table, 6, "raise", 4000)
    done(table, 6)
    pay(table, 4, "ante", 2000)
    pay(table, 4, "raise", 3000)  # 10 € short
    done(table, 4)
    pay_right(table, 1)
    done(table, 1)
    pay(table, 3, "raise", 0)  # the ante's 10 € left on the felt
    table.apply(EndCoup(table.log[-1].t + 1, watched=True))
    flags = {(flag.kind, flag.seat): flag for flag in table.flags}
    assert set(flags) == {(FlagKind.OVERPAID, 6), (FlagKind.UNDERPAID, 4), (FlagKind.STAKE_NOT_COLLECTED, 3)}
    assert flags[FlagKind.OVERPAID, 6].detail_fr == "place 6 : trop payé de 5,00 €"
    assert flags[FlagKind.UNDERPAID, 4].detail_fr == "place 4 : il manque 10,00 €"
    assert flags[FlagKind.STAKE_NOT_COLLECTED, 3].detail_fr == "place 3 : reste 10,00 € de mise perdue à ramasser"


def test_the_live_check_shows_an_overpayment_before_the_button_and_the_judgement_stays_after_the_pickup():
    table = settled()
    pay(table, 6, "ante", 3000)  # 10 € too much on the ante, the raise's 20 € not yet paid: 10 € short in all
    live = table_summary(table)["payments"]["6"]
    assert (live["checked"], live["over"], live["short"]) == (False, 0, 1000)
    pay(table, 6, "raise", 4000)
    live = table_summary(table)["payments"]["6"]
    assert (live["checked"], live["over"], live["short"]) == (False, 1000, 0)  # seen before the button
    done(table, 6)
    pay(table, 6, "ante", 0)  # the player picks his chips up: the judgement stands
    pay(table, 6, "raise", 0)
    assert table_summary(table)["payments"]["6"]["over"] == 1000
    assert kinds(table) == [("overpaid", 6)]


def test_winnings_put_in_another_zone_of_the_same_seat_are_no_fault():
    table = settled()
    pay(table, 6, "ante", 1000)
    pay(table, 6, "raise", 5000)  # the ante's 10 € of winnings put beside the raise
    done(table, 6)
    assert kinds(table) == []


def test_nothing_is_judged_when_the_camera_did_not_watch():
    table = settled()
    for seat in (6, 4, 1):
        done(table, seat, watched=False)  # nothing seen paid: the camera was offline
    table.apply(EndCoup(table.log[-1].t + 1))
    assert kinds(table) == []
    assert table_summary(table)["phase"] == "betting"


def test_an_unwatched_payment_says_so_on_the_display():
    table = settled()
    done(table, 6, watched=False)
    shown = table_summary(table)["payments"]["6"]
    assert (shown["checked"], shown["watched"]) == (True, False)
    assert kinds(table) == []


def test_chips_put_on_a_later_seat_before_the_first_is_paid_are_out_of_order_once():
    table = settled()
    pay(table, 1, "ante", 2000)  # seat 1 is paid last (counter-clockwise from the dealer's right)
    pay(table, 1, "raise", 4000)
    assert kinds(table) == [("paid_out_of_order", 1)]
    for seat in (6, 4):
        pay_right(table, seat)
        done(table, seat)
    done(table, 1)
    assert kinds(table) == [("paid_out_of_order", 1)]


def test_a_losing_seat_collected_before_the_others_are_paid_raises_nothing():
    table = settled()
    pay(table, 3, "ante", 0)
    pay(table, 3, "raise", 0)
    pay_the_winners(table)
    table.apply(EndCoup(table.log[-1].t + 1, watched=True))
    assert kinds(table) == [] and table.closing_flags == []


def test_payment_operations_are_refused_outside_the_payment_and_for_an_unknown_zone():
    table = dealt_table(rules_for("fr-1959"), HANDS)
    with pytest.raises(ActionRefused, match="not paying"):
        table.verify(PaymentSeen(table.log[-1].t + 1, 1, "ante", 0))
    table = settled()
    with pytest.raises(ActionRefused, match="no zone 'purse'"):
        table.verify(PaymentSeen(table.log[-1].t + 1, 1, "purse", 0))


def test_the_history_writes_what_the_camera_saw_paid_and_reads_it_back():
    seen = PaymentSeen(12_300, 3, "raise", 4000)
    assert format_operation(seen) == "12.300 paying seat=3 zone=raise amount=40.00"
    assert parse_operation(format_operation(seen)) == seen
    assert format_operation(PaymentDone(1, 3, True)) == "0.001 paid seat=3 watched=yes"
    assert parse_operation("0.001 paid seat=3") == PaymentDone(1, 3, False)  # as written before the camera checked
    assert parse_operation("0.001 end-coup watched=yes") == EndCoup(1, True)
    with pytest.raises(HistoryError, match="zone: 'purse' is not one of ante, raise, bonus, jackpot"):
        parse_operation("0.001 paying seat=3 zone=purse amount=1.00")


def test_the_referee_reads_chips_while_paying_as_payments_and_the_button_says_whether_the_camera_watched():
    referee, t = settled_referee()
    referee.handle(event(CameraStatus(True), t))
    assert isinstance(referee.handle(event(ChipsChanged(6, "raise", 4000), t)).operation, PaymentSeen)
    referee.handle(event(ChipsChanged(6, "ante", 2000), t + 1))
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 2))
    assert outcome.operation == PaymentDone(outcome.operation.t, 6, True) and outcome.flags == []
    referee.handle(event(CameraStatus(False, "unplugged"), t + 3))
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 4))
    assert outcome.operation.watched is False and outcome.flags == []




def settled_with(hands: dict[int, str], raises: dict[int, bool]) -> Table:
    table = showdown(dealt_table(rules_for("fr-1959"), hands), raises)
    assert table.phase is Phase.PAYING
    return table


def test_returned_and_pushed_stakes_are_the_players_to_take_back_before_the_coups_end():
    # a tie: pair of aces, seven, eight, nine on both sides: ante and raise pushed
    table = settled_with({1: "As Ad 7c 8h 9s", DEALER: "Ah Ac 7d 8s 9c"}, {1: True})
    assert table.payments_due() == []
    pay(table, 1, "ante", 0)  # the player takes his stakes back
    pay(table, 1, "raise", 0)
    table.apply(EndCoup(table.log[-1].t + 1, watched=True))
    assert kinds(table) == [] and table.closing_flags == []


def test_no_game_a_returned_raise_taken_back_before_the_press_is_no_shortfall():
    # the dealer has no ace-king: « pas de jeu », the ante paid even money, the raise returned
    table = settled_with({1: "As Ad 7c 8h 9s", DEALER: "Qh Jc 7d 8s 2c"}, {1: True})
    pay(table, 1, "raise", 0)  # the player takes his returned raise at once
    pay(table, 1, "ante", 2000)  # the dealer pays the ante
    done(table, 1)
    assert kinds(table) == []
    # an ante paid short is still short
    table = settled_with({1: "As Ad 7c 8h 9s", DEALER: "Qh Jc 7d 8s 2c"}, {1: True})
    pay(table, 1, "ante", 1500)
    done(table, 1)
    assert kinds(table) == [("underpaid", 1)]


def test_a_losing_zone_once_collected_may_take_the_next_bet_and_a_stake_left_shows_in_the_next_coup():
    table = settled()
    pay_the_winners(table)
    pay(table, 3, "raise", 0)
    pay(table, 3, "ante", 0)  # collected...
    pay(table, 3, "ante", 1000)  # ...and the player's next ante put down
    table.apply(EndCoup(table.log[-1].t + 1, watched=True))
    assert table.closing_flags == []
    table = settled()
    pay_the_winners(table)
    pay(table, 3, "raise", 0)  # the ante left on the felt
    table.apply(EndCoup(table.log[-1].t + 1, watched=True))
    shown = table_summary(table)
    assert shown["phase"] == "betting" and shown["flags"] == []  # the new coup's own flags: none yet
    assert [(f["kind"], f["seat"]) for f in shown["closing_flags"]] == [("stake_not_collected", 3)]


def test_the_dealers_amount_keyed_while_paying_is_what_the_payment_is_checked_on():
    table = settled()
    pay(table, 6, "ante", 1500)  # read 15 €, the camera unsure: the dealer keys what lies there
    table.apply(PlaceBet(table.log[-1].t + 1, 6, Box.ANTE, 2000))
    pay(table, 6, "raise", 4000)
    done(table, 6)
    assert kinds(table) == []


def test_the_button_judges_the_seat_the_dealer_paid_even_out_of_order():
    referee, t = settled_referee()
    referee.handle(event(CameraStatus(True), t))
    referee.handle(event(ChipsChanged(4, "ante", 2000), t + 1))  # seat 4 paid before seat 6
    referee.handle(event(ChipsChanged(4, "raise", 4000), t + 2))
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 3))
    assert outcome.operation.seat == 4 and [f.kind.value for f in outcome.flags] == []
    assert [f.kind.value for f in referee.table.coup_flags()] == ["paid_out_of_order"]
    referee.handle(event(ChipsChanged(6, "ante", 2000), t + 4))
    referee.handle(event(ChipsChanged(6, "raise", 4000), t + 5))
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 6))
    assert outcome.operation.seat == 6 and outcome.flags == []


def test_a_doubtful_reading_never_flags_a_payment_out_of_order_the_dealers_amount_does():
    referee, t = settled_referee()
    referee.handle(event(CameraStatus(True), t))
    outcome = referee.handle(event(ChipsChanged(4, "raise", 9000, sure=False), t + 1))  # seat 6 is due first
    assert outcome.flags == [] and referee.table.coup_flags() == []
    assert referee.state()["to_confirm"] == [asked(4, "raise", 9000)]
    keyed = referee.handle(event(DealerOperation("paying seat=4 zone=raise amount=40.00"), t + 2))
    assert [f.kind.value for f in keyed.flags] == ["paid_out_of_order"] and referee.state()["to_confirm"] == []
    # seat 6, the one due, read in doubt: taken as read (nothing to flag), the dealer still asked
    assert referee.handle(event(ChipsChanged(6, "raise", 4000, sure=False), t + 3)).flags == []
    assert referee.table.coup.seen_paying[6]["raise"] == 4000
    assert referee.state()["to_confirm"] == [asked(6, "raise", 4000)]


def test_the_coups_end_waits_for_doubts_and_a_doubtful_ante_left_for_the_next_coup_stays_in_doubt():
    referee, t = settled_referee()
    referee.handle(event(CameraStatus(True), t))
    for k, seat in enumerate((6, 4, 1)):
        referee.handle(event(ChipsChanged(seat, "ante", 2000), t + 10 * k + 1))
        referee.handle(event(ChipsChanged(seat, "raise", 4000), t + 10 * k + 2))
        assert referee.handle(event(ButtonPressed("payment_done"), t + 10 * k + 3)).refused is None
    referee.handle(event(ChipsChanged(3, "raise", 0), t + 40))
    referee.handle(event(ChipsChanged(3, "ante", 0), t + 41))
    referee.handle(event(ChipsChanged(6, "ante", 6000, sure=False), t + 42))  # seat 6's next ante, in doubt
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 43))
    assert outcome.refusal is not None and outcome.refusal.reason_fr == "place 6 ante : montant à confirmer"
    referee.handle(event(CameraStatus(False, "unplugged"), t + 44))  # unwatched: nothing to wait for
    assert isinstance(referee.handle(event(ButtonPressed("payment_done"), t + 45)).operation, EndCoup)
    assert referee.table.phase is Phase.BETTING
    assert referee.state()["to_confirm"] == [asked(6, "ante", 6000)]
    assert referee.handle(event(ButtonPressed("no_more_bets"), t + 46)).refusal is not None


def test_a_raise_box_emptied_after_the_coup_is_no_refused_raise():
    referee, t = settled_referee()
    for _ in range(3):  # the three seats owed, then the coup's end (no camera: nothing checked)
        referee.handle(event(ButtonPressed("payment_done"), t))
    referee.handle(event(ButtonPressed("payment_done"), t + 1))
    assert referee.table.phase is Phase.BETTING
    outcome = referee.handle(event(ChipsChanged(3, "raise", 0), t + 2))
    assert outcome.operation is None and outcome.refusal is None


def test_a_coups_alerts_stay_shown_into_the_next_coup_until_its_first_card():
    table = settled()
    pay(table, 1, "ante", 2000)  # seat 1 is paid last: out of order
    pay(table, 1, "raise", 4000)
    for seat in (6, 4, 1):
        if seat != 1:
            pay_right(table, seat)
        done(table, seat)
    pay(table, 3, "raise", 0)  # the ante left on the felt
    table.apply(EndCoup(table.log[-1].t + 1, watched=True))
    closing = [(f["kind"], f["seat"]) for f in table_summary(table)["closing_flags"]]
    assert closing == [("paid_out_of_order", 1), ("stake_not_collected", 3)]
    for seat in (1, 4, 6):
        table.apply(PlaceBet(table.log[-1].t + 1, seat, Box.ANTE, 1000))
    table.apply(NoMoreBets(table.log[-1].t + 1))
    assert [(f["kind"], f["seat"]) for f in table_summary(table)["closing_flags"]] == closing
    table.apply(DealCard(table.log[-1].t + 1, table.expected_position(), None, False))
    assert table_summary(table)["closing_flags"] == []
