"""Seed 002 (arrêté du 17 mai 2007: achat de carte, bonus) under the ``fr-2007`` profile.

One test per machine-checkable sentence: each is named after the sentence it checks, quotes it (the
lines starting with ``>``, verbatim, ``[...]`` marking a cut) and names its seed file. It drives the real
rules core (``Table``, ``settle``, ``evaluate``). The checks of rules that several seeds state, the table
builders and the sentences judged not machine-checkable are in ``seedchecks``.
"""

from __future__ import annotations

import pytest
from seedchecks import (
    ANTE,
    BONUS_STAKE,
    DEALER_ACE_KING,
    DEALER_ACE_QUEEN,
    DEALER_FULL_HOUSE,
    FLUSH,
    FOUR_OF_A_KIND,
    FR_1959,
    FR_2007,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    PAIR_JACKS,
    PAIR_TENS,
    RAISE,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    bets_closed,
    cards,
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
    check_only_marked_seats_hold_hands,
    check_raise_is_twice_the_ante,
    check_raise_pays_per_combination,
    check_refused_cut_passes_clockwise,
    check_seats_numbered_one_to_seven_clockwise,
    check_wrong_card_count_voids_coup,
    deal,
    dealt,
    finish,
    flagged,
    kinds,
    lines_of,
    make_rules,
    now,
    payout,
    play,
    ready_to_deal,
    refused,
    seated,
    shuffled,
)

from controller.rules.cards import parse_card
from controller.rules.flags import FlagKind
from controller.rules.operations import DEALER, Box
from controller.rules.ranking import Category
from controller.rules.settlement import Line, Outcome


def test_002_le_jeu_du_stud_poker_se_joue_avec_un_jeu_de_cinquante_deux_cartes_classique():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le jeu du stud poker se joue avec un jeu de cinquante-deux cartes classique.
    """
    check_deck_of_52_cards(FR_2007)


def test_002_le_croupier_retourne_les_cartes_qui_sont_rassemblees_en_un_seul_tas():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le croupier retourne les cartes qui sont rassemblées en un seul tas, lequel est mélangé cinq fois et
    > coupé deux fois.
    """
    check_counted_then_shuffled_five_times_and_cut_twice(FR_2007, counted=False)


def test_002_le_jeu_est_ensuite_presente_au_joueur_situe_a_l_exterieur_gauche_du_croupier():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le jeu est ensuite présenté au joueur situé à l’extérieur gauche du croupier pour une nouvelle et
    > dernière coupe.
    """
    check_cut_by_player_at_far_left(FR_2007)


def test_002_si_le_joueur_refuse_la_coupe_c_est_le_joueurs_suivant_qui_s_en_charge():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Si le joueur refuse la coupe, c’est le joueurs suivant qui s’en charge, et ainsi de suite en allant dans
    > le sens des aiguilles d’une montre.
    """
    check_refused_cut_passes_clockwise(FR_2007)
    table = shuffled(FR_2007, (1, 3, 5, 7))
    for seat in (1, 3, 5):  # « et ainsi de suite »
        table.offer_cut(now(table), seat, False)
    table.offer_cut(now(table), 7, True)
    assert kinds(table) == []


def test_002_le_croupier_invite_les_joueurs_a_miser_gere_la_partie_arrete_les_jeux():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le croupier invite les joueurs à miser, gère la partie, arrête les jeux et contrôle, avec le chef de
    > table, la place et la valeur des mises avant le mélange et la distribution des cartes.
    """
    check_betting_closed_before_shuffle_and_deal(FR_2007)
    check_bets_within_limits_before_shuffle(FR_2007)


def test_002_le_nombre_de_joueurs_assis_les_seuls_pouvant_avoir_une_main_correspond_au_nombre():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le nombre de joueurs assis,les seuls pouvant avoir une main, correspond au nombre d’emplacements marqués
    > sur le tapis.
    """
    check_only_marked_seats_hold_hands(FR_2007)


