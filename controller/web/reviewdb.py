"""The review's own database: users, sessions, flag acknowledgements, the audit log and the failed logins.

Acknowledgements and the audit log are append-only (triggers refuse UPDATE, DELETE and a REPLACE of a row, as in
the event store; a grouped audit row's count only steps up by one): who did what and when is kept for good.
Passwords are hashed with Argon2id.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ..errors import StudTableError

#: Each role can do what the roles before it can.
ROLES = ("surveillance", "supervisor", "admin")
USERNAME = re.compile(r"[\w.-]{1,64}")

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    username TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('surveillance', 'supervisor', 'admin')),
    password_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    disabled_at REAL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    username TEXT NOT NULL REFERENCES users(username),
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS acknowledgements (
    id INTEGER PRIMARY KEY,
    flag_event INTEGER NOT NULL,
    flag_ordinal INTEGER NOT NULL,
    coup INTEGER NOT NULL,
    username TEXT NOT NULL,
    at REAL NOT NULL,
    note TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS acknowledgements_no_update BEFORE UPDATE ON acknowledgements
BEGIN SELECT RAISE(ABORT, 'acknowledgements are append-only'); END;
CREATE TRIGGER IF NOT EXISTS acknowledgements_no_delete BEFORE DELETE ON acknowledgements
BEGIN SELECT RAISE(ABORT, 'acknowledgements are append-only'); END;
CREATE TRIGGER IF NOT EXISTS acknowledgements_no_replace BEFORE INSERT ON acknowledgements
WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM acknowledgements WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'acknowledgements are append-only'); END;
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    username TEXT,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TABLE IF NOT EXISTS login_failures (
    scope TEXT NOT NULL CHECK (scope IN ('user', 'source')),
    username TEXT NOT NULL,
    source TEXT NOT NULL,
    failures INTEGER NOT NULL,
    last_at REAL NOT NULL,
    PRIMARY KEY (scope, username, source)
);
CREATE INDEX IF NOT EXISTS login_failures_by_time ON login_failures (last_at);
"""

#: A row of the audit log never changes, but for the count of a grouped row (failed logins from one source in one
#: minute), which only steps up by one. Made after the columns it names, which an older file gets by ALTER TABLE.
AUDIT_ONLY_COUNTS_GROW = """
DROP TRIGGER IF EXISTS audit_no_update;
DROP TRIGGER IF EXISTS audit_only_counts_grow;
CREATE TRIGGER audit_only_counts_grow BEFORE UPDATE ON audit
WHEN OLD.grouping IS NULL OR NEW.grouping IS NOT OLD.grouping OR NEW.id IS NOT OLD.id OR NEW.at IS NOT OLD.at
    OR NEW.username IS NOT OLD.username OR NEW.action IS NOT OLD.action OR NEW.detail IS NOT OLD.detail
    OR NEW.count IS NOT OLD.count + 1
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_replace BEFORE INSERT ON audit
WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM audit WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE INDEX IF NOT EXISTS audit_by_grouping ON audit (grouping) WHERE grouping IS NOT NULL;
"""


class UserExists(StudTableError):
    pass


@dataclass(frozen=True)
class User:
    username: str
    role: str

    def can(self, role: str) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)


