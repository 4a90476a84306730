"""The table's Ed25519 key: what it signs (coup reports, the event log's heads) and how a signature is checked.

The private key lives beside the event store (``table-signing.key``, readable by the service's user only) and its
public key beside it (``table-signing.pub``): that public key, kept elsewhere too, is what proves a report or a head
came from this table. The engine and the web process may both ask for the key first: it is created once, whole,
and whoever loses the race reads the winner's.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from controller.errors import StudTableError
from controller.files import write_atomically

KEY_FILE = "table-signing.key"


class SigningKeyError(StudTableError, ValueError):
    """A key file that cannot be used: named, with why."""


def key_path(store_path: Path) -> Path:
    """The table's signing key, beside its event store."""
    return Path(store_path).parent / KEY_FILE


def canonical(data: Any) -> bytes:
    """The bytes a signature covers: JSON with sorted keys and no spaces."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def load_or_create_key(path: str | Path) -> Ed25519PrivateKey:
    """The table's signing key (PEM, PKCS#8); created when missing, readable by its owner only, with its public key
    beside it (``.pub``)."""
    path = Path(path)
    if not path.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.part")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(pem)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(partial, path)  # whole or not at all, and never over a key another process made first
        except FileExistsError:
            pass
        finally:
            partial.unlink()
    try:
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError) as error:
        raise SigningKeyError(f"{path}: cannot read the table's signing key ({error})") from None
    if not isinstance(loaded, Ed25519PrivateKey):
        raise SigningKeyError(f"{path} is not an Ed25519 private key")
    public = path.with_suffix(".pub")
    if not public.exists():  # made with the key, or lost since: what verify-log checks with by default
        write_atomically(public, public_pem(loaded))
    return loaded


def public_pem(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def public_key(source: Ed25519PublicKey | bytes | str | Path) -> Ed25519PublicKey:
    """A public key from a key, PEM bytes, or a PEM file's path; ``ValueError`` (or ``OSError``) when it is not
    one."""
    if isinstance(source, Ed25519PublicKey):
        return source
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    key = serialization.load_pem_public_key(data)
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("not an Ed25519 public key")
    return key


def sign(data: Any, key: Ed25519PrivateKey) -> str:
    """The signature of ``canonical(data)``, base64 (Ed25519 signatures are deterministic: the same data and key
    give the same signature)."""
    return base64.b64encode(key.sign(canonical(data))).decode()


def signed_by(data: Any, signature: str, key: Ed25519PublicKey) -> bool:
    try:
        key.verify(base64.b64decode(signature, validate=True), canonical(data))
    except (InvalidSignature, ValueError):
        return False
    return True
