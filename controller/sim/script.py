"""The virtual table's script: a TOML file of coups, with the faults to inject.

    profile = "fr-2007"
    seats = [1, 3, 5]           # seats taken for the session
    seed = 7                    # optional: decks of coups that name none come from seed + coup number

    [[coup]]
    deck = "As Kd 7h"           # optional: the first cards out of the shoe; the rest follow in the usual order
    seed = 12                   # optional, instead of deck: a shuffled deck
    bets = { 1 = { ante = 1000, bonus = 250 }, 3 = { ante = 2000, jackpot = 100 } }
    decisions = { 1 = "raise", 3 = "buy 2" }   # raise | fold | buy N (N: the discarded card, 0..4) | auto
    stacked = [3]               # optional: seats whose chips are built in casino stacks, not spread for the camera
    faults = [ { kind = "exposed_card", seat = 1, round = 2 } ]

A seat with bets and no decision plays ``auto`` (raise with a pair or better, or ace-king; else fold). Every mistake
is reported with the key and the line (``TomlError``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.profiles import load_profile
from controller.rules.cards import Card, full_deck, parse_card
from controller.rules.errors import CardError, ProfileError
from controller.rules.profile import TableRules
from controller.rules.tomlread import TomlError, load_toml, suggest

#: Each fault, its parameters and their defaults (``...``: required).
FAULTS: dict[str, dict[str, Any]] = {
    "exposed_card": {"seat": ..., "round": 1},
    "out_of_turn": {"seat": ..., "round": 1},
    "wrong_count": {"seat": ..., "cards": ...},
    "bet_changed_after_rnvp": {"seat": ..., "box": "ante", "amount": ...},
    "vacant_seat_bet": {"seat": ..., "amount": 1000},
    "duplicate_card": {"seat": ..., "round": 2},
    "player_looks": {"seat": ..., "round": 3},
    "cut_card_missing": {},
    "camera_dropout": {"seconds": 2.0},
    # the player lets his decision time run out (a profile with a decision timer): the table waits it out for real
    "decision_timeout": {"seat": ...},
    "serial_noise": {"bytes": 64},
    # the dealer's payment: seat 0 stands for the first seat paid that the fault can apply to; a seat named that is
    # owed nothing (over/underpay) or lost nothing (stake_not_collected) leaves the coup without the fault
    "overpay": {"seat": 0, "amount": 500},
    "underpay": {"seat": 0, "amount": 500},
    "stake_not_collected": {"seat": 0},
}
PAYMENT_FAULTS = ("overpay", "underpay", "stake_not_collected")
BOXES = ("ante", "bonus", "jackpot")
ROUNDS = 5


class ScriptError(TomlError):
    """A script that cannot be played."""


@dataclass(frozen=True)
class Bets:
    ante: int
    bonus: int = 0
    jackpot: int = 0


@dataclass(frozen=True)
class Decision:
    action: str  # raise | fold | buy | auto
    discard: int | None = None


@dataclass(frozen=True)
class Fault:
    kind: str
    params: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.params[name]


@dataclass(frozen=True)
class CoupScript:
    deck: tuple[Card, ...]  # the whole shoe, in the order the cards come out
    bets: dict[int, Bets]
    decisions: dict[int, Decision]
    faults: tuple[Fault, ...] = ()
    #: seats whose chips (bets, raise, what the dealer pays) are casino stacks rather than piles spread for the camera
    stacked: frozenset[int] = frozenset()

    def fault(self, kind: str) -> Fault | None:
        return next((f for f in self.faults if f.kind == kind), None)


@dataclass(frozen=True)
class Script:
    profile: str
    seats: tuple[int, ...]
    coups: tuple[CoupScript, ...]


#: the virtual table's limits (the demo's configuration says the same)
MINIMUM_CENTS, MAXIMUM_CENTS, JACKPOT_METER_CENTS = 1000, 50000, 1_000_000


def table_rules(profile_name: str) -> TableRules:
    """The virtual table: every seat marked, every option of the profile offered."""
    profile = load_profile(profile_name)
    return TableRules(profile, MINIMUM_CENTS, MAXIMUM_CENTS, profile.marked_seats_max, bonus=profile.bonus,
                      jackpot=profile.jackpot, card_purchase=profile.card_purchase)


def shuffled_deck(seed: int) -> tuple[Card, ...]:
    deck = list(full_deck())
    random.Random(seed).shuffle(deck)
    return tuple(deck)


class _Reader:
    """Errors with the key and the line; lines inside the n-th ``[[coup]]`` are found by the key's first word."""

    def __init__(self, text: str, source: str) -> None:
        self.text, self.source = text, source
        self.lines = text.splitlines()
        self.coup_lines = [n for n, line in enumerate(self.lines, 1) if line.strip().startswith("[[coup]]")]

    def fail(self, key: str, message: str, coup: int | None = None) -> ScriptError:
        return ScriptError(self.source, key if coup is None else f"coup[{coup + 1}].{key}",
                           self._line(key, coup), message)

    def _line(self, key: str, coup: int | None) -> int | None:
        first = re.split(r"[.\[]", key)[0]  # "faults[2].seat" is written on the "faults =" line
        if coup is None:
            start, end = 1, self.coup_lines[0] if self.coup_lines else len(self.lines) + 1
        elif coup < len(self.coup_lines):
            start = self.coup_lines[coup]
            end = self.coup_lines[coup + 1] if coup + 1 < len(self.coup_lines) else len(self.lines) + 1
        else:
            return None
        for number in range(start, end):
            if re.match(rf"\s*{re.escape(first)}\s*=", self.lines[number - 1]):
                return number
        return start if coup is not None else None


