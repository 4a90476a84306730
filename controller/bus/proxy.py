"""The XSUB/XPUB forwarder at the centre of the bus (ipc:// on the Pi, tcp:// by configuration)."""

from __future__ import annotations

import logging
import threading
import uuid

import zmq

from controller.bus import BindError
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

    def __init__(self, publish_endpoint: str, subscribe_endpoint: str) -> None:
        self._context = zmq.Context()
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
                try:
                    socket.bind(endpoint)
                except zmq.ZMQError as error:
                    raise BindError(endpoint, setting, zmq.strerror(error.errno)) from error
        except (zmq.ZMQError, BindError) as error:
            self._error = error
            for socket in (frontend, backend, control):
                socket.close()
            self._ready.set()
            return
        self._ready.set()
        try:
            while True:
                try:
                    zmq.proxy_steerable(frontend, backend, None, control)
                    break  # TERMINATE
                except zmq.InterruptedSystemCall:
                    continue  # a signal (not SIGINT or SIGTERM: those are blocked here); the sockets stay as they are
        except zmq.ContextTerminated:
            pass
        except zmq.ZMQError as error:
            log.error("bus proxy: stopped on %s", error)
        finally:
            for socket in (frontend, backend, control):
                socket.close()

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
        term_context(self._context, timeout_s, "bus proxy's ZeroMQ context")
