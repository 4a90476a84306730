"""One overhead frame -> what lies in each zone of the felt, in table millimetres.

The felt's geometry is known (layout + calibration), so the detector never looks at the whole frame: each seat's
zones, and the dealer's area, are rectified from the full-resolution frame into one small upright square crop, and
the crops go through the detector in one batch. Each card's top-left corner — the part of it the next card, laid
« légèrement décalée », leaves visible — is then rectified again from the full frame and read by the index reader
(``vision.index_reader``). Each bet zone of the region is rectified again too, and the chip counter
(``vision.chip_counter``) counts its chips per denomination: the detector merges or misses a spread pile's
overlapping chips, and takes a tall pile of one colour for a card now and then, so it neither counts the chips nor
says where to look for them.

This is what makes the pipeline fast on a Pi and accurate on small, far cards: at 1920x1080 a card is about 60 px
long in the frame, hopeless for a detector that shrinks the whole frame to 256-640 px, but 70 px long in a seat's
256 px crop. And most of the felt is still most of the time: a region whose crop has not changed since the models
last read it keeps that reading (``CHANGE_THRESHOLD``) — once two readings of the still region agree — so a frame
where only the dealer's arm moves costs the crops it crosses, and a still frame almost nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from controller.felt.layout import BET_AREAS, DEALER, Layout, Zone, axes, crop_to_table
from vision.chip_counter import ONNX_PATH as CHIP_COUNTER_PATH
from vision.chip_counter import ChipCounter, crop_outline, next_likeliest, readings, zone_crop, zone_to_table
from vision.felt_colour import TRAINED_FELT_LAB, FeltKey, measure_felt
from vision.index_reader import INDEX_CLASSES, IndexReader, index_crop
from vision.index_reader import ONNX_PATH as INDEX_PATH
from vision.onnx_detector import ONNX_PATH, Box, OnnxDetector
from vision.stack_reader import (
    UNSURE,
    StackReader,
    alternatives,
    merge_readings,
    reader_for,
    stack_crop,
    stack_zone_to_table,
    zone_resolution,
)

log = logging.getLogger(__name__)

#: On a cloth other than the trained one, a zone whose stack probability reaches this is not vouched for. Chosen on
#: renderer seeds 200-211, blue cloth, a third of the zones stacked (benchmarks/chips.py --first-seed 200
#: --stacked-share 0.35 --condition blue-felt): zones wrong and sure 6 at 0.05, 8 at 0.5, 15 without
STACK_DOUBT = 0.05
#: Side of a seat's region (mm): its card zone and its four bet zones.
SEAT_REGION_MM = 360.0
#: The dealer's region (mm): his card area and the paying strip.
DEALER_REGION_MM = 420.0
#: how far past its zone's printed line an object still belongs to it
ZONE_SLACK_MM = 25.0
#: a card detection whose box is more than this share skin is a card in a hand (``ZoneObservation.held``): a
#: player's raised card under his fingers is about 0.6 skin, a card on the felt none
HELD_SHARE = 0.3
#: A region is compared with what it was when the models last read it as a THUMBNAIL x THUMBNAIL image (each pixel
#: the mean of four samples, so the sensor's noise averages out): on the virtual camera the same scene differs by at
#: most 9 grey levels between frames, a card, a chip or an arm arriving by 60 or more (55 scenes of a coup).
THUMBNAIL = 32
CHANGE_THRESHOLD = 24
#: however still a region looks, the models read it again after this many frames (5 s at 6 frames/s): a safety net
#: for a change too faint for the thumbnails, not the way changes are found (at 12, on a coup's film, these reads
#: were about half of all the detector's work)
REFRESH_FRAMES = 30
#: A bet zone's crop is compared with the one last counted as a ZONE_THUMBNAIL-side image (each pixel the mean of
#: 16): a region read again because a card arrived keeps its zones' counts while their crops stay as they were
ZONE_THUMBNAIL = 24


@dataclass(frozen=True)
class Region:
    """A square of the felt rectified into one detector crop."""

    seat: int
    centre: tuple[float, float]
    side_mm: float
    angle: float  # degrees, as Zone.angle: the crop's x axis runs along the seat's card zone

    def crop_to_table(self, pixels: int) -> np.ndarray:
        """3x3 matrix: crop pixel (u, v, 1) -> table mm (x, y, 1)."""
        ex, ey = axes(self.angle)
        return crop_to_table(np.array(self.centre) - (ex + ey) * self.side_mm / 2, self.angle, self.side_mm / pixels)


@dataclass(frozen=True)
class ZoneObservation:
    """One object seen in a zone of the felt."""

    seat: int  # 1..7, 0 for the dealer (and the paying strip)
    area: str  # cards, ante, raise, bonus, jackpot, paying
    kind: str  # card_face, card_back, chip
    label: str  # a card ("AS", "10H"), "BACK", or a chip's value in cents ("500")
    x_mm: float
    y_mm: float
    confidence: float
    #: the object's outline in the frame's pixels (4 x 2), for evidence images
    outline_px: tuple[tuple[float, float], ...]
    #: a card whose box is more than ``HELD_SHARE`` skin: in a hand, or under one (a player peeking at his cards
    #: raises them at his zone's edge under his fingers)
    held: bool = False
    #: a card's: the index reader's probability of ``label``
    identity_certainty: float = 1.0
    #: a chip's: its zone's likeliest value in cents but the one read (0: none), offered to the dealer beside it
    alternative: int = 0
    #: a chip's: its zone read as a casino stack (the stack reader's reading taken)
    stacked: bool = False

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The outline's bounding box in frame pixels (x1, y1, x2, y2)."""
        xs, ys = [p[0] for p in self.outline_px], [p[1] for p in self.outline_px]
        return min(xs), min(ys), max(xs), max(ys)


