"""The doubts (``controller.referee.doubts``). Never a silently wrong amount: a chip reading the camera does not
vouch for is held « à confirmer » until the dealer keys the amount or the camera reads it sure; a card it cannot tell
stays unknown until the dealer names it or the camera reads it sure. Through the referee, then the ``Doubts`` alone."""

from __future__ import annotations

from dataclasses import replace

from refereeutil import betting_referee, dealt_referee, event, settled, settled_referee
from tables import rules_for

from controller.bus.schema import (
    ButtonPressed,
    CameraStatus,
    CardIdentified,
    CardRemoved,
    ChipsChanged,
    DealerOperation,
)
from controller.referee import Referee
from controller.referee.doubts import Doubts
from controller.rules.flags import FlagKind
from controller.rules.history import format_operation
from controller.rules.operations import Box, ConfirmAnte, Fold, NoMoreBets, PaymentDone, PlaceBet, Raise, Settle
from controller.rules.table import Phase


def asked(seat: int, box: str, amount: int, at_least: bool = False) -> dict[str, object]:
    """A zone « à confirmer » as the referee's state gives it, no amount offered beside the reading."""
    return {"seat": seat, "box": box, "amount": amount, "at_least": at_least, "alternative": 0, "stacked": False}


def test_an_unsure_bet_holds_no_more_bets_until_the_dealer_keys_the_amount():
    referee = betting_referee()
    referee.handle(event(ChipsChanged(3, "ante", 1000), 10))
    referee.handle(event(ChipsChanged(1, "ante", 6000, sure=False), 11))
    assert referee.state()["to_confirm"] == [asked(1, "ante", 6000)]
    outcome = referee.handle(event(ButtonPressed("no_more_bets"), 12))
    assert outcome.refusal is not None and outcome.refusal.reason_fr == "place 1 ante : montant à confirmer"
    assert outcome.refusal.action_fr == "« rien ne va plus » refusé"
    assert referee.table.phase is Phase.BETTING
    assert referee.handle(event(DealerOperation("bet seat=1 box=ante amount=85.00"), 13)).refused is None
    assert referee.state()["to_confirm"] == [] and referee.table.seats[1].bets[Box.ANTE] == 8500
    assert referee.handle(event(ButtonPressed("no_more_bets"), 14)).refused is None
    assert referee.table.phase is Phase.DEALING


def test_a_sure_reading_settles_the_doubt_and_a_new_doubt_comes_back():
    referee = betting_referee()
    referee.handle(event(ChipsChanged(1, "ante", 6000, sure=False), 10))
    referee.handle(event(ChipsChanged(1, "ante", 6500), 11))
    assert referee.state()["to_confirm"] == []
    referee.handle(event(ChipsChanged(1, "ante", 7000, sure=False), 12))
    assert referee.state()["to_confirm"] == [asked(1, "ante", 7000)]


def test_an_unsure_payment_holds_that_seats_payment_done_and_the_dealers_amount_is_checked():
    referee, t = settled_referee()
    referee.handle(event(CameraStatus(True), t))
    referee.handle(event(ChipsChanged(6, "ante", 2000), t))
    referee.handle(event(ChipsChanged(6, "raise", 9000, sure=False), t + 1))
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 2))
    assert outcome.refusal is not None and outcome.refusal.reason_fr == "place 6 relance : montant à confirmer"
    keyed = referee.handle(event(DealerOperation("paying seat=6 zone=raise amount=40.00"), t + 3))
    assert keyed.refused is None and referee.state()["to_confirm"] == []
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 4))
    assert isinstance(outcome.operation, PaymentDone) and outcome.flags == []


def test_after_no_more_bets_a_doubtful_reading_is_never_acted_on_until_the_dealer_keys_it():
    referee = dealt_referee(1000)
    # a doubtful ante after « rien ne va plus » is no moved bet: nothing is flagged on it
    outcome = referee.handle(event(ChipsChanged(1, "ante", 6000, sure=False), 30))
    assert outcome.operation is None and outcome.flags == []
    outcome = referee.handle(event(DealerOperation("bet seat=1 box=ante amount=10.00"), 30))
    assert outcome.flags == [] and referee.state()["to_confirm"] == []
    outcome = referee.handle(event(ChipsChanged(1, "raise", 2000, sure=False), 31))
    assert outcome.operation is None and referee.table.seats[1].decision is None
    assert referee.state()["to_confirm"] == [asked(1, "raise", 2000)]
    outcome = referee.handle(event(DealerOperation("raise seat=1 amount=20.00"), 32))
    assert isinstance(outcome.operation, Raise) and referee.state()["to_confirm"] == []


