"""Every message on the bus, defined once.

A message is two ZeroMQ frames: the topic (``vision.card``, ``sensor.button``...)
and an ``Envelope`` encoded as JSON with msgspec. The envelope carries the
publisher's name, its own sequence number (1, 2, 3... per publisher), a
monotonic and a wall-clock timestamp, and a body whose ``type`` tag says which
struct it is. Decoding is strict: a wrong type, a missing field or an unknown
tag is refused with msgspec's message, which names the field.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from ..errors import StudTableError

#: Messages larger than this are refused unread.
MAX_MESSAGE_BYTES = 64 * 1024


class Body(msgspec.Struct, tag_field="type", forbid_unknown_fields=True):
    pass


# --- vision.* : what the camera saw -------------------------------------------


class CardPlaced(Body, tag="card_placed"):
    position: int  # seat 1..7, 0 for the dealer
    card: str | None  # "As", or None when not yet identified
    face_up: bool
    order: int = 0  # order of arrival in the coup, from the tracker


class CardIdentified(Body, tag="card_identified"):
    position: int
    index: int
    card: str
    #: False when the camera cannot vouch for ``card`` (its frames disagree on it): the engine takes the card as
    #: still unknown and asks the dealer which it is
    sure: bool = True


class CardExposed(Body, tag="card_exposed"):
    position: int
    index: int


class CardsLifted(Body, tag="cards_lifted"):
    """A player lifted his cards to look at them."""

    seat: int


class ChipsChanged(Body, tag="chips_changed"):
    seat: int
    box: Literal["ante", "raise", "bonus", "jackpot"]
    amount: int  # cents
    #: False when the camera cannot vouch for the amount (too many chips to count, a doubtful count): the engine
    #: asks the dealer to confirm it
    sure: bool = True
    #: the amount is only a lower bound: a pile too tall to count (the dealer is asked « au moins … »)
    at_least: bool = False
    #: read unsure: the likeliest amount but ``amount`` (cents; 0 for none), offered to the dealer beside it
    alternative: int = 0
    #: read as a casino stack: where the house spreads stacked bets, the dealer has one he is asked about spread
    stacked: bool = False


class CameraStatus(Body, tag="camera_status"):
    online: bool
    detail: str = ""
    #: the camera was knocked: how far (median, pixels) the felt's markers moved from where they were when it was
    #: calibrated; the vision process has recalibrated on them
    moved_px: float = 0.0
    #: the vision process answers the engine's wait on a button (``CameraCaughtUp``): the engine holds a press
    #: until the camera has read the frames up to it; a camera that does not answer is never waited for
    answers_waits: bool = False


class CameraCaughtUp(Body, tag="camera_caught_up"):
    """The camera has read, and reported, every change on the felt that began before the button press named
    (``publisher``, ``seq``) reached it: the engine may now play the press after them."""

    publisher: str
    seq: int


class CardRemoved(Body, tag="card_removed"):
    """A card taken off the felt after the deal (a discard before a bought card, or the cards picked up)."""

    position: int
    index: int


class EvidenceSaved(Body, tag="evidence_saved"):
    """An evidence image written to the evidence folder (named by its SHA-256), for the flag raised by event
    ``event_id``."""

    sha256: str
    file: str
    media_type: str
    event_id: int
    detail: str = ""


# --- sensor.* : GPIO and the shoe -----------------------------------------------


class ButtonPressed(Body, tag="button_pressed"):
    button: Literal["no_more_bets", "end_of_deal", "payment_done"]


class CutCard(Body, tag="cut_card"):
    seen: bool


class ShoePresence(Body, tag="shoe_presence"):
    present: bool


class ShoeCardDrawn(Body, tag="shoe_card_drawn"):
    count: int


class ShoeLink(Body, tag="shoe_link"):
    """The shoe's serial link: sent when it connects or drops, when it turns noisy (corrupt frames or sequence
    gaps) and when it is clean again; the counts are since the sensors process started."""

    connected: bool
    corrupt_frames: int = 0
    sequence_gaps: int = 0
    detail: str = ""
    noisy: bool = False


class SensorFlood(Body, tag="sensor_flood"):
    """A kind of device event (``button:no_more_bets``, ``shoe:card_drawn``...) came faster than any dealer makes
    it: sent when its events start being dropped, and when it calms down with how many were."""

    kind: str
    flooding: bool
    dropped: int = 0


# --- dealer.* : actions the dealer or the table chief enters --------------------


class DealerOperation(Body, tag="dealer_operation"):
    """One rules operation in the history's text form (``fold seat=3``), without its time."""

    line: str


class JackpotMeter(Body, tag="jackpot_meter"):
    """The progressive meter's value, from the jackpot controller (or the floor)."""

    amount: int  # cents


# --- core.* : what the engine decided ------------------------------------------


class CameraWaitOver(Body, tag="camera_wait_over"):
    """Recorded by the engine, never sent by another process: the press named waited ``engine.CAMERA_WAIT_S``
    for the camera to catch up with it, and is played now without it."""

    publisher: str
    seq: int



class TableState(Body, tag="table_state"):
    state: dict[str, object]


