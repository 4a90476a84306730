"""The review's login rate limit, kept in the review's database (a restart does not clear it).

Failed logins are counted per (user name, source address), and per source across every name (one address guessing
many names). Past its free failures a key waits before its next try, the wait doubling with each further failure
(``first_delay_s``, twice that, four times... up to ``max_delay_s``). Only that source waits: the user still logs in
from another desk, so guesses from one place never lock an account out for everyone (all who share that source wait
with it: behind a proxy, name it in ``[web] trusted_proxies``). A key's failures are forgotten ``forget_s`` after
its last one; a right password clears its (name, source), never the source's own count.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .reviewdb import ReviewDB


def login_name(username: str) -> str:
    """A name tried at the login as it is counted and audited: a guessed name of any length is kept short."""
    return username[:64]


def source_of(address: str) -> str:
    """The source a failure is counted against: the client's IPv4 address, or its IPv6 /64 network (one host holds
    a whole /64: counted per address, it would have endless free tries and grow the table)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class LoginThrottle:
    def __init__(self, free_per_user: int = 5, free_per_source: int = 20, first_delay_s: float = 15,
                 max_delay_s: float = 3600, forget_s: float = 24 * 3600,
                 clock: Callable[[], float] = time.time) -> None:
        """``clock``: wall time, as the lockouts outlive the process."""
        if min(free_per_user, free_per_source) < 1 or first_delay_s <= 0 or max_delay_s < first_delay_s:
            raise ValueError("the login limits need at least one free failure, and delays over 0 s")
        if forget_s < max_delay_s:
            raise ValueError("failures must be remembered at least as long as the longest delay")
        self._free = {"user": free_per_user, "source": free_per_source}
        self.first_delay_s, self.max_delay_s, self.forget_s = first_delay_s, max_delay_s, forget_s
        self._clock = clock

    def _keys(self, username: str, source: str) -> list[tuple[str, str, str]]:
        return [("user", login_name(username), source_of(source)), ("source", "", source_of(source))]

    def delay_after(self, scope: str, failures: int) -> float:
        """The wait after ``failures`` failures of a key of ``scope`` ("user" or "source")."""
        beyond = failures - self._free[scope]
        if beyond < 0:
            return 0.0
        return min(self.max_delay_s, self.first_delay_s * 2.0 ** min(beyond, 64))

    def wait_s(self, reviews: ReviewDB, username: str, source: str) -> float:
        """Seconds before this name may try again from this source; 0 when it may now."""
        now = self._clock()
        waits = [0.0]
        for scope, name, address in self._keys(username, source):
            failures, last_at = reviews.login_failures(scope, name, address)
            if failures and now - last_at < self.forget_s:
                delay = self.delay_after(scope, failures)
                waits.append(min(delay, last_at + delay - now))  # a clock stepped back never lengthens it
        return max(waits)

    def failed(self, reviews: ReviewDB, username: str, source: str) -> None:
        now = self._clock()
        for scope, name, address in self._keys(username, source):
            reviews.count_login_failure(scope, name, address, now, forget_before=now - self.forget_s)

    def succeeded(self, reviews: ReviewDB, username: str, source: str) -> None:
        """A right password clears the name's failures from this source (not the source's own count: one account
        of one's own must not reset the count of guesses at the others)."""
        reviews.clear_login_failures("user", login_name(username), source_of(source))

    @staticmethod
    def minutes(wait_s: float) -> int:
        return max(1, math.ceil(wait_s / 60))