@dataclass
class _RegionMemory:
    """What the models last read in a region, and the region's thumbnail in that frame."""

    thumbnail: np.ndarray
    observations: list[ZoneObservation]
    occluded: set[tuple[int, str]]
    confirmed: bool = False  # the reading before, of the same still region, read the same
    age: int = 0  # frames since then


def zone_values(observations: Iterable[ZoneObservation]) -> dict[tuple[int, str], int]:
    """Each bet zone's chips, in cents, as (seat, area) -> value: the zones where no chip was read are left out."""
    values: dict[tuple[int, str], int] = {}
    for seen in observations:
        if seen.kind == "chip":
            values[seen.seat, seen.area] = values.get((seen.seat, seen.area), 0) + int(seen.label)
    return values


def _what(observations: list[ZoneObservation]) -> list[tuple[str, str, str]]:
    """What a region's reading says, whatever the exact positions: (zone, kind, label) of each object."""
    return sorted((o.area, o.kind, o.label) for o in observations)


@dataclass
class _ZoneCount:
    """What the chip counter last read in a bet zone, and the zone's thumbnail then."""

    thumbnail: np.ndarray
    counts: dict[int, int]
    certainty: float
    alternative: int  # the likeliest value in cents but the one read, 0 for none
    stacked: bool  # read as a casino stack
    age: int = 0  # reads of its region since


@dataclass
class ReaderStats:
    regions_read: int = 0  # through the detector
    regions_reused: int = 0  # unchanged since they were last read
    zones_counted: int = 0  # bet zones through the chip counter
    zones_kept: int = 0  # bet zones of a region read again, unchanged since they were last counted


@dataclass(frozen=True)
class FrameReading:
    observations: tuple[ZoneObservation, ...]
    #: zones, as (seat, area), where something (an arm, a hand) covers the felt: absence there proves nothing
    occluded: frozenset[tuple[int, str]]


