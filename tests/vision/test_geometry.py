"""Geometry of the per-seat reader: regions, zone membership, the corner crop, on the real layout file."""

from __future__ import annotations

import numpy as np
import pytest

from controller.felt.layout import DEALER
from controller.sim.render import Renderer, TableCamera
from controller.sim.scene import CardOnFelt, SceneState
from vision.calibrate import calibrate
from vision.index_reader import INDEX_SIZE, index_crop
from vision.table_reader import Region, seat_regions


def test_each_seat_region_holds_all_of_its_seats_zones(layout) -> None:
    regions = {r.seat: r for r in seat_regions(layout)}
    assert sorted(regions) == [DEALER, *layout.seats()]
    for zone in layout.zones:
        if zone.area == "paying":
            continue  # the paying strip holds no bet and no card: the reader does not look at it
        region = regions[zone.seat]
        to_crop = np.linalg.inv(region.crop_to_table(256))
        outline = np.c_[zone.outline(), np.ones(len(zone.outline()))] @ to_crop.T
        pixels = outline[:, :2] / outline[:, 2:]
        assert pixels.min() >= 0 and pixels.max() <= 256, f"{zone.name} leaves its region's crop"


def test_region_crop_axes_follow_the_card_zone(layout) -> None:
    zone = layout.zone(3, "cards")
    region = Region(3, zone.centre, 300.0, zone.angle)
    m = region.crop_to_table(300)
    centre = m @ [150, 150, 1]
    right = m @ [230, 150, 1]
    assert centre[:2] == pytest.approx(zone.centre)
    # 80 px to the right in the crop is 80 mm along the card zone's long axis (180 mm): still inside; 80 px down
    # is 80 mm across it (100 mm): outside
    assert zone.contains(*right[:2]) and not zone.contains(*(m @ [150, 230, 1])[:2])


def test_zone_distance(layout) -> None:
    ante = layout.zone(4, "ante")
    assert ante.distance(*ante.centre) == 0
    assert ante.distance(ante.centre[0] + ante.radius + 10, ante.centre[1]) == pytest.approx(10)
    cards = layout.zone(4, "cards")
    assert cards.distance(*cards.centre) == 0
    assert cards.distance(cards.centre[0], cards.centre[1] + cards.size[1] / 2 + 7) == pytest.approx(7, abs=0.5)


def test_the_corner_crop_shows_the_cards_own_corner(layout) -> None:
    """Two cards laid staggered: the corner crop of the covered one shows its index, not the covering card."""
    renderer = Renderer(layout, TableCamera(), deck=None, seed=3)
    scene = SceneState().with_card(CardOnFelt(2, 0, "Ah", True)).with_card(CardOnFelt(2, 1, "Ks", False))
    frame = renderer.render(scene, 0)
    cal = calibrate(frame, layout)
    covered = renderer.card_quad(CardOnFelt(2, 0, "Ah", True))
    covering = renderer.card_quad(CardOnFelt(2, 1, "Ks", False))
    angle = layout.zone(2, "cards").angle
    face = index_crop(frame, cal.table_to_image, covered[0], angle)
    back = index_crop(frame, cal.table_to_image, covering[0], angle)
    assert face.shape == (INDEX_SIZE[1], INDEX_SIZE[0], 3)
    # the face-up ace's corner is white card stock with red ink; the face-down card's corner is its blue back
    red = (face[..., 0].astype(int) - face[..., 2]) > 80
    assert face.mean() > 150 and red.sum() > 10
    assert back[..., 2].mean() > back[..., 0].mean() + 30
