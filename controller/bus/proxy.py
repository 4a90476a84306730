"""The XSUB/XPUB forwarder at the centre of the bus (ipc:// on the Pi, tcp:// by configuration).

With keys (``controller.bus.keys``), it is the CURVE server of every publisher and subscriber, and it passes on a
message only when the role whose key sent it may publish its topic under its publisher name, and a subscription
only when the subscriber's role may hear that topic; what it refuses is counted (``Proxy.refused``), and logged, by
role and reason.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import Counter

import msgspec
import zmq

from controller.bus import BindError
from controller.bus.keys import (
    PROXY,
    ROLES,
    Keys,
    RefusedHandshakes,
    RoleAuthenticator,
    make_server,
    private_socket_file,
    worth_logging,
)
from controller.bus.schema import MAX_MESSAGE_BYTES
from controller.shutdown import block_stop_signals, term_context

log = logging.getLogger(__name__)


class Proxy:
    """Forwards every publisher's messages to every subscriber, in a thread until ``close``.

    It has a ZeroMQ context of its own and runs a steerable proxy: ``close`` sends ``TERMINATE`` on its control
    socket (an inproc PAIR), the proxy returns, its thread closes its sockets, and only then is the context
    terminated: nothing is still open when ``Context.term`` runs, so it cannot hang. (Terminating the context under
    a running ``zmq.proxy`` instead depends on every socket being closed in time, and a stop signal the kernel
    hands to the proxy's thread interrupts ``zmq_proxy`` there.)
    """

    def __init__(self, publish_endpoint: str, subscribe_endpoint: str, keys: Keys | None = None) -> None:
        self._context = zmq.Context()
        #: the proxy's own key pair, read here: a key missing stops the proxy before it starts
        self._pair = keys.pair(PROXY) if keys is not None else None
        #: (role, reason) -> messages not passed on, subscriptions not applied
        self.refused: Counter[tuple[str, str]] = Counter()
        #: connections refused for want of keys, or with keys for another server (``peers_refused``)
        self._handshakes: list[RefusedHandshakes] = []
        #: the subscriptions passed up to the publishers, each once: kept across a restart of the forwarding
        self._upstream: set[bytes] = set()
        self._authenticator = RoleAuthenticator(self._context, keys) if keys is not None else None
        self.publish_endpoint = publish_endpoint  # publishers connect here (XSUB)
        self.subscribe_endpoint = subscribe_endpoint  # subscribers connect here (XPUB)
        self._control_endpoint = f"inproc://proxy-control-{uuid.uuid4().hex}"
        self._control = self._context.socket(zmq.PAIR)  # the closing side, used by ``close`` only
        self._control.setsockopt(zmq.LINGER, 0)
        self._control.bind(self._control_endpoint)
        self._ready = threading.Event()
        self._error: Exception | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="bus-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(5)
        if self._error:
            self._close_context()
            raise self._error

    def _run(self) -> None:
        block_stop_signals()  # the main thread takes SIGINT and SIGTERM: zmq_proxy is never interrupted here
        frontend = self._context.socket(zmq.XSUB)
        backend = self._context.socket(zmq.XPUB)
        control = self._context.socket(zmq.PAIR)
        try:
            for socket in (frontend, backend, control):
                socket.setsockopt(zmq.LINGER, 0)
            frontend.setsockopt(zmq.RCVHWM, 100_000)
            backend.setsockopt(zmq.SNDHWM, 100_000)
            control.connect(self._control_endpoint)
            for socket, endpoint, setting in ((frontend, self.publish_endpoint, "bus.publish"),
                                              (backend, self.subscribe_endpoint, "bus.subscribe")):
                if self._pair is not None:
                    make_server(socket, self._pair)
                    socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES + 1024)  # larger: the peer is cut off
                if self._pair is not None and socket is backend:
                    socket.setsockopt(zmq.XPUB_MANUAL, 1)  # a subscription counts once let through (_subscribe)
                try:
                    socket.bind(endpoint)
                except zmq.ZMQError as error:
                    # without an errno (an error of pyzmq's own), its message
                    reason = zmq.strerror(error.errno) if error.errno is not None else str(error)
                    raise BindError(endpoint, setting, reason) from error
                private_socket_file(endpoint)
        except (zmq.ZMQError, BindError) as error:
            self._error = error
            for socket in (frontend, backend, control):
                socket.close()
            self._ready.set()
            return
        self._ready.set()
        if self._pair is not None:  # kept across a restart of the forwarding below: the counts go on
            self._handshakes = [RefusedHandshakes(frontend, "bus proxy"), RefusedHandshakes(backend, "bus proxy")]
        try:
            while True:
                try:
                    if self._pair is None:
                        zmq.proxy_steerable(frontend, backend, None, control)
                    else:
                        self._forward_checked(frontend, backend, control)
                    break  # TERMINATE
                except zmq.InterruptedSystemCall:
                    continue  # a signal (not SIGINT or SIGTERM: those are blocked here); the sockets stay as they are
        except zmq.ContextTerminated:
            pass
        except zmq.ZMQError as error:
            log.error("bus proxy: stopped on %s", error)
        finally:
            for watch in self._handshakes:
                watch.close()
            for socket in (frontend, backend, control):
                socket.close()

    def _forward_checked(self, frontend: zmq.Socket[bytes], backend: zmq.Socket[bytes],
                         control: zmq.Socket[bytes]) -> None:
        """Forward as ``zmq.proxy_steerable`` does, each message checked against its sender's role; until
        ``TERMINATE``."""
        # a key the ZAP handler refuses is counted there (``RoleAuthenticator.refused``)
        poller = zmq.Poller()
        for socket in (frontend, backend, control, *(watch.monitor for watch in self._handshakes)):
            poller.register(socket, zmq.POLLIN)
        self._forward(frontend, backend, control, poller)

    def _forward(self, frontend: zmq.Socket[bytes], backend: zmq.Socket[bytes], control: zmq.Socket[bytes],
                 poller: zmq.Poller) -> None:
        while True:
            ready = dict(poller.poll())
            if control in ready and control.recv() == b"TERMINATE":
                return
            for watch in self._handshakes:
                if watch.monitor in ready:
                    watch.take()
            if backend in ready:
                self._subscribe(backend, frontend)
            if frontend in ready:
                for _ in range(1000):  # what is queued, then the subscriptions and the control get their turn
                    try:
                        frames = frontend.recv_multipart(zmq.NOBLOCK, copy=False)
                    except zmq.Again:
                        break
                    role = str(frames[0].get("User-Id"))
                    reason = _refusal(role, frames)
                    if reason is None:
                        backend.send_multipart(frames, copy=False)
                        continue
                    self.refused[role, reason] += 1
                    if worth_logging(self.refused[role, reason]):
                        log.warning("bus proxy: %d message(s) from the %s key not passed on: %s",
                                    self.refused[role, reason], role, reason)

    def _subscribe(self, backend: zmq.Socket[bytes], frontend: zmq.Socket[bytes]) -> None:
        """A subscriber's subscription: applied to that subscriber if its role may hear the topic, else counted; an
        unsubscription: applied to that subscriber. The publishers are asked once for each topic and never told to
        stop: a subscriber's word could otherwise unsubscribe the topic for every other one, and a topic sent to the
        proxy that nobody hears costs little."""
        frame = backend.recv(copy=False)
        data = frame.bytes
        if not data or data[0] not in (0, 1):
            return  # XPUB hands up nothing else
        topic = data[1:]
        if data[0] == 0:
            # Letting go concerns that subscriber only, whoever it is: the XPUB hands one up for each of its topics
            # when it disconnects too, with no sender's metadata then
            backend.setsockopt(zmq.UNSUBSCRIBE, topic)
            return
        try:
            role = str(frame.get("User-Id"))
        except zmq.ZMQError:
            role = "unknown"  # a subscription always comes with its sender's metadata: never let such a one through
        if role not in ROLES or not ROLES[role].may_hear(topic.decode(errors="replace")):
            reason = f"the {role} role does not hear {topic[:40].decode(errors='replace')!r}"
            self.refused[role, reason] += 1
            if worth_logging(self.refused[role, reason]):
                log.warning("bus proxy: %d subscription(s) of the %s key refused: %s", self.refused[role, reason],
                            role, reason)
            return
        backend.setsockopt(zmq.SUBSCRIBE, topic)  # that subscriber's, only
        if topic not in self._upstream:
            self._upstream.add(topic)
            frontend.send(data)

    @property
    def peers_refused(self) -> int:
        """Connections refused: without keys, with keys for another server, or with a key of no role (never kept)."""
        refused_by_zap = self._authenticator.refused if self._authenticator else 0
        return sum(watch.count for watch in self._handshakes) + refused_by_zap

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop forwarding, close every socket, terminate the context; within ``timeout_s`` at most."""
        if self._closed:
            return
        self._closed = True
        if self._thread.is_alive():
            try:
                self._control.send(b"TERMINATE", zmq.NOBLOCK)
            except zmq.ZMQError as error:
                log.warning("bus proxy: TERMINATE not sent (%s)", error)
            self._thread.join(timeout_s)
            if self._thread.is_alive():
                log.warning("bus proxy: its thread did not stop within %.0f s", timeout_s)
        self._close_context(timeout_s)

    def _close_context(self, timeout_s: float = 5.0) -> None:
        self._control.close()
        if self._authenticator is not None:
            self._authenticator.stop()
        term_context(self._context, timeout_s, "bus proxy's ZeroMQ context")


class _Sender(msgspec.Struct):
    """The one field of an envelope the proxy reads."""

    publisher: str


_sender = msgspec.json.Decoder(_Sender)


def _refusal(role: str, frames: list[zmq.Frame]) -> str | None:
    """Why the message the ``role``'s key sent is not passed on; None when it is. A message whose envelope cannot be
    read is passed on if its topic is the role's: each subscriber drops it and counts it, as without keys."""
    permitted = ROLES[role]
    topic = frames[0].bytes.decode(errors="replace")
    if not topic.startswith(permitted.topics):
        return f"the {role} role does not publish {topic[:40]!r}"
    try:
        publisher = _sender.decode(frames[1].bytes).publisher if len(frames) == 2 else None
    except (msgspec.DecodeError, msgspec.ValidationError):
        publisher = None
    if publisher is not None and not permitted.may_publish(topic, publisher):
        return f"the {role} role does not publish as {publisher[:40]!r}"
    return None
