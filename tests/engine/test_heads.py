"""The log proves its own completeness: the engine signs a head at each coup's end (the chain's hash there and a
digest of the flags and settlements up to it), and ``stud-table verify-log`` names, against the store's own heads
and a head kept elsewhere (``export-head``), a truncated log, a log rewritten with its chain computed again, a
record appended with a right hash, flags deleted and a settlement changed; a file that is not a store exits 2."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import zmq
from busutil import endpoints, running_engine, send, wait_until
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tables import rules_for
from webutil import faulty_coups, table_config

from controller.bus.proxy import Proxy
from controller.engine import Engine
from controller.signing import key_path, load_or_create_key, public_pem
from controller.store import EventStore, record_hash

ROOT = Path(__file__).resolve().parents[2]
COUPS = 3


@pytest.fixture
def store_path(tmp_path) -> Path:
    """A store of three coups (a card exposed in the first: a flag) played live through an engine on a real bus,
    which signs a head at each coup's end with the table's key."""
    config = table_config(tmp_path)
    envelopes = faulty_coups(config, seed=4, coups=COUPS)
    context = zmq.Context()
    proxy = Proxy(config.bus_publish, config.bus_subscribe)
    key = load_or_create_key(key_path(config.store_path))
    with running_engine(context, config.bus_publish, config.bus_subscribe, config.bus_snapshot, config.rules,
                        config.store_path, signing=("table-test", key)) as (_engine, store, raw):
        # the engine's subscription may still be joining: resend the first event until it is recorded
        assert wait_until(lambda: (send(raw, *envelopes[0]), store.last_id >= 1)[1], timeout=10)
        for topic, envelope in envelopes[1:]:
            send(raw, topic, envelope)
        assert wait_until(lambda: store.last_id >= len(envelopes), timeout=30)
        assert wait_until(lambda: store.last_head_event() > 0 and len(latest_coups(config.store_path)) == COUPS)
    proxy.close()
    context.destroy(linger=0)
    return config.store_path


def latest_coups(path: Path) -> list[int]:
    return [coup for (coup,) in sqlite3.connect(path).execute("SELECT coup FROM heads ORDER BY coup")]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=ROOT, capture_output=True, text=True)


def tamper(path: Path, *statements: str) -> None:
    """What a hand on the keyboard does: the triggers dropped, then the statements."""
    db = sqlite3.connect(path)
    for table in ("events", "flags", "coups", "heads"):
        db.executescript(f"DROP TRIGGER IF EXISTS {table}_no_update; DROP TRIGGER IF EXISTS {table}_no_delete;")
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def rechain(path: Path) -> None:
    """Compute every record's hash again, as one who rewrote the log would, so that the chain alone is intact."""
    db = sqlite3.connect(path)
    previous = "0" * 64
    rows = db.execute("SELECT id, topic, publisher, seq, mono_ns, wall_ns, body FROM events ORDER BY id").fetchall()
    for row in rows:
        digest = record_hash(previous, *row)
        db.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE id = ?", (previous, digest, row[0]))
        previous = digest
    db.commit()
    db.close()


def test_each_coups_end_is_signed_and_the_intact_store_says_so(store_path, tmp_path):
    db = sqlite3.connect(store_path)
    heads = db.execute("SELECT coup, last_event FROM heads ORDER BY last_event").fetchall()
    ends = db.execute("SELECT id FROM events WHERE body LIKE '%payment_done%' OR body LIKE '%end_coup%'").fetchall()
    db.close()
    assert [coup for coup, _event in heads] == list(range(1, COUPS + 1))
    assert {event for _coup, event in heads} <= {event for (event,) in ends}
    checked = cli("verify-log", str(store_path))
    assert checked.returncode == 0 and "the chain is intact, and its signed heads" in checked.stdout
    exported = cli("export-head", str(store_path), "-o", str(tmp_path / "head.json"))
    assert exported.returncode == 0 and f"head of coup {COUPS}" in exported.stdout
    assert json.loads((tmp_path / "head.json").read_text())["head"]["event"] == heads[-1][1]


