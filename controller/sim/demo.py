"""``stud-table demo``: the real table stack on a virtual table.

It starts ``stud-table run`` (proxy, engine, web) on a configuration of its own,
then plays coups: the virtual table publishes on the bus what the camera, the
dealer's buttons and keypad would publish, and the real engine, store and pages
do the rest. For now the camera is virtual at the level of its observations
(cards placed, chips counted); rendering frames for the real vision pipeline is
the next step (issue 6).
"""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import webbrowser
from collections import Counter
from pathlib import Path

import zmq

from controller.bus.clone import SnapshotTimeout, request_snapshot
from controller.bus.schema import CoupSettled, FlagRaised
from controller.bus.transport import Publisher, Subscriber
from controller.profiles import load_profile
from controller.rules.history import format_money
from controller.rules.profile import TableRules

from .coups import new_table, play_coup
from .events import bus_events

CONFIG = """# written by stud-table demo
[table]
id = "demo"
profile = "{profile}"
minimum_cents = 1000
maximum_cents = 50000
bonus = {bonus}
card_purchase = {purchase}
jackpot = {jackpot}
jackpot_meter_cents = 1000000

[bus]
publish = "ipc://run/pub.sock"
subscribe = "ipc://run/sub.sock"
snapshot = "ipc://run/snap.sock"

[store]
path = "var/events.sqlite"

[web]
host = "127.0.0.1"
port = {port}
"""


def _free_port(preferred: int = 8080) -> int:
    for port in (preferred, 0):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise OSError("no free TCP port on 127.0.0.1")


def _toml_bool(value: bool) -> str:
    return "true" if value else "false"


def run_demo(coups: int | None, seed: int, profile_name: str, headless: bool, pace_s: float,
             folder: Path | None = None) -> int:
    profile = load_profile(profile_name)
    rules = TableRules(profile, 1000, 50000, profile.marked_seats_max, bonus=profile.bonus,
                       jackpot=profile.jackpot, card_purchase=profile.card_purchase)
    folder = folder or Path(tempfile.mkdtemp(prefix="stud-table-demo-"))
    (folder / "run").mkdir(parents=True, exist_ok=True)
    port = _free_port()
    config = folder / "table.toml"
    config.write_text(CONFIG.format(profile=profile_name, bonus=_toml_bool(rules.bonus),
                                    purchase=_toml_bool(rules.card_purchase), jackpot=_toml_bool(rules.jackpot),
                                    port=port))
    log = open(folder / "table.log", "w")  # noqa: SIM115 - kept open for the child's lifetime
    stack = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
                             stdout=log, stderr=subprocess.STDOUT)
    context = zmq.Context()
    # A SIGTERM (systemd, timeout) stops the demo as Ctrl-C does: the stack is stopped too.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        return _play(context, folder, port, rules, coups, seed, headless, pace_s, stack)
    except KeyboardInterrupt:
        print("\nstopped")
        return 0
    finally:
        stack.terminate()
        try:
            stack.wait(20)
        except subprocess.TimeoutExpired:
            stack.kill()
        log.close()
        context.destroy(linger=0)


def _wait_for_engine(context: zmq.Context, endpoint: str, stack: subprocess.Popen[bytes]) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if stack.poll() is not None:
            raise RuntimeError(f"the table stack exited (code {stack.returncode}); see its log")
        try:
            return request_snapshot(context, endpoint, timeout_ms=500)
        except SnapshotTimeout:
            continue
    raise RuntimeError("the engine did not answer within 60 s")


def _play(context: zmq.Context, folder: Path, port: int, rules: TableRules, coups: int | None, seed: int,
          headless: bool, pace_s: float, stack: subprocess.Popen[bytes]) -> int:
    snapshot_endpoint = f"ipc://{folder}/run/snap.sock"
    _wait_for_engine(context, snapshot_endpoint, stack)
    url = f"http://127.0.0.1:{port}/display"
    print(f"table stack running in {folder} (log: {folder / 'table.log'})")
    print(f"croupier display: {url}")
    print(f"surveillance review: http://127.0.0.1:{port}/review "
          f"(create a user: stud-table web-user --config {folder / 'table.toml'} NAME supervisor)")
    if not headless:
        webbrowser.open(url)
    publisher = Publisher(context, f"ipc://{folder}/run/pub.sock", "virtual-table",
                          heartbeat_topic="vision.heartbeat")
    results = Subscriber(context, f"ipc://{folder}/run/sub.sock", ("core.",))
    time.sleep(0.5)  # our subscription and the engine's reach the proxy
    rng = random.Random(seed)
    table = new_table(rules, rng)
    t = 0
    sent_upto = 0
    flags: Counter[str] = Counter()
    paid = 0
    settled = 0
    played = 0
    while coups is None or played < coups:
        t = play_coup(table, rng, t)
        played += 1
        for _ms, topic, body in bus_events(table.log[sent_upto:]):
            publisher.publish(topic, body)
            if pace_s:
                time.sleep(pace_s)
        sent_upto = len(table.log)
        # Wait for the engine to settle this coup, reading its results off the bus.
        deadline = time.monotonic() + 60
        while settled < played and time.monotonic() < deadline:
            message = results.receive(200)
            if message is None:
                continue
            body = message[1].body
            if isinstance(body, FlagRaised):
                flags[body.kind] += 1
            elif isinstance(body, CoupSettled):
                settled += 1
                lines = body.settlement.get("payouts", [])
                paid += sum(int(line["net"]) for line in lines if int(line["net"]) > 0)  # type: ignore[index]
                announced = " · ".join(body.settlement.get("announced", [])) or "jeu"  # type: ignore[arg-type]
                print(f"coup {body.coup}: croupier {body.settlement.get('dealer_hand') or '-'} · {announced} · "
                      f"banque {format_money(int(body.settlement.get('house_net', 0)))} €")  # type: ignore[arg-type]
        if settled < played:
            print("the engine did not settle the coup within 60 s; see the log", file=sys.stderr)
            return 1
    publisher.close()
    results.close()
    print(f"{played} coups played, {sum(flags.values())} flags {dict(flags)}, paid {format_money(paid)} €")
    print(f"event store: {folder / 'var' / 'events.sqlite'}")
    return 0
