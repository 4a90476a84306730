"""Seed 004 (Caribbean Stud Poker: jackpot progressif, capital temps) under the ``caribbean`` profile.

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
    CARIBBEAN,
    CARIBBEAN_US,
    DEALER_ACE_KING,
    DEALER_ACE_QUEEN,
    DEALER_FULL_HOUSE,
    FLUSH,
    FR_1959,
    FR_2007,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    PAIR_TENS,
    RAISE,
    ROYAL_FLUSH,
    TWO_PAIR,
    bets_closed,
    check_ace_king_qualifies,
    check_antes_paid_even_money,
    check_deal_starts_at_dealers_left_clockwise,
    check_dealer_collects_folded_ante,
    check_dealer_pays_counter_clockwise,
    check_dealer_shows_when_every_player_has_decided,
    check_decisions_only_after_end_of_deal,
    check_deck_of_52_cards,
    check_each_hand_compared_with_the_dealers,
    check_equal_hands_are_void,
    check_face_down_but_dealers_fifth,
    check_four_more_rounds_in_same_order,
    check_one_player_suffices,
    check_raise_is_twice_the_ante,
    deal,
    dealt,
    finish,
    flagged,
    kinds,
    lines_of,
    make_rules,
    now,
    pay_all,
    payout,
    play,
    profile_named,
    ready_to_deal,
    refused,
    seated,
)

from controller.rules.flags import FlagKind
from controller.rules.operations import DEALER, Box
from controller.rules.ranking import Category
from controller.rules.settlement import Line, Outcome
from controller.rules.table import HAND_SIZE, Decision

JACKPOT_STAKE = 50
OTHER_FLUSH = "Jh 9h 7h 5h 3h"  # shares no card with FLUSH, DEALER_ACE_KING, DEALER_ACE_QUEEN, DEALER_FULL_HOUSE


def jackpot_net(profile: str, category: Category, meter: int = 0) -> int:
    loaded = profile_named(profile)
    return loaded.jackpot_paytable[category].amount(meter) - loaded.jackpot_stake_cents


def test_004_le_caribbean_stud_poker_est_un_jeu_de_table_de_stud_poker_a_cinq_cartes():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le CARIBBEAN STUD^® POKER est un jeu de table de stud poker à cinq cartes qui se joue avec un jeu de 52
    > cartes et au cours duquel entre un et quatre joueurs jouent contre le Donneur de la maison.
    """
    check_deck_of_52_cards(CARIBBEAN)
    check_one_player_suffices(CARIBBEAN)
    table = bets_closed(CARIBBEAN, (1, 2, 3, 4))
    assert kinds(table) == []
    table = bets_closed(CARIBBEAN, (1, 2, 3, 4, 5))
    assert flagged(table, FlagKind.TOO_MANY_PLAYERS) == [None]


def test_004_apres_l_enjeu_de_depart_chaque_joueur_recoit_une_main_de_cinq_cartes_face_vers_le_bas():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Après l'enjeu de départ, chaque joueur reçoit une main de cinq cartes, face vers le bas, tandis que le
    > Donneur reçoit une main de cinq cartes avec la dernière carte face vers le haut.
    """
    check_face_down_but_dealers_fifth(CARIBBEAN)
    check_four_more_rounds_in_same_order(CARIBBEAN)
    table = seated(CARIBBEAN, (1,))
    assert refused(table.deal_card, now(table), 1, None, False)  # not before the ante


def test_004_les_joueurs_ne_peuvent_pas_voir_les_mains_des_autres():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Les joueurs ne peuvent pas voir les mains des autres, ni communiquer ou échanger d'informations à propos
    > de leurs mains.

    A player's card seen face up is flagged. (Players communicating is no event the table records.)
    """
    table = ready_to_deal(CARIBBEAN, (1, 2))
    table.deal_card(now(table), 1, None, face_up=True)
    table.deal_card(now(table), 2, None)
    table.expose_card(now(table), 2, 0)
    assert flagged(table, FlagKind.CARD_EXPOSED) == [1, 2]
    assert table.seats[1].hand.face_up == table.seats[2].hand.face_up == [False]


