"""The refusals the display keeps showing (``controller.referee.refusals.StandingRefusals``), apart from the referee:
what stands, what is counted, what goes."""

from __future__ import annotations

from controller.referee.refusals import KEPT_REFUSALS, Refusal, StandingRefusals
from controller.rules.errors import ActionRefused
from controller.rules.operations import EndCoup, NoMoreBets, SitDown
from controller.rules.table import Phase

BETTING = (1, Phase.BETTING)


def _never_asked(operation):
    raise AssertionError(f"{operation} asked again while nothing was accepted")


def test_the_same_refusal_is_counted_once_more_the_latest_last_and_only_the_last_few_are_kept():
    standing = StandingRefusals(BETTING)
    for seat in range(KEPT_REFUSALS + 1):
        standing.remember(BETTING, None, Refusal.of("sit", f"seat {seat}", f"place {seat}"), False, _never_asked)
    assert [r.reason for r in standing.refusals] == [f"seat {seat}" for seat in range(1, KEPT_REFUSALS + 1)]
    standing.remember(BETTING, None, Refusal.of("sit", "seat 2", "place 2"), False, _never_asked)
    assert [(r.reason, r.count) for r in standing.refusals][-2:] == [("seat 5", 1), ("seat 2", 2)]
    assert len(standing.refusals) == KEPT_REFUSALS


def test_a_standing_condition_said_again_is_kept_once_not_counted():
    standing = StandingRefusals(BETTING)
    for _ in range(3):
        wait = Refusal.of("settle", "a card unseen", "carte non vue")
        standing.remember(BETTING, None, wait, True, _never_asked)
    assert [(r.kind, r.count) for r in standing.refusals] == [("settle", 1)]


def test_each_accepted_operation_asks_the_refused_ones_again():
    standing = StandingRefusals(BETTING)
    end, bets = EndCoup(5), NoMoreBets(6)
    standing.remember(BETTING, None, Refusal.of("end-coup", "3, 5 unpaid", "places 3, 5", operation=end), False,
                      _never_asked)
    standing.remember(BETTING, None, Refusal.of("no-more-bets", "no ante", "aucune ante", operation=bets), False,
                      _never_asked)
    now = {end: ActionRefused("end-coup", "5 unpaid", "place 5 encore à payer"), bets: None}
    standing.remember(BETTING, SitDown(7, 2), None, False, lambda operation: now[operation])
    assert [(r.kind, r.reason_fr, r.operation) for r in standing.refusals] == [
        ("end-coup", "place 5 encore à payer", end)]


def test_a_refusal_of_no_operation_goes_once_an_operation_of_its_kind_goes_through():
    standing = StandingRefusals(BETTING)
    standing.remember(BETTING, None, Refusal.of("sit", "unreadable", "illisible"), False, _never_asked)
    standing.remember(BETTING, NoMoreBets(1), None, False, _never_asked)
    assert [r.kind for r in standing.refusals] == ["sit"]
    standing.remember(BETTING, SitDown(2, 1), None, False, _never_asked)
    assert standing.refusals == []


def test_a_new_phase_or_coup_starts_afresh():
    standing = StandingRefusals(BETTING)
    standing.remember(BETTING, None, Refusal.of("sit", "unreadable", "illisible"), False, _never_asked)
    standing.remember((1, Phase.DEALING), None, None, False, _never_asked)
    assert standing.refusals == []
    standing.remember((1, Phase.DEALING), None, Refusal.of("deal", "x", "x"), False, _never_asked)
    standing.remember((2, Phase.DEALING), None, None, False, _never_asked)
    assert standing.refusals == []
