"""Signed coup reports: the coup's events (with their hash chain), evidence hashes, flags and notes,
signed with the table's Ed25519 key; ``verify_report`` checks the signature and the chain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from controller.signing import public_key as load_public_key
from controller.signing import public_pem, sign, signed_by
from controller.store import record_hash

FORMAT = "stud-table-coup-report/1"


def sign_report(report: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    return {"format": FORMAT, "algorithm": "Ed25519", "report": report, "public_key": public_pem(key).decode(),
            "signature": sign(report, key)}


def verify_report(path: str | Path, public_key: Ed25519PublicKey | bytes | str | Path) -> tuple[bool, str]:
    """Check a report file against the table's public key (a key, PEM bytes, or a PEM file's path).
    Returns (ok, message); the key embedded in the report is never trusted."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        key = load_public_key(public_key)
    except (OSError, ValueError) as error:
        return False, f"cannot read: {error}"
    if not isinstance(document, dict) or document.get("format") != FORMAT or "report" not in document:
        return False, f"not a coup report ({FORMAT})"
    if not signed_by(document["report"], str(document.get("signature", "")), key):
        return False, "bad signature: the report was altered, or not signed by this table's key"
    events = document["report"].get("events", [])
    previous = None
    for event in events:
        actual = record_hash(event["prev_hash"], event["id"], event["topic"], event["publisher"], event["seq"],
                             event["mono_ns"], event["wall_ns"], event["body"])
        if actual != event["hash"]:
            return False, f"event {event['id']} does not match its hash"
        if previous is not None and (event["id"] != previous["id"] + 1 or event["prev_hash"] != previous["hash"]):
            return False, f"event {event['id']} does not follow event {previous['id']}"
        previous = event
    report = document["report"]
    return True, (f"valid: coup {report.get('coup')} of table {report.get('table_id')}, {len(events)} events, "
                  f"{len(report.get('flags', []))} flags, signed {report.get('generated_at')} "
                  f"by {report.get('generated_by')}")
