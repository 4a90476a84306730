"""Publishers and subscribers on the proxy, with sequence numbers and heartbeats.

Publishers connect to the proxy's XSUB side, subscribers to its XPUB side, so no
process needs to know another's address (Frigate's layout). A subscriber
never stops on a bad message: it counts it by reason, logs it and drops it.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import zmq

from .outbox import Outbox
from .schema import AnyBody, BadMessage, Envelope, Heartbeat, decode, encode

log = logging.getLogger(__name__)

HEARTBEAT_MS = 1000
#: A publisher silent for this long is taken as gone.
SILENCE_MS = 3500
#: For this long after a subscriber connects, its subscription may not have reached every publisher (ZeroMQ's slow
#: joiner; longer with keys, each connection's handshake first): a gap then is counted, not warned of.
JOINING_S = 3.0


class Publisher:
    """Sends typed messages under one name, numbering them 1, 2, 3...

    With ``acknowledged_at`` (the proxy's subscriber side), a producer for the engine: it keeps each message but
    heartbeats in an outbox until the engine acknowledges having recorded it, and resends it until then
    (``controller.bus.outbox``)."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]], endpoint: str, name: str,
                 heartbeat_topic: str | None = None, heartbeat_ms: int = HEARTBEAT_MS,
                 acknowledged_at: str | None = None) -> None:
        self.name = name
        self.seq = 0
        self.instance = uuid.uuid4().hex[:12]
        self._socket = context.socket(zmq.PUB)
        self._socket.setsockopt(zmq.LINGER, 1000)
        self._socket.setsockopt(zmq.SNDHWM, 100_000)
        self._socket.connect(endpoint)
        self._lock = threading.Lock()
        self.outbox = (Outbox(context, acknowledged_at, name, self.instance, self._send_again)
                       if acknowledged_at else None)
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None
        if heartbeat_topic:
            self._heartbeat = threading.Thread(target=self._beat, args=(heartbeat_topic, heartbeat_ms),
                                               name=f"{name}-heartbeat", daemon=True)
            self._heartbeat.start()

    def publish(self, topic: str, body: AnyBody) -> Envelope:
        with self._lock:
            outbox = None if isinstance(body, Heartbeat) else self.outbox  # a heartbeat is never recorded
            envelope = Envelope(self.name, self.seq + 1, time.monotonic_ns(), time.time_ns(), body, self.instance,
                                outbox.last_kept if outbox is not None else None)
            frames = encode(topic, envelope)  # refused (BadMessage) before it takes a number: no gap behind it
            self.seq += 1
            if outbox is not None:
                outbox.keep(self.seq, frames)
            self._socket.send_multipart(frames)
        return envelope

    def _send_again(self, frames: list[bytes]) -> None:
        with self._lock:
            self._socket.send_multipart(frames)

    def _beat(self, topic: str, interval_ms: int) -> None:
        while not self._stop.wait(interval_ms / 1000):
            self.publish(topic, Heartbeat(interval_ms))

    def close(self) -> None:
        self._stop.set()
        if self._heartbeat:
            self._heartbeat.join()
        if self.outbox is not None:
            self.outbox.close()
        self._socket.close()


@dataclass
class PeerState:
    instance: str = ""
    last_seq: int = 0
    last_seen_ns: int = 0
    gone: bool = False


def _receive_queued(socket: zmq.Socket[bytes]) -> list[bytes]:
    """The frames of the message queued on ``socket`` (``zmq.Again`` when none is): ``recv_multipart`` asks the
    socket for RCVMORE after each frame, which costs more than the frame itself; a frame says so itself."""
    frames = []
    while True:
        frame = socket.recv(zmq.NOBLOCK, copy=False)
        frames.append(frame.bytes)
        if not frame.more:
            return frames


@dataclass
class SubscriberStats:
    received: int = 0
    delivered: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    missed: int = 0  # messages lost in sequence gaps
    reconnects: int = 0