def test_a_sure_ante_outside_the_limits_is_asked_of_the_dealer_and_flagged_only_on_his_amount():
    # From above a stack can show only its top chip: a 30 € stack read, sure, as its 5 € top chip
    referee = betting_referee()
    outcome = referee.handle(event(ChipsChanged(1, "ante", 500), 10))
    assert outcome.flags == [] and referee.state()["to_confirm"] == [
        asked(1, "ante", 500)]
    assert referee.handle(event(ButtonPressed("no_more_bets"), 11)).refusal is not None
    assert referee.handle(event(DealerOperation("bet seat=1 box=ante amount=30.00"), 12)).refused is None
    outcome = referee.handle(event(ButtonPressed("no_more_bets"), 13))
    assert outcome.refused is None and outcome.flags == []
    # the dealer's amount is what the rules judge: 5 € keyed is 5 € flagged
    referee = betting_referee()
    referee.handle(event(ChipsChanged(1, "ante", 500), 10))
    referee.handle(event(DealerOperation("bet seat=1 box=ante amount=5.00"), 11))
    outcome = referee.handle(event(ButtonPressed("no_more_bets"), 12))
    assert [flag.kind.value for flag in outcome.flags] == ["bet_outside_limits"]
    # an ante within the limits is taken as read
    referee = betting_referee()
    referee.handle(event(ChipsChanged(1, "ante", 1500), 10))
    assert referee.state()["to_confirm"] == [] and referee.table.seats[1].bets[Box.ANTE] == 1500


def test_a_sure_raise_not_twice_the_ante_is_never_acted_on_until_the_dealer_keys_it():
    referee = dealt_referee(10000)
    # two 100 € chips stacked, read as the top one: no raise, no flag, the dealer asked
    outcome = referee.handle(event(ChipsChanged(1, "raise", 10000), 31))
    assert outcome.operation is None and outcome.flags == []
    assert referee.state()["to_confirm"] == [asked(1, "raise", 10000)]
    outcome = referee.handle(event(DealerOperation("raise seat=1 amount=200.00"), 32))
    assert isinstance(outcome.operation, Raise) and outcome.flags == [] and referee.state()["to_confirm"] == []


def _untimed(operation):
    return replace(operation, t=0)


def test_a_keyed_raise_not_twice_the_ante_read_asks_the_ante_and_the_dealers_count_is_the_ante():
    """From above, two 25 € chips stacked can look like one, sure: the ante read 25 € where 50 € lies. The raise
    the dealer counts, 100 €, is not twice that: before it is judged, he is asked the ante too."""
    referee = dealt_referee(2500)
    referee.handle(event(ChipsChanged(1, "raise", 10000, sure=False), 31))  # a stack: asked
    outcome = referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 32))
    assert outcome.refusal is not None and outcome.flags == [] and referee.table.seats[1].decision is None
    assert outcome.refusal.reason_fr == "place 1 ante : montant à confirmer (relance : 100,00 € ; ante lue : 25,00 €)"
    assert referee.state()["to_confirm"] == [asked(1, "ante", 2500),
                                             asked(1, "raise", 10000)]
    outcome = referee.handle(event(DealerOperation("bet seat=1 box=ante amount=50.00"), 33))
    assert _untimed(outcome.operation) == ConfirmAnte(0, 1, 5000) and outcome.flags == []
    assert referee.table.raise_required(1) == 10000 and referee.state()["refusals"] == []
    assert referee.state()["to_confirm"] == [asked(1, "raise", 10000)]
    outcome = referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 34))
    assert isinstance(outcome.operation, Raise) and outcome.flags == [] and referee.state()["to_confirm"] == []
    # the camera's next sure reading of that ante is not taken as read: the dealer is asked again
    referee.handle(event(ChipsChanged(1, "ante", 2500), 35))
    assert referee.state()["to_confirm"] == [asked(1, "ante", 2500)]


