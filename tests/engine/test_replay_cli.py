"""``stud-table replay`` on bad input (each error names the file, the line and the field, exits 2, and shows
no traceback), its plain report, and ``stud-table export-history``: coups played through a real engine over
ZeroMQ with a real SQLite store, each exported, replayed and compared with what the engine had."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
import zmq
from busutil import endpoints, running_engine, send, wait_until
from tables import rules_for

from controller.bus.clone import request_snapshot
from controller.bus.proxy import Proxy
from controller.bus.schema import DealerOperation, Envelope, EvidenceSaved
from controller.cli import main
from controller.config import load_config
from controller.rules.cards import full_deck
from controller.rules.history import format_history, format_operation, format_time, parse_history
from controller.rules.operations import DEALER, Box, Operation, PaymentSeen, Raise, Settle
from controller.rules.table import HAND_SIZE, Table
from controller.sim.coups import new_table, play_coup
from controller.sim.events import bus_events
from controller.store import EventStore, NewEvent

STUD_TABLE = Path(sys.executable).parent / "stud-table"
METER = 1_000_000


def _session_text(coups: int = 2) -> tuple[str, Table]:
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    rng = random.Random(3)
    table = new_table(rules, rng)
    t = 0
    for _ in range(coups):
        t = play_coup(table, rng, t)
    return format_history(rules, table.log), table


def _with_header(text: str, key: str, value: str) -> bytes:
    header = text.split("\n")[1]
    assert f" {key}=" in header
    return text.replace(header, re.sub(rf" {key}=\S+", f" {key}={value}", header), 1).encode()


def _latin1(text: str) -> bytes:
    # A void's reason typed on a machine set to latin-1: « é » is the single byte 0xe9.
    return (text + "999.000 void reason='carte étrangère'\n").encode("latin-1")


def _random_bytes(_text: str) -> bytes:
    data = random.Random(5).randbytes(400)
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    return data


def _store(_text: str) -> bytes:
    return b""  # made by the test: the table's own events.sqlite


BAD_INPUT = {
    "minimum=5": (lambda text: _with_header(text, "minimum", "5"),
                  "line 2: minimum: '5' is not an amount like 20.00"),
    "seats=abc": (lambda text: _with_header(text, "seats", "abc"), "line 2: seats: 'abc' is not a number of seats"),
    "seats=9": (lambda text: _with_header(text, "seats", "9"), "line 2: seats: 9 is above the profile's 7"),
    "bonus=maybe": (lambda text: _with_header(text, "bonus", "maybe"), "line 2: bonus: expected yes or no"),
    "profile=fr-2099": (lambda text: _with_header(text, "profile", "fr-2099"),
                        "line 2: profile: fr-2099: key 'name': no such profile"),
    "latin-1": (_latin1, "not UTF-8 text (byte 0xe9 at offset"),
    "random bytes": (_random_bytes, "line 1: not UTF-8 text (byte 0x"),
    "events.sqlite": (_store, "is a SQLite database, not a history file: use `stud-table export-history"),
    # An operation line after the session (line {last}): each bad value names its field.
    "seat=x": (lambda text: _appended(text, "999.000 sit seat=x"),
               "line {last}: seat: 'x' is not a seat number or dealer"),
    "discard=x": (lambda text: _appended(text, "999.000 buy seat=1 discard=x price=10.00"),
                  "line {last}: discard: 'x' is not a card index (1, 2, ...: they count from 1)"),
    "discard=0": (lambda text: _appended(text, "999.000 buy seat=1 discard=0 price=10.00"),
                  "line {last}: discard: '0' is not a card index"),
    "box=foo": (lambda text: _appended(text, "999.000 bet seat=1 box=foo amount=10.00"),
                "line {last}: box: 'foo' is not one of ante, bonus, jackpot"),
    "amount=ten": (lambda text: _appended(text, "999.000 bet seat=1 box=ante amount=ten"),
                   "line {last}: amount: 'ten' is not an amount like 20.00"),
    "card=Zz": (lambda text: _appended(text, "999.000 deal position=1 card=Zz face_up=no"),
                "line {last}: card: unknown card 'Zz'"),
    "shuffles=two": (lambda text: _appended(text, "999.000 shuffle shuffles=two cuts=1"),
                     "line {last}: shuffles: 'two' is not a whole number like 3"),
    "time=9.5": (lambda text: _appended(text, "9.5 no-more-bets"), "line {last}: time: '9.5' is not a time"),
    "reason='abc": (lambda text: _appended(text, "999.000 void reason='abc"), "line {last}: a quote is not closed"),
    "seat=1 seat=2": (lambda text: _appended(text, "999.000 sit seat=1 seat=2"), "line {last}: seat is given twice"),
    "refused": (lambda text: _appended(text, "999.000 raise seat=1 amount=20.00"),
                "line {last} (raise): raise refused: the table is in phase 'betting', not decisions"),
}


def _appended(text: str, line: str) -> bytes:
    return (text + line + "\n").encode()


def _bad_file(tmp_path: Path, case: str) -> tuple[Path, str]:
    text, _table = _session_text()
    make, expected = BAD_INPUT[case]
    path = tmp_path / ("events.sqlite" if case == "events.sqlite" else f"{case}.txt")
    if case == "events.sqlite":
        store = EventStore(path)
        store.append([NewEvent("dealer.keypad", "test", 1, 1, 1, msgspec.json.encode(DealerOperation("sit seat=1"))
                               .decode())])
        store.close()
    else:
        path.write_bytes(make(text))
    expected = expected.replace("{last}", str(text.count("\n") + 1))
    if case == "latin-1":
        data = path.read_bytes()
        offset = data.index(b"\xe9")
        line = data.count(b"\n", 0, offset) + 1
        assert line == text.count("\n") + 1
        expected = f"line {line}: not UTF-8 text (byte 0xe9 at offset {offset})"
    return path, expected


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_replay_names_file_line_and_field_of_bad_input_and_exits_2(tmp_path, capsys, case):
    path, expected = _bad_file(tmp_path, case)
    assert main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"stud-table: {path}") and err.count("\n") == 1, err
    assert expected in err


def test_the_installed_command_shows_no_traceback_on_any_bad_input(tmp_path):
    for case in BAD_INPUT:
        path, expected = _bad_file(tmp_path, case)
        result = subprocess.run([str(STUD_TABLE), "replay", str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, (case, result.stderr)
        assert "Traceback" not in result.stderr and expected in result.stderr, (case, result.stderr)
        assert result.stderr.startswith(f"stud-table: {path}") and result.stdout == ""


def test_a_bad_operation_line_and_a_refused_one_name_their_line(tmp_path, capsys):
    text, _table = _session_text(coups=1)
    lines = text.count("\n")
    path = tmp_path / "h.txt"
    path.write_text(text + "999.000 dael position=1\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == f"stud-table: {path}, line {lines + 1}: unknown operation 'dael'; known: " \
        f"{', '.join(_known_operations())}\n"
    path.write_text(text + "# a comment\n999.000 raise seat=1 amount=20.00\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 2  # readable, but the table refuses it: bad input like any other
    assert capsys.readouterr().err == (f"stud-table: {path}, line {lines + 2} (raise): raise refused: the table is "
                                       "in phase 'betting', not decisions\n")


def _known_operations() -> list[str]:
    from controller.rules.operations import OPERATION_TYPES

    return list(OPERATION_TYPES)


def test_plain_replay_prints_the_state_the_flags_and_the_payouts_in_paying_order(tmp_path, capsys):
    text, table = _session_text(coups=3)
    vacant = next(n for n, seat in table.seats.items() if not seat.occupied)
    path = tmp_path / "h.txt"
    path.write_text(text + f"999.000 bet seat={vacant} box=ante amount=10.00\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[:3] == [f"coup 4, phase betting: {len(table.log) + 1} operations, 1 flags, 3 coups settled",
                         "flags:",
                         f"  [warning] seat {vacant}: Mise sur un emplacement vacant: ante 1000 cents on vacant seat "
                         f"{vacant}"]
    settlements: list[list[list[str]]] = []
    for line in lines:
        if line.startswith("settlement "):
            settlements.append([])
        elif re.match(r"^\s*\d+\s+(ante|raise|purchase|bonus|jackpot) ", line):
            settlements[-1].append(line.split(None, 5))
    assert len(settlements) == len(table.settlements) == 3
    # The paying order, as the croupier pays: from his right, seat 7 down to seat 1; at each seat the card's
    # price (taken as the hand is turned over), the ante, the raise, the bonus, then the jackpot.
    paying = ["purchase", "ante", "raise", "bonus", "jackpot"]
    for rows, settlement in zip(settlements, table.settlements, strict=True):
        order = [(-int(row[0]), paying.index(row[1])) for row in rows]
        assert order == sorted(order) and len(set(order)) == len(order)
        assert len({row[0] for row in rows}) > 1
        expected = sorted(settlement.payouts, key=lambda p: (p.seat, p.line.value))
        assert len(rows) == len(expected)
        for row in sorted(rows, key=lambda row: (int(row[0]), row[1])):
            payout = expected.pop(0)
            seat, line, stake, outcome, net = row[:5]
            assert (int(seat), line, outcome) == (payout.seat, payout.line.value, payout.outcome.value)
            assert round(float(stake) * 100) == payout.stake and round(float(net) * 100) == payout.net
    houses = [line for line in lines if line.strip().startswith("house:")]
    assert [round(float(h.split()[1]) * 100) for h in houses] == [s.house_net for s in table.settlements]
    assert all(h.endswith(" €") for h in houses) and "stake €" in out and "{" not in out


def test_replay_help_shows_what_a_history_file_looks_like(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["replay", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "# stud-table history 1" in out and "table profile=fr-2007 minimum=10.00" in out
    assert "12.250 bet seat=3 box=ante amount=20.00" in out and "export-history" in out


# --- export-history: coups through the real engine ------------------------------------------------------------------

CONFIG = """
[table]
id = "export"
profile = "fr-2007"
minimum_cents = 1000
maximum_cents = 50000
seats = 7
bonus = true
card_purchase = true
jackpot_meter_cents = 1000000