class FlagRaised(Body, tag="flag_raised"):
    coup: int
    kind: str
    severity: str
    seat: int | None
    detail: str
    #: the recorded event that raised it (its evidence is filed under this id)
    event_id: int = 0


class CoupSettled(Body, tag="coup_settled"):
    """A coup's payouts, in paying order, as the croupier pays them."""

    coup: int
    settlement: dict[str, object]


class Refused(Body, tag="refused"):
    event: str
    reason: str


class Acknowledged(Body, tag="acknowledged"):
    """The engine's word to one producer (``controller.bus.outbox``): its events are recorded up to ``seq``, of the
    run ``instance``; ``gap``: one that came was not the next, so resend what follows ``seq`` now."""

    publisher: str
    instance: str
    seq: int
    gap: bool = False


# --- any prefix ---------------------------------------------------------------------


class Heartbeat(Body, tag="heartbeat"):
    interval_ms: int


AnyBody = (
    CardPlaced | CardIdentified | CardExposed | CardsLifted | ChipsChanged | CameraStatus | CameraCaughtUp | CardRemoved
    | EvidenceSaved | CameraWaitOver
    | ButtonPressed | CutCard | ShoePresence | ShoeCardDrawn | ShoeLink | SensorFlood
    | DealerOperation | JackpotMeter | TableState | FlagRaised | CoupSettled | Refused | Acknowledged | Heartbeat
)


#: the store keeps these in SQLite INTEGER columns (64-bit signed): a larger number is refused here, not by the store
StoredInt = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]


class Envelope(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    publisher: str
    seq: StoredInt
    mono_ns: StoredInt
    wall_ns: StoredInt
    body: AnyBody
    #: a new value each time the publisher's process starts: its numbering starts again
    instance: str = ""
    #: the sequence number of this instance's previous message kept in its outbox (0: none), when the publisher keeps
    #: one (``controller.bus.outbox``): the engine records the message only right after that one; None: no outbox
    after: int | None = None


#: What each topic carries: a message whose body is not of its topic's kinds is refused (a ``vision.card`` that is
#: a ``TableState`` would pass a subscriber's prefix as what it is not).
TOPIC_BODIES: dict[str, tuple[type[Body], ...]] = {
    "vision.card": (CardPlaced, CardIdentified, CardExposed, CardsLifted, CardRemoved),
    "vision.chips": (ChipsChanged,),
    "vision.camera": (CameraStatus, CameraCaughtUp),
    "vision.evidence": (EvidenceSaved,),
    "vision.heartbeat": (Heartbeat,),
    "sensor.button": (ButtonPressed,),
    "sensor.cut_card": (CutCard,),
    "sensor.shoe": (ShoePresence, ShoeCardDrawn, ShoeLink),
    "sensor.flood": (SensorFlood,),
    "sensor.jackpot": (JackpotMeter,),
    "sensor.heartbeat": (Heartbeat,),
    "dealer.keypad": (DealerOperation,),
    "core.state": (TableState,),
    "core.camera_wait": (CameraWaitOver,),
    "core.flag": (FlagRaised,),
    "core.payouts": (CoupSettled,),
    "core.refused": (Refused,),
    "core.ack": (Acknowledged,),
    "core.heartbeat": (Heartbeat,),
}

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Envelope)


class BadMessage(StudTableError, ValueError):
    """A message that is not one of ours; says why, and ``reason`` is the kind a subscriber counts it under."""

    def __init__(self, message: str, reason: str = "malformed") -> None:
        super().__init__(message)
        self.reason = reason


def encode(topic: str, envelope: Envelope) -> list[bytes]:
    _check_topic(topic, envelope)
    return [topic.encode(), _encoder.encode(envelope)]


def _check_topic(topic: str, envelope: Envelope) -> None:
    kinds = TOPIC_BODIES.get(topic)
    if kinds is None:
        raise BadMessage(f"unknown topic {topic[:40]!r}")
    if not isinstance(envelope.body, kinds):
        raise BadMessage(f"topic mismatch: {topic} does not carry {type(envelope.body).__name__}", "topic_mismatch")


def decode(frames: list[bytes]) -> tuple[str, Envelope]:
    """Parse the two frames of a message, or raise ``BadMessage`` saying what is wrong."""
    if len(frames) != 2:
        raise BadMessage(f"expected 2 frames (topic, envelope), got {len(frames)}")
    raw_topic, payload = frames
    if len(payload) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"oversized message: {len(payload)} bytes > {MAX_MESSAGE_BYTES}", "oversized")
    try:
        topic = raw_topic.decode()
    except UnicodeDecodeError:
        raise BadMessage("topic is not UTF-8") from None
    if topic not in TOPIC_BODIES:
        raise BadMessage(f"unknown topic {topic[:40]!r}")
    try:
        envelope = _decoder.decode(payload)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise BadMessage(f"{topic}: {error}") from None
    _check_topic(topic, envelope)
    if envelope.seq < 1:
        raise BadMessage(f"{topic}: sequence number {envelope.seq} < 1")
    return topic, envelope