def test_a_players_wrong_raise_is_flagged_on_the_dealers_count_of_both():
    referee = dealt_referee(2500)
    assert referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 31)).refusal is not None
    outcome = referee.handle(event(DealerOperation("bet seat=1 box=ante amount=25.00"), 32))
    assert _untimed(outcome.operation) == ConfirmAnte(0, 1, 2500) and outcome.flags == []
    outcome = referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 33))
    assert [flag.kind for flag in outcome.flags] == [FlagKind.RAISE_NOT_TWICE_ANTE]
    # an ante the dealer keyed himself is not asked again: his raise is judged on it at once
    referee = dealt_referee(2500, keyed=True)
    outcome = referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 31))
    assert [flag.kind for flag in outcome.flags] == [FlagKind.RAISE_NOT_TWICE_ANTE]
    # nor is an ante seen moved after « rien ne va plus » (flagged then): the ante fixed is what is settled
    referee = dealt_referee(2500)
    outcome = referee.handle(event(ChipsChanged(1, "ante", 3000), 31))
    assert [flag.kind for flag in outcome.flags] == [FlagKind.BET_AFTER_NO_MORE_BETS]
    outcome = referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 32))
    assert [flag.kind for flag in outcome.flags] == [FlagKind.RAISE_NOT_TWICE_ANTE]


def test_an_ante_is_corrected_only_on_a_doubt_the_table_raised_and_a_fold_ends_the_doubt():
    referee = dealt_referee(2500)
    outcome = referee.handle(event(DealerOperation("confirm-ante seat=1 amount=50.00"), 31))
    assert outcome.refusal is not None and outcome.refusal.reason_fr == "l'ante de la place 1 n'est pas en doute"
    # an ante keyed after « rien ne va plus » unasked is a moved bet, as before
    outcome = referee.handle(event(DealerOperation("bet seat=1 box=ante amount=50.00"), 32))
    assert [flag.kind for flag in outcome.flags] == [FlagKind.BET_AFTER_NO_MORE_BETS]
    referee = dealt_referee(2500)
    referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 31))
    assert isinstance(referee.handle(event(DealerOperation("fold seat=1"), 32)).operation, Fold)
    assert referee.state()["to_confirm"] == []
    # the doubt is gone with the decision: an ante keyed now is a bet again (collected with the fold)
    assert isinstance(referee.handle(event(DealerOperation("bet seat=1 box=ante amount=0.00"), 33)).operation,
                      PlaceBet)


def test_a_void_coup_ends_the_antes_doubt_and_the_camera_cannot_settle_it():
    referee = dealt_referee(2500)
    referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 31))
    # the camera reads the ante again, sure, as it read it: that reading is the doubt, it settles nothing
    referee.handle(event(ChipsChanged(1, "ante", 2500), 32))
    assert [entry["box"] for entry in referee.state()["to_confirm"]] == ["ante", "raise"]
    assert referee.handle(event(DealerOperation("void reason=test"), 33)).refused is None
    assert [entry["box"] for entry in referee.state()["to_confirm"]] == ["raise"]
    outcome = referee.handle(event(DealerOperation("bet seat=1 box=ante amount=50.00"), 34))
    assert isinstance(outcome.operation, PlaceBet)
    # in a void coup the dealer's raise is refused for the coup, never put down to the ante
    referee = dealt_referee(2500)
    referee.handle(event(DealerOperation("void reason=test"), 31))
    outcome = referee.handle(event(DealerOperation("raise seat=1 amount=100.00"), 32))
    assert outcome.refusal is not None and outcome.refusal.reason_fr == "le coup est nul"
    assert referee.state()["to_confirm"] == []
    # a seat the table does not have is refused by name
    outcome = dealt_referee(2500).handle(event(DealerOperation("raise seat=9 amount=100.00"), 31))
    assert outcome.refusal is not None and "place 9" in outcome.refusal.reason_fr