def test_002_il_est_situe_entre_cinq_et_sept():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Il est situé entre cinq et sept.
    """
    check_five_to_seven_marked_seats(FR_2007)


def test_002_la_numerotation_de_un_a_sept_se_fait_suivant_le_sens_des_aiguilles_d_une_montre():
    """Seed 002_87ba72c7b4f0f571.txt:

    > La numérotation de un à sept se fait suivant le sens des aiguilles d’une montre.
    """
    check_seats_numbered_one_to_seven_clockwise(FR_2007)


def test_002_les_joueurs_ne_disposent_que_d_une_seule_main_et_ne_peuvent_pas_miser_sur_les():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Les joueurs ne disposent que d’une seule main et ne peuvent pas miser sur les emplacements vide.
    """
    check_one_hand_each_and_no_bet_on_vacant_seat(FR_2007)


def test_002_les_mises_ne_peuvent_pas_etre_placees_modifiees_ou_retirees_apres_le_rien_ne_va_plus():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Les mises ne peuvent pas être placées, modifiées ou retirées après le « rien ne va plus ».
    """
    check_bets_frozen_at_no_more_bets(FR_2007)
    # The bonus box too.
    table = bets_closed(FR_2007, (1,), side_bets=(1,))
    table.place_bet(now(table), 1, Box.BONUS, 0)
    assert flagged(table, FlagKind.BET_AFTER_NO_MORE_BETS) == [1]
    assert table.seats[1].fixed[Box.BONUS] == BONUS_STAKE


def test_002_le_croupier_distribue_une_carte_pour_chaque_main_face_cachee_a_partir_de_sa_gauche():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le croupier distribue une carte pour chaque main, face cachée, à partir de sa gauche et suivant le sens
    > des aiguilles d’une montre.
    """
    check_deal_starts_at_dealers_left_clockwise(FR_2007)


def test_002_a_l_issue_de_ce_premier_tour_il_se_donne_une_carte():
    """Seed 002_87ba72c7b4f0f571.txt:

    > A l’issue de ce premier tour, il se donne une carte.
    """
    check_dealer_takes_his_card_after_first_round(FR_2007)
    check_dealer_takes_only_one_card_in_first_round(FR_2007)


def test_002_il_effectue_quatre_autres_tours_toujours_dans_le_meme_ordre():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Il effectue quatre autres tours, toujours dans le même ordre, en distribuant une carte à chaque main et
    > une à lui-même.
    """
    check_four_more_rounds_in_same_order(FR_2007)


def test_002_les_cartes_sont_dans_tous_les_cas_distribuees_face_cachee_sauf_la_cinquieme_carte():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Les cartes sont, dans tous les cas, distribuées face cachée, sauf la cinquième carte du croupier qui est
    > exposée figure visible.
    """
    check_face_down_but_dealers_fifth(FR_2007)


def test_002_une_carte_exposee_ne_constitue_pas_une_maldonne():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Une carte exposée ne constitue pas une maldonne.
    """
    check_exposed_card_is_no_misdeal(FR_2007)


def test_002_elle_est_retournee_et_la_donne_se_poursuit():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Elle est retournée et la donne se poursuit.
    """
    check_exposed_card_turned_over_deal_goes_on(FR_2007)


@pytest.mark.parametrize("position", [2, DEALER], ids=["player_short", "dealer_over"])
def test_002_le_coup_est_nul_lorsque_le_nombre_de_cartes_composant_la_main_d_un_joueur(position):
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le coup est nul lorsque : – le nombre de cartes composant la main d’un joueur ou du croupier est
    > incorrect ;

    A void coup returns every bet, the bonus included.
    """
    check_wrong_card_count_voids_coup(FR_2007, position)


def test_002_le_coup_est_nul_lorsque_les_joueurs_echangent_des_informations_sur_le_contenu():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le coup est nul lorsque : [...] – les joueurs échangent des informations sur le contenu de leur main.

    Declared by the table chief (``DeclareVoid``): every bet, the bonus included, is returned.
    """
    check_declared_void_returns_every_bet(FR_2007)
    table = dealt(FR_2007, {1: FLUSH}, DEALER_ACE_KING, side_bets=(1,))
    table.declare_void(now(table), "échange d'informations")
    table.settle(now(table))
    assert payout(table, 1, Line.BONUS).outcome is Outcome.RETURNED


