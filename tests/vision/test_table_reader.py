"""The table reader keeps a region's reading while its crop does not change (once a second look agreed), and reads
it again when it does.

Frames come from the virtual table's renderer (each frame with its own sensor noise), read by the committed models."""

from __future__ import annotations

import pytest

from controller.felt.layout import load_layout
from controller.sim.render import Renderer, TableCamera
from controller.sim.scene import CardOnFelt, SceneState
from vision.calibrate import calibrate
from vision.pipeline import observations
from vision.table_reader import TableReader, zone_values


def _what(reading) -> list[tuple[int, str, str, str]]:
    return sorted((o.seat, o.area, o.kind, o.label) for o in reading.observations)


@pytest.fixture(scope="module")
def table():
    layout = load_layout()
    renderer = Renderer(layout, TableCamera(), seed=3)
    scene = SceneState()
    for index, card in enumerate(("Ah", "Kd", "7c")):
        scene = scene.with_card(CardOnFelt(1, index, card, face_up=False))
    scene = scene.with_card(CardOnFelt(0, 0, "9s", face_up=True))
    scene = scene.with_chips(1, "ante", (500, 100)).with_chips(5, "ante", (2500,))
    calibration = calibrate(renderer.render(scene, 0), layout)
    return layout, renderer, scene, calibration


def _settled(layout, renderer, scene, calibration, **options) -> TableReader:
    """A reader that has read the scene twice (the second look confirms the first): from now on it keeps it."""
    reader = TableReader(layout, calibration.table_to_image, **options)
    reader.read(renderer.render(scene, 0))
    reader.read(renderer.render(scene, 100))
    assert (reader.stats.regions_read, reader.stats.regions_reused) == (2 * len(reader.regions), 0)
    return reader


def test_a_still_table_is_read_twice_then_kept_and_reads_the_same(table) -> None:
    layout, renderer, scene, calibration = table
    reader = _settled(layout, renderer, scene, calibration)
    first = reader.read(renderer.render(scene, 100))
    later = renderer.render(scene, 270)  # the same scene, another frame's noise
    again = reader.read(later)
    assert reader.stats.regions_reused == 2 * len(reader.regions)
    assert _what(again) == _what(first)
    # and what the models would read on that frame, every region through them, is what was kept
    assert _what(TableReader(layout, calibration.table_to_image, change_threshold=-1).read(later)) == _what(again)
    assert _what(again) == [(0, "cards", "card_face", "9S"), (1, "ante", "chip", "100"), (1, "ante", "chip", "500"),
                            (1, "cards", "card_back", "BACK"), (1, "cards", "card_back", "BACK"),
                            (1, "cards", "card_back", "BACK"), (5, "ante", "chip", "2500")]


def test_a_card_dealt_is_read_and_only_the_regions_it_changed_are(table) -> None:
    layout, renderer, scene, calibration = table
    reader = _settled(layout, renderer, scene, calibration)
    dealt = scene.with_card(CardOnFelt(5, 0, "Qh", face_up=True))
    reading = reader.read(renderer.render(dealt, 200))
    read_again = reader.stats.regions_read - 2 * len(reader.regions)
    assert 1 <= read_again < len(reader.regions)
    assert sorted((o.area, o.kind, o.label) for o in reading.observations if o.seat == 5) == [
        ("ante", "chip", "2500"), ("cards", "card_face", "QH")]
    # each card carries the index reader's probability of what it read: on the table's own deck, sure
    [queen] = [o for o in reading.observations if o.seat == 5 and o.kind == "card_face"]
    assert 0.5 <= queen.identity_certainty <= 1
    [tracked] = [o for o in observations(reading)[0] if o.seat == 5 and o.kind == "card_face"]
    assert tracked.identity_certainty == queen.identity_certainty  # as the tracker gets it
    # the regions kept still hold what they held
    assert [(o.area, o.kind) for o in reading.observations if o.seat == 1].count(("cards", "card_back")) == 3
    # the changed regions get their second look at the next frame, then are kept
    reader.read(renderer.render(dealt, 300))
    assert reader.stats.regions_read - 2 * len(reader.regions) == 2 * read_again
    reader.read(renderer.render(dealt, 400))
    assert reader.stats.regions_read - 2 * len(reader.regions) == 2 * read_again


def test_a_region_is_read_again_after_refresh_frames_however_still(table) -> None:
    layout, renderer, scene, calibration = table
    reader = _settled(layout, renderer, scene, calibration, refresh_frames=2)
    for t_ms in (200, 300):
        reader.read(renderer.render(scene, t_ms))
    assert reader.stats.regions_reused == 2 * len(reader.regions)
    reader.read(renderer.render(scene, 400))
    assert reader.stats.regions_read == 3 * len(reader.regions)


def test_a_region_read_again_for_a_card_keeps_the_counts_of_its_unchanged_bet_zones(table) -> None:
    layout, renderer, scene, calibration = table
    reader = _settled(layout, renderer, scene, calibration)
    counted, kept = reader.stats.zones_counted, reader.stats.zones_kept
    dealt = scene.with_card(CardOnFelt(5, 0, "Qh", face_up=True))
    reading = reader.read(renderer.render(dealt, 200))
    assert reader.stats.zones_kept - kept >= 3  # seat 5's region read again: its bet zones, far from the card, kept
    assert reader.stats.zones_counted - counted <= 1  # (the raise box, next to the cards, may see the card's edge)
    assert zone_values(reading.observations)[5, "ante"] == 2500
    bet = dealt.with_chips(5, "bonus", (100, 100))
    reading = reader.read(renderer.render(bet, 300))
    assert zone_values(reading.observations)[5, "bonus"] == 200  # a zone that changed is counted again


@pytest.mark.parametrize("cloth", [frozenset(), frozenset({"blue-felt"})], ids=["green", "blue"])
def test_a_card_raised_in_a_players_hand_is_read_as_held_and_cards_on_the_felt_are_not(cloth) -> None:
    """Every player peeks: each raises his cards at his zone's edge under his fingers (four skin tones). The detector
    finds some of them there, weakly (seat 3's on the blue cloth, seat 7's on the green: the conformance's blue-cloth
    run took one for a card dealt out of turn); each is read as held, and no card lying on the felt is."""
    layout = load_layout()
    renderer = Renderer(layout, TableCamera(), seed=0, conditions=cloth)
    on_felt = SceneState()
    for position in (*range(1, 8), 0):
        for index, card in enumerate(("As", "Kd", "7c")):
            on_felt = on_felt.with_card(CardOnFelt(position, index, card, face_up=index == 1 and position != 0))
    peeking = SceneState(cards=tuple(CardOnFelt(c.position, c.index, c.card, c.face_up, lifted=c.position != 0)
                                     for c in on_felt.cards))
    reader = TableReader(layout, calibrate(renderer.render(on_felt, 0), layout).table_to_image, change_threshold=-1)
    flat = [o for o in reader.read(renderer.render(on_felt, 50)).observations if o.kind != "chip"]
    assert len(flat) == 24 and not any(o.held for o in flat)
    raised_seen = 0
    for t in (100, 200, 300):  # the raised cards are weak detections: not found in every frame
        seen = [o for o in reader.read(renderer.render(peeking, t)).observations if o.kind != "chip"]
        raised = [o for o in seen if o.seat != 0]
        assert all(o.held for o in raised)
        assert len(seen) - len(raised) == 3 and not any(o.held for o in seen if o.seat == 0)
        raised_seen += len(raised)
    assert raised_seen >= 2
