"""The operations of a table session: frozen records appended to its log.

Every operation carries ``t``, the table clock in milliseconds, given by the
caller: the rules core never reads a clock. Positions are seat numbers 1..7,
and ``DEALER`` (0) for the croupier's own hand.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields

from .cards import Card

DEALER = 0

#: The metadata key that marks a field as an amount in integer cents: its value names the amount in English and in
#: French, for the refusal of an amount that is not a whole number of cents (``AMOUNT_FIELDS``).
CENTS = "cents"


def _cents(name: str, name_fr: str) -> dict[str, tuple[str, str]]:
    return {CENTS: (name, name_fr)}


class Box(enum.Enum):
    """A betting zone of a seat, as marked on the felt."""

    ANTE = "ante"
    BONUS = "bonus"
    JACKPOT = "jackpot"

    @property
    def label_fr(self) -> str:
        return {"ante": "Ante", "bonus": "Bonus", "jackpot": "Jackpot"}[self.value]


@dataclass(frozen=True, slots=True)
class Operation:
    t: int

    @property
    def kind(self) -> str:
        return _KIND_BY_TYPE[type(self)]


@dataclass(frozen=True, slots=True)
class OpenSession(Operation):
    """New cards counted and verified before the session (seed 000)."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SitDown(Operation):
    seat: int


@dataclass(frozen=True, slots=True)
class StandUp(Operation):
    seat: int


@dataclass(frozen=True, slots=True)
class PlaceBet(Operation):
    """The chips now in a seat's box (0: the box is empty)."""

    seat: int
    box: Box
    amount: int = field(metadata=_cents("amount", "montant"))


@dataclass(frozen=True, slots=True)
class NoMoreBets(Operation):
    """« Rien ne va plus »: the bets are fixed."""


@dataclass(frozen=True, slots=True)
class Shuffle(Operation):
    shuffles: int
    cuts: int


@dataclass(frozen=True, slots=True)
class OfferCut(Operation):
    seat: int
    accepted: bool


@dataclass(frozen=True, slots=True)
class DealCard(Operation):
    position: int
    card: Card | None
    face_up: bool


@dataclass(frozen=True, slots=True)
class IdentifyCard(Operation):
    """A card dealt as unknown, identified later (by the camera, or when shown)."""

    position: int
    index: int
    card: Card


@dataclass(frozen=True, slots=True)
class ExposeCard(Operation):
    """A card seen face up during the deal."""

    position: int
    index: int


@dataclass(frozen=True, slots=True)
class PlayerLooks(Operation):
    seat: int


@dataclass(frozen=True, slots=True)
class EndDeal(Operation):
    """« Fin de donne »."""


@dataclass(frozen=True, slots=True)
class ConfirmAnte(Operation):
    """The dealer's count of a seat's ante while the seat decides, its amount as fixed at « rien ne va plus » being
    in doubt: the ante the coup settles. From above, a stack of two identical chips can look like one; a raise that
    is not twice the ante read is how that shows (``controller.referee``)."""

    seat: int
    amount: int = field(metadata=_cents("ante", "ante"))


@dataclass(frozen=True, slots=True)
class Fold(Operation):
    seat: int


@dataclass(frozen=True, slots=True)
class Raise(Operation):
    seat: int
    amount: int = field(metadata=_cents("raise", "relance"))


@dataclass(frozen=True, slots=True)
class BuyCard(Operation):
    """Made together with the raise: the card at ``discard`` goes, the price is paid."""

    seat: int
    discard: int
    price: int = field(metadata=_cents("purchase price", "prix d'achat"))


@dataclass(frozen=True, slots=True)
class DealBoughtCard(Operation):
    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class DecisionTimeout(Operation):
    """The decision time ran out for a seat (Caribbean: raised with a pair or better, else folded)."""

    seat: int


@dataclass(frozen=True, slots=True)
class ShowDealerHand(Operation):
    pass


@dataclass(frozen=True, slots=True)
class Settle(Operation):
    """Settle the coup. The progressive meter's value is an input, like the clock."""

    jackpot_meter: int = field(metadata=_cents("jackpot meter", "compteur du jackpot"))


@dataclass(frozen=True, slots=True)
class PaymentSeen(Operation):
    """The chips the camera sees in one of a seat's zones while the coup is paid: the dealer paying or collecting
    there, or the player picking his chips up (``payment.PAID_ZONES``)."""

    seat: int
    zone: str
    amount: int = field(metadata=_cents("amount", "montant"))