def test_002_la_main_d_un_joueur_est_nulle_quand_celui_ci_en_prend_connaissance_avant_la_fin():
    """Seed 002_87ba72c7b4f0f571.txt:

    > – La main d’un joueur est nulle quand celui-ci en prend connaissance avant la fin de la donne.
    """
    check_hand_void_when_looked_at_before_end_of_deal(FR_2007)


def test_002_la_hierarchie_des_cartes_de_facon_decroissante_est_le_suivant():
    """Seed 002_87ba72c7b4f0f571.txt:

    > La hiérarchie des cartes, de façon décroissante est le suivant : As, roi, dame, valet, dix, neuf, huit,
    > sept, six, cinq, quatre, trois deux.
    """
    check_card_ranks_in_decreasing_order(FR_2007)


def test_002_l_as_vaut_un_dans_les_seules_combinaisons_de_la_quinte_et_de_la_quinte_flush():
    """Seed 002_87ba72c7b4f0f571.txt:

    > L’as vaut un dans les seules combinaisons de la quinte et de la quinte flush.
    """
    check_ace_is_one_only_in_straights(FR_2007)


def test_002_c_est_seulement_a_la_fin_de_la_donne_que_les_joueurs_prennent_connaissance():
    """Seed 002_87ba72c7b4f0f571.txt:

    > C’est seulement à la fin de la donne que les joueurs prennent connaissance de leur main et décident
    > d’abandonner ou de relancer, après avoir préparé leur meilleure combinaison.
    """
    check_decisions_only_after_end_of_deal(FR_2007)


def test_002_en_cas_de_renonce_le_joueur_annonce_passe_et_pose_ses_cartes_face_cachee():
    """Seed 002_87ba72c7b4f0f571.txt:

    > En cas de renonce, le joueur annonce passe et pose ses cartes, face cachée, à hauteur de la case ante.
    """
    check_fold_announced_passe(FR_2007)


def test_002_le_croupier_ramasse_la_mise_etale_les_cartes_les_compte_puis_les_brule():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le croupier ramasse la mise, étale les cartes, les compte, puis les brûle.
    """
    check_dealer_collects_folded_ante(FR_2007)


def test_002_en_cas_de_relance_le_joueur_place_le_double_de_la_mise_initiale():
    """Seed 002_87ba72c7b4f0f571.txt:

    > En cas de relance, le joueur place le double de la mise initiale dans la case marquée relance et pose
    > ses cartes, face cachée, à hauteur de la case ante afin que le croupier les dispose ensuite devant la
    > case.
    """
    check_raise_is_twice_the_ante(FR_2007)


def test_002_quand_chaque_joueur_a_fait_son_choix_le_croupier_expose_sa_main_horizontalement():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Quand chaque joueur a fait son choix, le croupier expose sa main horizontalement, face visible, devant
    > lui et selon sa meilleure combinaison.
    """
    check_dealer_shows_when_every_player_has_decided(FR_2007)


def test_002_des_lors_ils_ne_peuvent_plus_y_toucher():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Dès lors, ils ne peuvent plus y toucher.
    """
    check_decision_cannot_be_changed(FR_2007)


def test_002_si_la_main_du_croupier_ne_possede_pas_la_combinaison_as_roi_ou_mieux_il_annonce():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Si la main du croupier ne possède pas la combinaison as/roi ou mieux, il annonce « pas de jeu » et
    > procède au paiement des mises initiales uniquements avant d’étaler, compter et brûler les cartes.
    """
    check_no_game_pays_antes_only(FR_2007)


def test_002_les_mises_initiales_sont_toujours_payees_a_egalite():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Les mises initiales sont toujours payées à égalité.
    """
    check_antes_paid_even_money(FR_2007)


def test_002_si_la_main_du_croupier_possede_la_combinaison_as_roi_ou_mieux_le_jeu_continu():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Si la main du croupier possède la combinaison as/roi ou mieux, le jeu continu.
    """
    check_ace_king_qualifies(FR_2007)


