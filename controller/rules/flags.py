"""Irregularities, as data. A flag never stops the table: it is recorded with
the operation that raised it, and surveillance reviews it afterwards."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(enum.IntEnum):
    INFO = 0
    WARNING = 1
    #: the coup or a hand is void, or money is at stake
    CRITICAL = 2


class FlagKind(enum.Enum):
    """Each kind cites the seed rule it enforces."""

    DECK_NOT_VERIFIED = "deck_not_verified"
    SHUFFLE_INCOMPLETE = "shuffle_incomplete"
    CUT_OUT_OF_ORDER = "cut_out_of_order"
    DEAL_WITHOUT_CUT = "deal_without_cut"
    CARD_OUT_OF_TURN = "card_out_of_turn"
    DEALER_OUT_OF_TURN = "dealer_out_of_turn"
    CARD_EXPOSED = "card_exposed"
    DEALER_FIFTH_NOT_SHOWN = "dealer_fifth_not_shown"
    WRONG_CARD_COUNT = "wrong_card_count"
    LOOKED_BEFORE_END_OF_DEAL = "looked_before_end_of_deal"
    BET_AFTER_NO_MORE_BETS = "bet_after_no_more_bets"
    BET_ON_VACANT_SEAT = "bet_on_vacant_seat"
    BET_OUTSIDE_LIMITS = "bet_outside_limits"
    SIDE_BET_NOT_OFFERED = "side_bet_not_offered"
    SIDE_BET_WITHOUT_ANTE = "side_bet_without_ante"
    TOO_MANY_PLAYERS = "too_many_players"
    RAISE_NOT_TWICE_ANTE = "raise_not_twice_ante"
    PURCHASE_PRICE_WRONG = "purchase_price_wrong"
    BONUS_STAKE_WRONG = "bonus_stake_wrong"
    JACKPOT_STAKE_WRONG = "jackpot_stake_wrong"
    DUPLICATE_CARD = "duplicate_card"
    BONUS_KEPT_AFTER_PURCHASE = "bonus_kept_after_purchase"
    PURCHASE_OUT_OF_ORDER = "purchase_out_of_order"
    PAID_OUT_OF_ORDER = "paid_out_of_order"
    DECISION_TIMEOUT = "decision_timeout"
    COUP_DECLARED_VOID = "coup_declared_void"
    SHOE_COUNT_MISMATCH = "shoe_count_mismatch"

    @property
    def label_fr(self) -> str:
        return _LABELS_FR[self]

    @property
    def label_en(self) -> str:
        return self.value.replace("_", " ")


_LABELS_FR = {
    FlagKind.DECK_NOT_VERIFIED: "Jeu non vérifié",
    FlagKind.SHUFFLE_INCOMPLETE: "Mélange incomplet (5 mélanges, 2 coupes)",
    FlagKind.CUT_OUT_OF_ORDER: "Coupe présentée hors ordre",
    FlagKind.DEAL_WITHOUT_CUT: "Donne sans coupe",
    FlagKind.CARD_OUT_OF_TURN: "Carte donnée hors tour",
    FlagKind.DEALER_OUT_OF_TURN: "Carte du croupier hors tour",
    FlagKind.CARD_EXPOSED: "Carte exposée",
    FlagKind.DEALER_FIFTH_NOT_SHOWN: "Cinquième carte du croupier non exposée",
    FlagKind.WRONG_CARD_COUNT: "Nombre de cartes incorrect — coup nul",
    FlagKind.LOOKED_BEFORE_END_OF_DEAL: "Main regardée avant la fin de la donne — main nulle",
    FlagKind.BET_AFTER_NO_MORE_BETS: "Mise changée après le rien ne va plus",
    FlagKind.BET_ON_VACANT_SEAT: "Mise sur un emplacement vacant",
    FlagKind.BET_OUTSIDE_LIMITS: "Mise hors limites de la table",
    FlagKind.SIDE_BET_NOT_OFFERED: "Mise annexe non proposée à cette table",
    FlagKind.SIDE_BET_WITHOUT_ANTE: "Mise annexe sans mise initiale",
    FlagKind.TOO_MANY_PLAYERS: "Trop de joueurs",
    FlagKind.RAISE_NOT_TWICE_ANTE: "Relance différente du double de la mise initiale",
    FlagKind.PURCHASE_PRICE_WRONG: "Achat de carte au mauvais prix",
    FlagKind.BONUS_STAKE_WRONG: "Mise du bonus incorrecte",
    FlagKind.JACKPOT_STAKE_WRONG: "Mise du jackpot incorrecte",
    FlagKind.DUPLICATE_CARD: "Même carte vue deux fois — carte étrangère",
    FlagKind.BONUS_KEPT_AFTER_PURCHASE: "Bonus conservé après un achat de carte",
    FlagKind.PURCHASE_OUT_OF_ORDER: "Carte achetée donnée hors ordre",
    FlagKind.PAID_OUT_OF_ORDER: "Paiement hors ordre",
    FlagKind.DECISION_TIMEOUT: "Temps de décision écoulé",
    FlagKind.COUP_DECLARED_VOID: "Coup déclaré nul",
    FlagKind.SHOE_COUNT_MISMATCH: "Compte du sabot différent des cartes vues",
}


@dataclass(frozen=True, slots=True)
class Flag:
    kind: FlagKind
    severity: Severity
    #: the seat concerned, 0 for the dealer, None for the whole table
    seat: int | None
    #: index in the table's log of the operation that raised it
    op_index: int
    detail: str
