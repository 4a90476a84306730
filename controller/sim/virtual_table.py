"""The virtual table: a timeline's steps (controller/sim/world.py) played on the running stack.

The camera is virtual at the level of its observations (``DirectVision``: cards placed, identified, lifted, chips
counted, camera status; any ``SceneDriver`` can take its place, the rendered camera among them); the dealer's
keypad entries go on ``dealer.keypad``; the buttons, the cut card and the shoe are the devices of
controller/sim/devices.py.

Observations and keypad entries go out through one publisher, in order; before a sensor acts, the table waits
until its own last message is back from the proxy, and after, until the sensor's event is on the bus: the engine
sees the events in the order they happened.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import zmq

from controller.bus.schema import (
    AnyBody,
    ButtonPressed,
    CameraStatus,
    CardIdentified,
    CardPlaced,
    ChipsChanged,
    CoupSettled,
    CutCard,
    DealerOperation,
    FlagRaised,
    Heartbeat,
    Refused,
    ShoeCardDrawn,
    TableState,
)
from controller.bus.transport import Publisher, Subscriber
from controller.engine import CAMERA_WAIT_S
from controller.keypad import confirming_line, offered
from controller.rules.cards import parse_card
from controller.rules.history import format_operation
from controller.rules.operations import DeclareVoid, IdentifyCard, Settle

from .camera import RenderedCamera
from .devices import WAIT_S, PtyShoe, Stop, Stopped, VirtualPins, never
from .pace import DealerPace
from .scene import SceneState
from .script import JACKPOT_METER_CENTS
from .world import (
    OBSERVED,
    ButtonPress,
    CameraDropout,
    CoupPlan,
    CutCardSensor,
    DirectVision,
    KeypadEntry,
    Pause,
    SceneChange,
    SceneDriver,
    SerialNoise,
    ShoeDraw,
    Step,
    observation_key,
)

#: how long the virtual table waits for the camera to see a change, and shows a change that shows nothing new
VISION_WAIT_S = 10.0
SCENE_HOLD_S = 0.4
#: a doubtful reading the table has not asked about after this long was settled by the camera's next one
DOUBT_SETTLES_S = 1.0
#: a zone still asked about this long after he keyed its amount is asked again (the camera read it unsure once more
#: after the engine took his amount): he keys it again
KEYED_SETTLES_S = 2.0
#: how long the table waits for the vision process's camera at its start (it calibrates, loads its models)
VISION_START_S = 60.0
#: how many times the dealer at a real pace presses a button the table refuses
PRESSES = 5
K = TypeVar("K")  # what a doubt is about: a zone (seat, box) or a card (position, index)


@dataclass
class Results:
    flags: Counter[str] = field(default_factory=Counter)
    settled: list[CoupSettled] = field(default_factory=list)
    #: seconds from a card landing (its observation sent) to its event back from the bus
    card_delays: list[float] = field(default_factory=list)
    #: seconds from a card leaving the shoe (its beam cleared) to the shoe's count on the bus
    shoe_delays: list[float] = field(default_factory=list)
    #: with the rendered camera: what a perfect camera would have published, against what the vision process did
    vision_expected: int = 0
    vision_matched: int = 0
    vision_misses: list[str] = field(default_factory=list)
    #: seconds from a scene change shown to the camera to the last of its observations on the bus
    vision_delays: list[float] = field(default_factory=list)
    #: coups the table chief had to declare void (the camera missed what the rules needed)
    voided_by_chief: list[int] = field(default_factory=list)
    #: the amounts the dealer keyed because the camera could not vouch for them: (coup, seat, zone, cents)
    confirmations: list[tuple[int, int, str, int]] = field(default_factory=list)
    #: for each of them, the digits he would key where the display offers the camera's reading and the likeliest
    #: amount but it to tap: 0 where the amount is one of those two (one tap), else its digits (``keyed_digits``)
    confirmation_digits: list[int] = field(default_factory=list)
    #: the stacks the dealer had spread for the camera (``stacked_bets = "spread"``): (coup, seat, zone)
    spreads: list[tuple[int, int, str]] = field(default_factory=list)
    #: the cards the dealer named because the camera could not tell them: (coup, position, index, card)
    card_confirmations: list[tuple[int, int, int, str]] = field(default_factory=list)

    @property
    def paid(self) -> int:
        return sum(int(line["net"]) for body in self.settled  # type: ignore[index,union-attr]
                   for line in body.settlement.get("payouts", []) if int(line["net"]) > 0)  # type: ignore


def _undecided(state: dict[str, Any]) -> list[int]:
    """The seats still to decide in a table state (none outside the decisions, or in a void coup)."""
    if state.get("phase") != "decisions" or state.get("coup_void"):
        return []
    return [int(number) for number, seat in (state.get("seats") or {}).items()
            if seat.get("in_play") and not seat.get("decision") and not seat.get("hand_void")]


def keyed_digits(cents: int) -> int:
    """The digits a dealer keys for an amount: whole euros without their cents (« 40 »), else every digit."""
    return len(str(cents // 100)) if cents % 100 == 0 else len(str(cents))


def _still_in_doubt(doubts: dict[K, float], asked: list[K], seconds: float = DOUBT_SETTLES_S) -> dict[K, float]:
    """The camera's doubts (key -> when it went out) the dealer is still to be asked about: a doubt is settled for
    him once the table asks about it, or, ``seconds`` on, still does not (the camera's next reading vouched first)."""
    now = time.monotonic()
    return {key: since for key, since in doubts.items() if key not in asked and now - since < seconds}


class VirtualTable:
    """Plays a timeline's steps on the running stack and reads what comes back on the bus."""

    def __init__(self, context: zmq.Context, folder: Path, shoe: PtyShoe, pins: VirtualPins,
                 pace_s: float = 0.0, dropout_scale: float = 1.0,
                 on_settled: Callable[[CoupSettled], None] | None = None, vision: SceneDriver | None = None,
                 stop: Stop = never, tick: Callable[[], None] | None = None,
                 dealer_pace: DealerPace | None = None, spreads_stacks: bool = False) -> None:
        """``stop``: polled wherever the table waits (``Stopped`` once it says so); ``tick``: called there too, for
        the progress lines. ``dealer_pace``: a dealer at a real table's pace, who never waits for the vision
        process (what it saw is counted at the coup's end); without it, he waits after every change on the felt
        until the vision process has published what a perfect camera would (for debugging the camera).
        ``spreads_stacks``: the house spreads stacked bets (``stacked_bets = "spread"``): a stack the display asks
        about, he has spread rather than key its amount."""
        self.shoe, self.pins = shoe, pins
        self.stop, self.tick = stop, tick
        self.pace_s, self.dropout_scale = pace_s, dropout_scale
        self.dealer_pace = dealer_pace
        #: at a real pace: what a perfect camera would have published since the coup's start, and where the vision
        #: process's observations of the coup start
        self._coup_wanted: Counter[tuple[object, ...]] = Counter()
        self._coup_seen_from = 0
        #: the engine's refusals of a button press so far, and whether the vision process says its camera is online
        self._button_refusals = 0
        self._vision_online = False
        self.on_settled = on_settled
        self.publisher = Publisher(context, f"ipc://{folder}/run/pub.sock", "virtual-table",
                                   heartbeat_topic="vision.heartbeat", acknowledged_at=f"ipc://{folder}/run/sub.sock")
        self.bus = Subscriber(context, f"ipc://{folder}/run/sub.sock", ("vision.", "sensor.", "dealer.", "core."))
        self.vision = vision or DirectVision()
        self.results = Results()
        self._own_seq_seen = 0
        self._sent_cards: dict[int, float] = {}
        self._sensors: Counter[object] = Counter()
        self._shoe_count = -1
        self._dropout_until = 0.0
        self._publishers: set[str] = set()
        self._vision_seen: list[AnyBody] = []
        self.last_refusal = ""
        self.coup_number = 0
        self.state_seen = False
        self._camera_awaited = False  # the table holds a press until the camera has caught up with it
        self.phase = ""
        self.waiting_for = ""
        self.scene = SceneState()
        #: the coup's cards as laid, (position, index) -> card: the dealer knows a card he has gathered already
        self._cards_laid: dict[tuple[int, int], str] = {}
        #: the zones the table last asked the dealer to confirm (zone -> the amount read there), and the camera's
        #: doubtful readings the table has not yet been seen to ask about (zone -> when the doubt went out)
        self._to_confirm: dict[tuple[int, str], int] = {}
        self._offered: dict[tuple[int, str], set[int]] = {}
        #: the zones the display asks spread, and those the dealer had spread (until emptied)
        self._to_spread: set[tuple[int, str]] = set()
        self._spread_zones: set[tuple[int, str]] = set()
        self.spreads_stacks = spreads_stacks
        self._doubts: dict[tuple[int, str], float] = {}
        #: the zones whose ante he corrected in this coup: the table doubts the camera's readings of them from then
        #: on, as the camera's own doubtful ones, and so does he
        self._misread: set[tuple[int, str]] = set()
        #: the amounts he keyed for zones still asked about, and when (the engine may not have read them yet), and
        #: whether he is done paying the seat: while paying he keys a zone's amount only once his chips lie there
        self._keyed: dict[tuple[int, str], tuple[int, float]] = {}
        self._seat_paid = False
        #: zones the camera has just read surely (zone -> when): the display drops its question about them once the
        #: engine has read that, which the dealer sees before he keys anything; a question still up a second on (the
        #: rules held the reading) he answers
        self._vouched: dict[tuple[int, str], float] = {}
        #: the same for cards: (position, index) the table asked about, and the camera's doubtful cards
        self._cards_to_confirm: list[tuple[int, int]] = []
        self._card_doubts: dict[tuple[int, int], float] = {}
        #: the seats the table's last state shows deciding
        self._undecided: list[int] = []

    # -- reading the bus
    def _absorb(self, timeout_ms: int) -> None:
        if self.stop():
            raise Stopped
        if self.tick:
            self.tick()
        if self._vouched and time.monotonic() - min(self._vouched.values()) >= DOUBT_SETTLES_S:
            self._answer()  # a question a sure reading did not settle (the rules doubted it): the dealer answers
        message = self.bus.receive(timeout_ms)
        if message is None:
            return
        _topic, envelope = message
        body = envelope.body
        self._publishers.add(envelope.publisher)
        if envelope.publisher == self.publisher.name:
            self._own_seq_seen = max(self._own_seq_seen, envelope.seq)
            sent = self._sent_cards.pop(envelope.seq, None)
            if sent is not None:
                self.results.card_delays.append(time.perf_counter() - sent)
        elif isinstance(body, ButtonPressed):
            self._sensors["button", body.button] += 1
        elif isinstance(body, CutCard):
            self._sensors["cut_card", body.seen] += 1
        elif isinstance(body, ShoeCardDrawn):
            self._shoe_count = body.count
        elif isinstance(body, FlagRaised):
            self.results.flags[body.kind] += 1
        elif isinstance(body, Refused):
            self.last_refusal = body.reason
            self._button_refusals += body.event == "ButtonPressed"
        elif isinstance(body, CameraStatus) and envelope.publisher == "vision":
            self._vision_online = body.online
        elif isinstance(body, TableState):
            coup = body.state.get("coup")
            if isinstance(coup, int) and coup != self.coup_number:
                self.coup_number, self._misread, self._cards_laid = coup, set(), {}
            self.phase = str(body.state.get("phase") or "")
            self._undecided = _undecided(body.state)
            self._camera_awaited = bool(body.state.get("awaiting_camera"))
            self.state_seen = True
            self._confirm(body.state.get("to_confirm") or [])
            self._confirm_cards(body.state.get("cards_to_confirm") or [])
        elif isinstance(body, CoupSettled):
            self.results.settled.append(body)
            if self.on_settled:
                self.on_settled(body)
        if envelope.publisher == "vision" and isinstance(body, OBSERVED):
            self._vision_seen.append(body)
            self._note_doubt(body)

    def _note_doubt(self, body: AnyBody) -> None:
        misread = isinstance(body, ChipsChanged) and body.amount and (body.seat, body.box) in self._misread
        if isinstance(body, ChipsChanged) and (not body.sure or misread):
            self._doubts[body.seat, body.box] = time.monotonic()
            self._vouched.pop((body.seat, body.box), None)
        elif isinstance(body, ChipsChanged):
            self._vouched[body.seat, body.box] = time.monotonic()
        if isinstance(body, CardIdentified) and not body.sure:
            self._card_doubts[body.position, body.index] = time.monotonic()

    def _confirm(self, to_confirm: list[dict[str, object]]) -> None:
        """The dealer answers each zone the table asks him to confirm with the chips that lie there (the scene's
        truth), keyed as the operation of the phase; while paying, once he has paid the seat (at his press of
        « paiement terminé »), so that he keys what he paid."""
        asked = {(int(entry["seat"]), str(entry["box"])): int(entry["amount"])  # type: ignore[call-overload]
                 for entry in to_confirm}
        self._offered = {(int(entry["seat"]), str(entry["box"])):  # type: ignore[call-overload]
                         offered(entry, self.phase) for entry in to_confirm}
        # where the house spreads stacked bets, the display asks a stack spread (not while paying)
        self._to_spread = {(int(entry["seat"]), str(entry["box"])) for entry in to_confirm  # type: ignore[call-overload]
                           if self.spreads_stacks and entry.get("stacked") and self.phase != "paying"}
        self._doubts = _still_in_doubt(self._doubts, list(asked))
        self._to_confirm = asked
        self._keyed = {zone: keyed for zone, keyed in self._keyed.items() if zone in asked}
        self._answer()

    def _answer(self) -> None:
        self._vouched = _still_in_doubt(self._vouched, [])
        if self.phase == "paying" and not self._seat_paid:
            return
        for seat, zone in self._to_confirm:
            if (seat, zone) in self._to_spread:
                self._spread(seat, zone)
                continue
            amount = sum(next((s.chips for s in self.scene.chips if (s.seat, s.box) == (seat, zone)), ()))
            keyed, keyed_at = self._keyed.get((seat, zone), (None, 0.0))
            if (keyed == amount and time.monotonic() - keyed_at < KEYED_SETTLES_S) or (seat, zone) in self._vouched:
                continue  # keyed already, or read surely since: the engine has not read that yet
            line = confirming_line(self.phase, seat, zone, amount)
            if zone == "ante" and self.phase == "decisions" and (seat, "raise") in self._to_confirm:
                # the ante asked with the raise while the seat decides: his raise was refused on it, and is keyed
                # again after it; where he counts other than the camera read, the table doubts its readings of it
                self._keyed.pop((seat, "raise"), None)
                if amount != self._to_confirm[seat, zone]:
                    self._misread.add((seat, zone))
            self.publisher.publish("dealer.keypad", DealerOperation(line))
            self.results.confirmations.append((self.coup_number, seat, zone, amount))
            self.results.confirmation_digits.append(
                0 if amount in self._offered.get((seat, zone), set()) else keyed_digits(amount))
            self._keyed[seat, zone] = (amount, time.monotonic())

    def _confirm_cards(self, to_confirm: list[dict[str, object]]) -> None:
        """The dealer names each card the table asks about: the card laid there (the scene's truth), on the felt
        still or gathered already."""
        asked = [(int(entry["position"]), int(entry["index"])) for entry in to_confirm]  # type: ignore[call-overload]
        self._card_doubts = _still_in_doubt(self._card_doubts, asked)
        for position, index in asked:
            if (position, index) in self._cards_to_confirm:
                continue
            card = self._cards_laid.get((position, index))
            if card is None:
                continue  # never laid: nothing to name (the settlement's wait says what is missing)
            line = format_operation(IdentifyCard(0, position, index, parse_card(card))).split(" ", 1)[1]
            self.publisher.publish("dealer.keypad", DealerOperation(line))
            self.results.card_confirmations.append((self.coup_number, position, index, card))
        self._cards_to_confirm = asked

    def _answered_all(self) -> bool:
        """The dealer looks at the display until it asks him nothing more, answering what it still asks."""
        self._answer()
        return self._confirmations_done()

    def _confirmations_done(self) -> bool:
        # a doubt the table never asked about, seconds on, it settled without a state
        self._doubts = _still_in_doubt(self._doubts, [], 3 * DOUBT_SETTLES_S)
        self._card_doubts = _still_in_doubt(self._card_doubts, [], 3 * DOUBT_SETTLES_S)
        return not self._doubts and not self._to_confirm and not self._card_doubts and not self._cards_to_confirm

    def _wait(self, condition: Callable[[], bool], what: str, seconds: float = WAIT_S) -> None:
        deadline = time.monotonic() + seconds
        self.waiting_for = what
        while not condition():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the virtual table waited {seconds:.0f} s for {what}")
            self._absorb(50)
        self.waiting_for = ""

    def pause(self, seconds: float) -> None:
        """The pace between two events, reading the bus meanwhile."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self._absorb(max(1, int(min(left, 0.05) * 1000)))

    def wait_ready(self) -> None:
        """Until the sensors process publishes (its heartbeat) and has opened the shoe's port (its status request
        on connection), and our own messages come back."""
        self._wait(lambda: any(name.startswith("sensors-") for name in self._publishers), "the sensors process")
        self._wait(lambda: self.shoe.status_requests > 0, "the sensors process to open the shoe's port")
        if isinstance(self.vision, RenderedCamera):  # the vision process says how its camera is: a beat to flush
            self.publisher.publish("vision.heartbeat", Heartbeat(0))
        else:
            self.publisher.publish("vision.camera", CameraStatus(True, "virtual camera"))
        self._flush()
        if self.dealer_pace is not None and isinstance(self.vision, RenderedCamera):
            # the table is opened once its camera reads the felt, as a dealer starts once the table is up
            self._wait(lambda: self._vision_online, "the vision process's camera", seconds=VISION_START_S)

    def _flush(self) -> None:
        seq = self.publisher.seq
        self._wait(lambda: self._own_seq_seen >= seq, "our own messages back from the proxy")

    def _sensor(self, key: object, act: Callable[[], None], what: str) -> None:
        self._flush()
        before = self._sensors[key]
        act()
        self._wait(lambda: self._sensors[key] > before, what)

    # -- playing
    def play(self, steps: list[Step]) -> None:
        for step in steps:
            self.step(step)

    def step(self, step: Step) -> None:
        match step:
            case SceneChange(scene=scene, gesture=gesture):
                self._show(self._spread_out(scene))
                if isinstance(self.vision, RenderedCamera) and self.dealer_pace is None:
                    self._watch_camera(self.vision)
                elif isinstance(self.vision, RenderedCamera):
                    self._coup_wanted += Counter(observation_key(body) for _topic, body in self.vision.expected
                                                 if isinstance(body, OBSERVED))
                if self.dealer_pace is not None:
                    self.pause(self.dealer_pace.seconds(gesture))
                elif self.pace_s:
                    self.pause(self.pace_s)
            case KeypadEntry(line=line):
                if line.split(" ", 1)[0] == "show-dealer":
                    # he shows his hand once the display shows every decision taken: a raise it asks about is not
                    with contextlib.suppress(RuntimeError):
                        self._wait(lambda: self.phase == "decisions" and not self._undecided and self._answered_all(),
                                   "every seat's decision")
                self.publisher.publish("dealer.keypad", DealerOperation(line))
            case ButtonPress(button=button):
                # The dealer presses once the display asks him nothing more (the camera's doubts answered); an answer
                # the table refused leaves the question up, and he presses anyway: the refusal shows why.
                self._seat_paid = button == "payment_done"
                with contextlib.suppress(RuntimeError):
                    self._wait(self._answered_all, "the dealer's confirmations")
                self._seat_paid = False
                resets = self.shoe.resets
                self._press(button)
                if button == "no_more_bets":  # the sensors process resets the shoe's count for the new coup
                    self._wait(lambda: self.shoe.resets > resets, "the shoe's count reset")
            case CutCardSensor(seen=seen):
                self._sensor(("cut_card", seen), lambda: self.pins.act("cut_card", "on" if seen else "off"),
                             "the cut card's event")
            case ShoeDraw(count=count):
                drawn = time.perf_counter()  # the firmware's frame goes out within draw(): counted in
                self.shoe.draw()
                self._wait(lambda: self._shoe_count == count, f"the shoe's card {count}")
                self.results.shoe_delays.append(time.perf_counter() - drawn)
            case CameraDropout(online=False, seconds=seconds):
                self._dropout_until = time.monotonic() + seconds * self.dropout_scale
            case CameraDropout(online=True):
                while time.monotonic() < self._dropout_until:
                    self._absorb(20)
            case SerialNoise(data=data):
                self.shoe.noise(data)
            case Pause(seconds=seconds):
                self.pause(seconds)

    def _show(self, scene: SceneState) -> None:
        """The felt as ``scene`` shows it, to the camera: what it sees goes on the bus."""
        self.scene = scene
        self._cards_laid.update({(card.position, card.index): card.card for card in scene.cards})
        for topic, body in self.vision.see(scene):
            self.publisher.publish(topic, body)
            self._note_doubt(body)
            if isinstance(body, CardPlaced):
                self._sent_cards[self.publisher.seq] = time.perf_counter()
        if self._sent_cards:  # read it back at once: its delay is then the bus's, not our next step's
            self._flush()

    def _spread_out(self, scene: SceneState) -> SceneState:
        """``scene`` with the stacks the dealer had spread in this coup still spread (a zone emptied forgets it)."""
        held = {(stack.seat, stack.box) for stack in scene.chips}
        self._spread_zones &= held
        for stack in scene.chips:
            if stack.stacked and (stack.seat, stack.box) in self._spread_zones:
                scene = scene.with_chips(stack.seat, stack.box, stack.chips, stacked=False)
        return scene

    def _spread(self, seat: int, zone: str) -> None:
        """The dealer has the player spread the stack in ``zone`` for the camera (the house rule
        ``stacked_bets = "spread"``): no amount keyed, the camera reads the pile."""
        if (seat, zone) in self._spread_zones:
            return  # spread already: the camera has it to read
        self._spread_zones.add((seat, zone))
        self.results.spreads.append((self.coup_number, seat, zone))
        self._show(self._spread_out(self.scene))

    def _press(self, button: str) -> None:
        """The dealer presses ``button``. At a real pace he reads the display's answer: a press refused (the camera
        not having seen the bets yet, an amount still to confirm) he makes again once he has answered what the display
        asks, as a dealer would, a few times."""
        for _attempt in range(PRESSES if self.dealer_pace is not None else 1):
            refused, self.state_seen = self._button_refusals, False
            self._sensor(("button", button), lambda: self.pins.act(button, "press"), f"the {button} button's event")
            if self.dealer_pace is None:
                return
            with contextlib.suppress(RuntimeError):  # the answer comes once the camera has caught up with the press
                self._wait(lambda: self.state_seen and not self._camera_awaited, "the table's answer to the press",
                           seconds=CAMERA_WAIT_S + 1.0)
            if self._button_refusals == refused:
                return
            # refused: he reads why on the display, answers what it asks (an amount to confirm, what he paid), and
            # presses again
            self._seat_paid = button == "payment_done"
            with contextlib.suppress(RuntimeError):
                self._wait(self._answered_all, "the dealer's confirmations", seconds=CAMERA_WAIT_S)
            self._seat_paid = False
            self.pause(self.dealer_pace.seconds("change"))

    def _watch_camera(self, camera: RenderedCamera) -> None:
        """Until the vision process has published what a perfect camera would for this scene change (or a while
        has passed: what it missed is counted, and the table goes on as a dealer would)."""
        wanted = Counter(observation_key(body) for _topic, body in camera.expected if isinstance(body, OBSERVED))
        shown = time.perf_counter()
        deadline = time.monotonic() + (VISION_WAIT_S if wanted else SCENE_HOLD_S)
        start = len(self._vision_seen)

        def got() -> Counter[tuple[object, ...]]:
            return Counter(observation_key(body) for body in self._vision_seen[start:])

        self.waiting_for = "the vision process to see the change"
        while time.monotonic() < deadline and not wanted <= got():
            self._absorb(20)
        self.waiting_for = ""
        seen = got()
        if wanted and wanted <= seen:
            self.results.vision_delays.append(time.perf_counter() - shown)
        self._tally(wanted, seen)

    def _tally(self, wanted: Counter[tuple[object, ...]], seen: Counter[tuple[object, ...]]) -> None:
        """What the vision process published (``seen``) of what a perfect camera would have (``wanted``)."""
        self.results.vision_expected += wanted.total()
        self.results.vision_matched += (wanted & seen).total()
        self.results.vision_misses += [f"missed {key}" for key in (wanted - seen).elements()]
        self.results.vision_misses += [f"extra {key}" for key in (seen - wanted).elements()]

    def _count_coup_observations(self) -> None:
        """At a real pace, at the coup's end: what the vision process published of what a perfect camera would
        have, over the whole coup (a few seconds granted for the last change to be read)."""
        wanted = self._coup_wanted

        def seen() -> Counter[tuple[object, ...]]:
            return Counter(observation_key(body) for body in self._vision_seen[self._coup_seen_from:])

        deadline = time.monotonic() + VISION_WAIT_S
        while wanted and time.monotonic() < deadline and not wanted <= seen():
            self._absorb(20)
        self._tally(wanted, seen())
        self._coup_wanted, self._coup_seen_from = Counter(), len(self._vision_seen)

    def finish_coup(self, plan: CoupPlan, recover: bool = False) -> None:
        """Until the coup is settled. With ``recover`` (a real camera may miss things), a coup that does not settle
        is handled as a table chief would: declared void, settled (every stake returned) and paid, and play goes on.
        """
        self._spread_zones = set()  # the next coup's stacks are the players' own again
        settled = lambda: any(s.coup == plan.number for s in self.results.settled)  # noqa: E731
        try:
            self._wait(settled, f"coup {plan.number}'s payouts")
        except RuntimeError:
            if not recover:
                raise
            print(f"coup {plan.number} did not settle ({self.last_refusal or 'no reason given'}): the table chief "
                  f"declares it void", flush=True)
            self.results.voided_by_chief.append(plan.number)
            for op in (DeclareVoid(0, "the camera did not see the whole coup"), Settle(0, JACKPOT_METER_CENTS)):
                self.publisher.publish("dealer.keypad", DealerOperation(format_operation(op).split(" ", 1)[1]))
            self._wait(settled, f"coup {plan.number}'s payouts once void")
            for _ in range(8):  # one press per seat paid, then the end of the coup
                if self.coup_number > plan.number:
                    break
                self.state_seen = False
                self._sensor(("button", "payment_done"), lambda: self.pins.act("payment_done", "press"),
                             "the payment_done button's event")
                self._wait(lambda: self.state_seen, "the table's state after the press")
        self._flush()
        if self.dealer_pace is not None and isinstance(self.vision, RenderedCamera):
            self._count_coup_observations()

    def close(self) -> None:
        self.publisher.close()
        self.bus.close()