def test_002_il_compare_sa_main_a_celle_de_chaque_joueur_individuellement():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Il compare sa main à celle de chaque joueur individuellement, annonce à haute voix la combinaison
    > gagnante, procède au ramassage des chances perdantes et au paiement des mains gagnantes.
    """
    check_each_hand_compared_with_the_dealers(FR_2007)


def test_002_les_mains_qui_ont_obtenu_un_point_egal_a_celui_du_croupier_sont_nulles():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Les mains qui ont obtenu un point égal à celui du croupier sont nulles.
    """
    check_equal_hands_are_void(FR_2007)


def test_002_il_opere_suivant_le_sens_contraire_des_aiguilles_d_une_montre():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Il opère suivant le sens contraire des aiguilles d’une montre.
    """
    check_dealer_pays_counter_clockwise(FR_2007)


def test_002_la_main_d_un_joueur_qui_est_battue_par_celle_du_croupier_perd_a_la_fois():
    """Seed 002_87ba72c7b4f0f571.txt:

    > La main d’un joueur qui est battue par celle du croupier perd à la fois la mise initiale et la mise de
    > relance.
    """
    check_beaten_hand_loses_ante_and_raise(FR_2007)


def test_002_quand_la_main_du_croupier_l_emporte_sur_l_ensemble_des_joueurs_il_annonce_la_banque():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Quand la main du croupier l’emporte sur l’ensemble des joueurs, il annonce « la banque gagne ».
    """
    check_bank_wins_announced(FR_2007)


def test_002_il_recupere_ensuite_le_jeu_retire_la_carte_de_coupe_bleue_procede_a_l_operation():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Il récupère ensuite le jeu, retire la carte de coupe bleue, procède à l’opération de mélange et de coupe
    > et un nouveau coup s’engage.
    """
    check_new_coup_after_shuffle_and_cut(FR_2007)


# Achat de carte.


def test_002_pour_ameliorer_son_jeu_le_joueur_peut_choisir_d_acheter_une_carte_pour_le_montant():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Pour améliorer son jeu, le joueur peut choisir d’acheter une carte, pour le montant de sa mise initiale.
    """
    table = dealt(FR_2007, {1: "Kc 7d 6h 4s 2c", 2: "Qc 7c 6d 4h 2d"}, DEALER_ACE_KING)
    for seat in (1, 2):
        table.raise_(now(table), seat, RAISE)
    table.buy_card(now(table), 1, 4, ANTE)
    table.buy_card(now(table), 2, 4, 2 * ANTE)
    assert flagged(table, FlagKind.PURCHASE_PRICE_WRONG) == [2]
    table.deal_bought_card(now(table), 1, parse_card("Ks"))
    table.deal_bought_card(now(table), 2, parse_card("Qs"))
    finish(table)
    price = payout(table, 1, Line.PURCHASE)
    assert (price.stake, price.outcome, price.net) == (ANTE, Outcome.LOSE, -ANTE)
    # A table of the 1959 rules sells no card.
    table = dealt(FR_1959, {1: "Kc 7d 6h 4s 2c"}, DEALER_ACE_KING)
    table.raise_(now(table), 1, RAISE)
    assert refused(table.buy_card, now(table), 1, 4, ANTE)


def test_002_pour_cela_en_meme_temps_qu_il_relance_le_joueur_place_la_carte_dont_il_veut_se_separer():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Pour cela, en même temps qu’il « relance », le joueur place la carte dont il veut se séparer sur la
    > « bande de paiement », espace du tapis entre le croupier et le joueur, la mise étant placée sur la carte.

    A card is bought only together with a raise: not before deciding, not after folding.
    """
    table = dealt(FR_2007, {1: PAIR, 2: PAIR_TENS, 3: PAIR_JACKS}, DEALER_ACE_KING)
    assert refused(table.buy_card, now(table), 1, 4, ANTE)
    table.fold(now(table), 2)
    assert refused(table.buy_card, now(table), 2, 4, ANTE)
    table.raise_(now(table), 3, RAISE)
    table.buy_card(now(table), 3, 4, ANTE)
    assert table.seats[3].discard == 4
    assert table.seats[3].discarded == parse_card("5h")


def test_002_des_cet_instant_le_joueur_ne_peut_plus_toucher_ses_cartes():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Dès cet instant, le joueur ne peut plus toucher ses cartes.
    """
    table = dealt(FR_2007, {1: PAIR}, DEALER_ACE_KING)
    table.raise_(now(table), 1, RAISE)
    table.buy_card(now(table), 1, 4, ANTE)
    assert refused(table.buy_card, now(table), 1, 3, ANTE)
    assert refused(table.fold, now(table), 1)
    assert table.seats[1].discard == 4


