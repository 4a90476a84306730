"""No event lost while the engine restarts: each producer keeps what it published until the engine has recorded it.

PUB/SUB keeps nothing for a subscriber that is not there, so what a producer publishes while the engine restarts is
gone. Each producer (vision, sensors, the keypad) therefore keeps an ``Outbox`` of its events and resends them, in
order, until the engine acknowledges them; the engine's ``Intake`` records a producer's events only in the order
they were published (each envelope names the one before it, ``Envelope.after``: heartbeats and other messages the
engine does not record keep their place in the numbering), ignores a resend of one already recorded, and
acknowledges after each commit (``core.ack``, ``Acknowledged``) the last one it recorded of each producer that spoke.
One that comes after a gap is held, with every other producer's events, and the acknowledgement says ``gap``: the
producer resends at once; a gap still open after ``engine.GAP_WAIT_S`` is taken as lost (logged) and what follows it
recorded.

Why acknowledgements published on the bus rather than a DEALER/ROUTER exchange per producer: the producers reach
the engine only through the proxy, without knowing its address or how many of them there are, and the engine
already commits per batch; one small message per producer per batch is the whole cost, and an engine that starts
again says where it stands in its first acknowledgement.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import zmq

from .schema import Acknowledged, BadMessage, Envelope, decode

log = logging.getLogger(__name__)

#: Resend everything unacknowledged when no acknowledgement has moved for this long (the engine is away).
RESEND_AFTER_S = 1.0
#: After a ``gap`` acknowledgement, resend at most this often (several may come for one gap).
GAP_RESEND_S = 0.1
#: Events kept at most; beyond, the oldest is dropped and counted (the engine has been away for minutes).
CAPACITY = 200_000


@dataclass
class OutboxStats:
    acknowledged: int = 0
    resent: int = 0
    dropped: int = 0  # over capacity: lost, and said so in the log


class Outbox:
    """A producer's events not yet acknowledged, resent in order until they are.

    ``send`` puts frames on the producer's socket (under its lock); acknowledgements are read from ``ack_endpoint``
    (the proxy's subscriber side) by a thread of the outbox's own."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]], ack_endpoint: str, publisher: str, instance: str,
                 send: Callable[[list[bytes]], None], resend_after_s: float = RESEND_AFTER_S,
                 capacity: int = CAPACITY) -> None:
        self.publisher, self.instance = publisher, instance
        self._send = send
        self._resend_after_s = resend_after_s
        self._capacity = capacity
        self._entries: OrderedDict[int, list[bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self._progress = time.monotonic()  # when an acknowledgement last moved, or the outbox last filled from empty
        self._last_gap_resend = 0.0
        self.last_kept = 0  # the sequence number of the newest event kept (the next one's ``after``)
        self.stats = OutboxStats()
        self._stop = threading.Event()
        self._context, self._ack_endpoint = context, ack_endpoint
        self._thread = threading.Thread(target=self._listen, name=f"{publisher}-outbox", daemon=True)
        self._thread.start()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def keep(self, seq: int, frames: list[bytes]) -> None:
        """Called by the publisher, under its lock, as it sends ``frames`` (sequence ``seq``)."""
        with self._lock:
            if not self._entries:
                self._progress = time.monotonic()
            self._entries[seq] = frames
            self.last_kept = seq
            if len(self._entries) > self._capacity:
                lost, _frames = self._entries.popitem(last=False)
                self.stats.dropped += 1
                if self.stats.dropped == 1 or self.stats.dropped % 1000 == 0:
                    log.error("bus: %s: the engine has not acknowledged %d events; dropped the oldest (#%d), "
                              "%d dropped so far", self.publisher, self._capacity, lost, self.stats.dropped)

    def acknowledge(self, ack: Acknowledged) -> None:
        if ack.publisher != self.publisher or ack.instance != self.instance:
            return
        with self._lock:
            moved = 0
            while self._entries and next(iter(self._entries)) <= ack.seq:
                self._entries.popitem(last=False)
                moved += 1
            if moved:
                self.stats.acknowledged += moved
                self._progress = time.monotonic()
        if ack.gap and time.monotonic() - self._last_gap_resend >= GAP_RESEND_S:
            self._last_gap_resend = time.monotonic()
            self.resend()

    def resend(self) -> None:
        """Send every unacknowledged event again, oldest first."""
        with self._lock:
            pending = list(self._entries.values())
            self._progress = time.monotonic()
        for frames in pending:
            self._send(frames)
        self.stats.resent += len(pending)

    def _stalled(self) -> bool:
        with self._lock:
            return bool(self._entries) and time.monotonic() - self._progress > self._resend_after_s

    def _listen(self) -> None:
        socket = self._context.socket(zmq.SUB)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.SUBSCRIBE, b"core.ack")
        socket.connect(self._ack_endpoint)
        try:
            while not self._stop.is_set():
                if socket.poll(100):
                    try:
                        _topic, envelope = decode(socket.recv_multipart())
                    except BadMessage as error:
                        log.warning("bus: %s: an acknowledgement that is not one: %s", self.publisher, error)
                        continue
                    if isinstance(envelope.body, Acknowledged):
                        self.acknowledge(envelope.body)
                if self._stalled():
                    log.info("bus: %s: no acknowledgement for %.1f s; resending %d events", self.publisher,
                             self._resend_after_s, len(self))
                    self.resend()
        finally:
            socket.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


class Intake:
    """The engine's side: which events to record, so that each producer's are recorded once and in order.

    Knows, per publisher, the run (instance) and sequence number of the last event recorded; ``judge`` says of each
    incoming envelope whether to record it (in the batch's order); ``acknowledgements`` what to tell the producers
    once the batch is committed."""

    RECORD, DUPLICATE, GAP = "record", "duplicate", "gap"

    def __init__(self, recorded: dict[str, tuple[str, int]]) -> None:
        """``recorded``: publisher -> (instance, sequence) of the last event the store holds from it."""
        self._recorded = dict(recorded)
        self._spoke: dict[tuple[str, str], bool] = {}  # (publisher, instance) that spoke in this batch -> a gap seen

    def judge(self, envelope: Envelope, take_gap: bool = False) -> str:
        """``take_gap``: record an event that follows a gap all the same (the missing ones were waited for long
        enough: the producer lost them), and say so in the log."""
        if envelope.after is None:  # a publisher without an outbox: recorded as it comes, as before
            return self.RECORD
        key = envelope.publisher, envelope.instance
        verdict = self._verdict(self._recorded, envelope)
        if verdict == self.GAP and take_gap:
            log.error("bus: %s: the events before #%d never came; recorded without them", envelope.publisher,
                      envelope.seq)
            verdict = self.RECORD
        if verdict == self.RECORD:
            # Taken as recorded now, for the next in the batch: if the batch's commit fails, the engine stops.
            self._recorded[envelope.publisher] = (envelope.instance, envelope.seq)
        self._spoke[key] = self._spoke.get(key, False) or verdict == self.GAP
        return verdict

    def _verdict(self, recorded: dict[str, tuple[str, int]], envelope: Envelope) -> str:
        instance, last = recorded.get(envelope.publisher, ("", 0))
        if instance != envelope.instance:
            last = 0  # a new run of the producer: its first kept event comes first
        if envelope.seq <= last:
            return self.DUPLICATE
        return self.RECORD if envelope.after == last else self.GAP

    def gaps(self, envelopes: list[Envelope]) -> dict[tuple[str, str], Acknowledged]:
        """Judged in this order, which producers' runs would have an event come after a gap: for each, the
        acknowledgement (``gap``) that has it resend now, of what is committed only (the events before the gap are
        held, not recorded: the producer must keep them). Changes nothing."""
        recorded = dict(self._recorded)
        found: dict[tuple[str, str], Acknowledged] = {}
        for envelope in envelopes:
            if envelope.after is None:
                continue
            verdict = self._verdict(recorded, envelope)
            if verdict == self.RECORD:
                recorded[envelope.publisher] = (envelope.instance, envelope.seq)
            elif verdict == self.GAP:
                instance, last = self._recorded.get(envelope.publisher, ("", 0))
                found.setdefault((envelope.publisher, envelope.instance), Acknowledged(
                    envelope.publisher, envelope.instance, last if instance == envelope.instance else 0, gap=True))
        return found

    def where_each_stands(self) -> list[Acknowledged]:
        """For an engine just started: to each producer it has recorded, its last event recorded, as a gap (resend
        what follows it now)."""
        return [Acknowledged(publisher, instance, seq, gap=True)
                for publisher, (instance, seq) in self._recorded.items() if instance]

    def acknowledgements(self) -> list[Acknowledged]:
        """One per producer that spoke since the last call: where its events stand now."""
        acks = []
        for (publisher, instance), gap in self._spoke.items():
            known, last = self._recorded.get(publisher, ("", 0))
            acks.append(Acknowledged(publisher, instance, last if known == instance else 0, gap))
        self._spoke.clear()
        return acks
