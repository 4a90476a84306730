"""The XSUB/XPUB forwarder at the centre of the bus (ipc:// on the Pi, tcp:// by configuration)."""

from __future__ import annotations

import threading

import zmq


class Proxy:
    """Forwards every publisher's messages to every subscriber, in a thread until ``close``.

    It has a ZeroMQ context of its own: closing terminates that context, which
    is the clean way to stop ``zmq.proxy`` from another thread.
    """

    def __init__(self, publish_endpoint: str, subscribe_endpoint: str) -> None:
        self._context = zmq.Context()
        self.publish_endpoint = publish_endpoint  # publishers connect here (XSUB)
        self.subscribe_endpoint = subscribe_endpoint  # subscribers connect here (XPUB)
        self._ready = threading.Event()
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name="bus-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(5)
        if self._error:
            raise self._error

    def _run(self) -> None:
        frontend = self._context.socket(zmq.XSUB)
        backend = self._context.socket(zmq.XPUB)
        try:
            for socket in (frontend, backend):
                socket.setsockopt(zmq.LINGER, 0)
            frontend.setsockopt(zmq.RCVHWM, 100_000)
            backend.setsockopt(zmq.SNDHWM, 100_000)
            frontend.bind(self.publish_endpoint)
            backend.bind(self.subscribe_endpoint)
        except zmq.ZMQError as error:
            self._error = error
            frontend.close()
            backend.close()
            self._ready.set()
            return
        self._ready.set()
        try:
            zmq.proxy(frontend, backend)
        except zmq.ContextTerminated:
            pass
        finally:
            frontend.close()
            backend.close()

    def close(self) -> None:
        self._context.term()
        self._thread.join(5)