def test_002_le_croupier_dans_l_ordre_de_distribution_distribue_au_joueur_une_carte_ouverte():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le croupier, dans l’ordre de distribution, distribue au joueur une carte ouverte, qu’il place devant la
    > carte défaussée, avant de ramasser celle-ci ainsi que la mise.
    """
    hands = {2: "Kc 7d 6h 4s 2c", 5: "Qc 7c 6d 4h 2d"}
    table = dealt(FR_2007, hands, DEALER_ACE_KING)
    for seat in (2, 5):
        table.raise_(now(table), seat, RAISE)
        table.buy_card(now(table), seat, 4, ANTE)
    assert refused(table.show_dealer_hand, now(table))  # the bought cards first
    table.deal_bought_card(now(table), 5, parse_card("Qs"))
    table.deal_bought_card(now(table), 2, parse_card("Ks"))
    assert flagged(table, FlagKind.PURCHASE_OUT_OF_ORDER) == [5]
    hand = table.seats[2].hand
    assert (hand.cards[4], hand.face_up[4]) == (parse_card("Ks"), True)
    assert table.seats[2].discarded == parse_card("2c")
    finish(table)
    assert payout(table, 2, Line.PURCHASE).net == -ANTE  # the price is collected
    table = dealt(FR_2007, hands, DEALER_ACE_KING)
    for seat in (2, 5):
        table.raise_(now(table), seat, RAISE)
        table.buy_card(now(table), seat, 4, ANTE)
    table.deal_bought_card(now(table), 2, parse_card("Ks"))
    table.deal_bought_card(now(table), 5, parse_card("Qs"))
    assert kinds(table) == []


def test_002_a_noter_que_l_achat_d_une_carte_entraine_la_perte_du_benefice_du_bonus():
    """Seed 002_87ba72c7b4f0f571.txt:

    > A noter que l’achat d’une carte entraîne la perte du bénéfice du bonus dont la mise est aussitôt
    > récupérée par le croupier.
    """
    four_clubs = "Qc Tc 8c 6c 5d"
    table = dealt(FR_2007, {1: four_clubs}, DEALER_ACE_KING, side_bets=(1,))
    table.raise_(now(table), 1, RAISE)
    table.buy_card(now(table), 1, 4, ANTE)
    table.place_bet(now(table), 1, Box.BONUS, 0)  # collected at once: no bet moved after the rien ne va plus
    table.deal_bought_card(now(table), 1, parse_card("5c"))  # a flush
    finish(table)
    assert kinds(table) == []
    assert table.settlement is not None and table.settlement.hand_values[1].category is Category.FLUSH
    bonus = payout(table, 1, Line.BONUS)
    assert (bonus.outcome, bonus.net) == (Outcome.LOSE, -BONUS_STAKE)
    # The bonus stake left on the felt after a purchase is flagged.
    table = dealt(FR_2007, {1: four_clubs}, DEALER_ACE_KING, side_bets=(1,))
    table.raise_(now(table), 1, RAISE)
    table.buy_card(now(table), 1, 4, ANTE)
    table.deal_bought_card(now(table), 1, parse_card("5c"))
    table.show_dealer_hand(now(table))
    assert flagged(table, FlagKind.BONUS_KEPT_AFTER_PURCHASE) == [1]


def test_002_la_comparaison_du_jeu_du_croupier_avec_le_jeu_des_joueurs_et_le_paiement_s_effectuent():
    """Seed 002_87ba72c7b4f0f571.txt:

    > La comparaison du jeu du croupier avec le jeu des joueurs et le paiement s’effectuent ensuite selon les
    > règles habituelles du jeu du stud poker.

    The hand with the bought card is compared and paid as any other.
    """
    table = dealt(FR_2007, {1: "Kc 7d 6h 4s 2c"}, "3c 3h Ad Qs 8d")  # the dealer has a pair of threes
    table.raise_(now(table), 1, RAISE)
    table.buy_card(now(table), 1, 4, ANTE)
    table.deal_bought_card(now(table), 1, parse_card("Kd"))  # a pair of kings
    finish(table)
    assert table.settlement is not None and table.settlement.hand_values[1].category is Category.PAIR
    assert payout(table, 1, Line.ANTE).net == ANTE
    assert payout(table, 1, Line.RAISE).net == RAISE
    assert table.settlement.net_for(1) == ANTE + RAISE - ANTE


# Bonus.


def test_002_le_bonus_permet_au_joueur_moyennant_une_mise_supplementaire_de_percevoir_un_gain():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le bonus permet au joueur, moyennant une mise supplémentaire, de percevoir un gain en plus du paiement de
    > sa relance gagnante, à condition d’avoir dans son jeu une combinaison au moins égale à la « couleur ».
    """
    table = play(FR_2007, {1: FLUSH, 2: "9d 8d 7h 6s 5h"}, DEALER_ACE_KING, side_bets=(1, 2))
    assert payout(table, 1, Line.RAISE).net == 8 * RAISE
    assert payout(table, 1, Line.BONUS).net == 100 * BONUS_STAKE
    assert payout(table, 2, Line.RAISE).net == 5 * RAISE  # a straight: below the flush
    assert payout(table, 2, Line.BONUS).net == -BONUS_STAKE


