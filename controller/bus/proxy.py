"""The XSUB/XPUB forwarder at the centre of the bus (ipc:// on the Pi, tcp:// by configuration)."""

from __future__ import annotations

import threading

import zmq


class Proxy:
    """Forwards every publisher's messages to every subscriber; runs in a thread until ``close``."""

    def __init__(self, context: zmq.Context, publish_endpoint: str, subscribe_endpoint: str) -> None:
        self._context = context
        self.publish_endpoint = publish_endpoint  # publishers connect here (XSUB)
        self.subscribe_endpoint = subscribe_endpoint  # subscribers connect here (XPUB)
        self._control_endpoint = f"inproc://proxy-control-{id(self)}"
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bus-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(5)

    def _run(self) -> None:
        frontend = self._context.socket(zmq.XSUB)
        backend = self._context.socket(zmq.XPUB)
        control = self._context.socket(zmq.PAIR)
        for socket in (frontend, backend, control):
            socket.setsockopt(zmq.LINGER, 0)
        frontend.setsockopt(zmq.RCVHWM, 100_000)
        backend.setsockopt(zmq.SNDHWM, 100_000)
        frontend.bind(self.publish_endpoint)
        backend.bind(self.subscribe_endpoint)
        control.bind(self._control_endpoint)
        self._ready.set()
        try:
            zmq.proxy_steerable(frontend, backend, None, control)
        except zmq.ContextTerminated:
            pass
        finally:
            for socket in (frontend, backend, control):
                socket.close()

    def close(self) -> None:
        control = self._context.socket(zmq.PAIR)
        control.connect(self._control_endpoint)
        control.send(b"TERMINATE")
        control.close()
        self._thread.join(5)