def showdown_waiting_for_a_card() -> tuple[Referee, int]:
    """``settled()``'s coup from the dealer's keypad with seat 6's last card dealt unseen: the showdown waits for
    it. The referee and the next event's time (ms)."""
    referee = Referee(rules_for("fr-1959"))
    for op in settled().log:
        if isinstance(op, Settle):
            continue
        line = format_operation(op).split(" ", 1)[1]
        if line == "deal position=6 card=5c face_up=no":
            line = "deal position=6 card=?? face_up=no"
        assert referee.handle(event(DealerOperation(line), op.t)).refused is None, line
    assert referee.table.phase is Phase.SHOWDOWN
    return referee, referee.table.log[-1].t + 1


def test_a_card_the_camera_cannot_tell_is_never_taken_and_the_dealer_names_it():
    referee, t = showdown_waiting_for_a_card()
    outcome = referee.handle(event(CardIdentified(6, 4, "5s", sure=False), t))
    assert outcome.operation is None and referee.table.seats[6].hand.cards[4] is None
    assert referee.state()["cards_to_confirm"] == [{"position": 6, "index": 4, "read": "5s"}]
    assert referee.table.phase is Phase.SHOWDOWN  # nothing is settled on a guess
    outcome = referee.handle(event(DealerOperation("identify position=6 index=5 card=5c"), t + 1))
    assert outcome.refused is None and isinstance(outcome.operation, Settle)
    assert referee.state()["cards_to_confirm"] == [] and str(referee.table.seats[6].hand.cards[4]) == "5c"


def test_a_card_the_settlement_waits_for_gone_from_the_cameras_sight_unread_is_asked_of_the_dealer():
    """At the showdown the camera lost seat 6's last card before reading it (under a hand, turned too fast): the
    dealer is asked to name it, rather than the coup never settling; a card known already is no question."""
    referee, t = showdown_waiting_for_a_card()
    assert referee.handle(event(CardRemoved(1, 0), t)).operation is None  # seat 1's ace: known
    assert referee.state()["cards_to_confirm"] == []
    referee.handle(event(CardRemoved(6, 4), t + 1))
    assert referee.state()["cards_to_confirm"] == [{"position": 6, "index": 4, "read": ""}]
    outcome = referee.handle(event(DealerOperation("identify position=6 index=5 card=5c"), t + 2))
    assert isinstance(outcome.operation, Settle) and referee.state()["cards_to_confirm"] == []


def test_the_cards_the_settlement_waits_for_are_asked_once_the_dealer_presses_on():
    """Seat 6's last card was never read (lost under a hand, taken for gone): while the camera may still read it,
    nothing is asked; once the dealer presses « paiement terminé », the press refused for the wait, he is asked
    to name it, and only it."""
    referee, t = showdown_waiting_for_a_card()
    assert referee.state()["cards_to_confirm"] == []
    outcome = referee.handle(event(ButtonPressed("payment_done"), t))
    assert outcome.refusal is not None and "seat 6's cards are not all identified" in outcome.refused
    assert referee.state()["cards_to_confirm"] == [{"position": 6, "index": 4, "read": ""}]
    outcome = referee.handle(event(DealerOperation("identify position=6 index=5 card=5c"), t + 1))
    assert isinstance(outcome.operation, Settle) and referee.state()["cards_to_confirm"] == []


def test_the_cameras_sure_reading_of_a_card_in_doubt_settles_it_and_a_doubt_on_a_known_card_is_ignored():
    referee, t = showdown_waiting_for_a_card()
    referee.handle(event(CardIdentified(6, 4, "5s", sure=False), t))
    outcome = referee.handle(event(CardIdentified(6, 4, "5c"), t + 1))
    assert isinstance(outcome.operation, Settle) and referee.state()["cards_to_confirm"] == []
    referee.handle(event(CardIdentified(1, 0, "Ks", sure=False), t + 2))  # seat 1's ace is known: no question
    assert referee.state()["cards_to_confirm"] == []
    outcome = referee.handle(event(CardIdentified(6, 4, "Zz", sure=False), t + 3))
    assert outcome.refusal is not None and outcome.refusal.reason_fr == "carte « Zz » inconnue"


