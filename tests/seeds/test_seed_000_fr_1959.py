"""Seed 000 (arrêté du 23 décembre 1959, art. 57-15) under the ``fr-1959`` profile.

One test per machine-checkable sentence: each is named after the sentence it checks, quotes it (the
lines starting with ``>``, verbatim, ``[...]`` marking a cut) and names its seed file. It drives the real
rules core (``Table``, ``settle``, ``evaluate``). The checks of rules that several seeds state, the table
builders and the sentences judged not machine-checkable are in ``seedchecks``.
"""

from __future__ import annotations

import pytest
from seedchecks import (
    ANTE,
    FR_1959,
    check_ace_is_one_only_in_straights,
    check_ace_king_qualifies,
    check_antes_paid_even_money,
    check_bank_wins_announced,
    check_beaten_hand_loses_ante_and_raise,
    check_bets_frozen_at_no_more_bets,
    check_bets_within_limits_before_shuffle,
    check_betting_closed_before_shuffle_and_deal,
    check_card_ranks_in_decreasing_order,
    check_counted_then_shuffled_five_times_and_cut_twice,
    check_cut_by_player_at_far_left,
    check_deal_starts_at_dealers_left_clockwise,
    check_dealer_collects_folded_ante,
    check_dealer_pays_counter_clockwise,
    check_dealer_shows_when_every_player_has_decided,
    check_dealer_takes_his_card_after_first_round,
    check_dealer_takes_only_one_card_in_first_round,
    check_decision_cannot_be_changed,
    check_decisions_only_after_end_of_deal,
    check_deck_of_52_cards,
    check_deck_serves_several_coups_and_can_be_replaced,
    check_declared_void_returns_every_bet,
    check_each_hand_compared_with_the_dealers,
    check_equal_hands_are_void,
    check_exposed_card_is_no_misdeal,
    check_exposed_card_turned_over_deal_goes_on,
    check_face_down_but_dealers_fifth,
    check_five_to_seven_marked_seats,
    check_fold_announced_passe,
    check_four_more_rounds_in_same_order,
    check_hand_void_when_looked_at_before_end_of_deal,
    check_new_coup_after_shuffle_and_cut,
    check_no_game_pays_antes_only,
    check_one_hand_each_and_no_bet_on_vacant_seat,
    check_one_player_suffices,
    check_only_marked_seats_hold_hands,
    check_raise_is_twice_the_ante,
    check_refused_cut_passes_clockwise,
    check_seats_numbered_one_to_seven_clockwise,
    check_wrong_card_count_voids_coup,
    deal,
    flagged,
    kinds,
    make_rules,
    now,
    refused,
    shuffled,
)

from controller.rules.cards import full_deck
from controller.rules.flags import FlagKind
from controller.rules.operations import DEALER, Box
from controller.rules.table import Phase, Table


def test_000_fonctionnement_du_stud_poker_de_casino_le_jeu_du_stud_poker_de_casino_se_joue_avec_un_jeu():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Fonctionnement du stud poker de casino. - Le jeu du stud poker de casino se joue avec un jeu de
    > cinquante-deux cartes à teinte unie, de même type et de même format que les cartes de black-jack et de
    > punto banco.

    The deck is counted at 52 distinct cards; a card seen twice in a coup is a foreign card.
    """
    check_deck_of_52_cards(FR_1959)


def test_000_au_debut_de_chaque_seance_il_doit_etre_fait_usage_de_cartes_neuves():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Au début de chaque séance, il doit être fait usage de cartes neuves.

    What a machine can check: a session begins with a deck brought in and counted, before any bet or card.
    (Whether the cards are new is not for the controller to see.)
    """
    table = Table(make_rules(FR_1959))
    table.sit_down(0, 1)
    assert refused(table.place_bet, 0, 1, Box.ANTE, ANTE)
    assert refused(table.no_more_bets, 0)
    assert refused(table.deal_card, 0, 1, None, False)
    table.open_session(0, full_deck())
    table.place_bet(1, 1, Box.ANTE, ANTE)
    assert table.seats[1].bets == {Box.ANTE: ANTE}