def test_004_le_joueur_peut_proceder_a_trois_enjeux_au_caribbean_stud_poker():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le joueur peut procéder à trois enjeux au CARIBBEAN STUD^® POKER :

    The ante, the jackpot and the raise; no other box (the French bonus) is played.
    """
    table = seated(CARIBBEAN, (1, 2))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.place_bet(now(table), 1, Box.JACKPOT, JACKPOT_STAKE)
    table.place_bet(now(table), 2, Box.ANTE, ANTE)
    table.place_bet(now(table), 2, Box.BONUS, BONUS_STAKE)
    table.no_more_bets(now(table))
    assert flagged(table, FlagKind.SIDE_BET_NOT_OFFERED) == [2]
    table.shuffle(now(table))
    table.offer_cut(now(table), 1, True)
    deal(table, {1: FLUSH, 2: "9c 9d 7h 6s 5s"}, DEALER_ACE_KING)
    table.end_deal(now(table))
    finish(table)
    assert lines_of(table, 1) == [Line.ANTE, Line.RAISE, Line.JACKPOT]
    assert lines_of(table, 2) == [Line.ANTE, Line.RAISE]


def test_004_au_depart_chaque_joueur_procede_a_un_enjeu_d_ante():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Au départ, chaque joueur procède à un enjeu d'Ante.
    """
    table = seated(CARIBBEAN, (1, 2))
    assert refused(table.no_more_bets, now(table))
    table.place_bet(now(table), 2, Box.ANTE, ANTE)
    table.no_more_bets(now(table))
    assert table.players_in_play() == [2]


def test_004_pour_participer_un_joueur_a_l_obligation_de_placer_l_ante():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Pour participer, un joueur a l'obligation de placer l'Ante.
    """
    table = seated(CARIBBEAN, (1, 2))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.place_bet(now(table), 2, Box.JACKPOT, JACKPOT_STAKE)
    table.no_more_bets(now(table))
    assert flagged(table, FlagKind.SIDE_BET_WITHOUT_ANTE) == [2]
    assert table.players_in_play() == [1]
    table.shuffle(now(table))
    table.offer_cut(now(table), 1, True)
    deal(table, {1: PAIR}, DEALER_ACE_KING)
    table.end_deal(now(table))
    assert refused(table.raise_, now(table), 2, RAISE)
    finish(table)
    assert lines_of(table, 2) == []


def test_004_le_joueur_peut_participer_au_jackpot_progressif_en_cochant_la_case_de_jackpot():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le joueur peut participer au Jackpot progressif en cochant la case de jackpot sous le bouton des
    > enjeux.

    The jackpot is each player's choice: only the players who bet on it have it settled.
    """
    table = play(CARIBBEAN, {1: FLUSH, 2: OTHER_FLUSH}, DEALER_ACE_KING, side_bets=(1,))
    assert payout(table, 1, Line.JACKPOT).net == jackpot_net(CARIBBEAN, Category.FLUSH)
    assert Line.JACKPOT not in lines_of(table, 2)


def test_004_le_joueur_apres_avoir_recu_une_main_de_cinq_cartes_doit_declarer_ses_intentions():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le joueur, après avoir reçu une main de cinq cartes, doit déclarer ses intentions d'enjeu, comme
    > indiqué dans les situations suivantes :
    """
    check_decisions_only_after_end_of_deal(CARIBBEAN)
    table = dealt(CARIBBEAN, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING)
    table.raise_(now(table), 1, RAISE)
    assert refused(table.show_dealer_hand, now(table))  # seat 2 has not declared


def test_004_le_joueur_peut_se_coucher_et_donc_abandonner_l_ante():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le joueur peut se coucher et donc abandonner l'Ante.
    """
    table = play(CARIBBEAN, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_QUEEN, folds=(1,))
    ante = payout(table, 1, Line.ANTE)
    assert (ante.outcome, ante.net) == (Outcome.LOSE, -ANTE)
    assert lines_of(table, 1) == [Line.ANTE]
    assert payout(table, 2, Line.ANTE).net == ANTE