def _integer(reader: _Reader, value: Any, key: str, low: int, high: int, coup: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise reader.fail(key, f"expected a whole number, got {value!r}", coup)
    if not low <= value <= high:
        raise reader.fail(key, f"{value} is outside {low}..{high}", coup)
    return value


def _seat(reader: _Reader, text: Any, key: str, coup: int) -> int:
    if not str(text).isdigit():
        raise reader.fail(key, f"{text!r} is not a seat number", coup)
    return _integer(reader, int(text), key, 1, 7, coup)


def parse_script(text: str, source: str = "<script>") -> Script:
    data = load_toml(text, source, ScriptError)
    reader = _Reader(text, source)
    for key in data:
        if key not in ("profile", "seats", "seed", "coup"):
            raise reader.fail(key, f"unknown key{suggest(key, ['profile', 'seats', 'seed', 'coup'])}")
    profile_name = data.get("profile", "fr-2007")
    try:
        profile = load_profile(profile_name)
    except ProfileError as error:
        raise reader.fail("profile", str(error)) from None
    seats_value = data.get("seats")
    if not isinstance(seats_value, list) or not seats_value:
        raise reader.fail("seats", f"expected a list of seat numbers, got {seats_value!r}")
    seats = tuple(sorted(_integer(reader, s, "seats", 1, profile.marked_seats_max) for s in seats_value))
    if len(set(seats)) != len(seats):
        raise reader.fail("seats", "a seat is listed twice")
    base_seed = _integer(reader, data.get("seed", 0), "seed", 0, 2**63)
    coups_value = data.get("coup")
    if not isinstance(coups_value, list) or not coups_value:
        raise reader.fail("coup", "expected at least one [[coup]]")
    coups = tuple(_parse_coup(reader, number, spec, seats, profile, base_seed)
                  for number, spec in enumerate(coups_value))
    return Script(profile_name, seats, coups)


def _parse_coup(reader: _Reader, number: int, spec: dict[str, Any], seats: tuple[int, ...], profile: Any,
                base_seed: int) -> CoupScript:
    keys = ["deck", "seed", "bets", "decisions", "stacked", "faults"]
    for key in spec:
        if key not in keys:
            raise reader.fail(key, f"unknown key{suggest(key, keys)}", number)
    if "deck" in spec and "seed" in spec:
        raise reader.fail("deck", "give a deck or a seed, not both", number)
    if "deck" in spec:
        deck = _parse_deck(reader, spec["deck"], number)
    else:
        deck = shuffled_deck(_integer(reader, spec.get("seed", base_seed + number + 1), "seed", 0, 2**63, number))
    bets_value = spec.get("bets")
    if not isinstance(bets_value, dict) or not bets_value:
        raise reader.fail("bets", "expected a table of seats and their bets, e.g. { 1 = { ante = 1000 } }", number)
    bets: dict[int, Bets] = {}
    for seat_text, boxes in bets_value.items():
        seat = _seat(reader, seat_text, f"bets.{seat_text}", number)
        if seat not in seats:
            raise reader.fail(f"bets.{seat_text}", f"seat {seat} is not taken (seats = {list(seats)})", number)
        if not isinstance(boxes, dict) or "ante" not in boxes:
            raise reader.fail(f"bets.{seat_text}", "expected { ante = CENTS, bonus = CENTS, jackpot = CENTS }",
                              number)
        for box in boxes:
            if box not in BOXES:
                raise reader.fail(f"bets.{seat_text}.{box}", f"unknown box{suggest(box, BOXES)}", number)
        amounts = {box: _integer(reader, boxes.get(box, 0), f"bets.{seat_text}.{box}", 0, 10**8, number)
                   for box in BOXES}
        if amounts["ante"] <= 0:
            raise reader.fail(f"bets.{seat_text}.ante", "a seat that plays has an ante", number)
        bets[seat] = Bets(**amounts)
    decisions: dict[int, Decision] = {}
    for seat_text, action in (spec.get("decisions") or {}).items():
        key = f"decisions.{seat_text}"
        seat = _seat(reader, seat_text, key, number)
        if seat not in bets:
            raise reader.fail(key, f"seat {seat} has no bets in this coup", number)
        decisions[seat] = _parse_decision(reader, action, key, number, profile.card_purchase)
    stacked_value = spec.get("stacked", [])
    if not isinstance(stacked_value, list):
        raise reader.fail("stacked", "expected a list of seats, e.g. [1, 3]", number)
    stacked = frozenset(_seat(reader, seat, "stacked", number) for seat in stacked_value)
    for seat in sorted(stacked - set(bets)):
        raise reader.fail("stacked", f"seat {seat} has no bets in this coup", number)
    faults_value = spec.get("faults", [])
    if not isinstance(faults_value, list):
        raise reader.fail("faults", "expected a list of { kind = NAME, ... }", number)
    faults = tuple(_parse_fault(reader, index, fault, number, seats, bets)
                   for index, fault in enumerate(faults_value))
    for index, fault in enumerate(faults):
        if fault.kind == "decision_timeout" and not profile.decision_timer:
            raise reader.fail(f"faults[{index + 1}].kind", f"profile {profile.name} has no decision timer", number)
    return CoupScript(deck, bets, decisions, faults, stacked)


def _parse_deck(reader: _Reader, value: Any, number: int) -> tuple[Card, ...]:
    if not isinstance(value, str):
        raise reader.fail("deck", f"expected cards such as \"As Kd 7h\", got {value!r}", number)
    try:
        first = [parse_card(word) for word in value.split()]
    except CardError as error:
        raise reader.fail("deck", str(error), number) from None
    doubled = sorted({str(card) for card in first if first.count(card) > 1})
    if doubled:
        raise reader.fail("deck", f"{' '.join(doubled)} given twice (use the duplicate_card fault)", number)
    return tuple(first) + tuple(card for card in full_deck() if card not in first)


def _parse_decision(reader: _Reader, value: Any, key: str, number: int, purchase: bool) -> Decision:
    words = str(value).split()
    if words in (["raise"], ["fold"], ["auto"]):
        return Decision(words[0])
    if len(words) == 2 and words[0] == "buy" and words[1].isdigit() and int(words[1]) < ROUNDS:
        if not purchase:
            raise reader.fail(key, "this profile has no card purchase", number)
        return Decision("buy", int(words[1]))
    raise reader.fail(key, f"expected raise, fold, auto or buy N (N: 0..4, the card discarded), got {value!r}",
                      number)


def _parse_fault(reader: _Reader, index: int, spec: Any, number: int, seats: tuple[int, ...],
                 bets: dict[int, Bets]) -> Fault:
    key = f"faults[{index + 1}]"
    if not isinstance(spec, dict) or "kind" not in spec:
        raise reader.fail(key, "expected { kind = NAME, ... }", number)
    kind = spec["kind"]
    if kind not in FAULTS:
        raise reader.fail(f"{key}.kind", f"unknown fault {kind!r}{suggest(kind, FAULTS)}", number)
    schema = FAULTS[kind]
    for name in spec:
        if name != "kind" and name not in schema:
            raise reader.fail(f"{key}.{name}", f"{kind} takes {', '.join(schema) or 'nothing'}", number)
    params: dict[str, Any] = {}
    for name, default in schema.items():
        if name not in spec and default is ...:
            raise reader.fail(f"{key}.{name}", f"{kind} needs {name}", number)
        value = spec.get(name, default)
        where = f"{key}.{name}"
        if name == "seat":
            params[name] = _integer(reader, value, where, 0 if kind in PAYMENT_FAULTS else 1, 7, number)
        elif name == "round":
            params[name] = _integer(reader, value, where, 1, ROUNDS, number)
        elif name == "cards":
            params[name] = _integer(reader, value, where, 4, 6, number)
            if params[name] == 5:
                raise reader.fail(where, "4 or 6: a hand of 5 is no fault", number)
        elif name == "box":
            if value not in BOXES:
                raise reader.fail(where, f"expected one of {', '.join(BOXES)}, got {value!r}", number)
            params[name] = value
        elif name in ("amount", "bytes"):
            params[name] = _integer(reader, value, where, 0 if name == "amount" else 1, 10**6, number)
        elif name == "seconds":
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 60:
                raise reader.fail(where, f"expected seconds in 0..60, got {value!r}", number)
            params[name] = float(value)
    seat = params.get("seat")
    if kind == "vacant_seat_bet":
        if seat in seats:
            raise reader.fail(f"{key}.seat", f"seat {seat} is taken: a vacant seat is needed", number)
    elif seat and seat not in bets:
        raise reader.fail(f"{key}.seat", f"seat {seat} has no bets in this coup", number)
    if kind in ("overpay", "underpay") and (params["amount"] <= 0 or params["amount"] % 50):
        raise reader.fail(f"{key}.amount", "cents of chips: a positive multiple of 50 (the 0,50 € chip)", number)
    if kind == "duplicate_card" and params["round"] < 2:
        raise reader.fail(f"{key}.round", "the copy is of the dealer's card of the round before: round 2..5",
                          number)
    return Fault(kind, params)


def load_script(path: str | Path) -> Script:
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise ScriptError(str(source), "", None, error.strerror or str(error)) from None
    return parse_script(text, str(source))


#: faults a random script draws from (the timing ones, the camera's dropout and the decision timeout, are left to
#: scripts: they slow a run down)
RANDOM_FAULTS = ("exposed_card", "out_of_turn", "wrong_count", "bet_changed_after_rnvp", "vacant_seat_bet",
                 "duplicate_card", "player_looks", "cut_card_missing", "serial_noise", *PAYMENT_FAULTS)


#: the share of a random script's seats whose chips are casino stacks, as players build their bets: the stack
#: reader tells them from spread piles but vouches for few of their counts, so most go to the dealer to confirm
#: (models/EXPERIMENTS.md, 2026-12-05)
STACKED_SHARE = 0.2

#: the share of a random script's players who buy a card, where the profile offers the purchase: the card they
#: discard, each of the five in turn, drawn apart from the rest of the coup (as the stacks are)
BUY_SHARE = 0.25


def random_script(seed: int, coups: int, profile_name: str = "fr-2007", fault_rate: float = 0.3,
                  stacked_share: float = STACKED_SHARE) -> Script:
    """``coups`` coups drawn from ``seed``: seats, bets, decisions left to ``auto``, now and then a fault, and
    ``stacked_share`` of the bets built in casino stacks (drawn apart: the rest is as without them)."""
    rng = random.Random(seed)
    stacking = random.Random(f"{seed} stacks")
    buying = random.Random(f"{seed} purchases")
    rules = table_rules(profile_name)
    profile = rules.profile
    seats = tuple(sorted(rng.sample(range(1, profile.marked_seats_max + 1), rng.randint(1, profile.players_max))))
    bonus_stake = rules.bonus_stake_cents if rules.bonus else 0
    played = []
    faulty = purchases = 0  # coups given a fault, cards bought, so far
    for _ in range(coups):
        bets = {seat: Bets(ante=rng.randrange(1000, 10001, 500),
                           bonus=bonus_stake if bonus_stake and rng.random() < 0.4 else 0)
                for seat in seats if rng.random() < 0.85} or {seats[0]: Bets(1000)}
        players = sorted(bets)
        faults: list[Fault] = []
        if rng.random() < fault_rate:
            # the kinds in turn from one the seed names: the sessions of consecutive seeds a benchmark plays start
            # each at the next kind, so that a hundred coups hold every kind
            kind = RANDOM_FAULTS[(seed + faulty) % len(RANDOM_FAULTS)]
            faulty += 1
            seat = rng.choice(players)
            vacant = [s for s in range(1, profile.marked_seats_max + 1) if s not in seats]
            if kind == "vacant_seat_bet" and not vacant:
                kind = "exposed_card"
            params = {"exposed_card": {"seat": seat, "round": rng.randint(1, 4)},
                      "out_of_turn": {"seat": seat, "round": rng.randint(1, 5)},
                      "wrong_count": {"seat": seat, "cards": rng.choice((4, 6))},
                      "bet_changed_after_rnvp": {"seat": seat, "box": "ante", "amount": bets[seat].ante + 500},
                      "vacant_seat_bet": {"seat": rng.choice(vacant) if vacant else 0, "amount": 1000},
                      "duplicate_card": {"seat": seat, "round": rng.randint(2, 5)},
                      "player_looks": {"seat": seat, "round": rng.randint(1, 4)},
                      "cut_card_missing": {},
                      "serial_noise": {"bytes": rng.randint(8, 200)},
                      "overpay": {"seat": 0, "amount": rng.choice((100, 500, 1000))},
                      "underpay": {"seat": 0, "amount": rng.choice((100, 500, 1000))},
                      "stake_not_collected": {"seat": 0}}[kind]
            faults.append(Fault(kind, params))
        stacked = frozenset(seat for seat in players if stacking.random() < stacked_share)
        decisions = {}
        for seat in players:
            decisions[seat] = Decision("auto")
            if profile.card_purchase and buying.random() < BUY_SHARE:  # the five cards in turn, as the faults
                decisions[seat] = Decision("buy", (seed + purchases) % ROUNDS)
                purchases += 1
        played.append(CoupScript(shuffled_deck(rng.getrandbits(32)), bets, decisions, tuple(faults), stacked))
    return Script(profile_name, seats, tuple(played))