def test_chips_paid_and_collected_before_the_camera_has_read_the_showdown_are_the_payment_once_it_settles():
    """The dealer turns his hand and pays at once, seat 6's last card not yet read: his payment and collection are
    not bets moved after « rien ne va plus ». They are played as the payment once the coup settles, and a stake a
    player adds meanwhile is judged by the payment (paid too much)."""
    referee, t = showdown_waiting_for_a_card()
    referee.handle(event(CameraStatus(True), t))
    meanwhile = [ChipsChanged(6, "raise", 4000), ChipsChanged(6, "ante", 2000), ChipsChanged(3, "raise", 0),
                 ChipsChanged(3, "ante", 0), ChipsChanged(4, "ante", 1500)]
    for reading in meanwhile:
        t += 1
        outcome = referee.handle(event(reading, t))
        assert (outcome.operation, outcome.flags, outcome.refused) == (None, [], None)
    outcome = referee.handle(event(DealerOperation("identify position=6 index=5 card=5c"), t + 1))
    assert isinstance(outcome.operation, Settle)
    assert [(type(each.operation).__name__, each.event) for each in outcome.then] == [
        ("PaymentSeen", "ChipsChanged")] * 5
    # seat 4's chips, put down before seat 6 was paid, are told at once
    assert [(flag.kind, flag.seat) for each in outcome.all() for flag in each.flags] == [
        (FlagKind.PAID_OUT_OF_ORDER, 4)]
    assert referee.handle(event(ButtonPressed("payment_done"), t + 2)).flags == []  # seat 6 paid right
    referee.handle(event(ChipsChanged(4, "raise", 4000), t + 3))
    referee.handle(event(ChipsChanged(4, "ante", 2500), t + 4))  # 1,000 paid on the 1,500 there
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 5))
    assert [(flag.kind, flag.seat) for flag in outcome.flags] == [(FlagKind.OVERPAID, 4)]


def test_chips_read_while_the_showdown_waited_are_played_in_a_coup_declared_void_then():
    referee, t = showdown_waiting_for_a_card()
    referee.handle(event(ChipsChanged(3, "ante", 0), t))  # the player takes his stake back
    outcome = referee.handle(event(DealerOperation("void reason=test"), t + 1))
    assert isinstance(outcome.operation, Settle) and referee.table.coup.void
    assert [type(each.operation).__name__ for each in outcome.then] == ["PaymentSeen"]
    assert referee.before_settlement == []
    assert referee.handle(event(DealerOperation("end-coup"), t + 2)).refused is None


def _settled_with_raises_read_unsure(seats: tuple[int, ...], at_least: bool) -> tuple[Referee, int]:
    """The settled coup played through a referee, the camera reading the raises of ``seats`` unsure (1,500 cents,
    ``at_least`` or not); the referee and the next moment."""
    referee = Referee(rules_for("fr-1959"))
    for op in settled().log:
        if isinstance(op, Settle):
            continue
        if isinstance(op, Raise) and op.seat in seats:
            referee.handle(event(ChipsChanged(op.seat, "raise", 1500, sure=False, at_least=at_least), op.t))
        assert referee.handle(event(DealerOperation(format_operation(op).split(" ", 1)[1]), op.t)).refused is None
    return referee, referee.table.log[-1].t + 1


def test_a_pile_too_tall_to_count_is_asked_of_the_dealer_when_its_seat_is_paid_in_turn():
    """The camera cannot see chips added to a pile it reads only as « au moins »: judging the payment on the pile
    as it was would flag a right payment short. Each such zone is asked when its seat's turn to be paid comes."""
    referee, t = _settled_with_raises_read_unsure((4, 6), at_least=True)  # each a pile too tall to count
    assert referee.table.payments_due() == [6, 4, 1]
    assert referee.state()["to_confirm"] == [asked(6, "raise", 1500, at_least=True)]
    referee.handle(event(CameraStatus(True), t))
    referee.handle(event(ChipsChanged(6, "ante", 2000), t))
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 1))
    assert outcome.refusal is not None and outcome.refusal.reason_fr == "place 6 relance : montant à confirmer"
    assert referee.handle(event(DealerOperation("paying seat=6 zone=raise amount=40.00"), t + 2)).refused is None
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 3))
    assert isinstance(outcome.operation, PaymentDone) and outcome.operation.seat == 6 and outcome.flags == []
    # seat 4's turn: its raise is asked now, and an amount keyed short is flagged as any short payment
    assert referee.state()["to_confirm"] == [asked(4, "raise", 1500, at_least=True)]
    referee.handle(event(ChipsChanged(4, "ante", 2000), t + 4))
    referee.handle(event(DealerOperation("paying seat=4 zone=raise amount=30.00"), t + 5))
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 6))
    assert [(flag.kind.value, flag.seat) for flag in outcome.flags] == [("underpaid", 4)]
    assert referee.state()["to_confirm"] == []  # seat 1's piles were counted: nothing to ask


