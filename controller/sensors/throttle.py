"""What a device can flood the bus with, told in two events rather than thousands.

A noisy serial line sends tens of corrupt chunks a second; a shorted button or a shoe in a loop sends events as fast
as its thread can. Stored one by one they would fill the event log and bury what matters. ``NoiseWatch`` says when
a link turns noisy and when it is clean again; ``RateLimit`` lets each kind of event through at a rate no dealer
reaches and counts the rest. Both take the time as an argument: the sensors process passes its monotonic clock,
tests pass their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: a link with no corrupt frame nor sequence gap for this long is clean again
NOISE_QUIET_S = 2.0
#: the most events of one kind a second a device may send, and the burst it may send at once: a dealer presses a
#: button or draws a card a few times a second at most
RATE_PER_S = 20.0
BURST = 20
#: a kind that sent nothing over its rate for this long is no longer flooding
FLOOD_QUIET_S = 2.0


@dataclass
class NoiseWatch:
    """Whether a link is noisy: it turns noisy at its first fault, and clean ``quiet_s`` after its last."""

    quiet_s: float = NOISE_QUIET_S
    noisy: bool = False
    #: faults since the link turned noisy
    faults: int = 0
    _last_fault: float = 0.0

    def fault(self, now: float) -> bool:
        """A corrupt frame or a sequence gap at ``now``: True when it turns the link noisy."""
        self._last_fault = now
        self.faults += 1
        if self.noisy:
            return False
        self.noisy = True
        return True

    def settled(self, now: float) -> bool:
        """True once, when the noisy link has been clean for ``quiet_s``."""
        if not self.noisy or now - self._last_fault < self.quiet_s:
            return False
        self.noisy, self.faults = False, 0
        return True


@dataclass
class _Bucket:
    tokens: float
    updated: float
    dropped: int = 0
    last_drop: float = 0.0


@dataclass
class RateLimit:
    """A token bucket per kind of event: ``allow`` says whether one more may go out now. A kind over its rate is
    flooding: ``allow`` drops its events and counts them; ``floods_ended`` names each kind that calmed down, with
    how many were dropped."""

    per_s: float = RATE_PER_S
    burst: int = BURST
    quiet_s: float = FLOOD_QUIET_S
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def allow(self, kind: str, now: float) -> bool:
        bucket = self._buckets.setdefault(kind, _Bucket(float(self.burst), now))
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.updated) * self.per_s)
        bucket.updated = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return True
        bucket.dropped += 1
        bucket.last_drop = now
        return False

    def flooding(self, kind: str) -> bool:
        bucket = self._buckets.get(kind)
        return bucket is not None and bucket.dropped > 0

    def floods_ended(self, now: float) -> list[tuple[str, int]]:
        """Each kind that dropped events and has sent none over its rate for ``quiet_s``: (kind, dropped), once."""
        ended = []
        for kind, bucket in self._buckets.items():
            if bucket.dropped and now - bucket.last_drop >= self.quiet_s:
                ended.append((kind, bucket.dropped))
                bucket.dropped = 0
        return ended
