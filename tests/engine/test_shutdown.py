"""The stud-table process's stop handler, the bus's bind errors, and the clean Ctrl-C of the commands that stop only
when their work is done (controller/shutdown.py)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.bus.keys import create_keys

ROOT = Path(__file__).resolve().parents[2]
MARKS = ("Traceback", "KeyboardInterrupt")


def _taken_port() -> socket.socket:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    return holder


@pytest.mark.parametrize("command", ["proxy", "engine"])
def test_a_bus_endpoint_taken_is_one_line_naming_it_and_exit_2(tmp_path, command):
    with _taken_port() as holder, _taken_port() as free:
        taken = f"tcp://127.0.0.1:{holder.getsockname()[1]}"
        other = f"ipc://{tmp_path}/sub.sock"
        free_port = free.getsockname()[1]
        free.close()
        publish, snapshot = (taken, f"tcp://127.0.0.1:{free_port}") if command == "proxy" else (
            f"tcp://127.0.0.1:{free_port}", taken)
        setting = "bus.publish" if command == "proxy" else "bus.snapshot"
        config = tmp_path / "table.toml"
        create_keys(tmp_path / "keys")  # a tcp:// bus needs them
        config.write_text(f'[table]\nid = "t"\nprofile = "fr-2007"\nminimum_cents = 1000\nmaximum_cents = 50000\n'
                          f'[bus]\npublish = "{publish}"\nsubscribe = "{other}"\nsnapshot = "{snapshot}"\n'
                          f'keys = "keys"\n[store]\npath = "{tmp_path}/var/events.sqlite"\n')
        done = subprocess.run([sys.executable, "-m", "controller.cli", command, "--config", str(config)], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert not [mark for mark in MARKS if mark in done.stderr], done.stderr
    assert f"stud-table: cannot bind {taken} ({setting}): Address already in use" in done.stderr, done.stderr


def test_importing_the_cli_elsewhere_leaves_the_signal_handlers_alone():
    done = subprocess.run([sys.executable, "-c", "import signal, controller.cli; "
                           "print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, "
                           "signal.getsignal(signal.SIGINT) is signal.default_int_handler)"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["True", "True"], done.stderr


_WORK = """
import pathlib, sys, time
from controller.shutdown import exit_cleanly_when_interrupted, written_since
out = pathlib.Path(sys.argv[1])
began = time.time()
def work():
    if sys.argv[2] == "write":
        out.write_text("best epoch so far")
    out.with_suffix(".ready").touch()
    time.sleep(60)
sys.exit(exit_cleanly_when_interrupted("python -m training.train_detector", work, written_since(began, out)))
"""


@pytest.mark.parametrize(("signum", "write"), [(signal.SIGINT, False), (signal.SIGTERM, True)])
def test_a_training_stops_on_ctrl_c_or_sigterm_with_one_line_and_no_traceback(tmp_path, signum, write):
    out = tmp_path / "model.pt"
    work = subprocess.Popen([sys.executable, "-c", _WORK, str(out), "write" if write else "-"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not out.with_suffix(".ready").exists() and work.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        work.send_signal(signum)
        time.sleep(0.05)
        work.send_signal(signum)  # a second one while it says so changes nothing
        _, err = work.communicate(timeout=30)
    finally:
        if work.poll() is None:
            work.kill()
            work.communicate()
    assert work.returncode == 128 + signum, err
    name = signal.Signals(signum).name
    said = f"kept what it wrote before the stop: {out}" if write else "nothing saved"
    assert err == f"python -m training.train_detector: interrupted ({name}); {said}\n"