def test_002_ce_gain_lui_est_acquis_meme_si_le_croupier_n_est_pas_qualifie():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Ce gain lui est acquis même si le croupier n’est pas qualifié.
    """
    table = play(FR_2007, {1: FLUSH}, DEALER_ACE_QUEEN, side_bets=(1,))
    assert table.settlement is not None and table.settlement.dealer_qualifies is False
    bonus = payout(table, 1, Line.BONUS)
    assert (bonus.outcome, bonus.net) == (Outcome.WIN, 100 * BONUS_STAKE)
    assert payout(table, 1, Line.RAISE).outcome is Outcome.RETURNED


def test_002_le_paiement_du_bonus_s_effectue_selon_un_bareme_affiche_apres_le_cas_echeant():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le paiement du bonus s’effectue selon un barème affiché, après, le cas échéant, le paiement de la
    > relance, le croupier annonçant « bonus payé ».
    """
    table = play(FR_2007, {1: FLUSH, 2: "Jc Jh 8h 7c 5h"}, DEALER_ACE_KING, side_bets=(1, 2))
    assert lines_of(table, 1) == [Line.ANTE, Line.RAISE, Line.BONUS]
    assert table.settlement is not None and "Bonus payé" in table.settlement.labels()
    table = play(FR_2007, {1: PAIR}, DEALER_ACE_KING, side_bets=(1,))
    assert table.settlement is not None and "Bonus payé" not in table.settlement.labels()


def test_002_il_en_resulte_que_si_le_croupier_est_qualifie_et_que_le_joueur_a_une_main_inferieure():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Il en résulte que si le croupier est qualifié et que le joueur a une main inférieure, il ne perçoit pas
    > le bonus et perd sa mise.
    """
    table = play(FR_2007, {1: FLUSH}, DEALER_FULL_HOUSE, side_bets=(1,))
    bonus = payout(table, 1, Line.BONUS)
    assert (bonus.outcome, bonus.net) == (Outcome.LOSE, -BONUS_STAKE)
    assert payout(table, 1, Line.RAISE).outcome is Outcome.LOSE


@pytest.mark.parametrize("when", ["after_the_deal", "during_the_deal"])
def test_002_le_bonus_doit_etre_joue_avant_la_fin_de_la_donne(when):
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le bonus doit être joué avant la fin de la donne.

    A bonus placed once the deal has ended is not played; one placed during the deal is.
    """
    hands = {1: FLUSH}
    table = ready_to_deal(FR_2007, (1,))
    if when == "during_the_deal":
        deal(table, hands, DEALER_ACE_KING, stop=2)
        table.place_bet(now(table), 1, Box.BONUS, BONUS_STAKE)
        deal(table, hands, DEALER_ACE_KING, start=2)
        table.end_deal(now(table))
    else:
        deal(table, hands, DEALER_ACE_KING)
        table.end_deal(now(table))
        table.place_bet(now(table), 1, Box.BONUS, BONUS_STAKE)
    finish(table)
    if when == "during_the_deal":
        assert FlagKind.BET_AFTER_NO_MORE_BETS not in kinds(table)
        assert payout(table, 1, Line.BONUS).net == 100 * BONUS_STAKE
    else:
        assert flagged(table, FlagKind.BET_AFTER_NO_MORE_BETS) == [1]
        assert Line.BONUS not in lines_of(table, 1)