@dataclass(frozen=True, slots=True)
class PaymentDone(Operation):
    """« Paiement terminé » for one seat. When the camera watched the payment (``watched``), the payment is
    checked against what it saw; a table without a camera, or with the camera offline, checks nothing."""

    seat: int
    watched: bool = False


@dataclass(frozen=True, slots=True)
class ShoeCount(Operation):
    """The shoe's count of cards drawn since the coup began (its microcontroller's beam)."""

    drawn: int


@dataclass(frozen=True, slots=True)
class DeclareVoid(Operation):
    """The table chief voids the coup (players exchanging information, seed 000)."""

    reason: str


@dataclass(frozen=True, slots=True)
class EndCoup(Operation):
    """Cards collected and burned; the next coup may begin. When the camera watched (``watched``), the seats owed
    nothing are checked then: their lost stakes collected."""

    watched: bool = False


@dataclass(frozen=True, slots=True)
class AcknowledgeAlerts(Operation):
    """The dealer has read the alerts of the coups before this one: the display stops showing them. A void coup's
    alerts wait for this; the others go anyway at the next coup's first card. With none shown, it does nothing."""


OPERATION_TYPES: dict[str, type[Operation]] = {
    "open-session": OpenSession,
    "sit": SitDown,
    "stand": StandUp,
    "bet": PlaceBet,
    "no-more-bets": NoMoreBets,
    "shuffle": Shuffle,
    "cut": OfferCut,
    "deal": DealCard,
    "identify": IdentifyCard,
    "expose": ExposeCard,
    "look": PlayerLooks,
    "end-deal": EndDeal,
    "confirm-ante": ConfirmAnte,
    "fold": Fold,
    "raise": Raise,
    "buy": BuyCard,
    "deal-bought": DealBoughtCard,
    "timeout": DecisionTimeout,
    "show-dealer": ShowDealerHand,
    "settle": Settle,
    "paying": PaymentSeen,
    "paid": PaymentDone,
    "shoe-count": ShoeCount,
    "void": DeclareVoid,
    "end-coup": EndCoup,
    "ack": AcknowledgeAlerts,
}
_KIND_BY_TYPE = {op_type: kind for kind, op_type in OPERATION_TYPES.items()}

#: Each operation's amounts in cents: (field, its name in English, in French), as its fields' metadata marks them.
#: The table refuses an operation whose amount is not an ``int`` before any other check (``Table.verify``).
AMOUNT_FIELDS: dict[type[Operation], tuple[tuple[str, str, str], ...]] = {
    op_type: tuple((f.name, *f.metadata[CENTS]) for f in fields(op_type) if CENTS in f.metadata)
    for op_type in OPERATION_TYPES.values()
}

#: Each kind's French name, and whether it is feminine (« fin de coup refusée », « mélange refusé »).
_NAMES_FR: dict[str, tuple[str, bool]] = {
    "open-session": ("ouverture de la session", True),
    "sit": ("arrivée d'un joueur", True),
    "stand": ("départ d'un joueur", False),
    "bet": ("mise", True),
    "no-more-bets": ("« rien ne va plus »", False),
    "shuffle": ("mélange", False),
    "cut": ("présentation de la coupe", True),  # « coupe refusée » would read as a player declining the cut
    "deal": ("carte donnée", True),
    "identify": ("identification de carte", True),
    "expose": ("carte exposée", True),
    "look": ("regard du joueur", False),
    "end-deal": ("fin de donne", True),
    "confirm-ante": ("confirmation de l'ante", True),
    "fold": ("passe", True),
    "raise": ("relance", True),
    "buy": ("achat de carte", False),
    "deal-bought": ("carte achetée donnée", True),
    "timeout": ("fin du temps de décision", True),
    "show-dealer": ("abattage du croupier", False),
    "settle": ("règlement du coup", False),
    "paying": ("lecture des jetons au paiement", True),
    "paid": ("paiement terminé", False),
    "shoe-count": ("compte du sabot", False),
    "void": ("déclaration de coup nul", True),
    "end-coup": ("fin de coup", True),
    "ack": ("lecture des alertes", True),
}


def refused_fr(kind: str) -> str:
    """« fin de coup refusée »: the kind's French name with « refusé » agreeing with it (an unknown kind as it is)."""
    name, feminine = _NAMES_FR.get(kind, (kind, False))
    return f"{name} {'refusée' if feminine else 'refusé'}"