def replay(store_path: Path, folder: Path) -> None:
    """The engine started again on the store: it replays it, as after a crash or a power cut."""
    context = zmq.Context()
    store = EventStore(store_path)
    folder.mkdir(exist_ok=True)
    publish, subscribe, snapshot = endpoints(folder)
    Engine(rules_for("fr-2007", bonus=True, card_purchase=True), store, context, subscribe, publish, snapshot,
           signing=("table-test", load_or_create_key(key_path(store_path)))).close()
    store.close()
    context.destroy(linger=0)


def test_a_replay_signs_only_the_last_coup_end_the_engine_left_unsigned(store_path, tmp_path):
    heads = "SELECT * FROM heads ORDER BY last_event"
    before = sqlite3.connect(store_path).execute(heads).fetchall()
    replay(store_path, tmp_path / "again")
    assert sqlite3.connect(store_path).execute(heads).fetchall() == before  # nothing signed twice
    tamper(store_path, f"DELETE FROM heads WHERE last_event = {before[-1][0]}")  # stopped before writing it
    replay(store_path, tmp_path / "again")
    assert sqlite3.connect(store_path).execute(heads).fetchall() == before  # the very same head, signed again
    tamper(store_path, "DELETE FROM heads")  # every head deleted: a replay must not vouch for what it finds
    replay(store_path, tmp_path / "again")
    assert latest_coups(store_path) == [COUPS]
    checked = cli("verify-log", str(store_path))
    assert checked.returncode == 1
    assert all(f"coup {n} (settled at record" in checked.stdout for n in range(1, COUPS))


def kept_head(store_path: Path, folder: Path) -> Path:
    """The latest head, exported to a copy kept elsewhere, before anyone touches the store."""
    out = folder / "kept-head.json"
    assert cli("export-head", str(store_path), "-o", str(out)).returncode == 0
    return out


def test_a_cut_log_is_named_by_a_head_kept_elsewhere(store_path, tmp_path):
    kept = kept_head(store_path, tmp_path)
    last = sqlite3.connect(store_path).execute("SELECT MAX(id) FROM events").fetchone()[0]
    kept_up_to = last - 25  # the last 25 records go, and whatever the review derived from them
    tamper(store_path, f"DELETE FROM events WHERE id > {kept_up_to}",
           f"DELETE FROM heads WHERE last_event > {kept_up_to}", f"DELETE FROM flags WHERE event_id > {kept_up_to}",
           f"DELETE FROM coups WHERE last_event > {kept_up_to}")
    assert cli("verify-log", str(store_path)).returncode == 0  # the chain alone cannot tell: it just ends sooner
    checked = cli("verify-log", str(store_path), "--head", str(kept))
    assert checked.returncode == 1 and f"the log was cut: the head covers records 1..{last}" in checked.stdout


def test_a_rewritten_log_with_its_chain_computed_again_is_named(store_path, tmp_path):
    kept = kept_head(store_path, tmp_path)
    tamper(store_path, "UPDATE events SET body = replace(body, '\"amount\":', '\"amount\":1') "
                       "WHERE id = (SELECT MIN(id) FROM events WHERE body LIKE '%chips_changed%')")  # a bet: x10
    assert cli("verify-log", str(store_path)).returncode == 1  # the chain alone names it...
    rechain(store_path)
    assert "record 4 altered" not in cli("verify-log", str(store_path)).stdout  # ...until computed again
    checked = cli("verify-log", str(store_path), "--head", str(kept))
    assert checked.returncode == 1 and "were rewritten: the chain's hash there is not the signed one" in checked.stdout


def test_a_forged_record_appended_with_a_right_hash_is_named(store_path, tmp_path):
    kept = kept_head(store_path, tmp_path)
    db = sqlite3.connect(store_path)
    last_id, last_hash = db.execute("SELECT id, hash FROM events ORDER BY id DESC LIMIT 1").fetchone()
    db.close()
    body = '{"type":"dealer_operation","line":"open-session"}'
    forged = (last_id + 1, "dealer.keypad", "virtual-table", 99, 1, 1, body)
    tamper(store_path, "INSERT INTO events (id, topic, publisher, seq, mono_ns, wall_ns, body, prev_hash, hash) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)".replace("?", "{}").format(
        *(repr(v) if isinstance(v, str) else v for v in (*forged, last_hash, record_hash(last_hash, *forged)))))
    checked = cli("verify-log", str(store_path), "--head", str(kept))
    assert checked.returncode == 0  # nothing signed was touched...
    assert f"note: record {last_id + 1} after the last signed head: no signature covers them yet" in checked.stdout


