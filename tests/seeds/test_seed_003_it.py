"""Seed 003 (the Italian summary, CasinoWeb) under the ``it`` profile.

One test per machine-checkable sentence: each is named after the sentence it checks, quotes it (the
lines starting with ``>``, verbatim, ``[...]`` marking a cut) and names its seed file. It drives the real
rules core (``Table``, ``settle``, ``evaluate``). The checks of rules that several seeds state, the table
builders and the sentences judged not machine-checkable are in ``seedchecks``.

Tests marked ``xfail(strict=True)`` assert what the seed says where the core does something else: the
reason says what differs.
"""

from __future__ import annotations

import pytest
from seedchecks import (
    ANTE,
    BONUS_STAKE,
    IT,
    check_ace_is_one_only_in_straights,
    check_ace_king_qualifies,
    check_antes_paid_even_money,
    check_bank_wins_announced,
    check_beaten_hand_loses_ante_and_raise,
    check_bets_within_limits_before_shuffle,
    check_card_ranks_in_decreasing_order,
    check_counted_then_shuffled_five_times_and_cut_twice,
    check_cut_by_player_at_far_left,
    check_deal_starts_at_dealers_left_clockwise,
    check_dealer_card_at_start_of_first_round,
    check_dealer_collects_folded_ante,
    check_dealer_pays_counter_clockwise,
    check_dealer_shows_when_every_player_has_decided,
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
    check_no_game_pays_antes_only,
    check_one_hand_each_and_no_bet_on_vacant_seat,
    check_only_marked_seats_hold_hands,
    check_raise_is_twice_the_ante,
    check_seats_numbered_one_to_seven_clockwise,
    check_wrong_card_count_voids_coup,
    flagged,
    now,
    seated,
)

from controller.rules.flags import FlagKind
from controller.rules.operations import DEALER, Box

XFAIL_DEALER_CARD_FIRST = pytest.mark.xfail(strict=True, reason=(
    "Seed 003 says « All'inizio di questo primo giro, si dà una carta »: the dealer's card at the START of the "
    "first round. The it profile follows the French « A l'issue de ce premier tour » (at its end) and flags the "
    "dealer's card dealt first as DEALER_OUT_OF_TURN. Most likely a mistranslation in the seed: to be decided."))


def test_003_il_gioco_di_stud_poker_del_casino_si_gioca_con_52_carte():
    """Seed 003_e5ded94c426459f5.txt (the sentence is there twice):

    > Il gioco di stud poker del casinò si gioca con 52 carte.
    """
    check_deck_of_52_cards(IT)


def test_003_il_numero_dei_giocatori_seduti_solo_suscettibili_di_avere_una_mano_corrispondono():
    """Seed 003_e5ded94c426459f5.txt:

    > Il numero dei giocatori seduti, solo suscettibili di avere una mano, corrispondono al numero di posizioni
    > disponibili sul banco.
    """
    check_only_marked_seats_hold_hands(IT)


def test_003_con_un_minimo_di_cinque_e_un_massimo_di_sette():
    """Seed 003_e5ded94c426459f5.txt (the sentence is there twice):

    > Con un minimo di cinque e un massimo di sette.
    """
    check_five_to_seven_marked_seats(IT)


def test_003_la_rotazione_di_un_sette_si_fa_seguendo_il_senso_orario():
    """Seed 003_e5ded94c426459f5.txt (the sentence is there twice):

    > La rotazione di un sette si fa seguendo il senso orario.

    Read as the French « La numérotation de un à sept se fait suivant le sens des aiguilles d'une montre ».
    """
    check_seats_numbered_one_to_seven_clockwise(IT)


def test_003_il_numero_dei_giocatori_seduti_solo_suscettibili_di_disporre_di_una_mano():
    """Seed 003_e5ded94c426459f5.txt (the repeated paragraph, reworded):

    > Il numero dei giocatori seduti, solo suscettibili di disporre di una mano, corrispondono al numero di
    > posizioni disponibili sul banco.
    """
    check_only_marked_seats_hold_hands(IT)


