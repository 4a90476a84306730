"""The history format: readable, and a round trip is exact."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from controller.profiles import load_profile
from controller.rules.cards import parse_card
from controller.rules.errors import HistoryError
from controller.rules.history import format_history, format_operation, parse_history, parse_operation
from controller.rules.operations import DEALER, Box, ConfirmAnte, DealCard, DeclareVoid, IdentifyCard, PlaceBet
from controller.rules.profile import TableRules
from controller.rules.summary import table_summary
from controller.rules.table import Table
from controller.sim.coups import new_table, play_coup


def _played(profile: str, seed: int, coups: int) -> tuple[TableRules, Table]:
    p = load_profile(profile)
    rules = TableRules(p, 1000, 50000, p.marked_seats_max, bonus=p.bonus, jackpot=p.jackpot,
                       card_purchase=p.card_purchase)
    rng = random.Random(seed)
    table = new_table(rules, rng)
    t = 0
    for _ in range(coups):
        t = play_coup(table, rng, t)
    return rules, table


@pytest.mark.parametrize("profile", ["fr-1959", "fr-2007", "it", "caribbean", "caribbean-us"])
def test_a_played_session_round_trips_exactly(profile):
    rules, table = _played(profile, seed=7, coups=20)
    text = format_history(rules, table.log)
    history = parse_history(text)
    assert history.operations == tuple(table.log)
    assert format_history(history.rules(rules.profile), history.operations) == text
    replayed = Table.replay(history.rules(rules.profile), history.operations)
    assert table_summary(replayed, True) == table_summary(table, True)


def test_lines_read_as_a_person_would_write_them():
    op = DealCard(20_250, DEALER, parse_card("Kd"), True)
    assert format_operation(op) == "20.250 deal position=dealer card=Kd face_up=yes"
    assert format_operation(PlaceBet(1005, 3, Box.ANTE, 2050)) == "1.005 bet seat=3 box=ante amount=20.50"
    assert format_operation(IdentifyCard(9, 2, 0, parse_card("Th"))) == "0.009 identify position=2 index=1 card=Th"
    assert parse_operation("3.000 deal position=4 card=?? face_up=no") == DealCard(3000, 4, None, False)
    assert parse_operation("4.000 confirm-ante seat=2 amount=50.00") == ConfirmAnte(4000, 2, 5000)


def test_free_text_is_quoted_and_read_back():
    op = DeclareVoid(5000, "joueurs 2 et 3 : échange d'informations")
    assert parse_operation(format_operation(op)) == op


@pytest.mark.parametrize("line, message", [
    ("1.000 dael position=1 card=As face_up=no", "unknown operation 'dael'"),
    ("1.000 deal position=1 card=Ax face_up=no", "suit 'x'"),
    ("1.000 deal position=1 card=As", "deal lacks face_up"),
    ("1.000 bet seat=1 box=ante amount=20", "not an amount like 20.00"),
    ("1.000 bet seat=1 box=ante amount=20.00 colour=red", "unexpected 'colour=red'"),
    ("1.5 end-deal", "not a time"),
    ("1.000 void reason='unterminated", "a quote is not closed"),
])
def test_a_bad_line_names_its_number_and_what_is_wrong(line, message):
    with pytest.raises(HistoryError, match=message) as caught:
        parse_operation(line, line_number=12)
    assert caught.value.line_number == 12
    assert str(caught.value).startswith("history line 12: ")


def test_a_history_without_header_is_refused():
    with pytest.raises(HistoryError, match="first line must be the 'table"):
        parse_history("1.000 end-deal\n")


def test_replay_command_prints_state_flags_and_payouts(tmp_path):
    rules, table = _played("fr-2007", seed=3, coups=5)
    path = tmp_path / "session.txt"
    path.write_text(format_history(rules, table.log), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "controller.cli", "replay", str(path), "--json"],
                            capture_output=True, text=True, check=True)
    summary = json.loads(result.stdout)
    assert summary == json.loads(json.dumps(table_summary(table, history=True)))
    assert len(summary["settlements"]) == 5


def test_replay_command_reports_a_refused_operation(tmp_path):
    rules, table = _played("fr-1959", seed=3, coups=1)
    text = format_history(rules, table.log) + "999.000 raise seat=1 amount=20.00\n"
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "controller.cli", "replay", str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "(raise): raise refused: the table is in phase 'betting'" in result.stderr


def test_a_line_splits_as_shlex_splits_it():
    """Lines without quotes or backslashes take a faster path than shlex: both must give the same tokens (or the
    same refusal), on lines made of every character that matters to shlex."""
    import shlex

    from controller.rules.history import _split

    rng = random.Random(20261206)
    alphabet = " \t\r\n\x0b\xa0ab=1.é'\"\\#;|&()*"
    for _ in range(20_000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        try:
            expected = shlex.split(line)
        except ValueError:
            with pytest.raises(HistoryError):
                _split(line, 1)
            continue
        assert _split(line, 1) == expected, repr(line)
