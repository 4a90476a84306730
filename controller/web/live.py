"""The live table for the web pages: a background thread follows the bus (snapshot, then updates)
and hands each new state to the pages' live channels (Server-Sent Events)."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from controller.public_state import public_state

log = logging.getLogger(__name__)


class Follower(Protocol):
    state: dict[str, Any]

    def poll(self, timeout_ms: int) -> Any: ...

    def close(self) -> None: ...


class LiveTable:
    """Holds the latest table state, fed by a follower in a daemon thread."""

    def __init__(self, follower_factory: Callable[[], Follower] | None, retry_s: float = 1.0) -> None:
        self._factory = follower_factory
        self._retry_s = retry_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listeners: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[str]]] = []
        self.state: dict[str, Any] | None = None
        self.version = 0
        self.connected = False
        self.updated_at: float | None = None
        self.error: str | None = None

    # --- the thread -------------------------------------------------------------

    def start(self) -> None:
        if self._factory is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="web-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        assert self._factory is not None
        while not self._stop.is_set():
            try:
                follower = self._factory()
            except Exception as error:  # noqa: BLE001 - no engine yet: keep trying
                self.connected, self.error = False, f"no snapshot from the engine: {error}"
                self._broadcast()
                self._stop.wait(self._retry_s)
                continue
            self.connected, self.error = True, None
            self.set_state(follower.state)
            try:
                while not self._stop.is_set():
                    envelope = follower.poll(200)
                    if envelope is not None and follower.state is not self.state:
                        self.set_state(follower.state)
            except Exception as error:  # noqa: BLE001 - a broken follower: start again from a snapshot
                log.warning("web: follower failed (%s); asking for a new snapshot", error)
                self.connected, self.error = False, str(error)
            finally:
                follower.close()

    # --- state and listeners ------------------------------------------------------

    def set_state(self, state: dict[str, Any]) -> None:
        with self._lock:
            self.state = state
            self.version += 1
            self.updated_at = time.time()
        self._broadcast()

    def view(self) -> dict[str, Any]:
        """What the display and /api/state get."""
        with self._lock:
            return {"connected": self.connected, "version": self.version, "updated_at": self.updated_at,
                    "error": self.error, "state": public_state(self.state)}

    def _broadcast(self) -> None:
        message = json.dumps(self.view(), ensure_ascii=False)
        with self._lock:
            listeners = list(self._listeners)
        for loop, queue in listeners:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, message)
            except RuntimeError:  # its loop is closed
                self.unlisten(queue)

    def listen(self) -> asyncio.Queue[str]:
        queue: asyncio.Queue[str] = asyncio.Queue()
        with self._lock:
            self._listeners.append((asyncio.get_running_loop(), queue))
        return queue

    def unlisten(self, queue: asyncio.Queue[str]) -> None:
        with self._lock:
            self._listeners = [(loop, q) for loop, q in self._listeners if q is not queue]