def test_003_dopo_averle_contate_e_verificate_il_croupier_gira_le_carte_che_sono_unite():
    """Seed 003_e5ded94c426459f5.txt:

    > Dopo averle contate e verificate, il croupier gira le carte che sono unite in un unico gruppo, il quale
    > mazzo viene mescolato cinque volte e tagliato due.
    """
    check_counted_then_shuffled_five_times_and_cut_twice(IT)


def test_003_quindi_il_gioco_si_presenta_al_giocatore_situato_all_estrema_sinistra_del_croupier():
    """Seed 003_e5ded94c426459f5.txt:

    > Quindi il gioco si presenta al giocatore situato all'estrema sinistra del croupier per una nuova e ultimo
    > taglio.
    """
    check_cut_by_player_at_far_left(IT)


def test_003_i_giocatori_dispongono_solo_di_una_mano_e_non_possono_puntare_sulla_posizione_libera():
    """Seed 003_e5ded94c426459f5.txt:

    > I giocatori dispongono solo di una mano e non possono puntare sulla posizione libera.
    """
    check_one_hand_each_and_no_bet_on_vacant_seat(IT)


def test_003_prima_della_mescola_delle_carte_i_dipendenti_del_tavolo_verificano_che_tutte():
    """Seed 003_e5ded94c426459f5.txt:

    > Prima della mescola delle carte, i dipendenti del tavolo verificano che tutte le puntate siano conformi,
    > correttamente piazzate (sulla casella "ANTE") e che il loro importo, per giocare, sia compreso tra il
    > minimo e il massimo autorizzato dal tavolo.

    Only the ante box plays at this table: a chip in another box is flagged and returned.
    """
    check_bets_within_limits_before_shuffle(IT)
    table = seated(IT, (1, 2))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.place_bet(now(table), 1, Box.BONUS, BONUS_STAKE)
    table.place_bet(now(table), 2, Box.BONUS, ANTE)
    table.no_more_bets(now(table))
    assert flagged(table, FlagKind.SIDE_BET_NOT_OFFERED) == [1, 2]
    assert table.seats[1].fixed == {Box.ANTE: ANTE}
    assert table.players_in_play() == [1]


def test_003_il_croupier_distribuisce_una_carta_per_ogni_mano_con_le_figure_nascoste():
    """Seed 003_e5ded94c426459f5.txt:

    > Il croupier distribuisce una carta per ogni mano, con le figure nascoste, a partire dalla sua sinistra e
    > così di seguito in senso orario.
    """
    check_deal_starts_at_dealers_left_clockwise(IT)


@pytest.mark.parametrize("reading", ["one_card", pytest.param("at_the_start", marks=XFAIL_DEALER_CARD_FIRST)])
def test_003_all_inizio_di_questo_primo_giro_si_da_una_carta(reading):
    """Seed 003_e5ded94c426459f5.txt:

    > All'inizio di questo primo giro, si dà una carta.

    The dealer takes one card in the first round (not two), and, read literally, at its start.
    """
    if reading == "one_card":
        check_dealer_takes_only_one_card_in_first_round(IT)
    else:
        check_dealer_card_at_start_of_first_round(IT)


def test_003_si_effettuano_altri_quattro_giri_sempre_nello_stesso_ordine():
    """Seed 003_e5ded94c426459f5.txt:

    > Si effettuano altri quattro giri, sempre nello stesso ordine, distribuendo una carta ad ogni mano e una a
    > se stesso.
    """
    check_four_more_rounds_in_same_order(IT)


def test_003_le_carte_sono_in_ogni_caso_distribuite_con_le_figure_nascoste_a_parte_la_quinta():
    """Seed 003_e5ded94c426459f5.txt:

    > Le carte sono, in ogni caso, distribuite con le figure nascoste a parte la quinta carta del croupier
    > esposta con la figura visibile.
    """
    check_face_down_but_dealers_fifth(IT)


