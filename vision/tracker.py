"""From per-frame detections to table events: cards placed, turned, lifted or removed, and chip totals changed.

Pure logic: no I/O and no clock. Each frame comes with its time in milliseconds and its observations (detections
already mapped to a seat's zone in table millimetres); ``track`` returns the events that frame settles.

Why it debounces: the detector sees a card in a few frames before the croupier's hand has left it, misreads a
rank now and then, and loses cards under arms and hands. So

- a card counts once it has been seen in ``steady_frames`` frames spanning ``steady_ms``; its face (up or down)
  and its identity are the majority over those frames, so a single misread never reaches the bus. A card seen in a
  hand (``Observation.held``: a player raising his cards to peek) never counts as a new card, nor moves or turns a
  counted one: matched to a counted card, it is taken as a hand over that card;
- a card only counts as gone after it has been missing for ``gone_frames`` frames spanning ``gone_ms`` *while its
  zone was visible*; a frame that marks the zone occluded (an arm over the felt) restarts that count, so a hand
  passing over the cards never removes them;
- a zone's chip total is reported once the new total has held for the same steady period;
- a card's identity is reported only when its frames agree on it (``sure_agreement``); a card face up whose frames
  disagree is placed as not yet identified, its frames go on voting, and once it has stayed in doubt ``doubt_ms`` its
  likeliest identity goes out unsure (``CardIdentified(sure=False)``): the engine asks the dealer, never guesses.
  A face read the same as a card already reported this coup goes out unsure at once: the dealer names it, and only
  his answer can make it a duplicate card.

Cards of a hand are matched frame to frame by position (they are laid slightly staggered, overlapping). The index
of a card in its hand is its place in the order the hand received it, as the engine's hand has it. Cards that first
show in the same frame (the camera back after a dropout, a stack of cards uncovered at once) were dealt while nobody
watched: they are numbered in the dealing order (round by round, along each hand's stagger, seats from the dealer's
left, the dealer last), so the rules judge the deal only on what the camera saw of it.

Cards that leave the felt: during the deal a player's card that goes is a player looking (``CardsLifted``); after
the deal it is ``CardRemoved``. A whole hand that goes is
taken as lifted, so cards coming back to it are the same cards (turned face up at the showdown, perhaps), not new
ones; a single card gone after the deal is a discard, and the card that comes next takes its place in the hand
(the engine's bought card does the same), unless the engine has said the hand awaits no bought card: then a card
that may be the one gone (its face never seen, or the same face) is that card, come back.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from controller.bus.schema import (
    Body,
    CardExposed,
    CardIdentified,
    CardPlaced,
    CardRemoved,
    CardsLifted,
    ChipsChanged,
)
from controller.felt.layout import BET_AREAS, DEALER, Layout, axes
from vision.common import CARDS, rules_card

KINDS = ("card_face", "card_back", "chip")
BACK = "BACK"
#: Bus topics of the tracker's events.
TOPICS = {CardPlaced: "vision.card", CardIdentified: "vision.card", CardExposed: "vision.card",
          CardsLifted: "vision.card", CardRemoved: "vision.card", ChipsChanged: "vision.chips"}

ZoneKey = tuple[int, str]  # (seat, area): (3, "cards"), (0, "cards") for the dealer, (5, "ante")...


@dataclass(frozen=True)
class Observation:
    """One detection in one frame: a card face, a card back or a chip, already placed in a seat's zone."""

    seat: int  # 1..7, 0 for the dealer
    area: str  # cards for card kinds; ante, raise, bonus or jackpot for chips
    kind: str  # card_face, card_back or chip
    label: str | int  # card_face: "AS", "10H"...; card_back: "BACK"; chip: its value in cents
    x_mm: float
    y_mm: float
    confidence: float = 1.0
    #: a card in a hand, or under one (``vision.table_reader.ZoneObservation.held``): no evidence of a new card,
    #: nor of where a counted card lies or what face it shows
    held: bool = False
    #: a card's: the index reader's probability of ``label`` (``vision.table_reader.ZoneObservation``)
    identity_certainty: float = 1.0
    #: a chip's: its zone's likeliest value in cents but the one read (0: none), offered to the dealer beside it
    alternative: int = 0
    #: a chip's: its zone read as a casino stack (``vision.stack_reader``)
    stacked: bool = False

    def __post_init__(self) -> None:
        where = f"observation at seat {self.seat!r} area {self.area!r}"
        if self.kind not in KINDS:
            raise ValueError(f"{where}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or not 0 <= self.seat <= 7:
            raise ValueError(f"{where}: seat must be 1..7, or 0 for the dealer")
        if self.kind == "chip":
            if self.seat == DEALER or self.area not in BET_AREAS:
                raise ValueError(f"{where}: chips are tracked in a seat's {', '.join(BET_AREAS)} areas only")
            if isinstance(self.label, bool) or not isinstance(self.label, int) or self.label <= 0:
                raise ValueError(f"{where}: a chip's label is its value in cents (a positive int), got {self.label!r}")
        else:
            if self.area != "cards":
                raise ValueError(f"{where}: cards are tracked in cards areas only")
            if self.kind == "card_back" and self.label != BACK:
                raise ValueError(f"{where}: a card_back's label is {BACK!r}, got {self.label!r}")
            if self.kind == "card_face" and self.label not in CARDS:
                raise ValueError(f"{where}: card label {self.label!r} is not a card (AS, 10H, ...)")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"{where}: confidence {self.confidence!r} is outside 0..1")
        if not 0.0 <= self.identity_certainty <= 1.0:
            raise ValueError(f"{where}: identity_certainty {self.identity_certainty!r} is outside 0..1")
        if isinstance(self.alternative, bool) or not isinstance(self.alternative, int) or self.alternative < 0:
            raise ValueError(f"{where}: alternative must be a value in cents (an int, 0 for none), "
                             f"got {self.alternative!r}")