def test_000_le_jeu_peut_servir_plusieurs_fois_mais_il_doit_etre_remplace_par_un_jeu_neuf():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Le jeu peut servir plusieurs fois mais il doit être remplacé par un jeu neuf dès qu'il n'est plus en
    > parfait état.

    The same deck deals coup after coup (its cards are not foreign the second time); a new, counted deck may
    replace it between two coups.
    """
    check_deck_serves_several_coups_and_can_be_replaced(FR_1959)


def test_000_apres_leur_comptee_et_leur_verification_le_croupier_retourne_les_cartes():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Après leur comptée et leur vérification, le croupier retourne les cartes qui sont rassemblées en un seul
    > tas, lequel est mélangé cinq fois et coupé deux fois.
    """
    check_counted_then_shuffled_five_times_and_cut_twice(FR_1959)


def test_000_le_jeu_est_ensuite_presente_au_joueur_situe_a_l_exterieur_gauche_du_croupier():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Le jeu est ensuite présenté au joueur situé à l'extérieur gauche du croupier pour une nouvelle et dernière
    > coupe.

    The first player from the dealer's left (the lowest seat in play) cuts, once, before any card is dealt.
    """
    check_cut_by_player_at_far_left(FR_1959)


def test_000_si_le_joueur_refuse_la_coupe_celle_ci_est_proposee_au_joueur_suivant():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Si le joueur refuse la coupe, celle-ci est proposée au joueur suivant, en allant dans le sens des
    > aiguilles d'une montre.
    """
    check_refused_cut_passes_clockwise(FR_1959)


def test_000_si_la_coupe_est_refusee_par_l_ensemble_des_joueurs_elle_revient_au_joueur_d_origine():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Si la coupe est refusée par l'ensemble des joueurs, elle revient au joueur d'origine.
    """
    table = shuffled(FR_1959, (2, 4, 6))
    for seat in (2, 4, 6):
        table.offer_cut(now(table), seat, False)
    table.offer_cut(now(table), 2, True)
    deal(table, {2: "??"}, "")
    assert kinds(table) == []
    table = shuffled(FR_1959, (2, 4, 6))
    for seat in (2, 4, 6):
        table.offer_cut(now(table), seat, False)
    table.offer_cut(now(table), 4, True)
    assert flagged(table, FlagKind.CUT_OUT_OF_ORDER) == [4]


def test_000_le_croupier_tailleur_anime_la_partie_invite_les_joueurs_a_miser_arrete_les_jeux():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Le croupier-tailleur anime la partie, invite les joueurs à miser, arrête les jeux et contrôle, avec le
    > chef de table, le placement des mises avant le mélange et la distribution des cartes.

    No shuffle and no card before « rien ne va plus »; the placing of the bets is checked then.
    """
    check_betting_closed_before_shuffle_and_deal(FR_1959)


def test_000_la_partie_peut_debuter_en_presence_d_un_seul_joueur():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > La partie peut débuter en présence d'un seul joueur.
    """
    check_one_player_suffices(FR_1959)


def test_000_celui_ci_installe_a_la_table_assiste_a_la_comptee_et_a_la_verification_des_cartes():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Celui-ci, installé à la table, assiste à la comptée et à la vérification des cartes.

    The player may be seated before the deck is counted and the session opened.
    """
    table = Table(make_rules(FR_1959))
    table.sit_down(0, 4)
    assert table.phase is Phase.CLOSED
    table.open_session(100, full_deck())
    assert table.seats[4].occupied
    table.place_bet(200, 4, Box.ANTE, ANTE)
    table.no_more_bets(300)
    assert table.players_in_play() == [4]


def test_000_le_nombre_de_joueurs_assis_seuls_susceptibles_d_avoir_une_main_correspond_au_nombre():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Le nombre de joueurs assis, seuls susceptibles d'avoir une main, correspond au nombre d'emplacements
    > marqués sur le tapis.
    """
    check_only_marked_seats_hold_hands(FR_1959)


def test_000_il_est_au_minimum_de_cinq_et_au_maximum_de_sept():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Il est au minimum de cinq et au maximum de sept.

    « Il »: the number of places marked on the felt.
    """
    check_five_to_seven_marked_seats(FR_1959)


def test_000_la_numerotation_de_un_a_sept_se_fait_suivant_le_sens_des_aiguilles_d_une_montre():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > La numérotation de un à sept se fait suivant le sens des aiguilles d'une montre.
    """
    check_seats_numbered_one_to_seven_clockwise(FR_1959)


def test_000_les_joueurs_ne_disposent_que_d_une_seule_main_et_ne_peuvent_miser_sur_les_emplacements():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Les joueurs ne disposent que d'une seule main et ne peuvent miser sur les emplacements vacants.
    """
    check_one_hand_each_and_no_bet_on_vacant_seat(FR_1959)