def seat_regions(layout: Layout) -> list[Region]:
    regions = []
    for seat in layout.seats():
        # centred between the card zone and the ante, which lie at the two ends of the seat's zones
        cards, ante = layout.zone(seat, "cards"), layout.zone(seat, "ante")
        centre = ((cards.centre[0] + ante.centre[0]) / 2, (cards.centre[1] + ante.centre[1]) / 2)
        regions.append(Region(seat, centre, SEAT_REGION_MM, cards.angle))
    dealer = [z for z in layout.zones if z.seat == DEALER]
    centre = (float(np.mean([z.centre[0] for z in dealer])), float(np.mean([z.centre[1] for z in dealer])))
    regions.append(Region(DEALER, centre, DEALER_REGION_MM, layout.zone(DEALER, "cards").angle))
    return regions


def rectified(frame_bgr: np.ndarray, crop_to_image: np.ndarray, size: int) -> np.ndarray:
    """The square crop whose pixels map to the frame through ``crop_to_image`` (one warp, only over the crop)."""
    return cv2.warpPerspective(frame_bgr, crop_to_image, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT)


_ARM_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))


def _skin_mask(crop_bgr: np.ndarray) -> np.ndarray:
    """Skin-coloured blobs the size of a hand or an arm: a YCrCb band, which green felt and white card stock fall
    outside, then an opening that removes what is thinner than about a finger (a chip's red stripes, a red pip's
    anti-aliased edge)."""
    ycrcb = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2YCrCb)
    return cv2.morphologyEx(cv2.inRange(ycrcb, (40, 138, 77), (250, 175, 127)), cv2.MORPH_OPEN, _ARM_KERNEL) > 0


def _in_a_hand(skin: np.ndarray, box: Box) -> bool:
    """Whether more than ``HELD_SHARE`` of a card's box (crop pixels, clipped to the crop) is skin (``_skin_mask``)."""
    height, width = skin.shape
    x1, x2 = int(np.clip(box.x1, 0, width)), int(np.clip(np.ceil(box.x2), 0, width))
    y1, y2 = int(np.clip(box.y1, 0, height)), int(np.clip(np.ceil(box.y2), 0, height))
    inside = skin[y1:y2, x1:x2]
    return bool(inside.size and inside.mean() > HELD_SHARE)


