"""A script turned into a timeline of what happens at the virtual table, and what the table must make of it.

Each coup becomes a list of steps: scene changes (what lies on the felt after it: a card dealt, turned, lifted,
chips moved, an arm passing), sensor actions (a dealer's button, the cut card's sensor, a card drawn from the
shoe), the dealer's keypad entries, the camera dropping out and back, noise on the shoe's line. The same coup is
played alongside through the pure rules core, operation by operation, which gives the flags the table must raise
and the payouts it must make: the expected results, computed without the bus, the engine or the store.

``DirectVision`` turns the scene changes into the observations the vision pipeline publishes (cards placed,
identified, lifted, removed; chips; camera status), so the whole stack can be driven without rendering frames.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from controller.bus.schema import (
    AnyBody,
    CameraStatus,
    CardExposed,
    CardIdentified,
    CardPlaced,
    CardRemoved,
    CardsLifted,
    ChipsChanged,
)
from controller.felt.chips import make_stack
from controller.felt.layout import load_layout
from controller.rules.cards import Card, full_deck
from controller.rules.history import format_operation
from controller.rules.operations import (
    DEALER,
    AcknowledgeAlerts,
    Box,
    BuyCard,
    DealBoughtCard,
    DealCard,
    DecisionTimeout,
    EndCoup,
    EndDeal,
    Fold,
    IdentifyCard,
    NoMoreBets,
    OfferCut,
    OpenSession,
    Operation,
    PaymentDone,
    PaymentSeen,
    PlaceBet,
    PlayerLooks,
    Raise,
    Settle,
    ShoeCount,
    ShowDealerHand,
    Shuffle,
    SitDown,
)
from controller.rules.profile import TableRules
from controller.rules.ranking import Category, evaluate
from controller.rules.summary import settlement_data
from controller.rules.table import CUTS, HAND_SIZE, SHUFFLES, Phase, Table

from .scene import Arm, CardOnFelt, SceneState
from .script import BOXES, JACKPOT_METER_CENTS, CoupScript, Decision, Script, table_rules

#: table time between two steps, ms (the rules core's clock; the engine keeps its own)
STEP_MS = 700


# --- the steps --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SceneChange:
    scene: SceneState
    #: the dealer's (or a player's) gesture that made it, which sets how long it takes (``controller.sim.pace``)
    gesture: str = "change"


@dataclass(frozen=True)
class ButtonPress:
    button: str  # no_more_bets | end_of_deal | payment_done


@dataclass(frozen=True)
class CutCardSensor:
    seen: bool


@dataclass(frozen=True)
class ShoeDraw:
    count: int  # the shoe's count once this card is out


@dataclass(frozen=True)
class KeypadEntry:
    line: str  # an operation in the history's form, without its time


@dataclass(frozen=True)
class CameraDropout:
    online: bool
    seconds: float = 0.0


@dataclass(frozen=True)
class SerialNoise:
    data: bytes


@dataclass(frozen=True)
class Pause:
    """Time passing at the table with nothing happening (a player's decision time running out)."""

    seconds: float


Step = SceneChange | ButtonPress | CutCardSensor | ShoeDraw | KeypadEntry | CameraDropout | SerialNoise | Pause


@dataclass(frozen=True)
class ExpectedFlag:
    coup: int
    kind: str
    severity: str
    seat: int | None
    detail: str


@dataclass
class CoupPlan:
    number: int
    steps: list[Step]
    flags: list[ExpectedFlag]
    settlement: dict[str, Any]
    #: the script's faults, by name
    faults: tuple[str, ...]


@dataclass
class Timeline:
    rules: TableRules
    opening: list[Step]
    coups: list[CoupPlan]


def build_timeline(script: Script, noise_seed: int = 0) -> Timeline:
    world = World(script.profile, noise_seed)
    opening = world.open(script.seats)
    coups = [world.play(coup) for coup in script.coups]
    return Timeline(world.rules, opening, coups)


# --- the world ----------------------------------------------------------------------------------------------------


class World:
    """The virtual table's session: ``open`` it, then ``play`` coups one by one."""

    def __init__(self, profile_name: str, noise_seed: int = 0) -> None:
        self.rules = table_rules(profile_name)
        self.table = Table(self.rules)  # the rules core, played alongside: the expected results
        self.t = 0
        self.steps: list[Step] = []
        self.scene = SceneState()
        self.shoe_count = 0
        #: the seats whose chips are casino stacks in the coup being played
        self._stacked: frozenset[int] = frozenset()
        self.noise_seed = noise_seed
        layout = load_layout()
        self._zones = {(zone.seat, zone.area): zone.centre for zone in layout.zones}
        self._dealer_card_area = self._zones[DEALER, "cards"]
        self._dealer_stands_at = (layout.width / 2, 0.0)  # the dealer's side of the felt: his arm reaches from there

    # -- plumbing
    def _apply(self, op: Operation) -> None:
        try:
            self.table.apply(op)
        except Exception as error:
            raise ValueError(f"coup {self.table.coup.number}: the script leads to {format_operation(op)!r}, "
                             f"which the rules refuse: {error}") from None
        if self.table.phase is Phase.SHOWDOWN:
            self.table.apply(Settle(op.t, JACKPOT_METER_CENTS))  # as the engine does, at once

    def _tick(self) -> int:
        self.t += STEP_MS
        return self.t

    def _show(self, scene: SceneState, gesture: str = "change") -> None:
        self.scene = scene
        self.steps.append(SceneChange(scene, gesture))

    def _keypad(self, op: Operation) -> None:
        self._apply(op)
        self.steps.append(KeypadEntry(format_operation(op).split(" ", 1)[1]))

    def _press(self, button: str, op: Operation) -> None:
        self.steps.append(ButtonPress(button))
        self._apply(op)

    def _chips(self, seat: int, box: str, amount: int) -> None:
        try:
            chips = make_stack(amount)
        except ValueError as error:
            raise ValueError(f"coup {self.table.coup.number}: {box} of seat {seat}: {error}") from None
        self._show(self.scene.with_chips(seat, box, chips, seat in self._stacked), "chips")
        if box != "raise":
            self._apply(PlaceBet(self._tick(), seat, Box(box), amount))

    def _turn_up(self, position: int, index: int) -> None:
        card = next(c for c in self.scene.hand(position) if c.index == index)
        if card.face_up:
            return
        self._show(self.scene.with_card(replace(card, face_up=True)), "turn")
        self._apply(IdentifyCard(self._tick(), position, index, _card(card.card)))

    def _deal(self, position: int, card: Card, face_up: bool, index: int | None = None) -> None:
        self.shoe_count += 1
        self.steps.append(ShoeDraw(self.shoe_count))
        self._apply(ShoeCount(self._tick(), self.shoe_count))
        target = self._zones.get((position, "cards"), self._dealer_card_area)
        self._show(replace(self.scene, arms=(Arm(self._dealer_stands_at, target),)), "reach")
        slot = len(self.scene.hand(position)) if index is None else index
        self._show(replace(self.scene.with_card(CardOnFelt(position, slot, str(card), face_up)), arms=()), "lay")

    # -- the session
    def open(self, seats: tuple[int, ...]) -> list[Step]:
        self.steps = []
        self._keypad(OpenSession(self._tick(), full_deck()))
        for seat in seats:
            self._keypad(SitDown(self._tick(), seat))
        return self.steps

    # -- one coup
    def play(self, coup: CoupScript) -> CoupPlan:
        table, fault = self.table, coup.fault
        number, first_flag = table.coup.number, len(table.flags)
        self.steps, self.shoe_count, self.scene = [], 0, SceneState()
        self._stacked = coup.stacked
        if table.held_flags:  # a void coup's alerts stay on the display until the dealer has read them
            self._keypad(AcknowledgeAlerts(self._tick()))
        for seat, bets in sorted(coup.bets.items()):
            for box in BOXES:
                if getattr(bets, box):
                    self._chips(seat, box, getattr(bets, box))
        if vacant := fault("vacant_seat_bet"):
            self._chips(vacant["seat"], "ante", vacant["amount"])
        self._press("no_more_bets", NoMoreBets(self._tick()))
        if changed := fault("bet_changed_after_rnvp"):
            self._chips(changed["seat"], changed["box"], changed["amount"])
        self._keypad(Shuffle(self._tick(), SHUFFLES, CUTS))
        players = table.players_in_play()
        if not fault("cut_card_missing"):
            self.steps.append(CutCardSensor(True))
            self._keypad(OfferCut(self._tick(), players[0], True))
            self.steps.append(CutCardSensor(False))
        self._deal_round_by_round(coup, players)
        self._press("end_of_deal", EndDeal(self._tick()))
        if table.coup.void:
            self._keypad(Settle(self._tick(), JACKPOT_METER_CENTS))  # the table chief settles a void coup
        else:
            self._decisions_and_showdown(coup, players)
        settlement = settlement_data(table.settlement, self.rules.profile.language) if table.settlement else {}
        self._pay(coup)
        # The dealer collects the cards and ends the coup; the players take what is left (pushes, returned stakes).
        self._show(replace(self.scene, cards=()), "collect")
        self._press("payment_done", EndCoup(self._tick(), watched=self.scene.camera_online))
        for stack in sorted(self.scene.chips, key=lambda s: (s.seat, s.box)):
            self._chips(stack.seat, stack.box, 0)
        flags = [ExpectedFlag(number, f.kind.value, f.severity.name.lower(), f.seat, f.detail)
                 for f in table.flags[first_flag:]]
        return CoupPlan(number, self.steps, flags, settlement, tuple(f.kind for f in coup.faults))

    def _pay(self, coup: CoupScript) -> None:
        """Seat by seat, counter-clockwise, the dealer collects the losing stakes and puts each winning line's
        winnings beside its stake (seed 000: « procède au ramassage des chances perdantes et au paiement des mains
        gagnantes [...] suivant le sens contraire des aiguilles d'une montre »), then presses « paiement terminé »
        for a seat he paid, whose player picks his chips up. The script's payment faults change what he puts down.
        """
        table = self.table
        if table.settlement is None:
            return
        owed = table.payments_due()
        checks = {seat: table.payment_check(seat) for seat in table.settlement.paying_order}
        uncollected = [seat for seat, check in checks.items()
                       if check and any(check.seen[zone] > check.expected[zone] for zone in check.lost)]
        overpaid, underpaid = _fault_seat(coup, "overpay", owed), _fault_seat(coup, "underpay", owed)
        not_collected = _fault_seat(coup, "stake_not_collected", uncollected)
        for seat, check in checks.items():
            assert check is not None
            target = dict(check.expected)
            won = [zone for zone in target if zone not in check.lost and target[zone] > check.seen[zone]]
            if won and seat == overpaid:
                target[won[0]] += coup.fault("overpay")["amount"]  # type: ignore[index]
            if won and seat == underpaid:
                winnings = target[won[0]] - check.seen[won[0]]
                target[won[0]] -= min(coup.fault("underpay")["amount"], winnings)  # type: ignore[index]
            if seat == not_collected:
                target.update({zone: check.seen[zone] for zone in check.lost})
            for zone, amount in target.items():
                if amount != check.seen[zone]:
                    self._paying_chips(seat, zone, amount)
            if seat in owed:
                self._press("payment_done", PaymentDone(self._tick(), seat, watched=self.scene.camera_online))
                for stack in [s for s in self.scene.chips if s.seat == seat and s.box in target]:
                    self._paying_chips(seat, stack.box, 0)  # the player takes his chips

    def _let_decision_time_run_out(self, seat: int) -> bool:
        """The player does not decide: the dealer turns his cards up (the profile's rule decides on them), the time
        runs out, the dealer keys it; the rule raises for him (his raise put in the box) or folds his hand. True if
        it raised."""
        table = self.table
        for placed in self.scene.hand(seat):
            self._turn_up(seat, placed.index)
        seconds = self.rules.profile.decision_seconds + 1
        self.steps.append(Pause(seconds))
        self.t += seconds * 1000
        self._keypad(DecisionTimeout(self._tick(), seat))
        amount = table.seats[seat].raise_amount
        if amount:
            self._show(self.scene.with_chips(seat, "raise", make_stack(amount), seat in self._stacked), "chips")
            return True
        self._show(replace(self.scene, cards=tuple(c for c in self.scene.cards if c.position != seat)), "take")
        return False

    def _paying_chips(self, seat: int, zone: str, amount: int) -> None:
        try:
            chips = make_stack(amount)
        except ValueError as error:
            raise ValueError(f"coup {self.table.coup.number}: paying seat {seat}'s {zone}: {error}") from None
        self._show(self.scene.with_chips(seat, zone, chips, seat in self._stacked), "chips")
        self._apply(PaymentSeen(self._tick(), seat, zone, amount))

    def _deal_round_by_round(self, coup: CoupScript, players: list[int]) -> None:
        fault = coup.fault
        deck = list(coup.deck)
        exposed, out_of_turn, wrong = fault("exposed_card"), fault("out_of_turn"), fault("wrong_count")
        duplicate, looks = fault("duplicate_card"), fault("player_looks")
        dropout, noise = fault("camera_dropout"), fault("serial_noise")
        for round_number in range(1, HAND_SIZE + 1):
            if dropout and round_number == 2:
                self.steps.append(CameraDropout(False, dropout["seconds"]))
                self._show(replace(self.scene, camera_online=False), "camera")
            if dropout and round_number == 4:
                self.steps.append(CameraDropout(True))
                self._show(replace(self.scene, camera_online=True), "camera")
            if noise and round_number == 3:
                self.steps.append(SerialNoise(_noise(self.noise_seed + self.table.coup.number, noise["bytes"])))
            positions = players + [DEALER]
            if out_of_turn and out_of_turn["round"] == round_number:
                seat = out_of_turn["seat"]
                if positions[0] == seat:
                    positions[0], positions[1] = positions[1], positions[0]
                else:
                    positions.remove(seat)
                    positions.insert(0, seat)
            if wrong and wrong["cards"] == 4 and round_number == HAND_SIZE:
                positions.remove(wrong["seat"])
            for position in positions:
                if duplicate and (duplicate["seat"], duplicate["round"]) == (position, round_number):
                    card = _card(self.scene.hand(DEALER)[round_number - 2].card)  # a copy: a foreign card
                else:
                    card = deck.pop(0)
                dealer_fifth = position == DEALER and round_number == HAND_SIZE
                shown = exposed is not None and (exposed["seat"], exposed["round"]) == (position, round_number)
                self._deal(position, card, dealer_fifth or shown)
                # The table knows only what the camera saw: a card exposed and turned back during a dropout is not.
                seen_up = (dealer_fifth or shown) and self.scene.camera_online
                self._apply(DealCard(self.t, position, card if seen_up else None, seen_up))
                if shown:  # « elle est retournée et la donne se poursuit »
                    placed = self.scene.hand(position)[-1]
                    self._show(self.scene.with_card(replace(placed, face_up=False)), "turn")
            if looks and looks["round"] == round_number:
                seat = looks["seat"]
                self._show(replace(self.scene, cards=tuple(replace(c, lifted=c.position == seat)
                                                           for c in self.scene.cards)), "read")
                self._apply(PlayerLooks(self._tick(), seat))
                self._show(replace(self.scene, cards=tuple(replace(c, lifted=False) for c in self.scene.cards)), "lay")
        if wrong and wrong["cards"] == 6:
            self._deal(wrong["seat"], deck[0], False)
            self._apply(DealCard(self.t, wrong["seat"], None, False))
        self._deck_left = deck[1:] if wrong and wrong["cards"] == 6 else deck

    def _decisions_and_showdown(self, coup: CoupScript, players: list[int]) -> None:
        table, profile = self.table, self.rules.profile
        deck = self._deck_left
        raised, buyers = [], []
        for seat in players:
            if table.seats[seat].hand_void:
                continue
            timeout = coup.fault("decision_timeout")
            if timeout and timeout["seat"] == seat:
                if self._let_decision_time_run_out(seat):
                    raised.append(seat)
                continue
            decision = coup.decisions.get(seat, Decision("auto"))
            if decision.action == "auto":
                decision = Decision("raise" if _worth_a_raise([_card(c.card) for c in self.scene.hand(seat)])
                                    else "fold")
            ante = table.seats[seat].fixed[Box.ANTE]
            if decision.action == "fold":
                self._keypad(Fold(self._tick(), seat))
                self._show(replace(self.scene, cards=tuple(c for c in self.scene.cards if c.position != seat)), "take")
                continue
            amount = ante * profile.raise_multiple
            self._chips(seat, "raise", amount)
            self._apply(Raise(self.t, seat, amount))
            raised.append(seat)
            if decision.action == "buy" and decision.discard is not None:
                self._turn_up(seat, decision.discard)  # the discarded card is shown as it goes
                self._keypad(BuyCard(self._tick(), seat, decision.discard, ante * profile.purchase_price_in_antes))
                self._show(self.scene.without_card(seat, decision.discard), "take")
                buyers.append((seat, decision.discard))
                if any(s.seat == seat and s.box == "bonus" for s in self.scene.chips):
                    self._chips(seat, "bonus", 0)  # the purchase forfeits the bonus
        for seat, discard in buyers:
            card = deck.pop(0)
            self._deal(seat, card, True, index=discard)
            self._apply(DealBoughtCard(self.t, seat, card))
        for position in [DEALER, *raised]:
            for placed in self.scene.hand(position):
                self._turn_up(position, placed.index)
        self._keypad(ShowDealerHand(self._tick()))


def _fault_seat(coup: CoupScript, kind: str, seats: list[int]) -> int | None:
    """The seat the coup's fault of ``kind`` falls on: the one it names, or for seat 0 the first of ``seats`` (those
    it can apply to, in paying order); None without such a fault."""
    fault = coup.fault(kind)
    if fault is None:
        return None
    return fault["seat"] or (seats[0] if seats else None)


def _card(text: str) -> Card:
    from controller.rules.cards import parse_card

    return parse_card(text)


def _worth_a_raise(cards: list[Card]) -> bool:
    value = evaluate(cards)
    return value.category >= Category.PAIR or (value.ranks[0] == 14 and value.ranks[1] == 13)


def _noise(seed: int, length: int) -> bytes:
    """Garbage without a zero byte: one chunk the shoe link must drop whole."""
    import random

    rng = random.Random(seed)
    return bytes(rng.randint(1, 255) for _ in range(length))


# --- the direct driver: what the vision pipeline would publish ----------------------------------------------------


class SceneDriver(Protocol):
    """What stands in for the camera: given each new scene, the messages to publish on the bus for it (the direct
    driver's observations; a driver that renders frames for the real vision process publishes nothing itself)."""

    def see(self, scene: SceneState) -> list[tuple[str, AnyBody]]: ...


class DirectVision:
    """Scene changes in, the vision pipeline's observations out (no frames rendered). While the camera is off
    nothing is seen; when it comes back, what changed meanwhile is published at once."""

    def __init__(self) -> None:
        self.seen = SceneState()
        self.order = 0

    def see(self, scene: SceneState) -> list[tuple[str, AnyBody]]:
        if not scene.camera_online:
            if not self.seen.camera_online:
                return []
            self.seen = replace(self.seen, camera_online=False)
            return [("vision.camera", CameraStatus(False, "no frame from the camera"))]
        events: list[tuple[str, AnyBody]] = []
        if not self.seen.camera_online:
            events.append(("vision.camera", CameraStatus(True)))
        events += self._changes(self.seen, scene)
        self.seen = scene
        return events

    def _changes(self, before: SceneState, after: SceneState) -> list[tuple[str, AnyBody]]:
        events: list[tuple[str, AnyBody]] = []
        if not after.cards:
            self.order = 0
        was = {(c.position, c.index): c for c in before.cards}
        lifted_before = {c.position for c in before.cards if c.lifted}
        for card in after.cards:
            old = was.get((card.position, card.index))
            if old is None or old.card != card.card:
                self.order += 1
                events.append(("vision.card", CardPlaced(card.position, card.card if card.face_up else None,
                                                         card.face_up, self.order)))
            elif card.face_up and not old.face_up:
                events.append(("vision.card", CardIdentified(card.position, card.index, card.card)))
        for seat in sorted({c.position for c in after.cards if c.lifted} - lifted_before):
            events.append(("vision.card", CardsLifted(seat)))
        # gone from the felt (a fold, a discard, the cards collected), not held up by a player looking
        kept = {(c.position, c.index) for c in after.cards}
        for gone in sorted((c.position, c.index) for c in before.cards if (c.position, c.index) not in kept):
            events.append(("vision.card", CardRemoved(*gone)))
        stacks_before = {(s.seat, s.box): sum(s.chips) for s in before.chips}
        stacks_after = {(s.seat, s.box): sum(s.chips) for s in after.chips}
        for seat, box in sorted(stacks_before.keys() | stacks_after.keys()):
            amount = stacks_after.get((seat, box), 0)
            if amount != stacks_before.get((seat, box), 0):
                events.append(("vision.chips", ChipsChanged(seat, box, amount)))  # type: ignore[arg-type]
        return events


#: what the vision pipeline publishes about the felt (its camera status aside)
OBSERVED = (CardPlaced, CardIdentified, CardExposed, CardsLifted, CardRemoved, ChipsChanged)


def observation_key(body: object) -> tuple[object, ...]:
    """What must agree between the perfect camera and the real one (the order of arrival is checked apart)."""
    match body:
        case CardPlaced(position=position, card=card, face_up=face_up):
            return ("placed", position, card, face_up)
        case CardIdentified(position=position, index=index, card=card):
            return ("identified", position, index, card)
        case CardExposed(position=position, index=index):
            return ("exposed", position, index)
        case CardsLifted(seat=seat):
            return ("lifted", seat)
        case CardRemoved(position=position, index=index):
            return ("removed", position, index)
        case ChipsChanged(seat=seat, box=box, amount=amount):
            return ("chips", seat, box, amount)
    return (type(body).__name__,)
