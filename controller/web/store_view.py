"""Read-only views of the event store for the review: coups, flags, events, evidence, and each coup's
hands rebuilt by replaying the log through the engine's own referee, from the checkpoint the engine wrote at the
coup before's end."""

from __future__ import annotations

import json
import logging
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import msgspec

from controller.bus.schema import AnyBody, Envelope
from controller.checkpoint import BadCheckpoint, rules_fingerprint
from controller.checkpoint import latest as latest_checkpoint
from controller.referee import Referee
from controller.rules.profile import TableRules
from controller.signing import load_or_create_key
from controller.web.dealer_entries import DealerEntries

log = logging.getLogger(__name__)


def iso(wall_ns: int | None) -> str | None:
    if wall_ns is None:
        return None
    return datetime.fromtimestamp(wall_ns / 1e9, UTC).isoformat(timespec="seconds")


class StoreView:
    """One table's store; ``table_id`` (the table's configured id) goes with each coup it lists."""

    def __init__(self, path: str | Path, evidence_dir: str | Path, rules: TableRules | None, table_id: str,
                 jackpot_meter: int = 0, key_file: Path | None = None) -> None:
        """``jackpot_meter``: the one the engine started from (the configuration's); ``key_file``: the table's
        signing key, whose signature a checkpoint's head must carry (none checked when it does not exist)."""
        self.table_id = table_id
        self.path = Path(path)
        self.evidence_dir = Path(evidence_dir)
        self.rules = rules
        self.jackpot_meter = jackpot_meter
        self.key_file = key_file
        self._replayed: dict[tuple[int, int, int], tuple[dict[str, Any], list[dict[str, Any]]]] = {}

    def _connect(self) -> sqlite3.Connection:
        # Read-only: the engine is the store's only writer.
        return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)

    def available(self) -> bool:
        return self.path.exists()

    def flags(self, coup: int | None = None) -> list[dict[str, Any]]:
        if not self.available():
            return []
        with self._connect() as db:
            rows = db.execute(
                "SELECT f.event_id, f.ordinal, f.coup, f.kind, f.severity, f.seat, f.detail, e.wall_ns FROM flags f "
                "JOIN events e ON e.id = f.event_id" + (" WHERE f.coup = ?" if coup is not None else "")
                + " ORDER BY f.event_id, f.ordinal", (coup,) if coup is not None else ()).fetchall()
        keys = ("event_id", "ordinal", "coup", "kind", "severity", "seat", "detail", "wall_ns")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def coups(self) -> list[dict[str, Any]]:
        """Every settled coup, and every coup with a flag (settled or not)."""
        if not self.available():
            return []
        with self._connect() as db:
            rows = db.execute("SELECT c.number, c.first_event, c.last_event, c.void, c.settlement, e.wall_ns "
                              "FROM coups c JOIN events e ON e.id = c.first_event").fetchall()
            unsettled = db.execute("SELECT f.coup, MIN(f.event_id), e.wall_ns FROM flags f JOIN events e "
                                   "ON e.id = f.event_id WHERE f.coup NOT IN (SELECT number FROM coups) "
                                   "GROUP BY f.coup").fetchall()
        coups = {number: {"number": number, "first_event": first, "last_event": last, "void": bool(void),
                          "settled": True, "settlement": json.loads(settlement) if settlement else None,
                          "wall_ns": wall}
                 for number, first, last, void, settlement, wall in rows}
        for number, first, wall in unsettled:
            coups[number] = {"number": number, "first_event": first, "last_event": None, "void": False,
                             "settled": False, "settlement": None, "wall_ns": wall}
        return [coups[number] for number in sorted(coups)]

    def find_coups(self, acknowledged_flags: set[tuple[int, int]], day_from: date | None = None,
                   day_to: date | None = None, kind: str | None = None, seat: int | None = None,
                   acknowledged: bool | None = None) -> list[dict[str, Any]]:
        flags_by_coup: dict[int, list[dict[str, Any]]] = {}
        for flag in self.flags():
            flag["acknowledged"] = (flag["event_id"], flag["ordinal"]) in acknowledged_flags
            flags_by_coup.setdefault(flag["coup"], []).append(flag)
        found = []
        for coup in self.coups():
            flags = flags_by_coup.get(coup["number"], [])
            day = datetime.fromtimestamp(coup["wall_ns"] / 1e9, UTC).date()
            if (day_from and day < day_from) or (day_to and day > day_to):
                continue
            if kind and not any(flag["kind"] == kind for flag in flags):
                continue
            if seat is not None:
                settlement = coup["settlement"] or {}
                seats = {payout["seat"] for payout in settlement.get("payouts", [])}
                if seat not in seats and not any(flag["seat"] == seat for flag in flags):
                    continue
            pending = any(not flag["acknowledged"] for flag in flags)
            if acknowledged is True and (not flags or pending):
                continue
            if acknowledged is False and not pending:
                continue
            found.append({"table_id": self.table_id, "number": coup["number"], "at": iso(coup["wall_ns"]),
                          "settled": coup["settled"],
                          "void": coup["void"], "flags": [flag["kind"] for flag in flags],
                          "flags_pending": sum(not flag["acknowledged"] for flag in flags),
                          "house_net": (coup["settlement"] or {}).get("house_net")})
        return found

    def coup(self, number: int) -> dict[str, Any] | None:
        coups = self.coups()
        index = next((i for i, coup in enumerate(coups) if coup["number"] == number), None)
        if index is None:
            return None
        coup = coups[index]
        first = coup["first_event"]
        last = coup["last_event"]
        following = coups[index + 1]["first_event"] - 1 if index + 1 < len(coups) else None
        # The timeline runs to the next coup's first event: the payments come after the settlement.
        events = self.events(first, following)
        until = last if last is not None else (events[-1]["id"] if events else first)
        bodies = [json.loads(event["body"]) for event in events]
        shoe = [body["count"] for body in bodies if body.get("type") == "shoe_card_drawn"]
        camera = sum(1 for body in bodies if body.get("type") == "card_placed")
        # The table as it stood at the settlement; the dealer's entries to the timeline's end (he keys payments)
        replayed = self._replay(number, until, events[-1]["id"] if events else until)
        return {"table_id": self.table_id, **{k: v for k, v in coup.items() if k != "wall_ns"},
                "at": iso(coup["wall_ns"]),
                "events": events, "flags": self.flags(number),
                "evidence": self.evidence(first, events[-1]["id"] if events else first),
                "table": replayed[0] if replayed else None, "dealer_entries": replayed[1] if replayed else [],
                "shoe_count": shoe[-1] if shoe else None, "camera_count": camera}

    def events(self, first: int, last: int | None) -> list[dict[str, Any]]:
        with self._connect() as db:
            rows = db.execute("SELECT id, topic, publisher, seq, mono_ns, wall_ns, body, prev_hash, hash FROM events "
                              "WHERE id >= ? AND (? IS NULL OR id <= ?) ORDER BY id", (first, last, last)).fetchall()
        keys = ("id", "topic", "publisher", "seq", "mono_ns", "wall_ns", "body", "prev_hash", "hash")
        events = [dict(zip(keys, row, strict=True)) for row in rows]
        for event in events:
            event["at"] = iso(event["wall_ns"])
        return events

    def evidence(self, first: int, last: int) -> list[dict[str, Any]]:
        with self._connect() as db:
            rows = db.execute("SELECT sha256, event_id, file, media_type FROM evidence WHERE event_id BETWEEN ? AND ? "
                              "ORDER BY event_id", (first, last)).fetchall()
        return [dict(zip(("sha256", "event_id", "file", "media_type"), row, strict=True)) for row in rows]

    def evidence_file(self, sha256: str) -> tuple[Path, str] | None:
        if not self.available():
            return None
        with self._connect() as db:
            row = db.execute("SELECT file, media_type FROM evidence WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None:
            return None
        path = self.evidence_dir / Path(row[0]).name
        return (path, row[1]) if path.is_file() else None

    def _replay(self, coup: int, state_at: int,
                until_event: int) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The table as it stood after event ``state_at``, and what the dealer keyed in the coup up to
        ``until_event`` (``controller.web.dealer_entries``)."""
        if self.rules is None:
            return None
        key = (coup, state_at, until_event)
        if key not in self._replayed:
            referee, start = Referee(self.rules, self.jackpot_meter), 0
            signing = self.key_file if self.key_file and self.key_file.exists() else None
            public = load_or_create_key(signing).public_key() if signing else None
            fingerprint = rules_fingerprint(self.rules, self.jackpot_meter)
            with self._connect() as db:
                try:
                    # the one before the state asked for: the coup's own end, within the timeline, wrote the next
                    found = latest_checkpoint(db, fingerprint, state_at, public)
                except BadCheckpoint as error:  # changed behind the engine's back: verify-log names it
                    log.warning("review: a checkpoint before record %d cannot be used (%s)", state_at, error)
                    found = None
                if found is not None:
                    referee, start = Referee.resume(self.rules, found[0].referee), found[0].after_event
                rows = db.execute("SELECT id, publisher, seq, mono_ns, wall_ns, body FROM events WHERE id > ? AND "
                                  "id <= ? ORDER BY id", (start, until_event))
                entries, state = DealerEntries(), None
                for event_id, publisher, seq, mono_ns, wall_ns, body in rows:
                    envelope = Envelope(publisher, seq, mono_ns, wall_ns, msgspec.json.decode(body, type=AnyBody))
                    entries.play(referee, event_id, iso(wall_ns), envelope)
                    if event_id == state_at:
                        state = referee.state()
            if len(self._replayed) > 32:
                self._replayed.clear()
            self._replayed[key] = (state or referee.state(),
                                   [entry for entry in entries.entries if entry["coup"] == coup])
        return self._replayed[key]