def test_002_dans_la_pratique_le_joueur_mise_sur_le_bonus_en_meme_temps_qu_il_place_sa_mise_initiale():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Dans la pratique, le joueur mise sur le bonus en même temps qu’il place sa mise initiale.

    A bonus goes with an ante: without one it is returned.
    """
    table = seated(FR_2007, (1, 2))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.place_bet(now(table), 1, Box.BONUS, BONUS_STAKE)
    table.place_bet(now(table), 2, Box.BONUS, BONUS_STAKE)
    table.no_more_bets(now(table))
    assert flagged(table, FlagKind.SIDE_BET_WITHOUT_ANTE) == [2]
    assert table.players_in_play() == [1]
    assert table.seats[1].fixed == {Box.ANTE: ANTE, Box.BONUS: BONUS_STAKE}
    table.shuffle(now(table))
    table.offer_cut(now(table), 1, True)
    deal(table, {1: FLUSH}, DEALER_ACE_KING)
    table.end_deal(now(table))
    finish(table)
    assert payout(table, 1, Line.BONUS).outcome is Outcome.WIN
    assert lines_of(table, 2) == []


def test_002_le_montant_de_la_mise_pour_y_participer_est_egal_a_1_5_du_minimum_pratique():
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le montant de la mise pour y participer est égal à 1/5 du minimum pratiqué (0,20 €, 2 × 0,20 €, 1 €, 2 €,
    > 4 €…).
    """
    for minimum, stake in ((100, 20), (200, 40), (500, 100), (1_000, 200), (2_000, 400)):
        assert make_rules(FR_2007, minimum=minimum).bonus_stake_cents == stake
    with pytest.raises(ValueError):
        make_rules(FR_2007, minimum=1_001)  # a fifth of it is no whole number of cents
    table = seated(FR_2007, (1, 2))
    for seat, stake in ((1, BONUS_STAKE), (2, 2 * BONUS_STAKE)):
        table.place_bet(now(table), seat, Box.ANTE, ANTE)
        table.place_bet(now(table), seat, Box.BONUS, stake)
    table.no_more_bets(now(table))
    assert flagged(table, FlagKind.BONUS_STAKE_WRONG) == [2]


@pytest.mark.parametrize(("hand", "category", "multiple"), [
    (FLUSH, Category.FLUSH, 100),
    (FULL_HOUSE, Category.FULL_HOUSE, 150),
    (FOUR_OF_A_KIND, Category.FOUR_OF_A_KIND, 1_000),
    (STRAIGHT_FLUSH, Category.STRAIGHT_FLUSH, 2_000),
    (ROYAL_FLUSH, Category.ROYAL_FLUSH, 5_000),
], ids=["couleur", "full", "carre", "quinte_flush", "quinte_royale"])
def test_002_le_bareme_de_paiement_du_bonus_est_le_suivant(hand, category, multiple):
    """Seed 002_87ba72c7b4f0f571.txt:

    > Le barème de paiement du bonus est le suivant : Couleur : 100 fois la mise du bonus ; Full : 150 fois la
    > mise du bonus ; Carré : 1 000 fois la mise du bonus ; Quinte flush : 2 000 fois la mise du bonus ; Quinte
    > royale : 5 000 fois la mise du bonus.
    """
    table = play(FR_2007, {1: hand}, DEALER_ACE_KING, side_bets=(1,))
    assert table.settlement is not None and table.settlement.hand_values[1].category is category
    bonus = payout(table, 1, Line.BONUS)
    assert (bonus.outcome, bonus.net) == (Outcome.WIN, multiple * BONUS_STAKE)


