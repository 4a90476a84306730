"""Checkpoints: the engine starts from the table as it stood at the last coup's end and replays only what followed,
and ends up exactly where a replay of the whole log ends up; a checkpoint changed behind its back is not used."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from pathlib import Path

import msgspec
import pytest
import zmq
from busutil import simulated
from tables import rules_for
from webutil import faulty_coups, table_config

from controller.bus.schema import CameraStatus, ChipsChanged, Envelope
from controller.checkpoint import latest, rules_fingerprint
from controller.engine import Engine
from controller.heads import check_heads
from controller.rules.operations import EndCoup
from controller.rules.summary import table_summary
from controller.rules.table import Table, TableCheckpoint
from controller.signing import key_path, load_or_create_key
from controller.store import EventStore

PROFILES = [("fr-2007", {"bonus": True, "card_purchase": True}), ("caribbean", {"jackpot": True}), ("fr-1959", {})]


@pytest.mark.parametrize("profile, options", PROFILES)
def test_a_table_resumed_at_each_coups_end_goes_on_as_the_table_itself(profile, options):
    rules = rules_for(profile, **options)
    reference, _envelopes = simulated(rules, seed=3, coups=10)
    resumed, resumes = Table(rules), 0
    for operation in reference.log:
        resumed.apply(operation)
        if isinstance(operation, EndCoup):  # through its stored form, as the engine keeps it
            stored = msgspec.json.encode(resumed.checkpoint())
            resumed = Table.resume(rules, msgspec.json.decode(stored, type=TableCheckpoint))
            resumes += 1
    assert resumes == 10
    assert table_summary(resumed) == table_summary(reference)
    assert resumed.log == [] and resumed.operation_count == len(reference.log)  # the coups played left memory


def test_a_checkpoint_is_refused_in_the_middle_of_a_coup():
    rules = rules_for("fr-2007")
    reference, _envelopes = simulated(rules, seed=3, coups=1)
    table = Table(rules)
    for operation in reference.log[:len(reference.log) // 2]:
        table.apply(operation)
    with pytest.raises(ValueError, match="between coups"):
        table.checkpoint()


def _events(config, coups: int = 5) -> list[tuple[str, Envelope]]:
    """Coups with a card exposed (a flag), the camera knocked, and a pile too tall to count read at seat 7 while a
    coup is paid (a zone the referee keeps unvouched into the coups after), ending in the middle of a coup."""
    envelopes = faulty_coups(config, seed=8, coups=coups)
    first = envelopes[0][1]
    extra = [("vision.camera", Envelope("cam", 1, first.mono_ns, first.wall_ns, CameraStatus(True, moved_px=3.5)))]
    ends = [index for index, (_topic, envelope) in enumerate(envelopes)
            if getattr(envelope.body, "button", None) == "payment_done"]
    at = envelopes[ends[-3]][1]  # a coup being paid, two coups before the last
    extra.append(("vision.chips", Envelope("cam", 2, at.mono_ns - 1, at.wall_ns - 1,
                                           ChipsChanged(7, "ante", 2500, at_least=True))))
    merged = sorted(envelopes + extra, key=lambda message: message[1].wall_ns)
    return merged[:len(merged) - 12]


def _inside(engine: Engine) -> dict:
    """The referee's state that the display's state does not show."""
    referee = engine.referee
    return {"unvouched": referee.unvouched, "to_confirm": referee.to_confirm, "meter": referee.jackpot_meter,
            "clock": (referee._origin_ms, referee._last_t), "refusals": referee.refusals,
            "derived": engine._derived.hexdigest()}


def _engine(config, tmp_path: Path, rules=None, **options) -> Engine:
    store = EventStore(config.store_path, config.evidence_dir)
    name = f"e{len(list(tmp_path.glob('*.marker')))}"
    (tmp_path / f"{name}.marker").touch()
    return Engine(rules or config.rules, store, zmq.Context.instance(), f"ipc://{tmp_path}/{name}-sub.sock",
                  f"ipc://{tmp_path}/{name}-pub.sock", f"ipc://{tmp_path}/{name}-snap.sock",
                  signing=("table-test", load_or_create_key(key_path(config.store_path))), **options)


def _close(engine: Engine) -> None:
    engine.close()
    engine.store.close()


def _recorded(config, tmp_path: Path) -> dict:
    """The store as a live engine records it, a few events a batch; the live engine's state at the end."""
    events = _events(config)
    live = _engine(config, tmp_path)
    for start in range(0, len(events), 7):
        live.record(events[start:start + 7])
    state = msgspec.to_builtins(live.state())
    state["inside"] = _inside(live)
    assert len(live.referee.table.log) < 60  # only the coup in progress is kept in memory
    _close(live)
    return state


