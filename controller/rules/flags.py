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
    EXTRA_CARD = "extra_card"
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
    OVERPAID = "overpaid"
    UNDERPAID = "underpaid"
    STAKE_NOT_COLLECTED = "stake_not_collected"

    @property
    def label_fr(self) -> str:
        return _LABELS_FR[self]

    @property
    def label_en(self) -> str:
        return self.value.replace("_", " ")

    @property
    def instruction_fr(self) -> str:
        """What the dealer does now, as the croupier's display says it."""
        return _INSTRUCTIONS[self][0]

    @property
    def instruction_en(self) -> str:
        return _INSTRUCTIONS[self][1]


_LABELS_FR = {
    FlagKind.DECK_NOT_VERIFIED: "Jeu non vérifié",
    FlagKind.SHUFFLE_INCOMPLETE: "Mélange incomplet (5 mélanges, 2 coupes)",
    FlagKind.CUT_OUT_OF_ORDER: "Coupe présentée hors ordre",
    FlagKind.DEAL_WITHOUT_CUT: "Donne sans coupe",
    FlagKind.CARD_OUT_OF_TURN: "Carte donnée hors tour",
    FlagKind.DEALER_OUT_OF_TURN: "Carte du croupier hors tour",
    FlagKind.EXTRA_CARD: "Carte en trop — coup nul",
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
    FlagKind.OVERPAID: "Trop payé",
    FlagKind.UNDERPAID: "Montant manquant",
    FlagKind.STAKE_NOT_COLLECTED: "Mise perdante non ramassée",
}

#: What the dealer does when the flag is raised, in French and in English.
_INSTRUCTIONS = {
    FlagKind.DECK_NOT_VERIFIED: ("Compter et vérifier le jeu ; appeler le chef de table",
                                 "Count and check the deck; call the table chief"),
    FlagKind.SHUFFLE_INCOMPLETE: ("Prévenir le chef de table ; au prochain coup, 5 mélanges et 2 coupes",
                                  "Tell the table chief; next coup, 5 shuffles and 2 cuts"),
    FlagKind.CUT_OUT_OF_ORDER: ("Poursuivre ; au prochain coup, présenter la coupe dans l'ordre",
                                "Go on; next coup, offer the cut in turn"),
    FlagKind.DEAL_WITHOUT_CUT: ("Arrêter la donne ; appeler le chef de table",
                                "Stop the deal; call the table chief"),
    FlagKind.CARD_OUT_OF_TURN: ("Vérifier le compte des cartes de chaque main", "Check every hand's card count"),
    FlagKind.DEALER_OUT_OF_TURN: ("Vérifier le compte des cartes de chaque main", "Check every hand's card count"),
    FlagKind.EXTRA_CARD: ("Laisser la carte ; le coup sera nul à la fin de la donne ; appeler le chef de table",
                          "Leave the card; the coup is void at the end of the deal; call the table chief"),
    FlagKind.CARD_EXPOSED: ("Retourner la carte, poursuivre la donne", "Turn the card over, go on dealing"),
    FlagKind.DEALER_FIFTH_NOT_SHOWN: ("Retourner la cinquième carte du croupier", "Turn the dealer's fifth card up"),
    FlagKind.WRONG_CARD_COUNT: ("Coup nul : rendre les mises ; appeler le chef de table",
                                "Coup void: return the bets; call the table chief"),
    FlagKind.LOOKED_BEFORE_END_OF_DEAL: ("Main nulle : ramasser ses cartes ; appeler le chef de table",
                                         "Hand void: collect its cards; call the table chief"),
    FlagKind.BET_AFTER_NO_MORE_BETS: ("Remettre la mise d'avant « rien ne va plus » ; appeler le chef de table",
                                      "Put the bet back as it was at « no more bets »; call the table chief"),
    FlagKind.BET_ON_VACANT_SEAT: ("Faire retirer la mise de l'emplacement vacant",
                                  "Have the bet taken off the vacant seat"),
    FlagKind.BET_OUTSIDE_LIMITS: ("Faire ajuster la mise aux limites de la table",
                                  "Have the bet brought within the table's limits"),
    FlagKind.SIDE_BET_NOT_OFFERED: ("Rendre la mise annexe au joueur", "Return the side bet to the player"),
    FlagKind.SIDE_BET_WITHOUT_ANTE: ("Rendre la mise annexe au joueur", "Return the side bet to the player"),
    FlagKind.TOO_MANY_PLAYERS: ("Appeler le chef de table", "Call the table chief"),
    FlagKind.RAISE_NOT_TWICE_ANTE: ("Régler la relance comme indiqué ; appeler le chef de table",
                                    "Settle the raise as stated; call the table chief"),
    FlagKind.PURCHASE_PRICE_WRONG: ("Faire ajuster le prix à l'ante ; appeler le chef de table",
                                    "Have the price set to the ante; call the table chief"),
    FlagKind.BONUS_STAKE_WRONG: ("Rendre la mise du bonus au joueur", "Return the bonus stake to the player"),
    FlagKind.JACKPOT_STAKE_WRONG: ("Rendre la mise du jackpot au joueur", "Return the jackpot stake to the player"),
    # the table goes on with the coup: only the chief may declare it void (``DeclareVoid``)
    FlagKind.DUPLICATE_CARD: ("Appeler le chef de table : lui seul déclare le coup nul ; sinon le coup se poursuit",
                              "Call the table chief: only he may declare the coup void; otherwise it goes on"),
    FlagKind.BONUS_KEPT_AFTER_PURCHASE: ("Ramasser la mise du bonus de la place", "Collect the seat's bonus stake"),
    FlagKind.PURCHASE_OUT_OF_ORDER: ("Poursuivre ; donner les cartes achetées dans l'ordre",
                                     "Go on; deal the bought cards in order"),
    FlagKind.PAID_OUT_OF_ORDER: ("Poursuivre ; payer dans l'ordre, depuis la droite du croupier",
                                 "Go on; pay in order, from the dealer's right"),
    FlagKind.DECISION_TIMEOUT: ("Appliquer la décision indiquée", "Apply the decision shown"),
    FlagKind.COUP_DECLARED_VOID: ("Rendre les mises, ramasser les cartes", "Return the bets, collect the cards"),
    FlagKind.SHOE_COUNT_MISMATCH: ("Compter les cartes sur le tapis ; appeler le chef de table",
                                   "Count the cards on the felt; call the table chief"),
    FlagKind.OVERPAID: ("Reprendre l'excédent avant que le joueur ne ramasse ses jetons ; appeler le chef de table",
                        "Take the excess back before the player picks up; call the table chief"),
    FlagKind.UNDERPAID: ("Compléter le paiement", "Complete the payment"),
    FlagKind.STAKE_NOT_COLLECTED: ("Ramasser la mise perdante", "Collect the losing stake"),
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
    #: the detail as the croupier's display says it, amounts in euros
    detail_fr: str