class ReviewDB:
    def __init__(self, path: str | Path, session_ttl_s: float = 30 * 60, session_max_s: float = 12 * 3600,
                 hasher: PasswordHasher | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            self.path.touch(mode=0o600)  # password hashes: readable by the service's user only
        self.session_ttl_s = session_ttl_s
        self.session_max_s = session_max_s
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        if "disabled_at" not in {row[1] for row in self._db.execute("PRAGMA table_info(users)")}:
            self._db.execute("ALTER TABLE users ADD COLUMN disabled_at REAL")  # a file from before user management
        audit_columns = {row[1] for row in self._db.execute("PRAGMA table_info(audit)")}
        for column, declared in (("count", "INTEGER NOT NULL DEFAULT 1"), ("grouping", "TEXT")):
            if column not in audit_columns:  # a file from before grouped rows
                self._db.execute(f"ALTER TABLE audit ADD COLUMN {column} {declared}")
        self._db.executescript(AUDIT_ONLY_COUNTS_GROW)
        self._lock = threading.Lock()
        self._hasher = hasher or PasswordHasher()  # Argon2id, RFC 9106's low-memory parameters
        self._dummy: str | None = None

    # --- users ------------------------------------------------------------------

    def create_user(self, username: str, role: str, password: str, by: str | None = None) -> None:
        """Raises ValueError for a bad role, name or password, and UserExists when the name is taken."""
        if role not in ROLES:
            raise ValueError(f"role {role!r} is not one of {', '.join(ROLES)}")
        if not USERNAME.fullmatch(username):
            raise ValueError(f"user name {username!r}: 1 to 64 letters, digits, '.', '_' or '-'")
        if len(password) < 8:
            raise ValueError("a password needs 8 characters or more")
        try:
            with self._lock:
                self._db.execute("INSERT INTO users (username, role, password_hash, created_at) VALUES (?, ?, ?, ?)",
                                 (username, role, self._hasher.hash(password), time.time()))
        except sqlite3.IntegrityError:
            raise UserExists(f"the user {username!r} exists already") from None
        self.audit(by, "user_created", f"{username} ({role})")

    def disable_user(self, username: str, by: str | None = None) -> None:
        """The user can no longer log in and its open sessions end; the row is kept (nothing is deleted).
        Raises KeyError for an unknown user, ValueError for one already disabled."""
        with self._lock:
            changed = self._db.execute("UPDATE users SET disabled_at = ? WHERE username = ? AND disabled_at IS NULL",
                                       (time.time(), username)).rowcount
        if not changed:
            if self._db.execute("SELECT 1 FROM users WHERE username = ?", (username,)).fetchone() is None:
                raise KeyError(f"no user {username!r}")
            raise ValueError(f"the user {username!r} is already disabled")
        self.audit(by, "user_disabled", username)

    def users(self) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT username, role, created_at, disabled_at FROM users ORDER BY username")
        return [dict(zip(("username", "role", "created_at", "disabled_at"), row, strict=True)) for row in rows]

    def authenticate(self, username: str, password: str) -> User | None:
        """The user when the password is right and the user is not disabled."""
        row = self._db.execute("SELECT role, password_hash FROM users WHERE username = ? AND disabled_at IS NULL",
                               (username,)).fetchone()
        try:
            # Without the user, still spend the hashing time: no timing oracle on user names.
            if row is None and self._dummy is None:
                self._dummy = self._hasher.hash(secrets.token_hex(8))
            self._hasher.verify(row[1] if row else self._dummy, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return None
        return User(username, row[0]) if row else None

    # --- sessions ------------------------------------------------------------------

    @staticmethod
    def _hash_token(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def open_session(self, user: User) -> str:
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self._lock:
            self._db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)",
                             (self._hash_token(token), user.username, now, now + self.session_ttl_s))
        return token

    def session_user(self, token: str | None) -> User | None:
        """The user of a live session (and its expiry pushed back); None when unknown or expired."""
        if not token:
            return None
        now = time.time()
        key = self._hash_token(token)
        row = self._db.execute("SELECT s.username, u.role, s.created_at, s.expires_at FROM sessions s "
                               "JOIN users u ON u.username = s.username "
                               "WHERE s.token_hash = ? AND u.disabled_at IS NULL", (key,)).fetchone()
        if row is None or row[3] < now or row[2] + self.session_max_s < now:
            return None
        with self._lock:
            self._db.execute("UPDATE sessions SET expires_at = ? WHERE token_hash = ?",
                             (min(now + self.session_ttl_s, row[2] + self.session_max_s), key))
        return User(row[0], row[1])

    def close_session(self, token: str | None) -> None:
        if token:
            with self._lock:
                self._db.execute("UPDATE sessions SET expires_at = 0 WHERE token_hash = ?", (self._hash_token(token),))

    # --- acknowledgements and audit ---------------------------------------------------

    def acknowledge(self, user: User, flag_event: int, flag_ordinal: int, coup: int, note: str) -> int:
        with self._lock:
            cursor = self._db.execute(
                "INSERT INTO acknowledgements (flag_event, flag_ordinal, coup, username, at, note) "
                "VALUES (?, ?, ?, ?, ?, ?)", (flag_event, flag_ordinal, coup, user.username, time.time(), note))
        return int(cursor.lastrowid or 0)

    def acknowledgements(self, coup: int | None = None) -> list[dict[str, Any]]:
        query = "SELECT id, flag_event, flag_ordinal, coup, username, at, note FROM acknowledgements"
        rows = self._db.execute(query + (" WHERE coup = ? ORDER BY id" if coup is not None else " ORDER BY id"),
                                (coup,) if coup is not None else ()).fetchall()
        keys = ("id", "flag_event", "flag_ordinal", "coup", "username", "at", "note")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def audit(self, username: str | None, action: str, detail: str = "", grouping: str | None = None) -> None:
        """One row; with ``grouping``, a row per grouping key and minute whose count grows with each repeat (a
        flood of failed logins from one source is one row a minute, not one a request)."""
        now = time.time()
        with self._lock:
            if grouping is not None:
                key = f"{grouping} {int(now // 60)}"
                if self._db.execute("UPDATE audit SET count = count + 1 WHERE grouping = ?", (key,)).rowcount:
                    return
            else:
                key = None
            self._db.execute("INSERT INTO audit (at, username, action, detail, grouping) VALUES (?, ?, ?, ?, ?)",
                             (now, username, action, detail, key))

    def audit_log(self, limit: int = 500) -> list[dict[str, Any]]:
        keys = ("id", "at", "username", "action", "detail", "count")
        rows = self._db.execute(f"SELECT {', '.join(keys)} FROM audit ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [dict(zip(keys, row, strict=True)) for row in rows]

    # --- failed logins (``throttle.LoginThrottle`` decides what they mean) ------------------------------------

    def login_failures(self, scope: str, username: str, source: str) -> tuple[int, float]:
        """(failures, time of the last) of a throttle key; (0, 0.0) when it has none."""
        row = self._db.execute("SELECT failures, last_at FROM login_failures WHERE scope = ? AND username = ? "
                               "AND source = ?", (scope, username, source)).fetchone()
        return (int(row[0]), float(row[1])) if row else (0, 0.0)

    def count_login_failure(self, scope: str, username: str, source: str, now: float, forget_before: float) -> None:
        """One more failure for the key; keys whose last failure is older than ``forget_before`` start again
        (and go: guessed names must not grow the table for ever)."""
        with self._lock:
            self._db.execute("DELETE FROM login_failures WHERE last_at < ?", (forget_before,))
            self._db.execute("INSERT INTO login_failures VALUES (?, ?, ?, 1, ?) ON CONFLICT (scope, username, source)"
                             " DO UPDATE SET failures = failures + 1, last_at = excluded.last_at",
                             (scope, username, source, now))

    def clear_login_failures(self, scope: str, username: str, source: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM login_failures WHERE scope = ? AND username = ? AND source = ?",
                             (scope, username, source))

    def close(self) -> None:
        self._db.close()