def test_003_una_carta_esposta_non_costituisce_una_mal_distribuzione():
    """Seed 003_e5ded94c426459f5.txt:

    > (Una carta esposta non costituisce una mal distribuzione.
    """
    check_exposed_card_is_no_misdeal(IT)


def test_003_e_girata_e_la_distribuzione_prosegue():
    """Seed 003_e5ded94c426459f5.txt:

    > È girata e la distribuzione prosegue).
    """
    check_exposed_card_turned_over_deal_goes_on(IT)


@pytest.mark.parametrize("position", [2, DEALER], ids=["player_short", "dealer_over"])
def test_003_il_gioco_e_nullo_quando_il_numero_delle_carte_che_compongono_la_mano(position):
    """Seed 003_e5ded94c426459f5.txt:

    > Il gioco è nullo quando : - Il numero delle carte che compongono la mano di un giocatore o del croupier
    > sono errate ;
    """
    check_wrong_card_count_voids_coup(IT, position)


def test_003_il_gioco_e_nullo_quando_i_giocatori_si_scambiano_delle_informazioni():
    """Seed 003_e5ded94c426459f5.txt:

    > Il gioco è nullo quando : [...] - I giocatori si scambiano delle informazioni sul contenuto delle loro
    > mani.

    Declared by the table chief (``DeclareVoid``): every bet is returned.
    """
    check_declared_void_returns_every_bet(IT)


def test_003_la_mano_di_un_giocatori_e_nulla_quando_questo_ne_prende_conoscenza_prima_del_termine():
    """Seed 003_e5ded94c426459f5.txt:

    > La mano di un giocatori è nulla quando questo ne prende conoscenza prima del termine della
    > distribuzione.
    """
    check_hand_void_when_looked_at_before_end_of_deal(IT)


def test_003_l_ordine_del_valore_delle_carte_in_modo_decrescente_in_poi_e():
    """Seed 003_e5ded94c426459f5.txt:

    > L'ordine del valore delle carte, in modo decrescente in poi è : ASSO, RE, DONNA, CAVALIERE, DIECI, NOVE,
    > OTTO, SETTE, SEI, CINQUE, QUATTRO, TRE, DUE.

    « CAVALIERE » is the jack of the French deck.
    """
    check_card_ranks_in_decreasing_order(IT)


def test_003_l_asso_vale_uno_nelle_sole_combinazioni_scala_e_della_scala_colore():
    """Seed 003_e5ded94c426459f5.txt:

    > L'ASSO vale uno nelle sole combinazioni scala e della scala colore.
    """
    check_ace_is_one_only_in_straights(IT)


def test_003_solo_al_momento_della_distribuzione_che_i_giocatori_prendono_conoscenza():
    """Seed 003_e5ded94c426459f5.txt:

    > Solo, al momento della distribuzione che i giocatori prendono conoscenza delle loro mani e quindi
    > decidono se rinunciare o rilanciare, dopo aver stabilito la loro miglior combinazione.

    Garbled (« al momento della distribuzione »); read with the same seed's « prima del termine della
    distribuzione » and the French « à l'issue de la donne »: the players decide once the deal has ended.
    """
    check_decisions_only_after_end_of_deal(IT)


def test_003_in_caso_di_rinuncia_il_giocatore_annuncia_passo_e_quindi_deposita_le_carte():
    """Seed 003_e5ded94c426459f5.txt:

    > -In caso di rinuncia, il giocatore annuncia "passo" e quindi deposita le carte, figure nascoste, in cima
    > alla casella "ante".
    """
    check_fold_announced_passe(IT)


def test_003_il_croupier_raccoglie_le_scommesse_raccoglie_le_carte_le_conte_e_poi_le_brucia():
    """Seed 003_e5ded94c426459f5.txt:

    > Il croupier raccoglie le scommesse, raccoglie le carte, le conte e poi le "brucia".
    """
    check_dealer_collects_folded_ante(IT)