def test_000_prealablement_au_melange_des_cartes_les_employes_de_la_table_verifient_que_toutes():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Préalablement au mélange des cartes, les employés de la table vérifient que toutes les mises sont
    > conformes, correctement placées et que leur montant, par joueur, est compris entre le minimum et le
    > maximum autorisés à la table.
    """
    check_bets_within_limits_before_shuffle(FR_1959)


def test_000_les_mises_exclusivement_representees_par_des_plaques_ou_jetons_ne_peuvent_etre_placees():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Les mises, exclusivement représentées par des plaques ou jetons ne peuvent être placées, modifiées ou
    > retirées après le rien ne va plus.

    Each change is flagged, and the coup is settled on the bets as they stood at « rien ne va plus ».
    """
    check_bets_frozen_at_no_more_bets(FR_1959)


def test_000_le_croupier_distribue_une_carte_pour_chaque_main_face_cachee_a_partir_de_sa_gauche():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Le croupier distribue une carte pour chaque main, face cachée, à partir de sa gauche et suivant le sens
    > des aiguilles d'une montre.
    """
    check_deal_starts_at_dealers_left_clockwise(FR_1959)


def test_000_a_l_issue_de_ce_premier_tour_il_se_donne_une_carte():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > A l'issue de ce premier tour, il se donne une carte.
    """
    check_dealer_takes_his_card_after_first_round(FR_1959)
    check_dealer_takes_only_one_card_in_first_round(FR_1959)


def test_000_il_effectue_quatre_autres_tours_toujours_dans_le_meme_ordre():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Il effectue quatre autres tours, toujours dans le même ordre, en distribuant une carte à chaque main et
    > une à lui-même.
    """
    check_four_more_rounds_in_same_order(FR_1959)


def test_000_les_cartes_sont_dans_tous_les_cas_distribuees_figure_cachee_sauf_la_cinquieme_carte():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Les cartes sont, dans tous les cas, distribuées figure cachée sauf la cinquième carte du croupier qui est
    > exposée figure visible.
    """
    check_face_down_but_dealers_fifth(FR_1959)


def test_000_une_carte_exposee_ne_constitue_pas_une_maldonne():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Une carte exposée ne constitue pas une maldonne.
    """
    check_exposed_card_is_no_misdeal(FR_1959)


def test_000_elle_est_retournee_et_la_donne_se_poursuit():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Elle est retournée et la donne se poursuit.
    """
    check_exposed_card_turned_over_deal_goes_on(FR_1959)


@pytest.mark.parametrize("position", [2, DEALER], ids=["player_short", "dealer_over"])
def test_000_le_coup_est_nul_quand_le_nombre_de_cartes_composant_la_main_d_un_joueur(position):
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Le coup est nul quand : - le nombre de cartes composant la main d'un joueur ou du croupier est
    > incorrect ;

    A void coup returns every bet.
    """
    check_wrong_card_count_voids_coup(FR_1959, position)


def test_000_le_coup_est_nul_quand_les_joueurs_echangent_des_informations_sur_le_contenu():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Le coup est nul quand : [...] - les joueurs échangent des informations sur le contenu de leur main.

    The exchange itself is seen by the table chief, not by a machine; he declares the coup void
    (``DeclareVoid``), and a declared void coup returns every bet.
    """
    check_declared_void_returns_every_bet(FR_1959)


def test_000_la_main_d_un_joueur_est_nulle_quand_celui_ci_en_prend_connaissance_avant_la_fin():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > La main d'un joueur est nulle quand celui-ci en prend connaissance avant la fin de la donne.
    """
    check_hand_void_when_looked_at_before_end_of_deal(FR_1959)


def test_000_l_ordre_de_valeur_des_cartes_de_facon_decroissante_est_le_suivant():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > L'ordre de valeur des cartes, de façon décroissante est le suivant : As, roi, dame, valet, dix, neuf,
    > huit, sept, six, cinq, quatre, trois deux.
    """
    check_card_ranks_in_decreasing_order(FR_1959)


def test_000_l_as_vaut_un_dans_les_seules_combinaisons_de_la_quinte_et_de_la_quinte_flush():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > L'as vaut un dans les seules combinaisons de la quinte et de la quinte flush.
    """
    check_ace_is_one_only_in_straights(FR_1959)


def test_000_c_est_seulement_a_l_issue_de_la_donne_que_les_joueurs_prennent_connaissance():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > C'est seulement à l'issue de la donne que les joueurs prennent connaissance de leur main et décident de
    > renoncer ou de relancer, après avoir établi leur meilleure combinaison.
    """
    check_decisions_only_after_end_of_deal(FR_1959)