@pytest.mark.parametrize("unseen", ["claimant", "other_player"])
def test_002_a_noter_que_lorsque_le_croupier_n_est_pas_qualifie_le_joueur_ayant_mise_sur_le_bonus(unseen):
    """Seed 002_87ba72c7b4f0f571.txt:

    > A noter que lorsque le croupier n’est pas qualifié, le joueur ayant misé sur le bonus et relancé, qui
    > estimeavoir une combinaison gagnante, l’annonce à haute voix et seules ses cartes sont retournées, pour
    > vérification, par le croupier.

    With no qualified dealer, the claimant's cards must be seen before the coup is settled; the other raised
    hands need not be.
    """
    unknown, pair = "?? ?? ?? ?? ??", "Kh Ks 9d 4h 2h"
    hands = {1: FLUSH, 2: unknown} if unseen == "other_player" else {1: unknown, 2: pair}
    table = dealt(FR_2007, hands, DEALER_ACE_QUEEN, side_bets=(1,))
    for seat in (1, 2):
        table.raise_(now(table), seat, RAISE)
    table.show_dealer_hand(now(table))
    settle_refused = refused(table.settle, now(table))
    if unseen == "claimant":
        assert settle_refused
        for index, card in enumerate(cards(FLUSH)):
            assert card is not None
            table.identify_card(now(table), 1, index, card)
        table.settle(now(table))
        assert kinds(table) == []
    else:
        assert not settle_refused
        assert payout(table, 2, Line.ANTE).net == ANTE
        assert payout(table, 2, Line.RAISE).outcome is Outcome.RETURNED
    assert payout(table, 1, Line.BONUS).net == 100 * BONUS_STAKE


@pytest.mark.parametrize(("hand", "category", "multiple"), [
    (PAIR, Category.PAIR, 1),
    (TWO_PAIR, Category.TWO_PAIR, 2),
    (THREE_OF_A_KIND, Category.THREE_OF_A_KIND, 3),
    (STRAIGHT, Category.STRAIGHT, 5),
    (FLUSH, Category.FLUSH, 8),
    (FULL_HOUSE, Category.FULL_HOUSE, 10),
    (FOUR_OF_A_KIND, Category.FOUR_OF_A_KIND, 20),
    (STRAIGHT_FLUSH, Category.STRAIGHT_FLUSH, 50),
    (ROYAL_FLUSH, Category.ROYAL_FLUSH, 100),
    (HIGH_CARD, Category.HIGH_CARD, None),
], ids=["paire", "deux_paires", "brelan", "quinte", "couleur", "full", "carre", "quinte_flush", "quinte_royale",
        "sans_combinaison"])
def test_002_les_joueurs_ne_peuvent_faire_usage_que_des_combinaisons_suivantes(hand, category, multiple):
    """Seed 002_87ba72c7b4f0f571.txt:

    > Les joueurs ne peuvent faire usage que des combinaisons suivantes : 1 paire : 1 fois la mise ; 2 paires
    > : 2 fois la mise ; Brelan : 3 fois la mise ; Quinte : 5 fois la mise ; Couleur : 8 fois la mise ; Full :
    > 10 fois la mise ; Carré : 20 fois la mise ; Quinte flush : 50 fois la mise ; Quinte royale : 100 fois la
    > mise.

    « la mise »: the raise, of a hand that beats a qualified dealer. A hand with none of these combinations
    (ace-king-queen against the dealer's ace-king) has nothing to be paid on its raise.
    """
    if multiple is not None:
        check_raise_pays_per_combination(FR_2007, hand, category, multiple)
        return
    table = play(FR_2007, {1: hand}, DEALER_ACE_KING)
    assert table.settlement is not None and table.settlement.hand_values[1] > table.settlement.dealer_value
    assert payout(table, 1, Line.RAISE).net <= 0