class Subscriber:
    """Receives valid, in-order messages under the given topic prefixes.

    A duplicate or older sequence number is dropped; a gap is counted (the
    messages are lost) and the message delivered; sequence 1 from a known
    publisher means it restarted.
    """

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]], endpoint: str, prefixes: tuple[str, ...],
                 silence_ms: int = SILENCE_MS, on_peer: Callable[[str, bool], None] | None = None,
                 takes_resends: bool = False) -> None:
        """``takes_resends``: the engine's subscriber, which gets an outbox's messages as they come, resent ones
        too, and orders them itself; any other drops an outbox's message numbered at or below the last it took
        from that run (a resend, or one overtaken)."""
        self._context = context
        self.takes_resends = takes_resends
        self._endpoint = endpoint
        self._prefixes = prefixes
        self.silence_ms = silence_ms
        self.on_peer = on_peer
        self.stats = SubscriberStats()
        self.peers: dict[str, PeerState] = {}
        self._last_any_ns = time.monotonic_ns()
        self._socket = self._connect()

    def _connect(self) -> zmq.Socket[bytes]:
        self._connected_at = time.monotonic()
        socket = self._context.socket(zmq.SUB)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.RCVHWM, 100_000)
        for prefix in self._prefixes:
            socket.setsockopt(zmq.SUBSCRIBE, prefix.encode())
        socket.connect(self._endpoint)
        return socket

    @property
    def socket(self) -> zmq.Socket[bytes]:
        return self._socket

    def reconnect(self) -> None:
        self._socket.close()
        self._socket = self._connect()
        self.stats.reconnects += 1
        self._last_any_ns = time.monotonic_ns()

    def _drop(self, reason: str, detail: str) -> None:
        self.stats.dropped[reason] += 1
        log.warning("bus: dropped a message (%s): %s", reason, detail)

    def receive(self, timeout_ms: int) -> tuple[str, Envelope] | None:
        """The next good message within the timeout, heartbeats included; None if none came."""
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            try:
                # A message already queued needs no poll (a poll costs more than the message at 10,000 a second).
                frames = _receive_queued(self._socket)
            except zmq.Again:
                remaining = max(0, int((deadline - time.monotonic()) * 1000))
                if not remaining or not self._socket.poll(remaining):
                    self.check_peers()
                    return None
                continue
            self.stats.received += 1
            message = self._accept(frames)
            if message is not None:
                return message

    def _accept(self, frames: list[bytes]) -> tuple[str, Envelope] | None:
        try:
            topic, envelope = decode(frames)
        except BadMessage as error:
            self._drop(error.reason, str(error)[:300])
            return None
        now = time.monotonic_ns()
        self._last_any_ns = now
        peer = self.peers.setdefault(envelope.publisher, PeerState(instance=envelope.instance))
        if envelope.instance != peer.instance:
            # The publisher restarted (even if its first messages were lost): its numbering starts again.
            log.info("bus: %s restarted (instance %s)", envelope.publisher, envelope.instance)
            peer.instance, peer.last_seq = envelope.instance, 0
        if envelope.after is not None and self.takes_resends:
            # An outbox's message, maybe resent: the engine's intake puts them in order (controller.bus.outbox).
            newest_seq = max(peer.last_seq, envelope.seq)
        elif envelope.after is not None and envelope.seq <= peer.last_seq:
            self.stats.dropped["resent"] += 1  # an outbox resending what the engine missed: not this one's business
            return None
        elif envelope.seq <= peer.last_seq and (envelope.instance or envelope.seq != 1):
            # A run's number met again is a replay (a restart shows as a new instance); an envelope without an
            # instance restarts at #1
            self._drop("out_of_sequence", f"{envelope.publisher} #{envelope.seq} after #{peer.last_seq}")
            return None
        else:
            if peer.last_seq and envelope.seq > peer.last_seq + 1:
                self.stats.missed += envelope.seq - peer.last_seq - 1
                joining = time.monotonic() - self._connected_at < JOINING_S
                log.log(logging.INFO if joining else logging.WARNING, "bus: %s skipped from #%d to #%d%s",
                        envelope.publisher, peer.last_seq, envelope.seq, " while joining" if joining else "")
            newest_seq = envelope.seq
        peer.last_seq, peer.last_seen_ns = newest_seq, now
        if peer.gone:
            peer.gone = False
            log.info("bus: publisher %s is back", envelope.publisher)
            if self.on_peer:
                self.on_peer(envelope.publisher, True)
        self.stats.delivered += 1
        return topic, envelope

    def check_peers(self) -> list[str]:
        """Mark publishers silent for too long as gone; reconnect when all are."""
        now = time.monotonic_ns()
        gone = []
        for name, peer in self.peers.items():
            if not peer.gone and now - peer.last_seen_ns > self.silence_ms * 1_000_000:
                peer.gone = True
                gone.append(name)
                log.warning("bus: publisher %s silent for %d ms: taken as gone", name, self.silence_ms)
                if self.on_peer:
                    self.on_peer(name, False)
        if self.peers and now - self._last_any_ns > self.silence_ms * 1_000_000:
            log.warning("bus: nothing heard for %d ms: reconnecting to %s", self.silence_ms, self._endpoint)
            self.reconnect()
        return gone

    def close(self) -> None:
        self._socket.close()