def test_004_le_joueur_peut_miser_c_est_a_dire_placer_un_montant_supplementaire_equivalent():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le joueur peut miser, c'est-à-dire placer un montant supplémentaire équivalent exactement à deux fois
    > l'Ante.
    """
    check_raise_is_twice_the_ante(CARIBBEAN)


def test_004_chaque_joueur_a_la_possibilite_de_placer_un_enjeu_sur_le_jackpot_progressif():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Chaque joueur a la possibilité de placer un enjeu sur le Jackpot progressif.
    """
    hands = {1: FLUSH, 2: OTHER_FLUSH, 3: "Td Ts 8d 7s 4d", 4: "Qd Qs 6d 6h 2d"}
    table = play(CARIBBEAN, hands, DEALER_ACE_KING, side_bets=(1, 2, 3, 4))
    assert kinds(table) == []
    for seat in hands:
        assert payout(table, seat, Line.JACKPOT).stake == JACKPOT_STAKE
    assert payout(table, 3, Line.JACKPOT).outcome is Outcome.LOSE  # a pair wins no jackpot
    with pytest.raises(ValueError):
        make_rules(FR_2007, jackpot=True)  # the French games have none


def test_004_sous_le_bouton_d_enjeu_de_la_table_se_trouve_une_case_a_cocher():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Sous le bouton d'enjeu de la table se trouve une case à cocher grâce à laquelle le joueur peut placer un
    > enjeu sur le Jackpot progressif pour la main à venir.

    What a machine can check: the jackpot bet is for the coming hand only, not carried to the next coup.
    """
    table = play(CARIBBEAN, {1: FLUSH}, DEALER_ACE_KING, side_bets=(1,))
    assert Line.JACKPOT in lines_of(table, 1)
    pay_all(table)
    table.end_coup(now(table))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.no_more_bets(now(table))
    assert table.seats[1].fixed == {Box.ANTE: ANTE}


def test_004_l_enjeu_progressif_est_toujours_considere_comme_une_mise_supplementaire():
    """Seed 004_7c01d0bb29454e1d.txt:

    > L'enjeu progressif est toujours considéré comme une mise supplémentaire et la main du donneur n'a pas
    > d'impact sur le résultat de l'enjeu progressif.
    """
    results = []
    for dealer in (DEALER_ACE_QUEEN, DEALER_ACE_KING, DEALER_FULL_HOUSE):  # no game, beaten, winning
        table = play(CARIBBEAN, {1: FLUSH}, dealer, side_bets=(1,))
        jackpot = payout(table, 1, Line.JACKPOT)
        results.append((jackpot.outcome, jackpot.net, payout(table, 1, Line.RAISE).outcome))
    assert [result[:2] for result in results] == [(Outcome.WIN, jackpot_net(CARIBBEAN, Category.FLUSH))] * 3
    assert [result[2] for result in results] == [Outcome.RETURNED, Outcome.WIN, Outcome.LOSE]


def test_004_la_mise_de_jackpot_est_simultanement_placee_avec_l_ante():
    """Seed 004_7c01d0bb29454e1d.txt:

    > La mise de jackpot est simultanément placée avec l'Ante si la case à cocher Jackpot progressif a été
    > cochée.
    """
    table = seated(CARIBBEAN, (1, 2))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.place_bet(now(table), 1, Box.JACKPOT, JACKPOT_STAKE)
    table.place_bet(now(table), 2, Box.JACKPOT, JACKPOT_STAKE)
    table.no_more_bets(now(table))
    assert table.seats[1].fixed == {Box.ANTE: ANTE, Box.JACKPOT: JACKPOT_STAKE}
    assert Box.JACKPOT not in table.seats[2].fixed
    assert flagged(table, FlagKind.SIDE_BET_WITHOUT_ANTE) == [2]


def test_004_tous_les_enjeux_de_jackpot_progressif_valides_sont_indiques_par_un_jeton_de_0_5():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Tous les enjeux de Jackpot progressif valides sont indiqués par un jeton de 0,5 € devant l'ante.
    """
    assert make_rules(CARIBBEAN).profile.jackpot_stake_cents == JACKPOT_STAKE
    table = seated(CARIBBEAN, (1, 2, 3))
    for seat, stake in ((1, JACKPOT_STAKE), (2, 2 * JACKPOT_STAKE), (3, JACKPOT_STAKE // 2)):
        table.place_bet(now(table), seat, Box.ANTE, ANTE)
        table.place_bet(now(table), seat, Box.JACKPOT, stake)
    table.no_more_bets(now(table))
    assert flagged(table, FlagKind.JACKPOT_STAKE_WRONG) == [2, 3]


@pytest.mark.parametrize("chip", [0, JACKPOT_STAKE, 2 * JACKPOT_STAKE],
                         ids=["no_chip", "chip_of_050", "chip_of_100"])
def test_004_une_main_qualifiee_pour_le_jackpot_progressif_n_est_honoree_que_si_le_jeton(chip):
    """Seed 004_7c01d0bb29454e1d.txt:

    > Une main qualifiée pour le Jackpot progressif n'est honorée que si le jeton 0,5 € est visible.
    """
    table = seated(CARIBBEAN, (1,))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    if chip:
        table.place_bet(now(table), 1, Box.JACKPOT, chip)
    table.no_more_bets(now(table))
    table.shuffle(now(table))
    table.offer_cut(now(table), 1, True)
    deal(table, {1: FLUSH}, DEALER_ACE_KING)
    table.end_deal(now(table))
    finish(table)
    jackpot_wins = [p for p in table.settlement.payouts if p.line is Line.JACKPOT and p.outcome is Outcome.WIN]
    if chip == JACKPOT_STAKE:
        assert [p.net for p in jackpot_wins] == [jackpot_net(CARIBBEAN, Category.FLUSH)]
    else:
        assert jackpot_wins == []


def test_004_tous_les_enjeux_de_jackpot_progressif_doivent_etre_places_avant_que_le_donneur():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Tous les enjeux de jackpot progressif doivent être placés avant que le Donneur ne distribue les
    > cartes.
    """
    table = ready_to_deal(CARIBBEAN, (1, 2), side_bets=(1,))
    deal(table, {1: FLUSH, 2: OTHER_FLUSH}, DEALER_ACE_KING, stop=1)
    table.place_bet(now(table), 2, Box.JACKPOT, JACKPOT_STAKE)  # once the deal has begun
    deal(table, {1: FLUSH, 2: OTHER_FLUSH}, DEALER_ACE_KING, start=1)
    table.end_deal(now(table))
    finish(table)
    assert flagged(table, FlagKind.BET_AFTER_NO_MORE_BETS) == [2]
    assert payout(table, 1, Line.JACKPOT).outcome is Outcome.WIN
    assert Line.JACKPOT not in lines_of(table, 2)


def test_004_le_donneur_commence_a_sa_gauche_puis_va_vers_la_droite_en_distribuant_des_mains():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le donneur commence à sa gauche, puis va vers la droite en distribuant des mains de cinq cartes à
    > chaque joueur, lui y compris.
    """
    check_deal_starts_at_dealers_left_clockwise(CARIBBEAN)
    table = ready_to_deal(CARIBBEAN, (1, 3, 4, 6))
    order = []
    while (position := table.expected_position()) is not None:
        order.append(position)
        table.deal_card(now(table), position, None, position == DEALER and len(order) > 20)
    assert order == [1, 3, 4, 6, DEALER] * HAND_SIZE
    assert kinds(table) == []


def test_004_les_cartes_sont_distribuees_une_a_la_fois_face_vers_le_bas():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Les cartes sont distribuées une à la fois, face vers le bas.
    """
    table = ready_to_deal(CARIBBEAN, (1, 2))
    table.deal_card(now(table), 1, None)
    table.deal_card(now(table), 1, None)  # two at a time
    assert flagged(table, FlagKind.CARD_OUT_OF_TURN) == [1]
    table = ready_to_deal(CARIBBEAN, (1, 2))
    table.deal_card(now(table), 1, None, face_up=True)
    assert flagged(table, FlagKind.CARD_EXPOSED) == [1]


def test_004_la_derniere_carte_du_donneur_est_tournee_face_vers_le_haut():
    """Seed 004_7c01d0bb29454e1d.txt:

    > La dernière carte du donneur est tournée face vers le haut.
    """
    check_face_down_but_dealers_fifth(CARIBBEAN)


def test_004_les_joueurs_peuvent_alors_prendre_leurs_cartes_et_decider_de_miser_ou_de_se_coucher():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Les joueurs peuvent alors prendre leurs cartes et décider de miser ou de se coucher.
    """
    table = dealt(CARIBBEAN, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING)
    for seat in (1, 2):
        table.player_looks(now(table), seat)
    table.raise_(now(table), 1, RAISE)
    table.fold(now(table), 2)
    assert kinds(table) == []
    assert not table.seats[1].hand_void and not table.seats[2].hand_void


def test_004_si_le_joueur_possede_une_paire_ou_mieux_et_n_agit_pas_a_temps():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Si le joueur possède une paire ou mieux et n'agit pas à temps ou se trouve déconnecté, la mise
    > supplémentaire est placée.

    A player without a pair is not raised for (the profile folds him: the seed is silent on that case).
    """
    table = dealt(CARIBBEAN, {1: PAIR, 2: HIGH_CARD, 3: "?? ?? ?? ?? ??"}, DEALER_ACE_KING)
    start = table.coup.decisions_started_at
    assert start is not None
    limit = table.rules.profile.decision_seconds * 1_000
    assert refused(table.decision_timeout, start + limit - 1, 1)  # still in time
    table.decision_timeout(start + limit, 1)
    table.decision_timeout(start + limit, 2)
    assert refused(table.decision_timeout, start + limit, 3)  # a pair cannot be told on unseen cards
    assert (table.seats[1].decision, table.seats[1].raise_amount) == (Decision.RAISE, RAISE)
    assert table.seats[2].decision is not Decision.RAISE
    assert flagged(table, FlagKind.DECISION_TIMEOUT) == [1, 2]
    assert refused(dealt(FR_1959, {1: PAIR}, DEALER_ACE_KING).decision_timeout, start + limit, 1)


def test_004_lorsque_les_mains_de_tous_les_joueurs_sont_terminees_le_donneur_retourne_ses_quatre():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Lorsque les mains de tous les joueurs sont terminées, le donneur retourne ses quatre cartes restantes
    > face vers le haut.
    """
    check_dealer_shows_when_every_player_has_decided(CARIBBEAN)


def test_004_le_donneur_doit_alors_posseder_au_moins_un_as_roi_pour_se_qualifier():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le donneur doit alors posséder au moins un As/Roi pour se qualifier.
    """
    check_ace_king_qualifies(CARIBBEAN)


def test_004_une_fois_que_le_donneur_a_compare_toutes_les_mains_et_paye_tous_les_gains():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Une fois que le donneur a comparé toutes les mains et payé tous les gains, toutes les cartes sont
    > replacées dans la défausse.
    """
    table = play(CARIBBEAN, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING)
    assert refused(table.end_coup, now(table))
    table.payment_done(now(table), 2)
    assert refused(table.end_coup, now(table))
    table.payment_done(now(table), 1)
    table.end_coup(now(table))
    assert all(not seat.hand.cards for seat in table.seats.values())
    assert table.hand_of(DEALER).cards == []


def test_004_lorsque_tous_les_joueurs_ont_termine_de_placer_les_enjeux_le_donneur_retourne():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Lorsque tous les joueurs ont terminé de placer les enjeux, le donneur retourne toutes ses cartes pour
    > établir la main de la maison.
    """
    check_dealer_shows_when_every_player_has_decided(CARIBBEAN)


def test_004_le_resultat_du_jeu_depend_en_partie_de_la_qualification_ou_non_du_donneur():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le résultat du jeu dépend en partie de la qualification ou non du donneur.
    """
    not_qualified = play(CARIBBEAN, {1: PAIR}, DEALER_ACE_QUEEN)
    qualified = play(CARIBBEAN, {1: PAIR}, DEALER_ACE_KING)
    assert payout(not_qualified, 1, Line.RAISE).net == 0
    assert payout(qualified, 1, Line.RAISE).net == RAISE * profile_named(CARIBBEAN).raise_pays(Category.PAIR)


def test_004_le_donneur_est_qualifie_s_il_possede_au_moins_un_as_roi():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le donneur est qualifié s'il possède au moins un As/Roi.
    """
    check_ace_king_qualifies(CARIBBEAN)


def test_004_dans_ce_cas_les_mains_du_joueur_et_du_donneur_sont_comparees():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Dans ce cas, les mains du joueur et du donneur sont comparées pour déterminer le résultat de la partie.
    """
    check_each_hand_compared_with_the_dealers(CARIBBEAN)


def test_004_pour_la_comparaison_des_mains_la_main_la_plus_forte_l_emporte():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Pour la comparaison des mains, la main la plus forte l'emporte.
    """
    table = play(CARIBBEAN, {1: PAIR_TENS, 2: PAIR}, "9h 9s Kc 4d 2c")  # the dealer's nines
    assert payout(table, 1, Line.RAISE).outcome is Outcome.WIN
    assert payout(table, 2, Line.RAISE).outcome is Outcome.LOSE  # nines, but a lower side card


def test_004_si_le_donneur_ne_parvient_pas_a_se_qualifier_a_le_joueur_est_paye_en_fonction():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Si le donneur ne parvient pas à se qualifier : a. Le joueur est payé en fonction des mains ayant un
    > Full ou mieux en fonction du tableau des gains du bonus.

    Read (as the profile does) with the raise table: a full house or better is paid on its raise.
    """
    table = play(CARIBBEAN, {1: FULL_HOUSE, 2: "Qs Js 9s 6s 3s", 3: "Tc Td Th Ts 5c"}, DEALER_ACE_QUEEN)
    pays = profile_named(CARIBBEAN).raise_pays
    assert payout(table, 1, Line.RAISE).net == RAISE * pays(Category.FULL_HOUSE) > 0
    assert payout(table, 3, Line.RAISE).net == RAISE * pays(Category.FOUR_OF_A_KIND) > 0
    assert payout(table, 2, Line.RAISE).net == 0  # a flush: below the full house


def test_004_si_le_donneur_ne_parvient_pas_a_se_qualifier_b_le_joueur_est_paye_1_pour_1_sur_l_ante():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Si le donneur ne parvient pas à se qualifier : [...] b. Le joueur est payé 1 pour 1 sur l'Ante et obtient
    > une égalité sur la mise (et toutes les mains qualifiées pour le Jackpot progressif sont traitées en
    > conséquence).
    """
    table = play(CARIBBEAN, {1: "Kh Ks 9d 4h 2h", 2: FLUSH}, DEALER_ACE_QUEEN, side_bets=(2,))
    for seat in (1, 2):
        assert payout(table, seat, Line.ANTE).net == ANTE
        raise_ = payout(table, seat, Line.RAISE)
        assert raise_.net == 0 and raise_.outcome in (Outcome.PUSH, Outcome.RETURNED)
    assert payout(table, 2, Line.JACKPOT).net == jackpot_net(CARIBBEAN, Category.FLUSH)


@pytest.mark.parametrize(("profile", "hand", "category"), [
    (CARIBBEAN, PAIR, Category.PAIR),
    (CARIBBEAN, TWO_PAIR, Category.TWO_PAIR),
    (CARIBBEAN, ROYAL_FLUSH, Category.ROYAL_FLUSH),
    (CARIBBEAN, HIGH_CARD, Category.HIGH_CARD),
    (CARIBBEAN_US, HIGH_CARD, Category.HIGH_CARD),
], ids=["pair", "two_pair", "royal_flush", "high_card", "high_card_caribbean_us"])
def test_004_si_le_donneur_parvient_a_se_qualifier_et_a_la_main_du_joueur_bat_la_main_du_donneur(
        profile, hand, category):
    """Seed 004_7c01d0bb29454e1d.txt:

    > Si le donneur parvient à se qualifier et : a. La main du joueur bat la main du donneur : le joueur est
    > payé 1 pour 1 sur l'Ante et sur la mise en fonction du tableau des gains du bonus (et toutes les mains
    > qualifiées pour le Jackpot progressif sont traitées en conséquence).

    Every winning hand is paid on its raise: by the table, at least 1 for 1.
    """
    table = play(profile, {1: hand}, DEALER_ACE_KING)
    assert table.settlement is not None and table.settlement.hand_values[1].category is category
    assert payout(table, 1, Line.ANTE).net == ANTE
    raise_ = payout(table, 1, Line.RAISE)
    assert raise_.outcome is Outcome.WIN
    assert raise_.net == RAISE * max(1, profile_named(profile).raise_pays(category))


def test_004_si_le_donneur_parvient_a_se_qualifier_et_b_la_main_du_donneur_bat_la_main_du_joueur():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Si le donneur parvient à se qualifier et : [...] b. La main du donneur bat la main du joueur : le joueur
    > perd à la fois l'Ante et la mise (et toutes les mains qualifiées pour le Jackpot progressif sont
    > traitées en conséquence).
    """
    table = play(CARIBBEAN, {1: FLUSH, 2: "9d 9h 6s 4h 2h"}, DEALER_FULL_HOUSE, side_bets=(1,))
    for seat in (1, 2):
        assert payout(table, seat, Line.ANTE).net == -ANTE
        assert payout(table, seat, Line.RAISE).net == -RAISE
    assert payout(table, 1, Line.JACKPOT).net == jackpot_net(CARIBBEAN, Category.FLUSH)


def test_004_le_joueur_et_le_donneur_sont_a_egalite_les_enjeux_du_joueur_obtiennent_egalement():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le joueur et le donneur sont à égalité : les enjeux du joueur obtiennent également une égalité (et
    > toutes les mains qualifiées pour le Jackpot progressif sont traitées en conséquence).
    """
    check_equal_hands_are_void(CARIBBEAN)


def test_004_le_donneur_n_additionne_pas_la_mise_et_l_ante_ensemble():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le donneur n'additionne pas la mise et l'Ante ensemble.

    The ante and the raise are settled as two lines, each at its own odds.
    """
    table = play(CARIBBEAN, {1: TWO_PAIR}, DEALER_ACE_KING)
    ante, raise_ = payout(table, 1, Line.ANTE), payout(table, 1, Line.RAISE)
    assert (ante.stake, ante.net) == (ANTE, ANTE)
    assert (raise_.stake, raise_.net) == (RAISE, RAISE * profile_named(CARIBBEAN).raise_pays(Category.TWO_PAIR))


def test_004_lorsqu_un_joueur_se_couche_le_donneur_prend_l_ante_du_joueur():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Lorsqu'un joueur se couche, le donneur prend l'Ante du joueur et place les cartes dans la défausse.
    """
    check_dealer_collects_folded_ante(CARIBBEAN)


def test_004_le_donneur_verifie_que_chaque_joueur_ayant_decide_de_jouer_a_effectuer_un_enjeu_d_ante():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le donneur vérifie que chaque joueur ayant décidé de jouer à effectuer un enjeu d'Ante.
    """
    table = seated(CARIBBEAN, (1, 2))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.no_more_bets(now(table))
    table.shuffle(now(table))
    table.offer_cut(now(table), 1, True)
    deal(table, {1: PAIR}, DEALER_ACE_KING)
    table.end_deal(now(table))
    assert refused(table.raise_, now(table), 2, RAISE)
    assert refused(table.fold, now(table), 2)
    table.raise_(now(table), 1, RAISE)


def test_004_le_donneur_compare_prend_et_paye_en_partant_de_sa_droite_et_vers_la_gauche():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le donneur compare, prend et paye en partant de sa droite et vers la gauche.
    """
    check_dealer_pays_counter_clockwise(CARIBBEAN)


def test_004_le_jeu_paye_a_1_pour_1_sur_tous_les_antes():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Le jeu paye à 1 pour 1 sur tous les Antes.
    """
    check_antes_paid_even_money(CARIBBEAN)


def test_004_les_mains_progressives_sont_payees_quelle_que_soit_la_main_du_donneur():
    """Seed 004_7c01d0bb29454e1d.txt:

    > Les mains progressives sont payées quelle que soit la main du donneur, si les conditions suivantes sont
    > réunies : • Le joueur a placé la mise progressive facultative avec l'Ante. • Le joueur a reçu la main
    > progressive dans les cinq premières cartes distribuées.
    """
    meter = 1_000_000
    hands = {1: FLUSH, 2: OTHER_FLUSH, 3: "9d 8d 7d 6d 5d"}
    table = play(CARIBBEAN, hands, "Kh Ks Kd 2s 2h", side_bets=(1, 3), meter=meter)
    assert payout(table, 1, Line.JACKPOT).net == jackpot_net(CARIBBEAN, Category.FLUSH)
    assert payout(table, 3, Line.JACKPOT).net == jackpot_net(CARIBBEAN, Category.STRAIGHT_FLUSH, meter)
    assert Line.JACKPOT not in lines_of(table, 2)  # no jackpot bet placed with the ante
    assert payout(table, 1, Line.RAISE).outcome is Outcome.LOSE  # the dealer's full house wins the rest