def test_flags_deleted_are_named(store_path):
    assert sqlite3.connect(store_path).execute("SELECT COUNT(*) FROM flags").fetchone()[0] > 0
    tamper(store_path, "DELETE FROM flags")
    checked = cli("verify-log", str(store_path))
    assert checked.returncode == 1 and "the flags or settlements up to record" in checked.stdout


def test_a_changed_house_net_is_named(store_path):
    tamper(store_path, "UPDATE coups SET settlement = replace(settlement, '\"house_net\":', '\"house_net\":1') "
                       "WHERE number = 1")
    checked = cli("verify-log", str(store_path))
    assert checked.returncode == 1 and "were changed since it was signed" in checked.stdout


def test_a_head_signed_by_another_key_is_refused(store_path, tmp_path):
    other = tmp_path / "other.pub"
    other.write_bytes(public_pem(Ed25519PrivateKey.generate()))
    checked = cli("verify-log", str(store_path), "--key", str(other))
    assert checked.returncode == 1 and "bad signature" in checked.stdout


@pytest.mark.parametrize(("content", "words"), [(b"", "no event log"), (b"garbage " * 100, "not an event store"),
                                                (None, "not an event store")])
def test_a_file_that_is_not_a_store_exits_2_with_a_clear_message(tmp_path, content, words):
    path = tmp_path / "file.sqlite"
    if content is None:  # SQLite, but something else's database
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE users (name TEXT)")
        db.commit()
        db.close()
    else:
        path.write_bytes(content)
    for command in (["verify-log", str(path)], ["export-head", str(path)]):
        result = cli(*command)
        assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr, command


def test_a_head_file_that_is_not_one_exits_2(store_path, tmp_path):
    bad = tmp_path / "head.json"
    bad.write_text('{"head": {"format": "something else"}}')
    result = cli("verify-log", str(store_path), "--head", str(bad))
    assert result.returncode == 2 and "not a signed head" in result.stderr


def test_a_store_from_before_signed_heads_is_checked_by_its_chain_alone(store_path):
    tamper(store_path, "DROP TABLE heads")
    checked = cli("verify-log", str(store_path))
    assert checked.returncode == 1 and "coup 1 (settled at record" in checked.stdout  # its coups: no head
    assert "Traceback" not in checked.stderr


def test_the_public_key_is_made_again_when_lost_and_heads_are_never_skipped_for_want_of_it(store_path, tmp_path):
    public = key_path(store_path).with_suffix(".pub")
    public.unlink()
    refused = cli("verify-log", str(store_path))
    assert refused.returncode == 2 and "give --key" in refused.stderr
    load_or_create_key(key_path(store_path))  # what the engine does when it starts
    assert public.exists() and cli("verify-log", str(store_path)).returncode == 0


def test_export_head_of_a_missing_file_or_to_standard_output(store_path, tmp_path):
    missing = cli("export-head", str(tmp_path / "nowhere.sqlite"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    shown = cli("export-head", str(store_path))
    assert shown.returncode == 0 and json.loads(shown.stdout)["head"]["coup"] == COUPS


def test_processes_asking_for_the_key_at_once_all_get_the_same_one(tmp_path):
    path = tmp_path / "var" / "table-signing.key"
    program = ("import sys; from controller.signing import load_or_create_key, public_pem; "
               "sys.stdout.write(public_pem(load_or_create_key(sys.argv[1])).decode())")
    racers = [subprocess.Popen([sys.executable, "-c", program, str(path)], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True) for _ in range(6)]
    keys = {racer.communicate(timeout=60)[0] for racer in racers}
    assert len(keys) == 1 and path.with_suffix(".pub").read_text() in keys
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
