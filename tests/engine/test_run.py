"""``stud-table run``: the table's processes start, a dead one is restarted, a stop stops them all;
a configuration with a typo stops it with the key and the line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import zmq
from busutil import wait_until

from controller.bus.clone import SnapshotTimeout, request_snapshot

ROOT = Path(__file__).resolve().parents[2]

CONFIG = """
[table]
id = "run-test"
profile = "fr-1959"
minimum_cents = 1000
maximum_cents = 50000

[bus]
publish = "ipc://run/pub.sock"
subscribe = "ipc://run/sub.sock"
snapshot = "ipc://run/snap.sock"

[store]
path = "var/events.sqlite"

[web]
port = {port}
"""


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _get(url: str) -> int | None:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status
    except OSError:
        return None


def _snapshot(context, endpoint):
    try:
        return request_snapshot(context, endpoint, timeout_ms=300)
    except SnapshotTimeout:
        return None


def test_run_supervises_and_restarts_a_dead_engine(tmp_path):
    config = tmp_path / "table.toml"
    port = _free_port()
    config.write_text(CONFIG.format(port=port))
    run = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(config),
                            "--health-every", "1"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    context = zmq.Context()
    endpoint = f"ipc://{tmp_path}/run/snap.sock"
    try:
        assert wait_until(lambda: _snapshot(context, endpoint) is not None, timeout=30)
        children = _children(run.pid)
        assert len(children) == 3  # proxy, engine and web (no GPIO, no shoe configured)
        engine_pid = children[1]
        os.kill(engine_pid, signal.SIGKILL)
        assert wait_until(lambda: engine_pid not in _children(run.pid) and len(_children(run.pid)) == 3,
                          timeout=20)
        assert wait_until(lambda: _get(f"http://127.0.0.1:{port}/display") == 200, timeout=30)
        assert wait_until(lambda: _snapshot(context, endpoint) is not None, timeout=30)
        time.sleep(1.2)  # one health line
    finally:
        run.send_signal(signal.SIGTERM)
        _, log = run.communicate(timeout=30)
        context.destroy(linger=0)
    assert run.returncode == 0
    assert "engine exited (code -9); restarting" in log
    assert "health: proxy up" in log and "restarts=1" in log


def test_a_config_typo_stops_run_with_key_and_line(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text(CONFIG.format(port=8080).replace("maximum_cents", "maximum_cent"))
    result = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(config)], cwd=ROOT,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert f"{config}, line 6: key 'table.maximum_cent': unknown key (did you mean 'maximum_cents'?)" in result.stderr
