"""The late joiner's side of the Clone pattern (ZeroMQ guide, chapter 5).

Subscribe to ``core.`` first, then ask the engine for a snapshot: the state and
the sequence number it stands at. Updates at or below that number are already
in the snapshot and are skipped; the next ones apply in order. No gap, no
duplicate, and a display that reloads shows the true table state at once.
A subscription reaches the proxy some time after it is made: an update published
in between is missed, which the next one's number shows (a gap); the follower
then takes a new snapshot.
"""

from __future__ import annotations

from typing import Any

import msgspec
import zmq

from ..errors import StudTableError
from .schema import Envelope, TableState
from .transport import Subscriber


class SnapshotTimeout(StudTableError, TimeoutError):
    """No snapshot came back from the engine in time."""


def request_snapshot(context: zmq.Context[zmq.Socket[bytes]], endpoint: str, timeout_ms: int = 3000,
                     engine_key: bytes | None = None) -> dict[str, Any]:
    """``engine_key``: the engine's public key, on a bus with keys (``controller.bus.keys.engine_key``): the
    snapshot comes from the engine, proven by its key, to a client the engine knows by its own."""
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    if engine_key is not None:
        socket.setsockopt(zmq.CURVE_SERVERKEY, engine_key)
    socket.connect(endpoint)
    try:
        socket.send(b"snapshot")
        if not socket.poll(timeout_ms):
            raise SnapshotTimeout(f"no snapshot from {endpoint} within {timeout_ms} ms")
        reply: dict[str, Any] = msgspec.json.decode(socket.recv())
        return reply
    finally:
        socket.close()


class TableFollower:
    """Keeps the table state as the engine publishes it, from a snapshot on."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]], subscribe_endpoint: str, snapshot_endpoint: str,
                 engine_key: bytes | None = None) -> None:
        self.subscriber = Subscriber(context, subscribe_endpoint, ("core.",))
        self._context, self._snapshot_endpoint, self._engine_key = context, snapshot_endpoint, engine_key
        self.skipped = 0
        self.resyncs = 0  # snapshots taken again after a missed update
        self._take_snapshot()

    def _take_snapshot(self) -> None:
        snapshot = request_snapshot(self._context, self._snapshot_endpoint, engine_key=self._engine_key)
        self.engine: str = snapshot["publisher"]
        self.instance: str = snapshot["instance"]
        self.seq: int = snapshot["seq"]
        self.state: dict[str, Any] = snapshot["state"]

    def poll(self, timeout_ms: int) -> Envelope | None:
        """Apply the next update; return it (None if nothing new came)."""
        message = self.subscriber.receive(timeout_ms)
        if message is None:
            return None
        _topic, envelope = message
        if envelope.publisher == self.engine:
            if envelope.instance != self.instance:
                self.instance, self.seq = envelope.instance, 0  # the engine restarted: its numbering starts again
            if envelope.seq <= self.seq:
                self.skipped += 1  # already in the snapshot
                return None
            if envelope.seq > self.seq + 1:
                # An update was missed (the subscription reached the proxy only after the snapshot, or the engine
                # restarted before it did): the engine's heartbeats number on, so the gap shows within a second.
                self.resyncs += 1
                self._take_snapshot()
                if envelope.seq <= self.seq or envelope.instance != self.instance:
                    return envelope  # the new snapshot holds it
            self.seq = envelope.seq
        if isinstance(envelope.body, TableState):
            self.state = envelope.body.state
        return envelope

    def close(self) -> None:
        self.subscriber.close()
