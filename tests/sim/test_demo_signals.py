"""Ctrl-C and SIGTERM, once or twice, at any moment: the long-running commands stop in order, without a traceback or
an abort, and the store's chain holds (controller/shutdown.py).

The demo trials run the real ``stud-table demo`` (its console script) and send SIGINT to its process group, as a
terminal's Ctrl-C does, at moments drawn from a fixed seed: in its first second (loading, starting the stack,
waiting for the engine) and later (playing). The first second is counted from the moment the process catches
SIGTERM (/proc/PID/status), i.e. once ``controller.shutdown`` is loaded, 25 to 40 ms after the start: a signal in
the interpreter's own start-up before that (site, the console script's first import) is Python's to handle (it
prints a traceback), and is left out.
"""

from __future__ import annotations

import itertools
import logging
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from controller.shutdown import StopRequest
from controller.sim.demo import random_coups
from controller.sim.script import random_script
from controller.supervisor import Child, Supervisor

ROOT = Path(__file__).resolve().parents[2]
STUD_TABLE = Path(sys.executable).parent / "stud-table"
MARKS = ("Traceback", "KeyboardInterrupt", "terminate called", "Fatal Python error", "Aborted")


def _trials() -> list[tuple[str, float, bool]]:
    """(camera, seconds before the first SIGINT, twice): 7 in the first second, 7 later, direct camera; 2 with the
    rendered camera (the vision process loading its models, or reading the coup)."""
    rng = random.Random(20)
    trials = [("direct", rng.uniform(0.0, 1.0), index % 2 == 0) for index in range(7)]
    trials += [("direct", rng.uniform(1.0, 7.0), index % 2 == 1) for index in range(7)]
    trials += [("rendered", rng.uniform(2.0, 12.0), twice) for twice in (False, True)]
    return trials


def _catches_sigterm(pid: int) -> bool:
    """The process has its own SIGTERM handler (Python's default leaves SIGTERM alone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def _wait_until_it_catches_sigterm(process: subprocess.Popen[str], timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while not _catches_sigterm(process.pid) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)


def _leftovers(folder: Path) -> list[str]:
    """The processes still running with the demo's folder on their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().decode(errors="replace").replace("\0", " ")
            except OSError:
                continue
            if str(folder) in argv:
                found.append(f"{entry.name}: {argv}")
    return found


@pytest.mark.skipif(not STUD_TABLE.exists(), reason="the stud-table console script is not installed in this venv")
@pytest.mark.parametrize(("camera", "delay", "twice"), _trials(),
                         ids=[f"{c}-{d:.2f}s-{'twice' if t else 'once'}" for c, d, t in _trials()])
