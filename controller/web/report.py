"""Signed coup reports: the coup's events (with their hash chain), evidence hashes, flags and notes,
signed with the table's Ed25519 key; ``verify_report`` checks the signature and the chain."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from controller.store import record_hash

FORMAT = "stud-table-coup-report/1"


def canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def load_or_create_key(path: str | Path) -> Ed25519PrivateKey:
    """The table's signing key (PEM, PKCS#8); created, readable by its owner only, when missing."""
    path = Path(path)
    if path.exists():
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path} is not an Ed25519 private key")
        return key
    key = Ed25519PrivateKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    path.touch(mode=0o600)
    path.write_bytes(pem)
    path.with_suffix(".pub").write_bytes(public_pem(key))
    return key


def public_pem(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def sign_report(report: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    return {"format": FORMAT, "algorithm": "Ed25519", "report": report,
            "public_key": public_pem(key).decode(),
            "signature": base64.b64encode(key.sign(canonical(report))).decode()}


def _public_key(public_key: Ed25519PublicKey | bytes | str | Path) -> Ed25519PublicKey:
    if isinstance(public_key, Ed25519PublicKey):
        return public_key
    data = public_key if isinstance(public_key, bytes) else Path(public_key).read_bytes()
    key = serialization.load_pem_public_key(data)
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("not an Ed25519 public key")
    return key


def verify_report(path: str | Path, public_key: Ed25519PublicKey | bytes | str | Path) -> tuple[bool, str]:
    """Check a report file against the table's public key (a key, PEM bytes, or a PEM file's path).
    Returns (ok, message); the key embedded in the report is never trusted."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        key = _public_key(public_key)
    except (OSError, ValueError) as error:
        return False, f"cannot read: {error}"
    if not isinstance(document, dict) or document.get("format") != FORMAT or "report" not in document:
        return False, f"not a coup report ({FORMAT})"
    try:
        key.verify(base64.b64decode(document.get("signature", ""), validate=True), canonical(document["report"]))
    except (InvalidSignature, ValueError):
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
