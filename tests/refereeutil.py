"""Helpers for the tests that drive the referee: an event at a given time, and coups played to a known point."""

from __future__ import annotations

from tables import dealt_table, rules_for, showdown

from controller.bus.schema import ButtonPressed, ChipsChanged, DealerOperation, Envelope
from controller.referee import Referee
from controller.rules.cards import full_deck
from controller.rules.history import format_operation
from controller.rules.operations import DEALER, OpenSession, Settle
from controller.rules.table import Phase, Table

# Dealer ace-king: he qualifies. Seats 6, 4, 1 win a pair (ante 1 to 1, raise 1 to 1 at fr-1959); seat 3 loses.
HANDS = {1: "As Ad 7c 8h 9s", 3: "2h 3d 9c Jh Tc", 4: "Kh Kd 2c 3s 5h", 6: "Qs Qd 2d 3h 5c",
         DEALER: "Ac Kc 4d 6d 8s"}


def settled() -> Table:
    table = showdown(dealt_table(rules_for("fr-1959"), HANDS), {1: True, 3: True, 4: True, 6: True})
    assert table.phase is Phase.PAYING and table.payments_due() == [6, 4, 1]
    return table


def event(body, ms: int) -> Envelope:
    return Envelope(body=body, seq=ms, publisher="test", mono_ns=ms * 10**6, wall_ns=ms * 10**6)


def settled_referee() -> tuple[Referee, int]:
    """A referee that played ``settled()``'s coup from the dealer's keypad: it and the next event's time (ms)."""
    referee = Referee(rules_for("fr-1959"))
    for op in settled().log:
        if not isinstance(op, Settle):  # the referee settles by itself once the dealer's hand is shown
            outcome = referee.handle(event(DealerOperation(format_operation(op).split(" ", 1)[1]), op.t))
            assert outcome.refused is None, outcome.refused
    assert referee.table.phase is Phase.PAYING
    return referee, referee.table.log[-1].t + 1


def betting_referee() -> Referee:
    referee = Referee(rules_for("fr-1959"))
    for body, t in opening_events():
        assert referee.handle(event(body, t)).refused is None
    return referee


def opening_events() -> list[tuple[object, int]]:
    """The session opened, seats 1 and 3 taken: each event and its time (ms)."""
    lines = [format_operation(OpenSession(0, full_deck())).split(" ", 1)[1], "sit seat=1", "sit seat=3"]
    return [(DealerOperation(line), t) for t, line in enumerate(lines, 1)]


def dealt_events(ante: int, keyed: bool = False) -> list[tuple[object, int]]:
    """Seat 1 alone with ``ante`` cents, read by the camera (``keyed``: by the dealer), dealt from the keypad
    (cards unseen but the dealer's last), from the session's opening: its decision is due once they are played;
    the next event's time is 30 ms."""
    bet = DealerOperation(f"bet seat=1 box=ante amount={ante / 100:.2f}") if keyed else ChipsChanged(1, "ante", ante)
    events = [*opening_events(), (bet, 10), (ButtonPressed("no_more_bets"), 11),
              (DealerOperation("shuffle shuffles=5 cuts=2"), 12), (DealerOperation("cut seat=1 accepted=yes"), 13)]
    cards = iter(full_deck())
    for t in range(20, 30):
        position = "1" if t % 2 == 0 else "dealer"
        up = "yes" if position == "dealer" and t == 29 else "no"
        events.append((DealerOperation(f"deal position={position} card={next(cards) if up == 'yes' else '??'} "
                                       f"face_up={up}"), t))
    return [*events, (ButtonPressed("end_of_deal"), 30)]


def dealt_referee(ante: int, keyed: bool = False) -> Referee:
    """A referee that played ``dealt_events``."""
    referee = Referee(rules_for("fr-1959"))
    for body, t in dealt_events(ante, keyed):
        assert referee.handle(event(body, t)).refused is None, body
    return referee