def test_a_stack_the_camera_could_not_vouch_for_is_asked_when_its_seat_is_paid():
    """A casino stack is read unsure (not « au moins »): chips paid beside it cannot be told from it either, so its
    seat's payment is keyed by the dealer, never judged on the stack's reading (which flagged right payments short
    in benchmarks/camera_conformance.py, 2026-12-05)."""
    referee, t = _settled_with_raises_read_unsure((6,), at_least=False)  # a stack it could not vouch for
    assert referee.table.payments_due()[0] == 6
    assert referee.state()["to_confirm"] == [asked(6, "raise", 1500)]
    referee.handle(event(CameraStatus(True), t))
    referee.handle(event(ChipsChanged(6, "ante", 2000), t))
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 1))
    assert outcome.refusal is not None and outcome.refusal.reason_fr == "place 6 relance : montant à confirmer"
    assert referee.handle(event(DealerOperation("paying seat=6 zone=raise amount=40.00"), t + 2)).refused is None
    outcome = referee.handle(event(ButtonPressed("payment_done"), t + 3))
    assert isinstance(outcome.operation, PaymentDone) and outcome.operation.seat == 6 and outcome.flags == []


# The ``Doubts`` alone, on tables the referee played to a known point.


def test_a_coups_start_ends_the_coups_doubts_and_keeps_the_antes_left_on_the_felt_and_the_zones_unvouched():
    referee = betting_referee()
    referee.handle(event(ChipsChanged(1, "ante", 1000), 10))  # seat 1's ante stays on the felt; seat 3 has none
    table, doubts = referee.table, Doubts()
    ante_1, ante_3 = ChipsChanged(1, "ante", 1000, sure=False), ChipsChanged(3, "ante", 500, sure=False)
    tall = ChipsChanged(1, "raise", 4000, at_least=True)
    doubts.to_confirm = {(1, "ante"): ante_1, (3, "ante"): ante_3, (1, "raise"): tall}
    doubts.cards_to_confirm = {(1, 0): "As"}
    doubts.unvouched = {(1, "raise"): tall}
    doubts._keyed_paying, doubts._antes_in_doubt = {(1, "raise")}, {1: ante_1}
    doubts._antes_keyed, doubts._misread = {3}, {(1, "ante")}
    assert doubts.in_the_coup()
    doubts.new_coup(table)
    assert doubts.to_confirm == {(1, "ante"): ante_1} and doubts.unvouched == {(1, "raise"): tall}
    assert doubts.cards_to_confirm == {} and not doubts.in_the_coup()
    assert (doubts._keyed_paying, doubts._antes_in_doubt, doubts._antes_keyed, doubts._misread) == (set(), {}, set(),
                                                                                                    set())
    # what the coup's doubts decided goes with them: a sure reading of the ante misread is taken as read again
    assert doubts.taken(ChipsChanged(1, "ante", 1000), None, table).sure


def test_a_sure_reading_settles_its_zones_doubt_but_not_an_ante_in_doubt():
    table, doubts = dealt_referee(2500).table, Doubts()
    unsure = ChipsChanged(1, "raise", 10000, sure=False)
    assert doubts.held(unsure, table)  # seat 1 decides: nothing is acted on a doubtful raise
    assert doubts.to_confirm == {(1, "raise"): unsure}
    assert not doubts.held(ChipsChanged(1, "raise", 10000), table) and doubts.to_confirm == {}
    # the dealer's raise of 80 €, not twice the 25 € read: the ante is in doubt, and its reading again is no answer
    doubts.doubt_the_ante(Raise(table.last_t, 1, 8000), table)
    assert list(doubts.to_confirm) == [(1, "ante")]
    assert not doubts.held(ChipsChanged(1, "ante", 2500), table) and list(doubts.to_confirm) == [(1, "ante")]


