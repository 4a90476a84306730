"""The review's login rate limit: after too many failed logins for one user name, or from one client
address, within a window, further attempts are refused for a while (whatever the password)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable


class LoginThrottle:
    def __init__(self, max_failures_per_user: int = 5, max_failures_per_address: int = 20, window_s: float = 300,
                 lockout_s: float = 300, clock: Callable[[], float] = time.monotonic) -> None:
        if min(max_failures_per_user, max_failures_per_address) < 1 or window_s <= 0 or lockout_s <= 0:
            raise ValueError("the login limits need at least one failure allowed, and a window and lockout over 0 s")
        self._limits = {"user": max_failures_per_user, "address": max_failures_per_address}
        self.window_s = window_s
        self.lockout_s = lockout_s
        self._clock = clock
        self._failures: dict[tuple[str, str], list[float]] = {}
        self._locked_until: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    @staticmethod
    def keys(username: str, address: str) -> list[tuple[str, str]]:
        return [("user", username), ("address", address)]

    def refused_for(self, keys: Iterable[tuple[str, str]]) -> float:
        """Seconds left before these keys may try again; 0 when they may now."""
        now = self._clock()
        with self._lock:
            return max([0.0, *(self._locked_until.get(key, now) - now for key in keys)])

    def failed(self, keys: Iterable[tuple[str, str]]) -> None:
        """A failed login: each key reaching its limit within the window is locked out."""
        now = self._clock()
        with self._lock:
            self._forget_before(now - self.window_s)
            for key in keys:
                recent = self._failures.setdefault(key, [])
                recent.append(now)
                if len(recent) >= self._limits[key[0]]:
                    self._locked_until[key] = now + self.lockout_s
                    del self._failures[key]

    def succeeded(self, username: str) -> None:
        """A right password clears the user name's failures (not the address's: one account of one's own
        must not reset the count of guesses at the others)."""
        with self._lock:
            self._failures.pop(("user", username), None)

    def _forget_before(self, oldest: float) -> None:
        # Old failures and ended lockouts go: guessed names must not grow the tables for ever.
        for key in list(self._failures):
            self._failures[key] = [at for at in self._failures[key] if at >= oldest]
            if not self._failures[key]:
                del self._failures[key]
        now = oldest + self.window_s
        for key in [key for key, until in self._locked_until.items() if until <= now]:
            del self._locked_until[key]