def test_000_en_cas_de_renonce_le_joueur_annonce_passe_et_pose_ses_cartes_face_cachee():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > En cas de renonce, le joueur annonce passe et pose ses cartes, face cachée, à hauteur de la case ante.
    """
    check_fold_announced_passe(FR_1959)


def test_000_le_croupier_ramasse_la_mise_etale_les_cartes_les_compte_puis_les_brule():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Le croupier ramasse la mise, étale les cartes, les compte puis les brûle.

    The folded ante is the house's, even when the dealer then does not qualify; taking it off the felt is no
    bet moved after « rien ne va plus ».
    """
    check_dealer_collects_folded_ante(FR_1959)


def test_000_en_cas_de_relance_le_joueur_place_le_double_de_la_mise_initiale():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > En cas de relance, le joueur place le double de la mise initiale dans la case marquée relance et pose ses
    > cartes, face cachée, à hauteur de la case ante afin que le croupier les dispose ensuite devant la case.
    """
    check_raise_is_twice_the_ante(FR_1959)


def test_000_quand_chaque_joueur_s_est_determine_le_croupier_expose_sa_main_horizontalement():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Quand chaque joueur s'est déterminé, le croupier expose sa main horizontalement, face visible, devant lui
    > et selon sa meilleure combinaison.
    """
    check_dealer_shows_when_every_player_has_decided(FR_1959)


def test_000_des_lors_ils_ne_peuvent_plus_y_toucher():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Dès lors, ils ne peuvent plus y toucher.

    Once a player has folded or raised, his decision stands.
    """
    check_decision_cannot_be_changed(FR_1959)


def test_000_si_la_main_du_croupier_ne_possede_pas_la_combinaison_as_roi_ou_mieux_il_annonce():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Si la main du croupier ne possède pas la combinaison As/roi ou mieux, il annonce pas de jeu et procède au
    > paiement des seules mises initiales avant d'étaler, compter et brûler les cartes.
    """
    check_no_game_pays_antes_only(FR_1959)


def test_000_les_mises_initiales_sont_toujours_payees_a_egalite():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Les mises initiales sont toujours payées à égalité.
    """
    check_antes_paid_even_money(FR_1959)


def test_000_si_la_main_du_croupier_possede_la_combinaison_as_roi_ou_mieux_le_jeu_se_poursuit():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Si la main du croupier possède la combinaison As/roi ou mieux, le jeu se poursuit.
    """
    check_ace_king_qualifies(FR_1959)


def test_000_il_compare_sa_main_a_celle_de_chaque_joueur_individuellement():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Il compare sa main à celle de chaque joueur individuellement, annonce à haute voix la combinaison
    > gagnante, procède au ramassage des chances perdantes et au paiement des mains gagnantes.
    """
    check_each_hand_compared_with_the_dealers(FR_1959)


def test_000_les_mains_qui_ont_obtenu_un_point_egal_a_celui_du_croupier_sont_nulles():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Les mains qui ont obtenu un point égal à celui du croupier sont nulles.
    """
    check_equal_hands_are_void(FR_1959)


def test_000_il_opere_suivant_le_sens_contraire_des_aiguilles_d_une_montre():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Il opère suivant le sens contraire des aiguilles d'une montre.
    """
    check_dealer_pays_counter_clockwise(FR_1959)


def test_000_la_main_d_un_joueur_qui_est_battue_par_celle_du_croupier_perd_a_la_fois():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > La main d'un joueur qui est battue par celle du croupier perd à la fois la mise initiale et la mise de
    > relance.
    """
    check_beaten_hand_loses_ante_and_raise(FR_1959)


def test_000_quand_la_main_du_croupier_l_emporte_sur_l_ensemble_des_joueurs_il_annonce_banque_gagne():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Quand la main du croupier l'emporte sur l'ensemble des joueurs, il annonce banque gagne.
    """
    check_bank_wins_announced(FR_1959)


def test_000_il_recupere_ensuite_le_jeu_retire_la_carte_de_coupe_bleue_procede_a_l_operation():
    """Seed 000_c9fcc3ffc2ce3fc5.txt:

    > Il récupère ensuite le jeu, retire la carte de coupe bleue, procède à l'opération de mélange et de coupe
    > et un nouveau coup s'engage.

    The next coup begins after the payments, and its cards are shuffled and cut again.
    """
    check_new_coup_after_shuffle_and_cut(FR_1959)