def test_003_in_caso_di_rilancio_il_giocatore_piazza_il_doppio_della_puntata_iniziale():
    """Seed 003_e5ded94c426459f5.txt:

    > - In caso di rilancio, il giocatore piazza il doppio della puntata iniziale nella casella denominata
    > "rilancio" e posa le sue carte, coperte, all'altezza della casella "ante" in modo che il croupier alla
    > fine le disponga davanti alla casella.
    """
    check_raise_is_twice_the_ante(IT)


def test_003_quando_ogni_giocatore_si_e_determinato_il_croupier_espone_la_sua_mano_orizzontalmente():
    """Seed 003_e5ded94c426459f5.txt:

    > Quando ogni giocatore si è determinato, il croupier espone la sua mano orizzontalmente, con le figure
    > visibili, davanti a lui presentando solo la sua migliore combinazione.
    """
    check_dealer_shows_when_every_player_has_decided(IT)


def test_003_di_conseguenza_non_possono_piu_toccarle():
    """Seed 003_e5ded94c426459f5.txt:

    > Di conseguenza, non possono più toccarle.
    """
    check_decision_cannot_be_changed(IT)


@pytest.mark.parametrize("announced", ["Gioco nullo"])
def test_003_se_la_mano_del_croupier_non_possiede_la_combinazione_asso_re_o_meglio_egli_annuncia(announced):
    """Seed 003_e5ded94c426459f5.txt:

    > -Se la mano del croupier non possiede la combinazione ASSO/RE, o meglio, egli annuncia "gioco nullo " e
    > procede al pagamento delle sole scommesse iniziali prima di ritirarsi, contare e quindi bruciare le carte.

    « gioco nullo » here is the French « pas de jeu », not a void coup: the antes are paid.
    """
    check_no_game_pays_antes_only(IT, announced)


def test_003_le_puntate_iniziali_sono_sempre_pagate_alla_pari():
    """Seed 003_e5ded94c426459f5.txt:

    > Le puntate iniziali sono sempre pagate alla pari.
    """
    check_antes_paid_even_money(IT)


def test_003_se_la_mano_del_croupier_possiede_la_combinazione_asso_re_o_meglio_il_gioco_prosegue():
    """Seed 003_e5ded94c426459f5.txt:

    > -Se la mano del croupier possiede la combinazione ASSO/RE o meglio, il gioco prosegue.
    """
    check_ace_king_qualifies(IT)


def test_003_paragona_la_sua_mano_a_quella_di_ogni_giocatore_individualmente():
    """Seed 003_e5ded94c426459f5.txt:

    > Paragona la sua mano a quella di ogni giocatore individualmente, annunciando ad alta voce la combinazione
    > vincente, procede alla raccolta delle mani perdenti e al pagamento di quelle vincenti.
    """
    check_each_hand_compared_with_the_dealers(IT)


def test_003_le_mani_che_hanno_ottenuto_un_valore_paritetico_a_quello_del_croupier_sono_annullate():
    """Seed 003_e5ded94c426459f5.txt:

    > Le mani che hanno ottenuto un valore paritetico a quello del croupier sono annullate.
    """
    check_equal_hands_are_void(IT)


def test_003_opera_a_questo_punto_nel_senso_anti_orario():
    """Seed 003_e5ded94c426459f5.txt:

    > Opera a questo punto nel senso anti orario.
    """
    check_dealer_pays_counter_clockwise(IT)


def test_003_la_mano_di_un_giocatore_battuto_dal_croupier_perde_di_conseguenza_la_scommessa():
    """Seed 003_e5ded94c426459f5.txt:

    > La mano di un giocatore battuto dal croupier perde di conseguenza la scommessa iniziale e il rilancio.
    """
    check_beaten_hand_loses_ante_and_raise(IT)


@pytest.mark.parametrize("announced", ["Il banco vince"])
def test_003_quando_la_mano_del_croupier_si_avvale_sull_insieme_dei_giocatori_egli_annuncia(announced):
    """Seed 003_e5ded94c426459f5.txt:

    > Quando la mano del croupier si avvale sull'insieme dei giocatori, egli annuncia "il banco vince ".
    """
    check_bank_wins_announced(IT, announced)
