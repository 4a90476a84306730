"""How the table's long-running commands stop: SIGINT (Ctrl-C) and SIGTERM (systemd, the supervisor, ``timeout``).

The first signal asks for an orderly stop; a second one, while stopping, changes nothing (it is counted, never a
traceback): the threads are joined, the sockets closed, the store closed after its last commit, whatever the
moment. A command's work never sees a ``KeyboardInterrupt``: the handler only records the request and calls the
stop callbacks registered, each of which sets a flag that its loop polls with a bounded wait.

A signal may come before the command has anything to stop, while ``controller.cli`` is still importing, even:
importing this module from the ``stud-table`` command itself (its console script, or ``python -m
controller.cli``, as its ``__main__`` module tells) installs the handler at once, and a callback registered later
is called at once when the stop was already asked for. Other processes that import it (tests, benchmarks) keep
their own handlers.

The handler and the callbacks take no lock the main thread may hold (no logging; a plain flag, or the ``set`` of an
Event the main thread never waits on): a signal handler runs in the main thread between two bytecodes, possibly
while that thread holds the very lock it would take.
"""

from __future__ import annotations

# Only what the handler needs, imported before it is installed (the stud-table process imports this module first,
# and the sooner the handler is in place the shorter Python's own Ctrl-C window); the rest is imported where used.
import signal
import sys
import threading
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing first
if TYPE_CHECKING:
    from collections.abc import Callable
    from os import PathLike
    from types import FrameType
    from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """The process's stop request, set by the first SIGINT or SIGTERM."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.signals = 0  # all the stop signals received, the first included
        self._callbacks: list[Callable[[], None]] = []
        self._installed = False
        self._previous: dict[int, Any] = {}  # the handlers before the first install

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum else ""

    def handler(self, signum: int, _frame: FrameType | None) -> None:
        self.signals += 1
        if self.signum is not None:
            return  # already stopping: the orderly stop goes on
        self.signum = signum
        for callback in list(self._callbacks):
            callback()

    def install(self) -> bool:
        """SIGINT and SIGTERM to ``handler``; only the main thread can (False elsewhere)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        if not self._installed:
            self._previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
        for signum in STOP_SIGNALS:
            if signum == signal.SIGINT and self._previous.get(signum) == signal.SIG_IGN:
                continue  # started with Ctrl-C ignored (``cmd &`` in a script, nohup): left so, as Python does
            signal.signal(signum, self.handler)
        self._installed = True
        return True

    def ignore_further(self) -> None:
        """Once the command is done: SIGINT and SIGTERM ignored while the interpreter exits (Python puts the default
        actions back as it finalizes, and a signal then would kill the process instead of letting it exit 0)."""
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                signal.signal(signum, signal.SIG_IGN)

    def uninstall(self) -> None:
        """Python's own handlers back (a short command: Ctrl-C interrupts it as usual)."""
        if self._installed and threading.current_thread() is threading.main_thread():
            for signum, previous in self._previous.items():
                signal.signal(signum, signal.SIG_DFL if previous is None else previous)
            self._installed = False

    def on_stop(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` when the stop is asked for (at once, if it already was). It must be quick and take no
        lock: set a flag."""
        self._callbacks.append(callback)
        if self.signum is not None:
            callback()
        return callback

    def forget(self, callback: Callable[[], None]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def wait(self, timeout_s: float, step_s: float = 0.05) -> bool:
        """Sleep up to ``timeout_s``, returning early (True) once the stop is asked for."""
        return wait_until(lambda: self.signum is not None, timeout_s, step_s)

    def describe(self) -> str:
        """``SIGINT``, or ``SIGTERM (and 1 more signal, ignored while stopping)``; empty when not stopping."""
        more = self.signals - 1
        return self.name + (f" (and {more} more signal{'s' if more > 1 else ''}, ignored while stopping)"
                            if more > 0 else "")


def wait_until(done: Callable[[], bool], timeout_s: float, step_s: float = 0.05) -> bool:
    """Sleep up to ``timeout_s`` in steps of ``step_s``, returning early (True) once ``done()``: a plain flag polled,
    no lock a signal handler could find taken."""
    deadline = time.monotonic() + timeout_s
    while not done():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(step_s, left))
    return True


#: the process's one stop request
STOP = StopRequest()


def _is_the_command() -> bool:
    """The process's ``__main__`` is ``stud-table``: its console script, or ``python -m controller.cli``."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None:  # run with -m: its spec is set before its code runs
        return bool(spec.name == "controller.cli")
    script = getattr(main, "__file__", None) or ""
    return script.replace("\\", "/").rsplit("/", 1)[-1] == "stud-table"


# Installed as this module is imported, not in ``controller.cli.main``: the console script imports the whole of
# ``controller.cli`` before it calls ``main``, and ``controller.cli`` imports this module first, so the window in
# which Python's own Ctrl-C gives a traceback ends here (``main`` installs it again, idempotent, for library callers).
if _is_the_command():
    STOP.install()


def exit_cleanly_when_interrupted(prog: str, work: Callable[[], int | None],
                                  kept: Callable[[], list[str]] | None = None) -> int:
    """Run a command that stops only when its work is done (a training, an evaluation): SIGINT or SIGTERM ends it
    with one line on stderr and the exit code 128 + the signal (130 for Ctrl-C), never a traceback. ``kept``: the
    files the run wrote before the stop (a best-so-far checkpoint), named in that line."""

    def interrupt(signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt(signum)

    if threading.current_thread() is not threading.main_thread():  # (a library caller's thread: no handlers)
        return int(work() or 0)
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    signal.signal(signal.SIGTERM, interrupt)  # SIGTERM (``timeout``, a scheduler) stops it as Ctrl-C does
    try:
        result = int(work() or 0)
    except KeyboardInterrupt as stop:
        for ignored in STOP_SIGNALS:  # the command ends: a second signal while it says so, or exits, changes nothing
            signal.signal(ignored, signal.SIG_IGN)
        signum = stop.args[0] if stop.args and isinstance(stop.args[0], int) else int(signal.SIGINT)
        files = kept() if kept else []  # (only the commands that write a file as they go say what they kept)
        saved = (f"; kept what it wrote before the stop: {', '.join(files)}" if files else "; nothing saved"
                 if kept else "")
        print(f"{prog}: interrupted ({signal.Signals(signum).name}){saved}", file=sys.stderr)
        return 128 + signum
    except BaseException:
        _restore(previous)
        raise
    _restore(previous)
    return result


def _restore(handlers: dict[signal.Signals, Any]) -> None:
    for signum, handler in handlers.items():
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def written_since(began: float, *paths: str | PathLike[str] | None) -> Callable[[], list[str]]:
    """For ``exit_cleanly_when_interrupted``: those of ``paths`` modified since ``began`` (``time.time()``)."""
    import os

    def kept() -> list[str]:
        found = []
        for path in paths:
            try:
                if path and os.stat(path).st_mtime >= began:
                    found.append(str(path))
            except OSError:
                continue
        return found

    return kept


def block_stop_signals() -> None:
    """For a helper thread: SIGINT and SIGTERM go to the main thread, whose wait they then end (a signal the
    kernel hands to another thread would interrupt that thread's blocking call, and leave the main thread asleep
    until its next timeout)."""
    import contextlib

    with contextlib.suppress(AttributeError, OSError, ValueError):  # no pthread_sigmask (Windows): nothing to do
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def term_context(context: Any, timeout_s: float = 2.0, what: str = "ZeroMQ context") -> bool:
    """Terminate a ZeroMQ context once its sockets are closed, waiting at most ``timeout_s``: a socket forgotten
    open in some thread must not hang the exit. False (and a warning) when it did not finish."""
    import contextlib
    import logging

    done = threading.Event()

    def term() -> None:
        block_stop_signals()
        with contextlib.suppress(Exception):  # already terminated: the exit goes on
            context.term()
        done.set()

    thread = threading.Thread(target=term, name="zmq-term", daemon=True)
    thread.start()
    if not done.wait(timeout_s):
        logging.getLogger(__name__).warning("%s: still busy after %.1f s (a socket left open); the exit goes on "
                                            "without it", what, timeout_s)
        return False
    return True


def parent_death_signal() -> Callable[[], None] | None:
    """Linux: for ``preexec_fn``, the child asks for SIGTERM when its parent dies, even killed outright, so no
    table process outlives its parent. Looked up here, in the parent: the child only makes the call."""
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):
        return None
    pr_set_pdeathsig = 1
    return lambda: prctl(pr_set_pdeathsig, signal.SIGTERM)