def test_ctrl_c_at_any_moment_stops_the_demo_cleanly(tmp_path, camera, delay, twice):
    folder = tmp_path / "demo"
    demo = subprocess.Popen([str(STUD_TABLE), "demo", "--headless", "--camera", camera, "--folder", str(folder)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        _wait_until_it_catches_sigterm(demo)
        time.sleep(delay)
        signalled = time.monotonic()
        os.killpg(demo.pid, signal.SIGINT)
        if twice:
            time.sleep(0.05)
            os.killpg(demo.pid, signal.SIGINT)
        out, err = demo.communicate(timeout=90)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.communicate()
    took = time.monotonic() - signalled
    logs = "".join(f"\n--- {name}\n{(folder / name).read_text(errors='replace')}"
                   for name in ("table.log", "sensors.log") if (folder / name).exists())
    said = f"stdout:\n{out}\nstderr:\n{err}{logs[-6000:]}"
    assert demo.returncode in (0, 130), said
    assert err == "", said  # the closing lines go to stdout: stderr is for errors only
    assert not [mark for mark in MARKS if mark in out + logs], said
    assert "killed" not in logs and "killed" not in out, said  # every process stopped on SIGTERM, none was killed
    assert took < 40, f"{took:.1f} s to stop\n{said}"
    time.sleep(0.2)
    assert _leftovers(folder) == [], said
    store = folder / "var" / "events.sqlite"
    if store.exists():
        check = subprocess.run([str(STUD_TABLE), "verify-log", str(store)], cwd=ROOT, capture_output=True,
                               text=True, timeout=60)
        assert check.returncode == 0 and "the chain is intact" in check.stdout, check.stdout + check.stderr + said
    else:  # stopped before the engine had created its store
        assert "engine ready" not in out, said
    if "playing" in out:  # stopped while playing: the summary, after the stack's stop
        assert "table stack stopped in" in out and "played in" in out and "event store:" in out, said


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _proxy_config(folder: Path) -> Path:
    config = folder / "table.toml"
    config.write_text(f'[table]\nid = "t"\nprofile = "fr-2007"\nminimum_cents = 1000\nmaximum_cents = 50000\n'
                      f'[bus]\npublish = "ipc://{folder}/pub.sock"\nsubscribe = "ipc://{folder}/sub.sock"\n')
    return config


@pytest.mark.skipif(not STUD_TABLE.exists(), reason="the stud-table console script is not installed in this venv")
def test_the_proxy_stops_on_sigint_and_sigterm_back_to_back(tmp_path):
    """The second signal, sent while the first is still pending, may go to another of the proxy's threads: the main
    thread must still see the stop (it polls the request, a blocking wait would never end), within a few seconds."""
    rng = random.Random(4)
    for trial in range(12):
        folder = tmp_path / str(trial)
        folder.mkdir()
        proxy = subprocess.Popen([str(STUD_TABLE), "proxy", "--config", str(_proxy_config(folder))], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 20
            while not (folder / "sub.sock").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(rng.uniform(0, 0.2))
            first, second = rng.sample([signal.SIGINT, signal.SIGTERM], 2)
            proxy.send_signal(first)
            proxy.send_signal(second)
            out, err = proxy.communicate(timeout=8)
        finally:
            if proxy.poll() is None:
                proxy.kill()
                proxy.communicate()
                pytest.fail(f"trial {trial}: the proxy did not stop within 8 s")
        assert proxy.returncode == 0, err
        assert not [mark for mark in MARKS if mark in out + err], err
        # both counted (the kernel hands pending signals over lowest number first: SIGINT, whichever came first)
        assert "proxy: stopped on SIG" in err and "(and 1 more signal, ignored while stopping)" in err, err


@pytest.mark.skipif(not STUD_TABLE.exists(), reason="the stud-table console script is not installed in this venv")
def test_run_stops_on_ctrl_c_twice_while_it_starts_its_children(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nid = "t"\nprofile = "fr-2007"\nminimum_cents = 1000\nmaximum_cents = 50000\n'
                      f'[bus]\npublish = "ipc://{tmp_path}/run/pub.sock"\nsubscribe = "ipc://{tmp_path}/run/sub.sock"\n'
                      f'snapshot = "ipc://{tmp_path}/run/snap.sock"\n[store]\npath = "var/events.sqlite"\n'
                      f'[web]\nport = {_free_port()}\n')
    for delay in (0.3, 0.9, 2.5):  # counted from the moment it catches SIGTERM, as in the demo's trials
        run = subprocess.Popen([str(STUD_TABLE), "run", "--config", str(config)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        _wait_until_it_catches_sigterm(run)
        time.sleep(delay)
        os.killpg(run.pid, signal.SIGINT)
        time.sleep(0.05)
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=40)
        assert run.returncode == 0, err
        assert not [mark for mark in MARKS if mark in out + err], err
        assert "killed" not in err and "stopped in" in err, err
        assert _leftovers(tmp_path) == [], err


def test_the_supervisor_kills_a_child_that_ignores_sigterm_and_logs_it(tmp_path, caplog):
    ready = tmp_path / "stubborn-ready"
    stubborn = Child("stubborn", [sys.executable, "-c", "import signal, time, pathlib; "
                                  "signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                  f"pathlib.Path({str(ready)!r}).touch(); time.sleep(120)"])
    polite = Child("polite", [sys.executable, "-c", "import time; time.sleep(120)"])
    supervisor = Supervisor([polite, stubborn], health_every=3600, stop_timeout=1.0)

    def stop_once_the_stubborn_child_ignores_sigterm() -> None:
        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        supervisor.stop()

    threading.Thread(target=stop_once_the_stubborn_child_ignores_sigterm, daemon=True).start()
    began = time.monotonic()
    with caplog.at_level(logging.INFO, logger="stud-table.run"):
        supervisor.run()
    took = time.monotonic() - began
    text = caplog.text
    assert stubborn.process is not None and stubborn.process.returncode == -signal.SIGKILL
    assert polite.process is not None and polite.process.returncode == -signal.SIGTERM
    assert "killed stubborn after 1." in text and "it did not stop on SIGTERM" in text, text
    assert "polite stopped (code -15)" in text and "killed polite" not in text, text
    assert "(1 killed: stubborn)" in text, text
    assert took < 20


def test_the_endless_random_coups_are_the_random_scripts_own():
    """The demo draws its random coups as it plays them (drawing them all before the first would take seconds, a
    window where Ctrl-C finds nothing started yet): they must be exactly ``random_script``'s."""
    assert tuple(itertools.islice(random_coups(7, "fr-2007"), 150)) == random_script(7, 150, "fr-2007").coups
    assert random_script(7, 0, "fr-2007").seats == random_script(7, 150, "fr-2007").seats


def test_a_second_signal_while_stopping_changes_nothing():
    stop = StopRequest()
    calls: list[str] = []
    stop.on_stop(lambda: calls.append("first"))
    stop.handler(signal.SIGINT, None)
    stop.handler(signal.SIGINT, None)
    stop.handler(signal.SIGTERM, None)
    stop.on_stop(lambda: calls.append("late"))  # registered once stopping: called at once
    assert calls == ["first", "late"]
    assert stop.signum == signal.SIGINT and stop.signals == 3
    assert stop.describe() == "SIGINT (and 2 more signals, ignored while stopping)"
    assert stop.wait(5) is True