[bus]
publish = "{publish}"
subscribe = "{subscribe}"
snapshot = "{snapshot}"

[store]
path = "var/events.sqlite"
"""


def _deal(table: Table, t: int, deck: list, exposed: tuple[int, int] | None = None) -> int:
    """The regulation deal from ``deck``; ``exposed`` (position, round) is dealt face up by mistake."""
    for round_index in range(HAND_SIZE):
        for position in table.players_in_play() + [DEALER]:
            t += 700
            face_up = (position == DEALER and round_index == HAND_SIZE - 1) or exposed == (position, round_index)
            table.deal_card(t, position, deck.pop(), face_up)
    return t


def _finish(table: Table, t: int, keep_antes: tuple[int, ...] = ()) -> int:
    """Show, settle, pay in order, collect every box but the antes in ``keep_antes``, end the coup."""
    table.show_dealer_hand(t)
    table.settle(t, METER)  # what the engine does on the same operation
    for seat in table.payments_due():
        t += 700
        table.payment_done(t, seat)
    for number, seat in table.seats.items():
        for box, amount in seat.bets.items():
            if amount and not (box is Box.ANTE and number in keep_antes):
                t += 700
                table.apply(PaymentSeen(t, number, box.value, 0))  # what the camera sees while the coup is paid
    t += 700
    table.end_coup(t)
    return t


def _decide(table: Table, t: int, choices: dict[int, int | None]) -> int:
    for seat, amount in choices.items():
        t += 700
        if amount is None:
            table.fold(t, seat)
        else:
            table.raise_(t, seat, amount)
    return t


def _session() -> tuple[list[list[Operation]], list[int]]:
    """Seven coups as the reference table played them, each one's operations; and where coup 3 is cut in two
    (its end of the deal), to export it while it is in progress."""
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    rng = random.Random(21)
    table = Table(rules)
    table.open_session(0, full_deck())
    for seat in (2, 4, 6):
        table.sit_down(0, seat)
    t = play_coup(table, rng, 0, METER)
    t = play_coup(table, rng, t, METER)
    # Coup 3: irregular, and it leaves chips on the felt for coup 4.
    t += 700
    table.sit_down(t, 7)
    for seat, box, amount in [(2, Box.ANTE, 2000), (4, Box.ANTE, 3000), (4, Box.BONUS, rules.bonus_stake_cents),
                              (6, Box.ANTE, 1000), (7, Box.ANTE, 1000), (5, Box.ANTE, 1000)]:  # 5 is vacant
        t += 700
        table.place_bet(t, seat, box, amount)
    table.no_more_bets(t := t + 700)
    table.shuffle(t := t + 700, 4, 2)
    table.offer_cut(t := t + 700, 4, True)  # seat 2's turn
    deck = list(full_deck())
    rng.shuffle(deck)
    t = _deal(table, t, deck, exposed=(6, 1))
    table.place_bet(t := t + 700, 4, Box.ANTE, 3500)  # after « rien ne va plus »
    table.shoe_count(t := t + 700, 24)  # the table saw 25
    table.end_deal(t := t + 700)
    cut = len(table.log)
    t = _decide(table, t, {2: 4000, 4: 5000, 6: None, 7: 2000})  # seat 4 raises 50.00 on a 30.00 ante
    table.buy_card(t := t + 700, 7, 0, 1000)
    table.deal_bought_card(t := t + 700, 7, deck.pop())
    t = _finish(table, t + 700, keep_antes=(2, 5))
    # Coup 4: seat 2 plays the ante left on its box; seat 6 leaves; seat 5's stray ante stays where it is.
    table.stand_up(t := t + 700, 6)
    table.place_bet(t := t + 700, 4, Box.ANTE, 1500)
    table.place_bet(t := t + 700, 7, Box.ANTE, 1000)
    table.no_more_bets(t := t + 700)
    table.shuffle(t := t + 700)
    table.offer_cut(t := t + 700, 2, True)
    deck = list(full_deck())
    rng.shuffle(deck)
    t = _deal(table, t, deck)
    table.end_deal(t := t + 700)
    t = _decide(table, t, {2: 4000, 4: None, 7: 2000})
    t = _finish(table, t + 700, keep_antes=(5,))
    # Coup 5: a player looks at his cards during the deal; the table chief voids the coup, the dealer settles it.
    for seat in (2, 4, 7):
        table.place_bet(t := t + 700, seat, Box.ANTE, 1000)
    table.no_more_bets(t := t + 700)
    table.shuffle(t := t + 700)
    table.offer_cut(t := t + 700, 2, True)
    table.deal_card(t := t + 700, 2, None, False)
    table.player_looks(t := t + 700, 2)
    table.declare_void(t := t + 700, "joueur 2 a regardé ses cartes")
    table.settle(t := t + 700, METER)
    table.end_coup(t := t + 700)
    # Coups 6 and 7: regular.
    t = play_coup(table, rng, t, METER)
    play_coup(table, rng, t, METER)
    starts = [i for i, op in enumerate(table.log) if i == 0 or table.log[i - 1].kind == "end-coup"]
    coups = [table.log[a:b] for a, b in zip(starts, starts[1:] + [len(table.log)], strict=True)]
    return coups, [cut - starts[2]]


#: coup 3's seat 4 raising 50.00 on a 30.00 ante (``_session``)
IRREGULAR_RAISE = (4, 5000)


def _envelopes(ops: list[Operation], first_seq: int) -> list[tuple[str, Envelope]]:
    events = []
    for op in ops:
        if isinstance(op, Settle) and any(o.kind == "void" for o in ops):
            # A void coup has no showdown: the dealer keys its settlement (the engine settles only at showdown).
            events.append((op.t, "dealer.keypad", DealerOperation(format_operation(op).split(" ", 1)[1])))
        else:
            events.extend(bus_events([op]))
        if isinstance(op, Raise) and (op.seat, op.amount) == IRREGULAR_RAISE:
            # a raise the rules would flag is held for the dealer, even read sure: he keys what lies there
            events.append((op.t, "dealer.keypad", DealerOperation(format_operation(op).split(" ", 1)[1])))
    return [(topic, Envelope("sim", seq, ms * 1_000_000, 1_700_000_000_000_000_000 + ms * 1_000_000, body))
            for seq, (ms, topic, body) in enumerate(events, start=first_seq)]


def _engine_records(store: Path, coup: int) -> tuple[list[tuple], list[dict]]:
    """What the engine itself recorded of a coup: its flags, and its settlement."""
    import sqlite3

    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    flags = db.execute("SELECT kind, severity, seat, detail FROM flags WHERE coup = ? ORDER BY event_id, ordinal",
                       (coup,)).fetchall()
    settled = [json.loads(row[0]) for row in db.execute("SELECT settlement FROM coups WHERE number = ?", (coup,))]
    db.close()
    return [tuple(flag) for flag in flags], settled


def _flags(summary_flags: list[dict]) -> list[tuple]:
    # The operation index counts from the history's first line, not the session's: all else must match.
    return [(f["kind"], f["severity"], f["seat"], f["detail"]) for f in summary_flags]


STATE_KEYS = ("phase", "coup_void", "dealer", "seats", "expected_position", "payments_due", "settlement")


def _export_and_replay(tmp_path, capsys, config: Path, store: Path, coup: int) -> tuple[dict, Path]:
    out = tmp_path / f"coup-{coup}.txt"
    assert main(["export-history", str(store), "--coup", str(coup), "--config", str(config), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    return replayed, out


def test_each_coup_exported_from_the_engines_store_replays_to_the_engines_state_flags_and_payouts(tmp_path,
                                                                                                    capsys):
    coups, (cut,) = _session()
    publish, subscribe, snapshot = endpoints(tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(CONFIG.format(publish=publish, subscribe=subscribe, snapshot=snapshot))
    table_config = load_config(config)
    store_path = table_config.store_path
    store_path.parent.mkdir()
    context = zmq.Context()
    proxy = Proxy(publish, subscribe)
    # Coup 3 goes in two parts, an evidence event between them, its wall time an hour ahead: the engine keeps it
    # from its referee's clock, and so must the export.
    parts = [coups[0], coups[1], coups[2][:cut], coups[2][cut:], *coups[3:]]
    seq, compared, exported_ops = 1, [], {}
    try:
        with running_engine(context, publish, subscribe, snapshot, table_config.rules, store_path,
                            jackpot_meter=table_config.jackpot_meter_cents) as (engine, store, raw):
            for index, part in enumerate(parts):
                envelopes = _envelopes(part, seq)
                if index == 3:
                    evidence = EvidenceSaved("0" * 64, "missing.png", "image/png", event_id=seq - 1)
                    envelopes.insert(0, ("vision.evidence", Envelope("vision", 1, 1, 1_700_003_600_000_000_000,
                                                                     evidence)))
                seq += sum(1 for _topic, env in envelopes if env.publisher == "sim")
                if index == 0:  # the engine's own subscription may still be joining: resend until it is recorded
                    assert wait_until(lambda first=envelopes[0]: (send(raw, *first), engine.acted_id >= 1)[1],
                                      timeout=10)
                target = engine.acted_id + len(envelopes) - (1 if index == 0 else 0)
                for topic, envelope in envelopes[1 if index == 0 else 0:]:
                    send(raw, topic, envelope)
                assert wait_until(lambda target=target: engine.acted_id >= target, timeout=30)
                # The engine answers a snapshot between batches: this one's committed. Then its whole state, hidden
                # cards included (the snapshot has none); it is idle, nothing more to record.
                request_snapshot(context, snapshot)
                state = msgspec.to_builtins(engine.state())
                coup = min(index + 1, 3) if index <= 3 else index
                in_progress = index == 2
                replayed, out = _export_and_replay(tmp_path, capsys, config, store_path, coup)
                flags, settled = _engine_records(store_path, coup)
                for key in STATE_KEYS:
                    assert replayed[key] == state[key], (coup, key)
                assert _flags(replayed["flags"]) == flags, coup
                if in_progress:
                    assert _flags(state["flags"]) == flags and settled == [] and replayed["settlements"] == []
                else:
                    assert replayed["settlements"] == settled and len(settled) == 1, coup
                    assert replayed["last_settlement"] == state["last_settlement"], coup
                compared.append((coup, in_progress))
                exported_ops[coup] = parse_history(out.read_text(encoding="utf-8")).operations
    finally:
        proxy.close()
        context.destroy(linger=0)

    assert compared == [(1, False), (2, False), (3, True), (3, False), (4, False), (5, False), (6, False),
                        (7, False)]
    # Every irregularity of coups 3 to 5 reached the engine's records and came back from the exports.
    kinds = {flag[0] for coup in range(1, 8) for flag in _engine_records(store_path, coup)[0]}
    assert kinds >= {"bet_on_vacant_seat", "shuffle_incomplete", "cut_out_of_order", "card_exposed",
                     "bet_after_no_more_bets", "shoe_count_mismatch", "raise_not_twice_ante",
                     "looked_before_end_of_deal", "coup_declared_void"}
    # Each export holds the coup's own operations at the engine's table clock (the reference's, here), after the
    # lines that restore the table as the previous coup left it.
    for number, ops in enumerate(coups, start=1):
        exported = exported_ops[number]
        own = exported[len(exported) - len(ops):]
        assert [_settle_meter(op) for op in own] == [_settle_meter(op) for op in ops], number
        preamble = exported[:len(exported) - len(ops)]
        assert [op.kind for op in preamble[:1]] == ([] if number == 1 else ["open-session"])
    # Coup 4 starts with seat 2's ante left from coup 3, and seat 5's stray one on a vacant seat, as coup 3 ended.
    at = format_time(coups[2][-1].t)
    assert [format_operation(op) for op in exported_ops[4][1:9]] == [f"{at} {line}" for line in [
        "sit seat=2", "bet seat=2 box=ante amount=20.00", "sit seat=4", "sit seat=5",
        "bet seat=5 box=ante amount=10.00", "stand seat=5", "sit seat=6", "sit seat=7"]]
    assert format_operation(exported_ops[4][9]).endswith(" stand seat=6")  # coup 4's own first line


def _settle_meter(op: Operation) -> Operation | tuple:
    # The engine settles at the operation that shows the dealer's hand; the reference table a tick later.
    return ("settle", op.jackpot_meter) if isinstance(op, Settle) else op


def test_export_history_names_a_missing_coup_and_a_file_that_is_not_a_store(tmp_path, capsys):
    config = tmp_path / "table.toml"
    publish, subscribe, snapshot = endpoints(tmp_path)
    config.write_text(CONFIG.format(publish=publish, subscribe=subscribe, snapshot=snapshot))
    rules = load_config(config).rules
    store_path = tmp_path / "events.sqlite"
    store = EventStore(store_path)
    deck = ",".join(str(card) for card in full_deck())
    store.append([NewEvent("dealer.keypad", "test", n, n, n * 1_000_000, msgspec.json.encode(DealerOperation(line))
                           .decode()) for n, line in enumerate([f"open-session cards={deck}", "sit seat=3"], start=1)])
    store.close()
    assert main(["export-history", str(store_path), "--coup", "2", "--config", str(config)]) == 2
    assert capsys.readouterr().err == f"stud-table: {store_path}: no coup 2: the store's last coup is coup 1\n"
    assert main(["export-history", str(store_path), "--coup", "1", "--config", str(config)]) == 0
    text = capsys.readouterr().out
    assert "still in progress" in text and text.endswith("0.001 sit seat=3\n")
    assert parse_history(text).rules(rules.profile) == rules
    history = tmp_path / "h.txt"
    history.write_text(text)
    assert main(["export-history", str(history), "--coup", "1", "--config", str(config)]) == 2
    assert capsys.readouterr().err == f"stud-table: {history} is not a SQLite database: not a table's event store\n"
    import sqlite3

    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE x (a)").connection.close()
    assert main(["export-history", str(other), "--coup", "1", "--config", str(config)]) == 2
    assert capsys.readouterr().err.startswith(f"stud-table: {other}: not a table's event store (no such table")


@pytest.mark.parametrize("header, message", [
    ("minimum=5", "minimum: '5' is not an amount like 20.00"),
    ("seats=abc", "seats: 'abc' is not a number of seats like 7"),
    ("seats=9", "seats: 9 is above the profile's 7 (fr-2007)"),
    ("seats=0", "seats: 0 is below the profile's 5 (fr-2007)"),
    ("maximum=5.00", "maximum: 500 cents (5.00 €) is below the minimum 1000 cents (10.00 €)"),
    ("minimum=0.00", "minimum: 0 cents (0.00 €) is not above zero"),
    ("jackpot=yes", "jackpot: profile fr-2007 has no jackpot"),
    ("colour=red", "unexpected 'colour=red' in the table header"),
])
def test_header_values_are_refused_by_the_rules_core_on_the_headers_line_naming_the_field(header, message):
    from controller.profiles import load_profile
    from controller.rules.errors import HistoryError

    text, _table = _session_text(coups=1)
    key = header.split("=")[0]
    lines = text.split("\n")
    lines[1] = re.sub(rf" {key}=\S+", f" {header}", lines[1]) if f" {key}=" in lines[1] else f"{lines[1]} {header}"
    text = "\n".join([lines[0], "# a comment: the header is on line 3", *lines[1:]])
    with pytest.raises(HistoryError) as caught:
        parse_history(text).rules(load_profile("fr-2007"))
    assert caught.value.line_number == 3 and caught.value.message.startswith(message)


def test_a_history_that_starts_with_a_byte_order_mark_replays(tmp_path, capsys):
    text, table = _session_text(coups=1)
    path = tmp_path / "h.txt"
    path.write_bytes(text.encode("utf-8-sig"))  # as a Windows editor saves it
    assert main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["operations"] == len(table.log)


def test_a_history_needs_its_line_numbers():
    from controller.rules.history import History

    with pytest.raises(TypeError):
        History("fr-2007", {}, ())  # type: ignore[call-arg]


def test_export_history_names_a_directory_as_such(tmp_path, capsys):
    config = tmp_path / "table.toml"
    publish, subscribe, snapshot = endpoints(tmp_path)
    config.write_text(CONFIG.format(publish=publish, subscribe=subscribe, snapshot=snapshot))
    folder = tmp_path / "var"
    folder.mkdir()
    assert main(["export-history", str(folder), "--coup", "1", "--config", str(config)]) == 2
    assert capsys.readouterr().err == f"stud-table: {folder} is a directory, not a table's event store\n"


# Every raise and every ante won by a dealer who does not qualify pays more than fr-2007's.
EDITED_PAYOUTS = {"pair = 1\n": "pair = 3\n", "two_pair = 2\n": "two_pair = 4\n", "ante_pays = 1\n": "ante_pays = 2\n"}


@pytest.mark.parametrize("name", ["mine", "fr-2007"])
@pytest.mark.parametrize("to_stdout", [False, True])
def test_a_profile_file_is_exported_so_that_replay_uses_its_rules(tmp_path, capsys, name, to_stdout):
    """A configuration's own profile file, renamed or keeping a shipped name with its payouts edited: the export
    names the file, and the replay pays as the table did, not as the shipped profile would."""
    from controller.profiles import PROFILES_DIR
    from controller.rules.summary import table_summary

    text = (PROFILES_DIR / "fr-2007.toml").read_text(encoding="utf-8")
    for old, new in EDITED_PAYOUTS.items():
        assert text.count(old) == 1
        text = text.replace(old, new)
    text = text.replace('name = "fr-2007"', f'name = "{name}"')
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "mine.toml").write_text(text, encoding="utf-8")
    config = tmp_path / "table.toml"
    publish, subscribe, snapshot = endpoints(tmp_path)
    config.write_text(CONFIG.format(publish=publish, subscribe=subscribe, snapshot=snapshot)
                      .replace('profile = "fr-2007"', 'profile = "rules/mine.toml"'))
    rules = load_config(config).rules
    assert rules.profile.name == name
    # A coup that the edited payouts settle otherwise than the shipped profile.
    for seed in range(50):
        rng = random.Random(seed)
        table = new_table(rules, rng)
        play_coup(table, rng, 0, METER)
        shipped = Table.replay(rules_for("fr-2007", bonus=True, card_purchase=True), table.log)
        if shipped.settlements != table.settlements:
            break
    else:
        raise AssertionError("no coup pays differently")
    store_path = tmp_path / "events.sqlite"
    store = EventStore(store_path)
    store.append([NewEvent(topic, env.publisher, env.seq, env.mono_ns, env.wall_ns, msgspec.json.encode(env.body)
                           .decode()) for topic, env in _envelopes(table.log, 1)])
    store.close()
    out = tmp_path / "exports" / "coup-1.txt"
    out.parent.mkdir()
    command = ["export-history", str(store_path), "--coup", "1", "--config", str(config)]
    if to_stdout:
        assert main(command) == 0
        out.write_text(capsys.readouterr().out, encoding="utf-8")
        reference = str(tmp_path / "rules" / "mine.toml")
    else:
        assert main([*command, "-o", str(out)]) == 0
        capsys.readouterr()
        reference = "../rules/mine.toml"
    assert f"table profile={reference} " in out.read_text(encoding="utf-8")
    assert main(["replay", str(out), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["settlements"] == table_summary(table, history=True)["settlements"]
    assert replayed["settlements"] != table_summary(shipped, history=True)["settlements"]


def test_the_shipped_profile_is_exported_by_its_name(tmp_path, capsys):
    from controller.export import profile_reference

    rules = rules_for("fr-2007", bonus=True)
    assert profile_reference(rules, None, tmp_path) is None
    assert profile_reference(rules, tmp_path / "copy.toml", None) is None  # an exact copy: the same rules