Event = Body
#: an event and the frame time its change began at (None where it is a judgement over frames, as a face in doubt
#: settled, rather than a change on the felt)
Timed = tuple[int | None, Event]


@dataclass(frozen=True)
class TrackerConfig:
    steady_frames: int = 4  # a card or a chip total counts once seen in this many frames...
    steady_ms: int = 300  # ...spanning at least this long
    gone_frames: int = 6  # a card is gone once missing, zone visible, in this many frames...
    gone_ms: int = 1500  # ...spanning at least this long
    forget_ms: int = 500  # a card not yet counted and unseen (zone visible) this long is forgotten
    #: during the deal, a player's whole hand missing at once, zone visible, in ``steady_frames`` frames spanning
    #: this long has been lifted to look: as fast as a card is seen laid (a player reads his cards in a second or
    #: two, shorter than ``gone_ms``); a hand half covered by the dealer's arm is occluded, not missing
    lifted_ms: int = 600
    #: the same for a hand of one card, missed by the detector for a few frames likelier than two: longer, still
    #: shorter than a player reads a card (1 to 3 s, ``controller.sim.pace``) and than ``gone_ms``
    lifted_one_ms: int = 900
    #: during the deal, a card seen steadily waits at most this long for a card laid before it, still unsettled (or
    #: under a hand), to be placed first: the cards are reported in the order dealt, whatever hid one a moment
    order_wait_ms: int = 1500
    match_mm: float = 20.0  # a detection this close to a card's last position is that card
    min_confidence: float = 0.3  # weaker card detections are ignored
    #: a zone's chips read with less certainty than this (the chip counter's and the stack reader's, merged; 0 for
    #: too many chips to count) are reported unsure, for the dealer to confirm. The stack reader's counts are sure
    #: of themselves more often than right: at 0.5 it read 87 of 511 held-out stacks wrong and sure, at 0.9 two,
    #: for 5 of 609 spread zones more sent to the dealer (models/EXPERIMENTS.md, 2026-12-05)
    sure_certainty: float = 0.9
    #: a card's identity is vouched for once at least this share of the frames that read its face agree on it (one
    #: misread in four frames passes; two do not)...
    sure_agreement: float = 0.75
    #: ...else it goes to the dealer once still in doubt this long (ms), its frames voting meanwhile
    doubt_ms: int = 1000
    #: a face read less likely than this (``Observation.identity_certainty``) votes for no identity, though it counts
    #: among the frames that read a face. On the virtual table's own deck every read lay at 0.86 and up; on decks
    #: it never learnt, its misreads at 0.11 to 0.37 (svg-ancient-egyptians) and half of them over 0.5
    #: (svg-penguins), which it still names (models/EXPERIMENTS.md, 2026-12-07). A face read as a back, however
    #: unsurely, is a back.
    sure_identity: float = 0.5

    def __post_init__(self) -> None:
        for name in ("steady_frames", "gone_frames"):
            if getattr(self, name) < 1:
                raise ValueError(f"TrackerConfig.{name} must be at least 1, got {getattr(self, name)}")
        for name in ("steady_ms", "gone_ms", "forget_ms", "doubt_ms", "lifted_ms", "lifted_one_ms", "order_wait_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"TrackerConfig.{name} must not be negative, got {getattr(self, name)}")
        if self.match_mm <= 0:
            raise ValueError(f"TrackerConfig.match_mm must be positive, got {self.match_mm}")
        if not 0 <= self.sure_identity <= 1:
            raise ValueError(f"TrackerConfig.sure_identity must be within 0..1, got {self.sure_identity}")
        if not 0.5 < self.sure_agreement <= 1:
            raise ValueError(f"TrackerConfig.sure_agreement must be above 0.5 and at most 1, got {self.sure_agreement}")


@dataclass
class _Run:
    """Frames that support one reading: when it began, how many frames, and what they read."""

    first_ms: int
    last_ms: int
    frames: int = 1
    votes: Counter[str] = field(default_factory=Counter)
    #: faces read less likely than ``TrackerConfig.sure_identity``, by what was read
    doubtful: Counter[str] = field(default_factory=Counter)

    def add(self, t_ms: int, label: str | None = None, doubtful: bool = False) -> None:
        self.frames += 1
        self.last_ms = t_ms
        if label is not None:
            (self.doubtful if doubtful and label != BACK else self.votes)[label] += 1

    def steady(self, frames: int, ms: int) -> bool:
        return self.frames >= frames and self.last_ms - self.first_ms >= ms

    def reading(self) -> tuple[bool, str | None]:
        """(face up, identity) by majority, the identity from the surely read faces (from the doubtful ones when no
        face was read surely); a tie between face and back reads as face down."""
        faces = Counter({label: n for label, n in self.votes.items() if label != BACK})
        face_up = faces.total() + self.doubtful.total() > self.votes[BACK]
        return face_up, (faces or self.doubtful).most_common(1)[0][0] if face_up else None

    def agreement(self) -> float:
        """The share of the frames that read a face agreeing surely on the likeliest identity (1 when none read a
        face)."""
        faces = [n for label, n in self.votes.items() if label != BACK]
        read = sum(faces) + self.doubtful.total()
        return max(faces, default=0) / read if read else 1.0


def hand_stagger(layout: Layout) -> dict[int, tuple[float, float]]:
    """Each position's direction of stagger: the card zone's width axis, along which its cards are laid."""
    stagger = {}
    for zone in layout.zones:
        if zone.area == "cards":
            u = axes(zone.angle)[0]
            stagger[zone.seat] = (float(u[0]), float(u[1]))
    return stagger


def _run(t_ms: int, vote: tuple[str, bool]) -> _Run:
    label, doubtful = vote
    run = _Run(t_ms, t_ms, 0)
    run.add(t_ms, label, doubtful)
    return run


CardState = Literal["present", "lifted", "removed"]


@dataclass(eq=False)  # compared by identity: two cards may read alike
class _Card:
    index: int
    x: float
    y: float
    face_up: bool
    identity: str | None  # the vision label, once seen face up
    reported: str | None  # the identity the engine was given (an exposure during the deal gives none)
    state: CardState = "present"
    missing: _Run | None = None  # the visible frames it has been missing in
    turning: _Run | None = None  # frames showing the other face
    doubt: _Run | None = None  # face up, its frames not agreeing on its identity: they go on voting
    asked: bool = False  # its doubt went to the engine, for the dealer
    repeat_asked: str | None = None  # the face, read as a card already in play, that went to the dealer


@dataclass(eq=False)
class _Candidate:
    x: float
    y: float
    seen: _Run
    last_ms: int  # last time seen, occluded frames included (not frames that see it only in a hand)
    #: when it was laid at the latest: its first sighting, or, first seen as its zone came out from under a hand,
    #: when the hand came over it
    since: int
    #: when it was first seen steadily (its placement may wait for a card laid before it, ``Tracker.track``)
    ready_ms: int | None = None


@dataclass
class _Hand:
    cards: list[_Card] = field(default_factory=list)
    candidates: list[_Candidate] = field(default_factory=list)
    #: cards of an earlier coup still on the felt: followed so they are never reported, dropped once gone
    leftovers: list[_Card] = field(default_factory=list)
    #: a discard taken where the detector still finds a back (the cards around it, staggered, frame a card's shape
    #: there): that back is none of the hand's, while the seat awaits its bought card
    ghosts: list[_Card] = field(default_factory=list)


@dataclass
class _ChipZone:
    reported: int = 0
    reported_sure: bool = True
    pending: _Run | None = None
    pending_total: int = 0
    pending_sure: bool = True
    #: since when its reading has differed from what was reported (a count flickering between readings meanwhile)
    changed_since: int | None = None


class Tracker:
    """Feed it every frame's observations with ``track``; it returns the events to publish."""

    def __init__(self, config: TrackerConfig | None = None, dealing: bool = False,
                 stagger: Mapping[int, tuple[float, float]] | None = None) -> None:
        """``stagger``: for each position, the unit vector on the felt along which its hand's cards are laid one
        after the other (``hand_stagger(layout)``); without it, cards first seen in the same frame keep the order
        the detector gave them."""
        self.config = config or TrackerConfig()
        self.dealing = dealing
        self.stagger = dict(stagger or {})
        self._hands: dict[int, _Hand] = {}
        self._chips: dict[ZoneKey, _ChipZone] = {}
        self._order = 0
        self._last_ms: int | None = None
        self._coup: int | None = None
        #: the seats the engine says await a bought card (``follow``); None until it has said
        self._buying: frozenset[int] | None = None
        #: for each of those seats, the index of its discard, and the time of the last frame tracked when the
        #: tracker heard of the purchase: a face that starts to show on the discard's spot after it is the bought
        #: card laid there, one that showed before is the discard turned up
        self._discards: dict[int, tuple[int, int]] = {}
        #: the zones a hand covers now, and since when: what it lays or takes there is not seen yet
        self._covered: dict[ZoneKey, int] = {}
        #: for each zone, its last covering: (since, until)
        self._uncovered: dict[ZoneKey, tuple[int, int]] = {}

    # --- what the engine tells it -------------------------------------------------

    def set_phase(self, dealing: bool) -> None:
        """During the deal a card seen face up is exposed (``CardExposed``) and a card gone is a player looking.
        When the deal begins the felt is clear by procedure: the last coup's cards are no longer followed (one
        still followed would swallow a new card laid on its spot)."""
        if dealing and not self.dealing:
            for hand in self._hands.values():
                hand.leftovers.clear()
        self.dealing = dealing

    @property
    def last_ms(self) -> int | None:
        """The time of the last frame tracked."""
        return self._last_ms

    def undecided_since(self) -> int | None:
        """The frame time at which the oldest change still undecided began (a card not yet steady, a card showing
        its other face, a chip total not yet held, a zone under a hand): None when every change seen is decided.
        A card missing is not counted: it is decided only after ``gone_ms``, and no button waits on a card taken
        away."""
        starts = [candidate.since for hand in self._hands.values() for candidate in hand.candidates]
        starts += self._covered.values()
        starts += [card.turning.first_ms for hand in self._hands.values() for card in hand.cards
                   if card.turning is not None]
        starts += [zone.changed_since for zone in self._chips.values() if zone.changed_since is not None]
        return min(starts, default=None)

    def restart_clock(self) -> None:
        """The camera's clock started again (a restarted source): forget every timing, keep the cards known."""
        self._last_ms = None
        self._covered.clear()
        self._uncovered.clear()
        for hand in self._hands.values():
            hand.candidates.clear()
            for card in hand.cards + hand.leftovers:
                card.missing = card.turning = None
        for zone in self._chips.values():
            zone.pending = zone.changed_since = None

    def follow(self, state: Mapping[str, object]) -> None:
        """Follow the engine's published state (``TableState.state``): its phase, and a new coup when it starts."""
        phase, coup = state.get("phase"), state.get("coup")
        if not isinstance(phase, str) or not isinstance(coup, int):
            raise ValueError(f"table state without a phase and a coup number: phase={phase!r}, coup={coup!r}")
        self.set_phase(phase == "dealing")
        if self._coup is not None and coup != self._coup:
            self.new_coup()
        self._coup = coup
        seats = state.get("seats")
        if isinstance(seats, Mapping):
            self._buying = frozenset(int(number) for number, seat in seats.items() if str(number).isdigit()
                                     and isinstance(seat, Mapping) and seat.get("awaits_bought_card"))
            heard = self._last_ms if self._last_ms is not None else 0
            discards = {}
            for number in self._buying:
                index = seats[str(number)].get("discard")
                if isinstance(index, int) and not isinstance(index, bool):
                    known = self._discards.get(number)
                    discards[number] = known if known is not None and known[0] == index else (index, heard)
            self._discards = discards
            for number, hand in self._hands.items():
                if number not in discards:
                    hand.ghosts.clear()

    def new_coup(self) -> None:
        """Forget the hands and start the order of arrival again; cards still on the felt are never reported."""
        for hand in self._hands.values():
            hand.leftovers += [card for card in hand.cards if card.state == "present"]
            hand.cards.clear()
            hand.candidates.clear()
            hand.ghosts.clear()
        self._order = 0
        self._discards = {}

    # --- frames ---------------------------------------------------------------------

    def track(self, t_ms: int, observations: Iterable[Observation],
              occluded_zones: Iterable[ZoneKey] = ()) -> list[Event]:
        """The events this frame settles."""
        return [event for _began, event in self.track_timed(t_ms, observations, occluded_zones)]

    def track_timed(self, t_ms: int, observations: Iterable[Observation],
                    occluded_zones: Iterable[ZoneKey] = ()) -> list[Timed]:
        """The events this frame settles, each with when its change began: a change begun after a button press
        is told after the camera's catch-up with it (``vision.catch_up``)."""
        if self._last_ms is not None and t_ms < self._last_ms:
            raise ValueError(f"frame time went back: {t_ms} ms after {self._last_ms} ms")
        self._last_ms = t_ms
        occluded = set(occluded_zones)
        for key in occluded:
            if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], int) and isinstance(key[1], str)):
                raise ValueError(f"occluded zone {key!r}: expected (seat, area) such as (3, 'cards')")
        self._uncovered.update({key: (since, t_ms) for key, since in self._covered.items() if key not in occluded})
        self._covered = {key: self._covered.get(key, t_ms) for key in occluded}
        cards: dict[int, list[Observation]] = {}
        chips: dict[ZoneKey, int] = {}
        certainty: dict[ZoneKey, float] = {}
        alternative: dict[ZoneKey, int] = {}
        stacked: dict[ZoneKey, bool] = {}
        for obs in observations:
            if obs.kind == "chip":  # a zone's chips are one count: dropping the less sure would change the total
                key = (obs.seat, obs.area)
                chips[key] = chips.get(key, 0) + int(obs.label)
                certainty[key] = min(certainty.get(key, 1.0), obs.confidence)
                alternative[key] = max(alternative.get(key, 0), obs.alternative)
                stacked[key] = stacked.get(key, False) or obs.stacked
            elif obs.confidence >= self.config.min_confidence:
                cards.setdefault(obs.seat, []).append(obs)
        events: list[Timed] = []
        ready: list[tuple[int, int, _Candidate]] = []
        for seat in sorted(set(self._hands) | set(cards)):
            hand = self._hands.setdefault(seat, _Hand())
            ready += [(c.since, seat, c)
                      for c in self._track_hand(t_ms, seat, hand, cards.get(seat, []), (seat, "cards") in occluded,
                                                events)]
        ready = [each for each in ready if not self._laid_before(t_ms, each[2])]
        for _since, seat, candidate in sorted(ready, key=self._dealing_order(ready)):
            self._hands[seat].candidates.remove(candidate)
            events += [(candidate.since, event) for event in self._settle(seat, self._hands[seat], candidate)]
        for key in sorted(set(self._chips) | set(chips)):
            if key not in occluded:
                sure = certainty.get(key, 1.0) >= self.config.sure_certainty
                # the counter's certainty is 0 exactly when a pile is too tall to count (vision.chip_counter)
                events += self._track_chips(t_ms, key, chips.get(key, 0), sure, certainty.get(key) == 0.0,
                                            alternative.get(key, 0), stacked.get(key, False))
        return events

    def _laid_before(self, t_ms: int, candidate: _Candidate) -> bool:
        """During the deal, whether a card was laid before ``candidate`` and is not placed yet: one still unsettled,
        or a card zone under a hand since before it (for at most ``order_wait_ms`` after ``candidate`` was seen
        steadily). The dealer's arm hides his own cards as he reaches for the next seat: his card, seen a frame
        later than that seat's, was laid before it."""
        assert candidate.ready_ms is not None
        if not self.dealing or t_ms - candidate.ready_ms >= self.config.order_wait_ms:
            return False
        # a hand that came over a zone in the frame this card was first seen may have laid one there at the same time
        if any(key[1] == "cards" and since <= candidate.since for key, since in self._covered.items()):
            return True
        return any(other.since <= candidate.since and other.ready_ms is None
                   for hand in self._hands.values() for other in hand.candidates)

    def _dealing_order(self, ready: list[tuple[int, int, _Candidate]]
                       ) -> Callable[[tuple[int, int, _Candidate]], tuple[int, int, bool, int]]:
        """Sort key for cards settled in one frame: laid first first (``_Candidate.since``); among cards laid
        together, the round
        each was dealt in (the cards its hand already had, then its place along the hand's stagger), then the seat
        from the dealer's left, the dealer last."""
        rounds: dict[int, int] = {}
        together: dict[tuple[int, int], list[_Candidate]] = {}
        for first, seat, candidate in ready:
            together.setdefault((first, seat), []).append(candidate)
        for (_first, seat), candidates in together.items():
            u = self.stagger.get(seat)
            if u is not None:
                candidates = sorted(candidates, key=lambda c: c.x * u[0] + c.y * u[1])
            held = len(self._hands[seat].cards)
            rounds.update({id(c): held + place for place, c in enumerate(candidates)})
        return lambda r: (r[0], rounds[id(r[2])], r[1] == DEALER, r[1])

    def _track_hand(self, t_ms: int, seat: int, hand: _Hand, seen: list[Observation], occluded: bool,
                    events: list[Timed]) -> list[_Candidate]:
        config = self.config
        if hand.ghosts:
            seen = [o for o in seen if not (o.kind == "card_back" and any(
                math.hypot(o.x_mm - g.x, o.y_mm - g.y) <= config.match_mm for g in hand.ghosts))]
        present = [c for c in hand.cards if c.state == "present"]
        tracks: list[_Card | _Candidate] = [*present, *hand.leftovers, *hand.candidates]
        pairs = sorted(((abs(o.x_mm - k.x) ** 2 + abs(o.y_mm - k.y) ** 2) ** 0.5, i, j)
                       for i, o in enumerate(seen) for j, k in enumerate(tracks))
        matched_obs: set[int] = set()
        matched: dict[int, Observation] = {}
        for distance, i, j in pairs:
            if distance <= config.match_mm and i not in matched_obs and j not in matched:
                matched_obs.add(i)
                matched[j] = seen[i]
        for j, track in enumerate(tracks):
            obs = matched.get(j)
            if obs is not None and not obs.held:
                # Follow a card nudged along the felt, smoothing the detector's jitter.
                track.x, track.y = (track.x + obs.x_mm) / 2, (track.y + obs.y_mm) / 2
            if isinstance(track, _Candidate):
                if obs is not None and not obs.held:  # seen only in a hand, it is forgotten as if unseen
                    track.last_ms = t_ms
                    if not occluded:  # a card read under a hand is not evidence
                        track.seen.add(t_ms, *self._vote_of(obs))
                continue
            if obs is not None:
                # seen in a hand: a hand over the card (or the card in it), which proves neither that it is still
                # there nor that it went, as when its zone is covered; nor what face it shows
                track.missing = None
                if not (occluded or obs.held) and track in present:
                    discard = self._discards.get(seat)
                    if discard is not None and track.index == discard[0]:
                        events += self._watch_discard(seat, hand, track, t_ms, obs, discard[1])
                    else:
                        events += self._watch_face(seat, track, t_ms, obs)
            elif occluded:
                track.missing = None  # the count starts again once the zone is visible
            elif track.missing is None:
                track.missing = _Run(t_ms, t_ms)
            else:
                track.missing.add(t_ms)
        hand.leftovers = [c for c in hand.leftovers if not self._gone(c)]
        gone = [c for c in present if self._gone(c)]
        lifted_ms = config.lifted_ms if len(present) >= 2 else config.lifted_one_ms
        if not gone and self.dealing and seat != DEALER and present and all(
                c.missing is not None and c.missing.steady(config.steady_frames, lifted_ms) for c in present):
            gone = present  # the whole hand lifted to look
        if gone:
            began = min(c.missing.first_ms for c in gone if c.missing is not None)
            events += [(began, event) for event in self._leave(seat, hand, gone)]
        if not occluded:
            # a card first seen as its zone comes out from under a hand may have been laid while the hand was over it
            covering = self._uncovered.get((seat, "cards"))
            since = covering[0] if covering is not None and t_ms - covering[1] <= config.steady_ms else t_ms
            for i, obs in enumerate(seen):
                if i not in matched_obs and not obs.held:
                    hand.candidates.append(_Candidate(obs.x_mm, obs.y_mm, _run(t_ms, self._vote_of(obs)), t_ms,
                                                      since))
        hand.candidates = [c for c in hand.candidates if occluded or t_ms - c.last_ms <= config.forget_ms]
        ready = [c for c in hand.candidates if c.seen.steady(config.steady_frames, config.steady_ms)]
        for candidate in ready:
            candidate.ready_ms = t_ms if candidate.ready_ms is None else candidate.ready_ms
        return ready

    def _gone(self, card: _Card) -> bool:
        return card.missing is not None and card.missing.steady(self.config.gone_frames, self.config.gone_ms)

    def _watch_face(self, seat: int, card: _Card, t_ms: int, obs: Observation) -> list[Timed]:
        """A card showing the other face steadily has been turned; one frame of the old face cancels it."""
        if (obs.kind == "card_face") == card.face_up:
            card.turning = None
            if card.doubt and obs.kind == "card_face":
                return [(None, event) for event in self._vote(seat, card, t_ms, self._vote_of(obs))]
            return []
        votes = self._steadily_other(card, t_ms, obs)
        return [(votes.first_ms, event) for event in self._turn(seat, card, votes)] if votes is not None else []

    def _steadily_other(self, card: _Card, t_ms: int, obs: Observation) -> _Run | None:
        """One more frame showing the card otherwise than it was known: the frames that did, once steady (the
        card's run then starts again), else None."""
        if card.turning is None:
            card.turning = _run(t_ms, self._vote_of(obs))
        else:
            card.turning.add(t_ms, *self._vote_of(obs))
        if not card.turning.steady(self.config.steady_frames, self.config.steady_ms):
            return None
        votes, card.turning = card.turning, None
        return votes

    def _watch_discard(self, seat: int, hand: _Hand, card: _Card, t_ms: int, obs: Observation,
                       heard_ms: int) -> list[Timed]:
        """The discard of a seat awaiting its bought card. A dealer takes it and lays the bought card in its place
        in one movement, faster than a card is seen gone: its spot showing steadily another face than the discard's
        is the discard removed and the bought card placed, never the discard's new face; showing a back where the
        discard's face was, the discard taken (the back is its neighbours', staggered under it). A face that began
        to show before the tracker heard of the purchase is the discard turned up, as are its own face's frames."""
        face = obs.kind == "card_face"
        label = str(obs.label)
        turning_up = not card.face_up and card.turning is not None and card.turning.first_ms <= heard_ms
        other_face = face and (card.identity not in (None, label) if card.face_up
                               else not turning_up and t_ms > heard_ms)
        taken = not face and card.face_up
        if not (other_face or taken):
            return self._watch_face(seat, card, t_ms, obs)
        votes = self._steadily_other(card, t_ms, obs)
        if votes is None:
            return []
        card.state = "removed"
        face_up, _identity = votes.reading()
        if not face_up:
            hand.ghosts.append(card)
            return [(votes.first_ms, CardRemoved(seat, card.index))]
        return [(votes.first_ms, event) for event in
                [CardRemoved(seat, card.index), *self._place(seat, hand, card.x, card.y, votes, card.index)]]

    def _turn(self, seat: int, card: _Card, votes: _Run) -> list[Event]:
        """The card now shows the face its frames (``votes``) read."""
        face_up, identity = votes.reading()
        was_up = card.face_up
        card.face_up = face_up
        if not face_up or was_up or identity is None:
            return []  # turned face down: the rules have nothing to learn
        card.identity = identity
        if self.dealing:
            return [CardExposed(seat, card.index)]
        if votes.agreement() < self.config.sure_agreement:
            card.doubt, card.asked = votes, False
            return []
        return self._identified(seat, card, identity)

    def _identified(self, seat: int, card: _Card, identity: str) -> list[Event]:
        card.doubt, card.identity = None, identity
        if card.reported == identity or card.repeat_asked == identity:
            return []
        if self._in_play(identity, card):
            return self._ask(seat, card, identity)
        card.reported = identity
        return [CardIdentified(seat, card.index, rules_card(identity))]

    def _in_play(self, identity: str, card: _Card | None) -> bool:
        """Whether a card of this coup other than ``card`` was reported as ``identity`` (discards included)."""
        return any(other is not card and other.reported == identity
                   for hand in self._hands.values() for other in hand.cards)

    def _ask(self, seat: int, card: _Card, identity: str) -> list[Event]:
        """A face read the same as a card already in play: a shoe holds each card once, and a misread is likelier
        than a second one, so the dealer names it (``sure=False``); if he names that card, the rules flag it."""
        card.repeat_asked = identity
        return [CardIdentified(seat, card.index, rules_card(identity), sure=False)]

    def _vote_of(self, obs: Observation) -> tuple[str, bool]:
        """What a card observation votes: its label, and whether it was read too unsurely to vouch for it."""
        return str(obs.label), obs.identity_certainty < self.config.sure_identity

    def _vote(self, seat: int, card: _Card, t_ms: int, vote: tuple[str, bool]) -> list[Event]:
        """One more frame of a card whose identity is in doubt: reported once its frames agree on it; sent as
        unsure, for the dealer, once it has been in doubt ``doubt_ms`` (its frames still voting after that)."""
        assert card.doubt is not None
        card.doubt.add(t_ms, *vote)
        _face_up, identity = card.doubt.reading()
        if identity is None:
            return []
        if card.doubt.agreement() >= self.config.sure_agreement:
            return self._identified(seat, card, identity)
        if card.asked or t_ms - card.doubt.first_ms < self.config.doubt_ms:
            return []
        card.asked = True
        return [CardIdentified(seat, card.index, rules_card(identity), sure=False)]

    def _leave(self, seat: int, hand: _Hand, gone: list[_Card]) -> list[Event]:
        whole_hand = not any(c.state == "present" and c not in gone for c in hand.cards)
        player_looks = self.dealing and seat != DEALER
        for card in gone:
            card.missing = card.turning = None
            card.state = "lifted" if whole_hand or player_looks else "removed"
        if player_looks:
            return [CardsLifted(seat)]
        return [CardRemoved(seat, card.index) for card in gone]

    def _settle(self, seat: int, hand: _Hand, candidate: _Candidate) -> list[Event]:
        """A candidate seen steadily: a lifted card come back, or a new card in the hand (a face its frames disagree
        on placed as not yet identified)."""
        face_up, identity = candidate.seen.reading()
        x, y = candidate.x, candidate.y

        def distance(card: _Card) -> float:
            return math.sqrt((card.x - x) ** 2 + (card.y - y) ** 2)

        def come_back(cards: list[_Card]) -> list[Event]:
            """The likeliest of ``cards`` (the same face first, then the nearest) is back, showing what it shows."""
            card = min(cards, key=lambda c: (c.identity != identity, distance(c)))
            card.state, card.x, card.y = "present", x, y
            return self._turn(seat, card, candidate.seen)

        lifted = [c for c in hand.cards
                  if c.state == "lifted" and (c.identity is None or not face_up or c.identity == identity)]
        if lifted:
            return come_back(lifted)
        removed = [c for c in hand.cards if c.state == "removed"]
        # After the deal the only new card a hand receives is a bought one: in a hand the engine says awaits none, a
        # card that shows where one went, and may be it (its face never seen, or the same), is that card back (lost
        # a while under the next card, say), not a sixth
        back = [c for c in removed if c.identity is None or c.identity == identity]
        if back and not self.dealing and self._buying is not None and seat not in self._buying:
            return come_back(back)
        # the bought card takes the discard's place
        index = min(removed, key=distance).index if removed and not self.dealing else None
        return self._place(seat, hand, x, y, candidate.seen, index)

    def _place(self, seat: int, hand: _Hand, x: float, y: float, seen: _Run, index: int | None) -> list[Event]:
        """A new card in the hand, at ``index`` (a discard's place) or after its last card: its frames ``seen``
        give its face (one they disagree on placed as not yet identified)."""
        face_up, identity = seen.reading()
        sure = seen.agreement() >= self.config.sure_agreement
        # the face of a card already in play, which the dealer is asked to name
        repeated = identity if face_up and sure and identity is not None and self._in_play(identity, None) else None
        new = _Card(len(hand.cards), x, y, face_up, identity, identity if sure and repeated is None else None)
        if face_up and not sure:
            new.doubt = seen
        if index is not None:
            new.index = index
            hand.cards[index] = new
        else:
            hand.cards.append(new)
        self._order += 1
        placed = CardPlaced(seat, rules_card(new.reported) if new.reported else None, face_up, self._order)
        if self.dealing and not face_up and self._face_shown(seen):
            # dealt face up, turned over before it settled (« elle est retournée et la donne se poursuit »): the
            # camera saw its face all the same
            return [placed, CardExposed(seat, new.index)]
        return [placed, *self._ask(seat, new, repeated)] if repeated is not None else [placed]

    def _face_shown(self, seen: _Run) -> bool:
        """The frames of a card read face down showed its face: two or more agreeing, surely read, and a third of
        its frames at least (two misreads among many frames of its back are no exposure)."""
        faces = max((n for label, n in seen.votes.items() if label != BACK), default=0)
        return faces >= 2 and 3 * faces >= seen.frames

    def _track_chips(self, t_ms: int, key: ZoneKey, total: int, sure: bool, at_least: bool, alternative: int = 0,
                     stacked: bool = False) -> list[Timed]:
        """A zone's total (and whether the counter vouches for it) is reported once it has held steady; a total
        reported unsure is reported again once read sure. Unsure, with the likeliest value but it that the frame
        it steadied on gives (``alternative``): the dealer is offered both; and whether it is a casino stack's
        (``stacked``): where the house spreads stacked bets, the dealer has it spread."""
        zone = self._chips.setdefault(key, _ChipZone())
        if (total, sure) == (zone.reported, zone.reported_sure):
            zone.pending = zone.changed_since = None
            return []
        zone.changed_since = t_ms if zone.changed_since is None else zone.changed_since
        if zone.pending is None or (total, sure) != (zone.pending_total, zone.pending_sure):
            zone.pending, zone.pending_total, zone.pending_sure = _Run(t_ms, t_ms), total, sure
            return []
        zone.pending.add(t_ms)
        if not zone.pending.steady(self.config.steady_frames, self.config.steady_ms):
            return []
        began = zone.changed_since
        zone.reported, zone.reported_sure, zone.pending, zone.changed_since = total, sure, None, None
        seat, area = key
        offered = alternative if not sure and not at_least and alternative != total else 0
        return [(began, ChipsChanged(seat, area, total, sure, at_least and not sure,  # type: ignore[arg-type]
                                     offered, stacked))]
