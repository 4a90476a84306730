"""The engine: events from the bus, recorded first, then played through the rules core.

Each batch of events is written to the store and committed before any of them
is acted on, so an event the engine has answered is never lost. On start the
engine replays the whole store through the same ``Referee``: the coup in
progress resumes exactly where it was (``controller.referee`` turns the
observations into rules operations).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import msgspec
import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .bus import BindError
from .bus.schema import (
    AnyBody,
    CoupSettled,
    Envelope,
    EvidenceSaved,
    FlagRaised,
    Heartbeat,
    Refused,
    TableState,
)
from .bus.transport import Publisher, Subscriber
from .heads import DerivedDigest, sign_head
from .referee import Outcome, Referee
from .rules.operations import EndCoup, Settle
from .rules.profile import TableRules
from .rules.summary import settlement_data
from .store import EventStore, NewEvent

log = logging.getLogger(__name__)

#: Topics the engine listens to.
INPUT_PREFIXES = ("vision.", "sensor.", "dealer.")


def _encode_body(envelope: Envelope) -> str:
    return msgspec.json.encode(envelope.body).decode()


class Engine:
    """The engine process: subscriber → store → referee → publisher, plus the snapshot server."""

    def __init__(self, rules: TableRules, store: EventStore, context: zmq.Context, subscribe_endpoint: str,
                 publish_endpoint: str, snapshot_endpoint: str, name: str = "engine", jackpot_meter: int = 0,
                 signing: tuple[str, Ed25519PrivateKey] | None = None) -> None:
        """``signing``: (the table's id, its key): each coup's end is signed as a head of the log
        (``controller.heads``); None signs nothing."""
        # The meter is set before the replay: the recorded coups settle again exactly as they did.
        self.referee = Referee(rules, jackpot_meter)
        self.store = store
        self.subscriber = Subscriber(context, subscribe_endpoint, INPUT_PREFIXES)
        self.publisher = Publisher(context, publish_endpoint, name, heartbeat_topic="core.heartbeat")
        self.snapshots = context.socket(zmq.ROUTER)
        self.snapshots.setsockopt(zmq.LINGER, 0)
        try:
            self.snapshots.bind(snapshot_endpoint)
        except zmq.ZMQError as error:
            self.subscriber.close()
            self.publisher.close()
            self.snapshots.close()
            raise BindError(snapshot_endpoint, "bus.snapshot", zmq.strerror(error.errno)) from error
        self._stop = threading.Event()
        self._signing = signing
        self._derived = DerivedDigest()  # what the heads vouch for beside the chain: the flags and coups recorded
        #: the last coup end the replay met, (coup, record, derived digest): signed after the replay if the store
        #: holds no head for it (the engine stopped between the two)
        self._replayed_end: tuple[int, int, str] | None = None
        self._coup_first_event: dict[int, int] = {}
        #: the last recorded event the table has acted on
        self.acted_id = 0
        self.replay_store()

    # --- recovery -------------------------------------------------------------

    def replay_store(self) -> None:
        """Rebuild the table from every recorded event (and the review indexes with it)."""
        count = 0
        for stored in self.store.events():
            try:
                body = msgspec.json.decode(stored.body, type=AnyBody)
            except msgspec.DecodeError as error:
                log.error("engine: recorded event %d cannot be read (%s); skipped", stored.id, error)
                continue
            self._act(stored.id, Envelope(stored.publisher, stored.seq, stored.mono_ns, stored.wall_ns, body),
                      publish=False)
            count += 1
        if count:
            log.info("engine: replayed %d recorded events; coup %d, phase %s", count,
                     self.referee.table.coup.number, self.referee.table.phase.value)
        # Only the last coup end may lack its head (the engine stopped before writing it): the replay never signs
        # an earlier one, so it never vouches for a history rewritten, or its heads deleted, behind its back.
        if self._replayed_end is not None and self._replayed_end[1] > self.store.last_head_event():
            self._sign_head(*self._replayed_end)

    def _sign_head(self, coup: int, event_id: int, derived: str) -> None:
        assert self._signing is not None
        table_id, key = self._signing
        sign_head(self.store, table_id, coup, event_id, derived, key)

    # --- the loop -------------------------------------------------------------

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        self.publish_state()
        while not self._stop.is_set():
            # The subscriber's socket changes when it reconnects: poll the current one.
            poller = zmq.Poller()
            listening = self.subscriber.socket
            poller.register(listening, zmq.POLLIN)
            poller.register(self.snapshots, zmq.POLLIN)
            while not self._stop.is_set() and listening is self.subscriber.socket:
                ready = dict(poller.poll(100))
                if self.snapshots in ready:
                    self.answer_snapshot()
                if listening in ready:
                    self.process_batch()
                else:
                    self.subscriber.check_peers()

    def process_batch(self, limit: int = 512) -> int:
        batch: list[tuple[str, Envelope]] = []
        while len(batch) < limit:
            message = self.subscriber.receive(0)
            if message is None:
                break
            if not isinstance(message[1].body, Heartbeat):
                batch.append(message)
        if not batch:
            return 0
        ids = self.store.append([NewEvent(topic, env.publisher, env.seq, env.mono_ns, env.wall_ns,
                                          _encode_body(env)) for topic, env in batch])
        acted = False
        for (_topic, envelope), event_id in zip(batch, ids, strict=True):
            if event_id is not None:  # None: a resend of an event already recorded
                self._act(event_id, envelope, publish=True)
                acted = True
        if acted:
            self.publish_state()  # once per batch: the state is a snapshot, the latest one is what counts
        return len(batch)

    def _act(self, event_id: int, envelope: Envelope, publish: bool) -> Outcome:
        if isinstance(envelope.body, EvidenceSaved):
            outcome = self._link_evidence(envelope.body, publish)
            self.acted_id = event_id
            return outcome
        table = self.referee.table
        coup = table.coup.number
        outcome = self.referee.handle(envelope)
        if outcome.operation is not None and outcome.refused is None:
            self._coup_first_event.setdefault(coup, event_id)
        for ordinal, flag in enumerate(outcome.flags):
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
        if isinstance(outcome.operation, EndCoup) and outcome.refused is None and self._signing is not None:
            if publish:
                self._sign_head(coup, event_id, self._derived.hexdigest())  # its flags recorded above
            else:
                self._replayed_end = (coup, event_id, self._derived.hexdigest())
        if outcome.refused:
            log.warning("engine: event %d (%s) refused: %s", event_id, type(envelope.body).__name__,
                        outcome.refused)
        if publish:
            if outcome.refused:
                self.publisher.publish("core.refused", Refused(type(envelope.body).__name__, outcome.refused))
            if outcome.settlement_waits:
                self.publisher.publish("core.refused", Refused("Settle", outcome.settlement_waits))
            for flag in outcome.flags:
                self.publisher.publish("core.flag", FlagRaised(coup, flag.kind.value, flag.severity.name.lower(),
                                                               flag.seat, flag.detail, event_id))
            if settled is not None:
                self.publisher.publish("core.payouts", CoupSettled(coup, settled))
        self.acted_id = event_id  # last: its flags and coup recorded, its messages out
        return outcome

    def _link_evidence(self, saved: EvidenceSaved, publish: bool) -> Outcome:
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
            if publish:
                log.warning("engine: %s", reason)
                self.publisher.publish("core.refused", Refused("EvidenceSaved", reason))
            return Outcome(refused=reason)
        self.store.link_evidence(saved.sha256, saved.event_id, path.name, saved.media_type)
        return Outcome()

    def publish_state(self) -> None:
        self.publisher.publish("core.state", TableState(self.state()))

    def state(self) -> dict[str, Any]:
        state = self.referee.state()
        state["recorded_events"] = self.acted_id
        return state

    def answer_snapshot(self) -> None:
        """The Clone pattern: the state now, and the sequence number it stands at."""
        identity, *_request = self.snapshots.recv_multipart()
        reply = {"seq": self.publisher.seq, "publisher": self.publisher.name, "instance": self.publisher.instance,
                 "state": self.state(),
                 "recorded": self.store.last_seq_by_publisher()}
        self.snapshots.send_multipart([identity, msgspec.json.encode(reply)])

    def close(self) -> None:
        self.subscriber.close()
        self.publisher.close()
        self.snapshots.close()


def serve(engine: Engine) -> None:
    """Run until SIGTERM or SIGINT (the process's stop request, ``controller.shutdown.STOP``: one that came while
    the engine was starting stops it at once). Its sockets are closed on the way out; the store is the caller's,
    closed after the last batch committed (each batch is committed before it is acted on)."""
    from .shutdown import STOP

    callback = STOP.on_stop(engine.stop)  # STOP's handler: installed by ``controller.cli.main``
    started = time.monotonic()
    try:
        engine.run()
    finally:
        STOP.forget(callback)
        engine.close()
        log.info("engine: stopped after %.0f s%s", time.monotonic() - started,
                 f" on {STOP.describe()}" if STOP.requested else "")