def test_an_engine_started_from_its_checkpoint_stands_where_a_whole_replay_stands(tmp_path, caplog):
    config = table_config(tmp_path)
    live = _recorded(config, tmp_path)
    assert live["coups_settled"] == 4 and live["flags_total"] >= 1 and live["phase"] != "betting"
    assert live["devices"]["camera_knocks"] == 1 and (7, "ante") in live["inside"]["unvouched"]

    caplog.set_level(logging.INFO, logger="controller.engine")
    resumed = _engine(config, tmp_path)
    from_checkpoint = {**msgspec.to_builtins(resumed.state()), "inside": _inside(resumed)}
    public = load_or_create_key(key_path(config.store_path)).public_key()
    checkpoint = latest(resumed.store.db, rules_fingerprint(config.rules, 0), resumed.store.last_id, public)
    _close(resumed)
    replayed = _engine(config, tmp_path, from_checkpoint=False)
    whole = {**msgspec.to_builtins(replayed.state()), "inside": _inside(replayed)}
    _close(replayed)

    assert from_checkpoint == live
    assert whole == live
    assert checkpoint is not None
    total, after = live["recorded_events"], checkpoint[0].after_event
    assert f"replayed {total - after} recorded events after the checkpoint at record {after}" in caplog.text
    assert f"replayed {total} recorded events;" in caplog.text


def test_a_replay_of_the_whole_log_derives_the_very_checkpoints_recorded_live(tmp_path):
    config = table_config(tmp_path)
    _recorded(config, tmp_path)
    live_rows = _checkpoints(config.store_path)
    assert len(live_rows) == 4
    _tamper(config.store_path, "DELETE FROM checkpoints")
    _close(_engine(config, tmp_path))  # no checkpoint to start from: the whole log, checkpoints written again
    assert _checkpoints(config.store_path) == live_rows


def test_other_rules_replay_the_whole_log(tmp_path, caplog):
    config = table_config(tmp_path)
    live = _recorded(config, tmp_path)
    caplog.set_level(logging.INFO, logger="controller.engine")
    # the configuration changed between two starts: a lower maximum
    _close(_engine(config, tmp_path, rules=rules_for("fr-2007", maximum=40000, bonus=True, card_purchase=True)))
    assert f"replayed {live['recorded_events']} recorded events;" in caplog.text


@pytest.mark.parametrize("head", ["kept", "deleted"])
def test_a_checkpoint_changed_behind_the_engines_back_is_not_used_and_verify_names_it(tmp_path, caplog, head):
    config = table_config(tmp_path)
    live = _recorded(config, tmp_path)
    after_event, body, _sha = _checkpoints(config.store_path)[-1]
    forged = body.replace('"jackpot_meter":0', '"jackpot_meter":99999900')
    assert forged != body
    digest = hashlib.sha256(forged.encode()).hexdigest()
    _tamper(config.store_path, f"UPDATE checkpoints SET body = '{forged}', sha256 = '{digest}' "
                               f"WHERE after_event = {after_event}")
    if head == "deleted":  # the head that names the true one gone with it
        _tamper(config.store_path, f"DELETE FROM heads WHERE last_event = {after_event}", "heads")
    caplog.set_level(logging.INFO, logger="controller.engine")
    engine = _engine(config, tmp_path)
    state = {**msgspec.to_builtins(engine.state()), "inside": _inside(engine)}
    _close(engine)
    reason = ("its coup's signed head names another" if head == "kept" else
              f"no signed head at record {after_event} vouches for it")
    assert f"the latest checkpoint cannot be used ({reason}" in caplog.text
    assert state == live  # the whole log replayed instead
    if head == "deleted":
        return
    public = load_or_create_key(key_path(config.store_path)).public_key()
    findings = check_heads(config.store_path, public)
    assert any(f"the checkpoint at record {after_event} was changed or deleted" in p for p in findings.problems)


def _checkpoints(path: Path) -> list[tuple[int, str, str]]:
    db = sqlite3.connect(path)
    rows = db.execute("SELECT after_event, body, sha256 FROM checkpoints ORDER BY after_event").fetchall()
    db.close()
    return rows


def _tamper(path: Path, statement: str, table: str = "checkpoints") -> None:
    db = sqlite3.connect(path)
    db.executescript(f"DROP TRIGGER IF EXISTS {table}_no_update; DROP TRIGGER IF EXISTS {table}_no_delete;")
    db.execute(statement)
    db.commit()
    db.close()


def test_the_reviews_coup_replays_from_the_coup_befores_checkpoint_as_from_the_first_record(tmp_path, monkeypatch):
    from controller.web import store_view
    from controller.web.store_view import StoreView

    config = table_config(tmp_path)
    _recorded(config, tmp_path)
    coups = StoreView(config.store_path, config.evidence_dir, config.rules, "t",
                                                  key_file=key_path(config.store_path)).coups()
    assert len(coups) == 4
    taken_up = []
    real_latest = store_view.latest_checkpoint

    def watched(db, fingerprint, until, key):
        assert key is not None  # the table's key, beside the store: the heads' signatures are checked
        found = real_latest(db, fingerprint, until, key)
        taken_up.append(found[0].after_event if found else 0)
        return found

    monkeypatch.setattr(store_view, "latest_checkpoint", watched)
    from_checkpoints = [StoreView(config.store_path, config.evidence_dir, config.rules, "t",
                                  key_file=key_path(config.store_path)).coup(coup["number"])["table"]
                        for coup in coups]
    assert taken_up[0] == 0 and all(taken_up[1:])  # the first coup has no coup before it
    _tamper(config.store_path, "DELETE FROM checkpoints")
    from_the_start = [StoreView(config.store_path, config.evidence_dir, config.rules, "t",
                                key_file=key_path(config.store_path)).coup(coup["number"])["table"]
                      for coup in coups]
    assert from_checkpoints == from_the_start
    assert [state["coup"] for state in from_the_start] == [1, 2, 3, 4]
