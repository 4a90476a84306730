"""The engine: events from the bus, recorded first, then played through the rules core.

Each batch of events is written to the store and committed before any of them
is acted on, so an event the engine has answered is never lost. On start the
engine replays the whole store through the same ``Referee``: the coup in
progress resumes exactly where it was.

The ``Referee`` turns observations (a card placed, chips changed, a button)
into rules operations. It is deterministic: its only inputs are the events and
the state, and its clock is the events' own monotonic timestamps.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import zmq

from .bus import BindError
from .bus.schema import (
    AnyBody,
    ButtonPressed,
    CameraStatus,
    CardExposed,
    CardIdentified,
    CardPlaced,
    CardsLifted,
    ChipsChanged,
    CoupSettled,
    CutCard,
    DealerOperation,
    Envelope,
    EvidenceSaved,
    FlagRaised,
    Heartbeat,
    JackpotMeter,
    Refused,
    ShoeCardDrawn,
    ShoeLink,
    ShoePresence,
    TableState,
)
from .bus.transport import Publisher, Subscriber
from .rules.cards import parse_card
from .rules.errors import CardError, HistoryError, RulesError
from .rules.flags import Flag
from .rules.history import format_time, parse_operation
from .rules.operations import (
    Box,
    DealBoughtCard,
    DealCard,
    EndCoup,
    EndDeal,
    ExposeCard,
    IdentifyCard,
    NoMoreBets,
    Operation,
    PaymentDone,
    PlaceBet,
    PlayerLooks,
    Raise,
    Settle,
    ShoeCount,
)
from .rules.profile import TableRules
from .rules.summary import settlement_data, table_summary
from .rules.table import Decision, Phase, Table
from .store import EventStore, NewEvent

log = logging.getLogger(__name__)

#: Topics the engine listens to.
INPUT_PREFIXES = ("vision.", "sensor.", "dealer.")


@dataclass
class Outcome:
    """What one event did to the table."""

    operation: Operation | None = None
    refused: str | None = None
    flags: list[Flag] = field(default_factory=list)
    #: why the coup, its dealer's hand shown, cannot be settled yet
    settlement_waits: str | None = None


@dataclass
class Devices:
    camera_online: bool | None = None
    shoe_connected: bool | None = None
    shoe_present: bool | None = None
    cut_card_seen: bool | None = None
    shoe_corrupt_frames: int = 0
    shoe_sequence_gaps: int = 0


class Referee:
    """Maps observations to rules operations and applies them to the table."""

    def __init__(self, rules: TableRules, jackpot_meter: int = 0) -> None:
        self.table = Table(rules)
        self.devices = Devices()
        self.jackpot_meter = jackpot_meter
        self._last_t = 0
        self._origin_ms: int | None = None

    def _clock(self, envelope: Envelope) -> int:
        """The table clock: ms of wall time since the first event, never going back.
        Wall time, not monotonic: the monotonic clock starts again at each boot, the recorded wall time does not."""
        wall_ms = envelope.wall_ns // 1_000_000
        if self._origin_ms is None:
            self._origin_ms = wall_ms
        self._last_t = max(self._last_t, wall_ms - self._origin_ms)
        return self._last_t

    def operation_for(self, envelope: Envelope) -> Operation | str | None:
        """The rules operation an event stands for; a string says why there is none."""
        body, table = envelope.body, self.table
        t = self._clock(envelope)
        match body:
            case ButtonPressed(button="no_more_bets"):
                return NoMoreBets(t)
            case ButtonPressed(button="end_of_deal"):
                return EndDeal(t)
            case ButtonPressed(button="payment_done"):
                due = table.payments_due()
                return PaymentDone(t, due[0]) if due else EndCoup(t)
            case CardPlaced(position=position, card=text, face_up=face_up):
                card = parse_card(text) if text else None
                seat = table.seats.get(position)
                if (table.phase is Phase.DECISIONS and seat is not None and seat.discard is not None
                        and not seat.bought_card_dealt):
                    return DealBoughtCard(t, position, card)
                return DealCard(t, position, card, face_up)
            case CardIdentified(position=position, index=index, card=text):
                return IdentifyCard(t, position, index, parse_card(text))
            case CardExposed(position=position, index=index):
                return ExposeCard(t, position, index)
            case CardsLifted(seat=seat):
                return PlayerLooks(t, seat)
            case ChipsChanged(seat=seat, box="raise", amount=amount):
                state = table.seats.get(seat)
                if table.phase is Phase.DECISIONS and state is not None and state.decision is None and amount:
                    return Raise(t, seat, amount)
                return "chips in the raise box are a raise only while the seat decides"
            case ChipsChanged(seat=seat, box=box, amount=amount):
                return PlaceBet(t, seat, Box(box), amount)
            case ShoeCardDrawn(count=count):
                return ShoeCount(t, count) if table.phase in (Phase.DEALING, Phase.DECISIONS,
                                                                Phase.SHOWDOWN) else "shoe count outside a deal"
            case DealerOperation(line=line):
                return parse_operation(f"{format_time(t)} {line}")
            case JackpotMeter(amount=amount):
                if amount < 0:
                    return f"a jackpot meter of {amount} cents"
                self.jackpot_meter = amount
            case CameraStatus(online=online):
                self.devices.camera_online = online
            case ShoeLink(connected=connected, corrupt_frames=corrupt, sequence_gaps=gaps):
                self.devices.shoe_connected = connected
                self.devices.shoe_corrupt_frames, self.devices.shoe_sequence_gaps = corrupt, gaps
            case ShoePresence(present=present):
                self.devices.shoe_present = present
            case CutCard(seen=seen):
                self.devices.cut_card_seen = seen
        return None

    def handle(self, envelope: Envelope) -> Outcome:
        try:
            return self._handle(envelope)
        except Exception as error:  # a bug must not stop the table: the event stays recorded, the refusal says why
            log.exception("engine: internal error on %s", envelope)
            return Outcome(refused=f"internal error: {type(error).__name__}: {error}")

    def _handle(self, envelope: Envelope) -> Outcome:
        try:
            operation = self.operation_for(envelope)
        except (CardError, HistoryError, ValueError) as error:
            return Outcome(refused=str(error))
        if operation is None:
            return Outcome()
        if isinstance(operation, str):
            return Outcome(refused=operation)
        flags_before = len(self.table.flags)
        try:
            self.table.apply(operation)
        except RulesError as error:
            return Outcome(operation, refused=str(error))
        # Once the dealer's hand is shown and every card needed is known, the coup is settled.
        settle = Settle(operation.t, self.jackpot_meter)
        if self.table.phase is Phase.SHOWDOWN:
            try:
                self.table.apply(settle)
                operation = settle
            except RulesError as error:
                return Outcome(operation, flags=self.table.flags[flags_before:], settlement_waits=str(error))
        return Outcome(operation, flags=self.table.flags[flags_before:])

    def state(self) -> dict[str, Any]:
        summary = table_summary(self.table)
        summary["devices"] = msgspec.to_builtins(self.devices)
        summary["raised_by"] = {str(n): s.decision.value for n, s in self.table.seats.items()
                                if s.decision is Decision.RAISE}
        return summary


def _encode_body(envelope: Envelope) -> str:
    return msgspec.json.encode(envelope.body).decode()


class Engine:
    """The engine process: subscriber → store → referee → publisher, plus the snapshot server."""

    def __init__(self, rules: TableRules, store: EventStore, context: zmq.Context, subscribe_endpoint: str,
                 publish_endpoint: str, snapshot_endpoint: str, name: str = "engine", jackpot_meter: int = 0) -> None:
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
            self.store.record_flag(event_id, ordinal, coup, flag.kind.value, flag.severity.name.lower(), flag.seat,
                                   flag.detail)
        settled = None
        if isinstance(outcome.operation, Settle) and outcome.refused is None and table.settlement:
            settled = settlement_data(table.settlement, table.rules.profile.language)
            self.store.record_coup(coup, self._coup_first_event.get(coup, event_id), event_id, table.coup.void,
                                   json.dumps(settled, ensure_ascii=False))
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
