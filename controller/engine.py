"""The engine: events from the bus, recorded first, then played through the rules core.

Each batch of events is recorded with what the engine derived from them (flags,
settled coups, signed heads) in one transaction, one fsync, and nothing is
published of it before that commit: an event the engine has answered is never
lost. On start the engine takes the latest checkpoint (``controller.checkpoint``:
the table at the last coup's end) and replays what the store recorded after it
through the same ``Referee``: the coup in progress resumes exactly where it was
(``controller.referee`` turns the observations into rules operations). What it publishes names no hidden card
(``controller.public_state``).
"""

from __future__ import annotations

import gc
import hashlib
import heapq
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import msgspec
import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import checkpoint as checkpoints
from .bus import BindError
from .bus.keys import ENGINE, Keys, RefusedHandshakes, RoleAuthenticator, make_server, private_socket_file
from .bus.outbox import Intake
from .bus.schema import (
    AnyBody,
    CameraWaitOver,
    CoupSettled,
    Envelope,
    EvidenceSaved,
    FlagRaised,
    Heartbeat,
    Refused,
    TableState,
)
from .bus.transport import Publisher, Subscriber
from .checkpoint import BadCheckpoint, Checkpoint, rules_fingerprint
from .heads import DerivedDigest, sign_head
from .public_state import public_settlement, public_state, without_cards
from .referee import Outcome, Referee
from .rules.operations import EndCoup, Settle
from .rules.profile import TableRules
from .rules.summary import settlement_data
from .store import EventStore, NewEvent

log = logging.getLogger(__name__)

#: Topics the engine listens to.
INPUT_PREFIXES = ("vision.", "sensor.", "dealer.")
#: How long an engine that restarted holds what comes before recording it (``Engine._held``): the producers'
#: outboxes resend at once what they kept when told it is back.
HOLD_AFTER_RESTART_S = 0.5
#: How long events wait behind a producer's gap for its outbox to resend it; then the gap is taken as lost.
GAP_WAIT_S = 2.0
#: How often a producer behind a gap is told so while the engine waits (each time, it resends all it kept).
GAP_ACK_EVERY_S = 0.25
#: How long a button press waits for the camera to catch up with it (``Referee.awaiting``) before it is played
#: without it: the camera reports a change once it has held for ``TrackerConfig.steady_ms`` over several frames,
#: about a second at the Pi's frame rate; a camera that stalls must not hold the dealer longer than this.
CAMERA_WAIT_S = 3.0


def in_order(messages: list[tuple[str, Envelope]]) -> list[tuple[str, Envelope]]:
    """Messages in the order they happened: each publisher's run in its own numbering (an outbox's resends and
    duplicates fall in place), the runs merged by their wall-clock times."""
    runs: dict[tuple[str, str], dict[int, tuple[str, Envelope]]] = {}
    for message in messages:  # a resend's copies of one event: kept once
        runs.setdefault((message[1].publisher, message[1].instance), {})[message[1].seq] = message
    ordered = [[run[seq] for seq in sorted(run)] for run in runs.values()]
    if len(ordered) == 1:
        return ordered[0]
    return list(heapq.merge(*ordered, key=lambda message: message[1].wall_ns))


def _encode_body(envelope: Envelope) -> str:
    return msgspec.json.encode(envelope.body).decode()