class TableReader:
    """Detector, index reader and chip counter over a calibrated frame."""

    def __init__(self, layout: Layout, table_to_image: np.ndarray, detector: OnnxDetector | None = None,
                 index_model: Path = INDEX_PATH, detector_path: Path = ONNX_PATH,
                 chip_model: Path = CHIP_COUNTER_PATH,
                 stack_model: Path | Literal["by resolution"] | None = "by resolution",
                 occlusion_share: float = 0.12, change_threshold: int = CHANGE_THRESHOLD,
                 refresh_frames: int = REFRESH_FRAMES, felt_lab: tuple[float, float, float] | None = None) -> None:
        """``change_threshold``: a region whose crop differs from the one last read by no more than this (grey
        levels, in any thumbnail pixel and channel) keeps its last reading; -1 reads every region at every frame.
        ``stack_model``: by default the stack reader trained nearest the camera's resolution at the bet zones
        (``vision.stack_reader.reader_for``); None reads the bet zones with the chip counter alone (spread piles
        only). ``felt_lab``: the
        cloth's colour (``vision.felt_colour``); None measures it on the first frame read."""
        self.layout = layout
        self.table_to_image = np.asarray(table_to_image, dtype=np.float64)
        self.detector = detector or OnnxDetector(detector_path)
        self.size = self.detector.imgsz
        self.index_reader = IndexReader(index_model)
        self.chip_counter = ChipCounter(chip_model)
        self.occlusion_share = occlusion_share
        self.change_threshold = change_threshold
        self.refresh_frames = refresh_frames
        self.stats = ReaderStats()
        #: what the models see of the frame is keyed to the felt they were trained on
        self.felt = FeltKey(TRAINED_FELT_LAB if felt_lab is None else felt_lab)
        self._felt_unmeasured = felt_lab is None
        self.regions = seat_regions(layout)
        # the crops' geometry is fixed with the calibration: computed once, not at every frame
        self._crop_to_table = [r.crop_to_table(self.size) for r in self.regions]
        self._crop_to_image = [self.table_to_image @ m for m in self._crop_to_table]
        to_crop = np.diag([self.size / (2 * THUMBNAIL), self.size / (2 * THUMBNAIL), 1.0])
        self._thumbnail_to_image = [m @ to_crop for m in self._crop_to_image]
        self._zone_masks = [self._masks(r) for r in self.regions]
        self._memory: list[_RegionMemory | None] = [None] * len(self.regions)
        self._zone_counts: dict[Zone, _ZoneCount] = {}
        self._zone_to_image = {zone: self.table_to_image @ zone_to_table(layout, zone) for zone in layout.zones
                               if zone.area in BET_AREAS}
        self._zone_outlines = {zone: crop_outline(m) for zone, m in self._zone_to_image.items()}
        self._stack_to_image = {zone: self.table_to_image @ stack_zone_to_table(zone) for zone in self._zone_to_image}
        if stack_model == "by resolution":
            stack_model = reader_for(zone_resolution(self.table_to_image, list(self._zone_to_image))).path
        self.stack_reader = StackReader(stack_model) if stack_model is not None else None

    def _masks(self, region: Region) -> list[tuple[Zone, np.ndarray]]:
        """Each zone of the region's seat as a boolean mask over the crop."""
        to_crop = np.linalg.inv(region.crop_to_table(self.size))  # once, at start
        masks = []
        for zone in self.layout.zones:
            if zone.seat != region.seat:
                continue
            pts = cv2.perspectiveTransform(zone.outline()[None].astype(np.float64), to_crop)[0]
            mask = np.zeros((self.size, self.size), np.uint8)
            cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1)
            masks.append((zone, mask > 0))
        return masks

    def _card_zone_of(self, seat: int, x: float, y: float) -> Zone | None:
        """The seat's card zone when a card at (x, y) belongs to it; None when it lies more than ``ZONE_SLACK_MM``
        away."""
        zone = self.layout.zone(seat, "cards")
        return zone if zone.distance(x, y) <= ZONE_SLACK_MM else None

    def thumbnails(self, frame_bgr: np.ndarray) -> list[np.ndarray]:
        """Each region as a THUMBNAIL-side image, what a change is looked for in: rectified at twice that side
        (sixteen times cheaper than the detector's crop), then each 2x2 block averaged."""
        return [cv2.resize(rectified(frame_bgr, m, 2 * THUMBNAIL), (THUMBNAIL, THUMBNAIL),
                           interpolation=cv2.INTER_AREA).astype(np.int16) for m in self._thumbnail_to_image]

    def read(self, frame_bgr: np.ndarray) -> FrameReading:
        if self._felt_unmeasured:
            self.felt = FeltKey(measure_felt(frame_bgr, self.layout, self.table_to_image))
            self._felt_unmeasured = False
            felt = self.felt
            log.info("the felt measured at Lab %s (trained on %s): %s", felt.felt_lab.round().tolist(),
                     list(TRAINED_FELT_LAB), "its colour keyed to the trained felt's" if felt.active
                     else f"too near the colour of the {', '.join(felt.clashes)} to key: read as it is"
                     if felt.clashes else "read as it is")
        thumbnails = self.thumbnails(frame_bgr)
        moved = [memory is None or int(np.abs(thumbnail - memory.thumbnail).max()) > self.change_threshold
                 for memory, thumbnail in zip(self._memory, thumbnails, strict=True)]
        wanted = [k for k, memory in enumerate(self._memory)
                  if moved[k] or memory is None or not memory.confirmed or memory.age >= self.refresh_frames]
        self.stats.regions_read += len(wanted)
        self.stats.regions_reused += len(self.regions) - len(wanted)
        fresh = self._read_regions(frame_bgr, [(k, self.felt.bgr(rectified(frame_bgr, self._crop_to_image[k],
                                                                          self.size))) for k in wanted])
        observations: list[ZoneObservation] = []
        occluded: set[tuple[int, str]] = set()
        for k, memory in enumerate(self._memory):
            if k in fresh:
                # a reading is kept for the frames to come only once a second look at the still region agrees:
                # the tracker's debounce then never sees one reading's miss repeated as if it were steady
                confirmed = (memory is not None and not moved[k] and fresh[k][1] == memory.occluded
                             and _what(fresh[k][0]) == _what(memory.observations))
                memory = self._memory[k] = _RegionMemory(thumbnails[k], *fresh[k], confirmed=confirmed)
            else:
                assert memory is not None
                memory.age += 1
            observations.extend(memory.observations)
            occluded |= memory.occluded
        return FrameReading(tuple(observations), frozenset(occluded))

    def _read_regions(self, frame_bgr: np.ndarray, crops: list[tuple[int, np.ndarray]]
                      ) -> dict[int, tuple[list[ZoneObservation], set[tuple[int, str]]]]:
        """What lies in each of the given regions (index, crop): detector on the crops in one batch, then the index
        reader on every card's corner and the chip counter on every bet zone, each in one batch."""
        found = self.detector.detect([crop for _, crop in crops])
        readings: dict[int, tuple[list[ZoneObservation], set[tuple[int, str]]]] = {}
        corners: list[np.ndarray] = []  # the index crop of each card observation, in order
        card_at: list[tuple[int, int]] = []  # (region, place in its observations)
        for (k, crop), boxes in zip(crops, found, strict=True):
            region, masks = self.regions[k], self._zone_masks[k]
            to_table, to_image = self._crop_to_table[k], self._crop_to_image[k]
            observations: list[ZoneObservation] = []
            occluded: set[tuple[int, str]] = set()
            readings[k] = (observations, occluded)
            skin = _skin_mask(crop)
            for zone, mask in masks:
                if skin[mask].mean() > self.occlusion_share:
                    occluded.add((zone.seat, zone.area))
            for box in boxes:
                if box.kind == "chip":
                    continue  # the chip counter reads the bet zones
                centre = to_table @ [(box.x1 + box.x2) / 2, (box.y1 + box.y2) / 2, 1]
                zone = self._card_zone_of(region.seat, centre[0], centre[1])
                if zone is None:
                    continue  # off the card zone, or seen again in a neighbour's crop
                box_corners = np.array([[box.x1, box.y1], [box.x2, box.y1], [box.x2, box.y2], [box.x1, box.y2]])
                outline = cv2.perspectiveTransform(box_corners[None], to_image)[0]
                outline_px = tuple((float(x), float(y)) for x, y in outline)
                top_left = to_table @ [box.x1, box.y1, 1]
                corners.append(index_crop(frame_bgr, self.table_to_image, top_left[:2], region.angle))
                card_at.append((k, len(observations)))
                observations.append(ZoneObservation(zone.seat, zone.area, box.kind, "", centre[0], centre[1],
                                                    box.confidence, outline_px, _in_a_hand(skin, box)))
        if corners:
            probabilities = self.index_reader.probabilities(self.felt.rgb(np.stack(corners)))
            for (k, place), p in zip(card_at, probabilities, strict=True):
                label = INDEX_CLASSES[int(p.argmax())]
                old = readings[k][0][place]
                kind = "card_back" if label == "BACK" else "card_face"
                # the confidence stays the detector's: that a card is there; an unsure reading of which card it
                # is must not make the tracker lose the card (its identity is a vote over frames; a still region's
                # frames carry its last two agreeing reads)
                # the probability clipped: a float16 softmax can come out a hair over 1
                readings[k][0][place] = replace(old, kind=kind, label=label,
                                                identity_certainty=min(1.0, max(0.0, float(p.max()))))
        bet_zones = [(k, zone) for k, _crop in crops for zone, _mask in self._zone_masks[k]
                     if zone.area in BET_AREAS]
        self._count_chips(frame_bgr, [zone for _k, zone in bet_zones])
        for k, zone in bet_zones:
            kept = self._zone_counts[zone]
            # one observation per chip counted, at the zone's centre (the tracker sums a zone's chips); its
            # confidence is the whole count's certainty
            readings[k][0].extend(ZoneObservation(zone.seat, zone.area, "chip", str(cents), *zone.centre,
                                                  kept.certainty, self._zone_outlines[zone],
                                                  alternative=kept.alternative, stacked=kept.stacked)
                                  for cents, count in kept.counts.items() for _ in range(count))
        return readings

    def _count_chips(self, frame_bgr: np.ndarray, zones: list[Zone]) -> None:
        """The chip counter on those of ``zones`` whose crop changed since it last counted them (or that it has
        not counted for ``refresh_frames`` reads), in one batch; the others keep their count."""
        changed: list[tuple[Zone, np.ndarray, np.ndarray]] = []
        for zone in zones:
            crop = zone_crop(frame_bgr, self._zone_to_image[zone])
            thumbnail = cv2.resize(crop, (ZONE_THUMBNAIL, ZONE_THUMBNAIL), interpolation=cv2.INTER_AREA)
            thumbnail = thumbnail.astype(np.int16)
            kept = self._zone_counts.get(zone)
            if (kept is None or kept.age >= self.refresh_frames
                    or int(np.abs(thumbnail - kept.thumbnail).max()) > self.change_threshold):
                changed.append((zone, crop, thumbnail))
            else:
                kept.age += 1
        self.stats.zones_counted += len(changed)
        self.stats.zones_kept += len(zones) - len(changed)
        if changed:
            counted = self._read_zones(frame_bgr, [zone for zone, _crop, _thumbnail in changed],
                                       self.felt.rgb(np.stack([crop for _zone, crop, _thumbnail in changed])))
            for (zone, _crop, thumbnail), (counts, certainty, alternative, stacked) in zip(changed, counted,
                                                                                          strict=True):
                self._zone_counts[zone] = _ZoneCount(thumbnail, counts, certainty, alternative, stacked)

    def _read_zones(self, frame_bgr: np.ndarray, zones: list[Zone], counter_crops: np.ndarray
                    ) -> list[tuple[dict[int, int], float, int, bool]]:
        """Each zone's chips per denomination, the reading's certainty, the likeliest value but the one read, and
        whether it is a casino stack's: the chip counter's, merged with the stack reader's where there is one
        (``vision.stack_reader``)."""
        counter = self.chip_counter.probabilities(counter_crops)
        if self.stack_reader is None:
            return [(counts, certainty, value, False) for (counts, certainty), (value, _odds)
                    in zip(readings(counter), next_likeliest(counter), strict=True)]
        stacked, stack_counts = self.stack_reader.probabilities(
            self.felt.rgb(np.stack([stack_crop(frame_bgr, self._stack_to_image[zone]) for zone in zones])))
        merged = merge_readings(counter, stacked, stack_counts, self.stack_reader.vouch_from)
        others = alternatives(counter, stacked, stack_counts, merged)
        if self.felt.active:
            # On a cloth keyed to the trained one a stack's side in shade, near the cloth's colour, is keyed too: a
            # zone the stack reader gives any chance of being a stack is never vouched for, the dealer confirms it
            merged = [(counts, min(certainty, UNSURE)) if p >= STACK_DOUBT else (counts, certainty)
                      for (counts, certainty), p in zip(merged, stacked, strict=True)]
        return [(counts, certainty, other, bool(p >= 0.5))
                for (counts, certainty), other, p in zip(merged, others, stacked, strict=True)]