def test_the_dealers_keyed_amount_settles_a_zones_doubt():
    table, doubts = betting_referee().table, Doubts()
    read = ChipsChanged(1, "ante", 6000, sure=False)
    doubts.follow(read, PlaceBet(1, 1, Box.ANTE, 6000), table)
    waiting = doubts.wait_for(NoMoreBets(2), table)
    assert waiting is not None and waiting.reason_fr == "place 1 ante : montant à confirmer"
    doubts.follow(DealerOperation("bet seat=1 box=ante amount=85.00"), PlaceBet(3, 1, Box.ANTE, 8500), table)
    assert doubts.to_confirm == {} and doubts.wait_for(NoMoreBets(4), table) is None


def test_the_dealers_count_of_an_ante_in_doubt_settles_it_and_a_count_unlike_the_reading_marks_the_zone_misread():
    referee = dealt_referee(2500)
    table, doubts = referee.table, Doubts()
    doubts.doubt_the_ante(Raise(table.last_t, 1, 10000), table)
    counted = doubts.keyed_operation(PlaceBet(table.last_t, 1, Box.ANTE, 5000), table)
    assert counted == ConfirmAnte(table.last_t, 1, 5000)
    doubts.follow(DealerOperation("bet seat=1 box=ante amount=50.00"), counted, table)
    assert doubts.to_confirm == {} and doubts.unvouched == {(1, "ante"): ChipsChanged(1, "ante", 2500)}
    assert not doubts.taken(ChipsChanged(1, "ante", 2500), None, table).sure  # the camera misread it: not vouched
    refused = doubts.keyed_operation(ConfirmAnte(table.last_t, 1, 5000), table)  # no doubt left to settle
    assert not isinstance(refused, ConfirmAnte) and refused.reason_fr == "l'ante de la place 1 n'est pas en doute"


def test_a_void_coup_ends_an_antes_doubt():
    referee = dealt_referee(2500)
    table, doubts = referee.table, Doubts()
    raised = Raise(table.last_t, 1, 10000)
    doubts.doubt_the_ante(raised, table)
    assert doubts.wait_for(raised, table) is not None
    void = referee.handle(event(DealerOperation("void reason=test"), 31)).operation
    assert void is not None and table.phase is Phase.DECISIONS
    doubts.follow(DealerOperation("void reason=test"), void, table)
    assert doubts.to_confirm == {} and doubts.wait_for(raised, table) is None
    assert isinstance(doubts.keyed_operation(PlaceBet(table.last_t, 1, Box.ANTE, 5000), table), PlaceBet)


def test_the_doubts_of_a_coup_last_the_whole_coup_and_end_with_it_not_with_each_event():
    """The referee clears a coup's doubts once, when the next coup starts: a zone the dealer keyed while paying is
    not asked again at the next event, and the next coup opens with none of them."""
    referee, t = settled_referee()
    referee.handle(event(CameraStatus(True), t))
    referee.handle(event(ChipsChanged(6, "raise", 9000, at_least=True, sure=False), t + 1))  # too tall to count
    assert referee.state()["to_confirm"] == [asked(6, "raise", 9000, at_least=True)]
    assert referee.handle(event(DealerOperation("paying seat=6 zone=raise amount=40.00"), t + 2)).refused is None
    for later in range(t + 3, t + 6):  # operations of the same coup: the keyed zone stays answered
        assert referee.handle(event(ChipsChanged(6, "ante", 4000 + later), later)).operation is not None
        assert referee.state()["to_confirm"] == []
    assert referee.doubts.in_the_coup()
    for step, seat in enumerate((6, 4, 1)):
        referee.handle(event(ChipsChanged(seat, "ante", 0), t + 10 + 3 * step))
        referee.handle(event(ChipsChanged(seat, "raise", 0), t + 11 + 3 * step))
        assert referee.handle(event(ButtonPressed("payment_done"), t + 12 + 3 * step)).refused is None
    coup = referee.table.coup.number
    assert referee.handle(event(ButtonPressed("payment_done"), t + 30)).refused is None  # the coup's end
    assert referee.table.coup.number == coup + 1
    assert not referee.doubts.in_the_coup() and referee.state()["cards_to_confirm"] == []