class Engine:
    """The engine process: subscriber → store → referee → publisher, plus the snapshot server."""

    def __init__(self, rules: TableRules, store: EventStore, context: zmq.Context[zmq.Socket[bytes]],
                 subscribe_endpoint: str, publish_endpoint: str, snapshot_endpoint: str, name: str = "engine",
                 jackpot_meter: int = 0, signing: tuple[str, Ed25519PrivateKey] | None = None,
                 from_checkpoint: bool = True,
                 keys: Keys | None = None) -> None:
        """``signing``: (the table's id, its key): each coup's end is signed as a head of the log
        (``controller.heads``); None signs nothing. ``from_checkpoint``: False replays the whole log (a
        benchmark's baseline). ``keys``: the bus's keys (``controller.bus.keys``): the snapshot server answers
        only the table's roles, and proves it is the engine; the context is the one ``bus_context`` made."""
        # The meter is set before the replay: the recorded coups settle again exactly as they did.
        self.rules = rules
        self._rules_fingerprint = rules_fingerprint(rules, jackpot_meter)
        self.referee = Referee(rules, jackpot_meter)
        self.store = store
        self.subscriber = Subscriber(context, subscribe_endpoint, INPUT_PREFIXES, takes_resends=True)
        self.publisher = Publisher(context, publish_endpoint, name, heartbeat_topic="core.heartbeat")
        self._authenticator = RoleAuthenticator(context, keys) if keys is not None else None
        self.snapshots = context.socket(zmq.ROUTER)
        self.snapshots.setsockopt(zmq.LINGER, 0)
        self._handshakes: RefusedHandshakes | None = None
        if keys is not None:
            make_server(self.snapshots, keys.pair(ENGINE))
            self._handshakes = RefusedHandshakes(self.snapshots, "engine's snapshot server")
        try:
            self.snapshots.bind(snapshot_endpoint)
        except zmq.ZMQError as error:
            self.close()
            # without an errno (an error of pyzmq's own), its message
            reason = zmq.strerror(error.errno) if error.errno is not None else str(error)
            raise BindError(snapshot_endpoint, "bus.snapshot", reason) from error
        private_socket_file(snapshot_endpoint)
        self._stop = threading.Event()
        self._signing = signing
        self._derived = DerivedDigest()  # what the heads vouch for beside the chain: the flags and coups recorded
        #: the last coup end the replay met, (coup, record, derived digest, checkpoint's SHA-256): signed after the
        #: replay if the store holds no head for it (the engine stopped between the two)
        self._replayed_end: tuple[int, int, str, str] | None = None
        self._coup_first_event: dict[int, int] = {}
        #: what the batch being recorded will publish once it is committed
        self._unsent: list[tuple[str, AnyBody]] = []
        #: the last recorded event the table has acted on
        self.acted_id = 0
        try:
            self.replay_store(from_checkpoint)
        except BaseException:
            self.close()
            raise
        #: which producers' events to record, in their order, and what to acknowledge to them
        self.intake = Intake(store.last_by_publisher())
        #: after a restart, what comes is held for a moment, then recorded in the order it happened: the producers'
        #: outboxes resend what the engine missed, and another producer's live events must not overtake it
        self._held: list[tuple[str, Envelope]] = []
        self._holding_until = time.monotonic() + HOLD_AFTER_RESTART_S if store.last_id else 0.0
        #: the producers' runs whose events wait behind a gap, and since when; the last time they were told
        self._gap_seen: dict[tuple[str, str], float] = {}
        self._last_gap_ack = 0.0
        #: each press held for the camera, and since when (its wait is measured from it)
        self._camera_waits: dict[tuple[str, int], float] = {}

    # --- recovery -------------------------------------------------------------

    def replay_store(self, from_checkpoint: bool = True) -> None:
        """Rebuild the table from the latest checkpoint and the events recorded after it, or from every recorded
        event (and the review indexes with it)."""
        # The flags and coups the replay derives again (found there already, or lost with a cut batch): one commit.
        with self.store.transaction():
            count, start = 0, self._resume() if from_checkpoint else 0
            for stored in self.store.events(after_id=start):
                try:
                    body = msgspec.json.decode(stored.body, type=AnyBody)
                except msgspec.DecodeError as error:
                    log.error("engine: recorded event %d cannot be read (%s); skipped", stored.id, error)
                    continue
                self._act(stored.id, Envelope(stored.publisher, stored.seq, stored.mono_ns, stored.wall_ns, body),
                          live=False)
                count += 1
            # Only the last coup end may lack its head (the engine stopped before writing it): the replay never
            # signs an earlier one, so it never vouches for a history rewritten, or its heads deleted, behind its
            # back.
            if (self._signing is not None and self._replayed_end is not None
                    and self._replayed_end[1] > self.store.last_head_event()):
                self._sign_head(*self._replayed_end)
        if count or start:
            log.info("engine: replayed %d recorded events%s; coup %d, phase %s", count,
                     f" after the checkpoint at record {start}" if start else "",
                     self.referee.table.coup.number, self.referee.table.phase.value)

    def _resume(self) -> int:
        """Take up the latest checkpoint taken under these rules; the record it follows (0: none to take up, the
        whole log is replayed)."""
        try:
            found = checkpoints.latest(self.store.db, self._rules_fingerprint, self.store.last_id,
                                       self._signing[1].public_key() if self._signing else None)
        except BadCheckpoint as error:
            log.error("engine: the latest checkpoint cannot be used (%s); replaying the whole log", error)
            return 0
        if found is None:
            return 0
        checkpoint, sha256 = found
        self._take_up(checkpoint)
        self._replayed_end = (checkpoint.ended_coup, checkpoint.after_event, checkpoint.derived, sha256)
        self.acted_id = checkpoint.after_event
        return checkpoint.after_event

    def _take_up(self, checkpoint: Checkpoint) -> None:
        self.referee = Referee.resume(self.rules, checkpoint.referee)
        self._derived = DerivedDigest(checkpoint.derived)
        self._coup_first_event = {}

    def _checkpoint(self, ended_coup: int, event_id: int) -> str:
        """Record the table as it stands at the end of ``ended_coup`` and go on from what was recorded; returns its
        SHA-256."""
        checkpoint = Checkpoint(checkpoints.FORMAT, ended_coup, event_id, self._derived.hexdigest(),
                                self.referee.checkpoint())
        body, sha256 = checkpoints.encode(checkpoint)
        self.store.record_checkpoint(event_id, self._rules_fingerprint, body, sha256)
        self._take_up(checkpoints.decode(body, sha256))
        return sha256

    def _sign_head(self, coup: int, event_id: int, derived: str, checkpoint: str) -> None:
        assert self._signing is not None
        table_id, key = self._signing
        sign_head(self.store, table_id, coup, event_id, derived, key, checkpoint)

    # --- the loop -------------------------------------------------------------

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        self.publish_state()
        for ack in self.intake.where_each_stands():  # the producers resend what they kept at once
            self.publisher.publish("core.ack", ack)
        while not self._stop.is_set():
            # The subscriber's socket changes when it reconnects: poll the current one.
            poller = zmq.Poller()
            listening = self.subscriber.socket
            poller.register(listening, zmq.POLLIN)
            poller.register(self.snapshots, zmq.POLLIN)
            if self._handshakes is not None:
                poller.register(self._handshakes.monitor, zmq.POLLIN)
            while not self._stop.is_set() and listening is self.subscriber.socket:
                ready = dict(poller.poll(100))
                if self.snapshots in ready:
                    self.answer_snapshot()
                if self._handshakes is not None and self._handshakes.monitor in ready:
                    self._handshakes.take()
                if listening in ready or self._held:
                    self.process_batch()
                else:
                    self.subscriber.check_peers()
                self.give_up_on_camera()

    def give_up_on_camera(self) -> bool:
        """Record that the oldest press held for the camera has waited ``CAMERA_WAIT_S`` (``CameraWaitOver``): it is
        played now. Recorded, not decided on the side, so a replay releases it at the same place in the log."""
        if not self.referee.awaiting:  # the loop's usual case: nothing to time
            self._camera_waits.clear()
            return False
        now = time.monotonic()
        self._camera_waits = {(press.publisher, press.seq): self._camera_waits.get((press.publisher, press.seq), now)
                              for press in self.referee.awaiting}
        if self._held:  # events already come are recorded first: maybe its answer
            return False
        press = self.referee.awaiting[0]
        waited = now - self._camera_waits[press.publisher, press.seq]
        # a camera that no longer answers (offline) is waited for no more: what it still holds goes at once
        if waited < CAMERA_WAIT_S and self.referee.devices.camera_answers_waits:
            return False
        log.warning("engine: the camera did not catch up with %s #%d in %.1f s: played without it",
                    press.publisher, press.seq, waited)
        given_up = Envelope(self.publisher.name, self.publisher.seq, time.monotonic_ns(), time.time_ns(),
                            CameraWaitOver(press.publisher, press.seq))
        self.record([("core.camera_wait", given_up)])
        return True

    def process_batch(self, limit: int = 512) -> int:
        batch: list[tuple[str, Envelope]] = []
        while len(batch) < limit:
            message = self.subscriber.receive(0)
            if message is None:
                break
            if not isinstance(message[1].body, Heartbeat):
                batch.append(message)
        self._held += batch
        if not self._held:
            return 0
        now = time.monotonic()
        if now < self._holding_until:
            return 0
        # A producer's event that came after a gap waits, and so does every other producer's, until the outbox has
        # resent the missing ones: recorded in the order it all happened, not in the order it came.
        self._held = in_order(self._held)
        gaps = self.intake.gaps([envelope for _topic, envelope in self._held])
        # Each gap has its own wait: one just opened is not given up with another that has waited its time.
        self._gap_seen = {run: self._gap_seen.get(run, now) for run in gaps}
        if any(now - seen < GAP_WAIT_S for seen in self._gap_seen.values()):
            if now - self._last_gap_ack >= GAP_ACK_EVERY_S:  # each one has the producer resend all it kept
                self._last_gap_ack = now
                for ack in gaps.values():
                    self.publisher.publish("core.ack", ack)
            return 0
        batch, self._held, self._holding_until, self._gap_seen = self._held, [], 0.0, {}
        # A gap still open here has waited GAP_WAIT_S: the producer lost those events, and the ones after it are
        # recorded.
        return self.record(batch, take_gaps=bool(gaps))

    def record(self, batch: list[tuple[str, Envelope]], take_gaps: bool = False) -> int:
        """Record the batch's events that the intake takes (each producer's once, in order), play them, then tell
        what they did. Acted on before the commit, published after it: a failed commit raises, the process ends,
        and the engine that starts again replays only what was recorded (nothing of this batch was told)."""
        batch = [(topic, env) for topic, env in batch if self.intake.judge(env, take_gap=take_gaps) == Intake.RECORD]
        with self.store.transaction():
            ids = self.store.append([NewEvent(topic, env.publisher, env.seq, env.mono_ns, env.wall_ns,
                                              _encode_body(env), env.instance) for topic, env in batch])
            acted = False
            for (_topic, envelope), event_id in zip(batch, ids, strict=True):
                if event_id is not None:  # None: a resend of an event already recorded
                    self._act(event_id, envelope, live=True)
                    acted = True
        unsent, self._unsent = self._unsent, []
        for topic, body in unsent:
            self.publisher.publish(topic, body)
        for ack in self.intake.acknowledgements():  # committed: the producers may forget these
            self.publisher.publish("core.ack", ack)
        if acted:
            self.publish_state()  # once per batch: the state is a snapshot, the latest one is what counts
        return len(batch)

    def _act(self, event_id: int, envelope: Envelope, live: bool) -> Outcome:
        """Play one recorded event; ``live``: a new one (its messages queued for after the batch's commit and its
        coup end signed), not one replayed."""
        if isinstance(envelope.body, EvidenceSaved):
            outcome = self._link_evidence(envelope.body, live)
            self.acted_id = event_id
            return outcome
        table = self.referee.table
        coup = table.coup.number
        outcome = self.referee.handle(envelope)
        flags = 0
        for each in outcome.all():  # the presses it released (of the coup it came in), then its own
            self._derive(event_id, coup, each.event or type(envelope.body).__name__, each, flags, live)
            flags += len(each.flags)
        self.acted_id = event_id  # last: its flags and coup recorded, its messages queued
        return outcome

    def _derive(self, event_id: int, coup: int, event: str, outcome: Outcome, first_flag: int, live: bool) -> None:
        """Record what one outcome of event ``event_id`` derived (flags, numbered from ``first_flag``, a settled
        coup, a coup's end: its checkpoint and head) and, ``live``, queue what it tells."""
        table = self.referee.table
        if outcome.operation is not None and outcome.refused is None:
            self._coup_first_event.setdefault(coup, event_id)
        for ordinal, flag in enumerate(outcome.flags, start=first_flag):
            row = (event_id, ordinal, coup, flag.kind.value, flag.severity.name.lower(), flag.seat, flag.detail)
            self.store.record_flag(*row)
            self._derived.add_flag(*row)
        settled = None
        if isinstance(outcome.operation, Settle) and outcome.refused is None and table.settlement:
            settled = settlement_data(table.settlement, table.rules.profile.language)
            coup_row = (coup, self._coup_first_event.get(coup, event_id), event_id, table.coup.void,
                        json.dumps(settled, ensure_ascii=False))
            self.store.record_coup(*coup_row)
            self._derived.add_coup(*coup_row)
        if isinstance(outcome.operation, EndCoup) and outcome.refused is None:
            derived = self._derived.hexdigest()  # its flags recorded above
            checkpoint = self._checkpoint(coup, event_id)
            if live and self._signing is not None:
                self._sign_head(coup, event_id, derived, checkpoint)
            elif not live:
                self._replayed_end = (coup, event_id, derived, checkpoint)
        if outcome.refused:
            log.warning("engine: event %d (%s) refused: %s", event_id, event, outcome.refused)
        if live:
            if outcome.refused:
                self._unsent.append(("core.refused", Refused(event, without_cards(outcome.refused))))
            if outcome.settlement_waits:
                self._unsent.append(("core.refused", Refused("Settle", without_cards(outcome.settlement_waits))))
            for flag in outcome.flags:
                self._unsent.append(("core.flag", FlagRaised(coup, flag.kind.value, flag.severity.name.lower(),
                                                               flag.seat, without_cards(flag.detail), event_id)))
            if settled is not None and table.settlement is not None:
                shown = table.settlement.hands_shown
                self._unsent.append(("core.payouts", CoupSettled(coup, public_settlement(settled, shown))))

    def _link_evidence(self, saved: EvidenceSaved, live: bool) -> Outcome:
        """File an evidence image under the flag's event, once its content is checked against its name."""
        path = self.store.evidence_dir / Path(saved.file).name
        if not 0 < saved.event_id <= self.store.last_id:
            reason = f"evidence {saved.file}: event {saved.event_id} is not a recorded event"
        else:
            try:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as error:
                digest = f"unreadable ({error.strerror})"
            reason = "" if digest == saved.sha256 else (f"evidence {saved.file}: content {digest} does not match "
                                                        f"the announced {saved.sha256}")
        if reason:
            if live:
                log.warning("engine: %s", reason)
                self._unsent.append(("core.refused", Refused("EvidenceSaved", reason)))
            return Outcome(refused=reason)
        self.store.link_evidence(saved.sha256, saved.event_id, path.name, saved.media_type)
        return Outcome()

    def publish_state(self) -> None:
        shown = public_state(self.state())
        assert shown is not None  # public_state gives None for no state only
        self.publisher.publish("core.state", TableState(shown))

    def state(self) -> dict[str, Any]:
        """The whole state, hidden cards included; what the bus carries is its ``public_state``."""
        state = self.referee.state()
        state["recorded_events"] = self.acted_id
        return state

    def answer_snapshot(self) -> None:
        """The Clone pattern: the state now, and the sequence number it stands at."""
        identity, *_request = self.snapshots.recv_multipart()
        reply = {"seq": self.publisher.seq, "publisher": self.publisher.name, "instance": self.publisher.instance,
                 "state": public_state(self.state()),
                 "recorded": self.store.last_seq_by_publisher()}
        self.snapshots.send_multipart([identity, msgspec.json.encode(reply)])

    @property
    def peers_refused(self) -> int:
        """Connections the snapshot server refused: without keys, with keys for another server, or with a key of
        no role."""
        if self._handshakes is None or self._authenticator is None:
            return 0
        return self._handshakes.count + self._authenticator.refused

    def close(self) -> None:
        self.subscriber.close()
        self.publisher.close()
        if self._handshakes is not None:
            self._handshakes.close()
        self.snapshots.close()
        if self._authenticator is not None:
            self._authenticator.stop()


def serve(engine: Engine) -> None:
    """Run until SIGTERM or SIGINT (the process's stop request, ``controller.shutdown.STOP``: one that came while
    the engine was starting stops it at once). Its sockets are closed on the way out; the store is the caller's,
    closed after the last batch committed (serve returns between batches)."""
    from .shutdown import STOP

    callback = STOP.on_stop(engine.stop)  # STOP's handler: installed by ``controller.cli.main``
    # What the imports and the replay leave lives as long as the process: frozen, no full pass of the garbage
    # collector scans it again (tens of thousands of objects, a pause of several ms between two live events).
    gc.collect()
    gc.freeze()
    started = time.monotonic()
    try:
        engine.run()
    finally:
        STOP.forget(callback)
        engine.close()
        log.info("engine: stopped after %.0f s%s", time.monotonic() - started,
                 f" on {STOP.describe()}" if STOP.requested else "")
