"""The button presses the engine holds until the camera has caught up with them (``Referee.awaiting``).

A dealer presses « fin de donne » as he lays the last card: the camera reports the card once it has held steady
over several frames, after the press has reached the engine. The engine holds the press; this tells it, press by
press, once every change that began on the felt before the press has been reported (``CameraCaughtUp``).

The engine plays what the camera reports while a press is held before the press. So a change that began after the
press (a player raising as the dealer ends the deal, a bought card laid as he keys the purchase), decided before
the camera has caught up, is held back and told after the catch-up: the engine plays it after the press, in the
order the table saw.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.bus.schema import ChipsChanged
from vision.tracker import Event, Timed, ZoneKey

Press = tuple[str, int]  # the press's publisher and sequence number


def zone_of(event: Event) -> ZoneKey:
    """The zone an event is about: a position's cards, or one of a seat's betting boxes."""
    if isinstance(event, ChipsChanged):
        return event.seat, event.box
    return getattr(event, "position", getattr(event, "seat", -1)), "cards"


class CatchUp:
    """The presses awaited, and when each is caught up with.

    The first frame read after hearing of a press may have been taken before it (the grabber keeps the newest
    frame, whenever it came); the second was taken after the first was handed out, so after the press: the wait is
    measured from it. The press is caught up with once no change seen up to that frame is still undecided."""

    def __init__(self) -> None:
        #: press -> frames read since it was heard of, and the time of the frame the wait is measured from
        self._awaited: dict[Press, tuple[int, int | None]] = {}
        #: events of changes begun after a press still awaited, in the order the tracker decided them
        self._held: list[Timed] = []
        #: presses told caught up with that the engine's last state still holds (it has not read the answer yet)
        self._answered: set[Press] = set()

    def __bool__(self) -> bool:
        """Whether any press is awaited or any event held back."""
        return bool(self._awaited or self._held)

    def follow(self, awaiting: object) -> list[Event]:
        """The engine's state says which presses it holds (``awaiting_camera``): keep those, take up new ones. The
        events held for a press it no longer holds (it gave up waiting: ``CameraWaitOver``) are told now."""
        if not isinstance(awaiting, list):
            return []
        held = {(press[0], press[1]) for press in awaiting if isinstance(press, list) and len(press) == 2
                and isinstance(press[0], str) and isinstance(press[1], int)}
        self._answered &= held
        self._awaited = {press: self._awaited.get(press, (0, None)) for press in held - self._answered}
        return self._release(self._horizon())

    def frame_read(self, t_ms: int, undecided_since: int | None,
                   events: Sequence[Timed] = ()) -> list[Press | Event]:
        """A frame read (time ``t_ms``), the tracker's oldest undecided change then began at ``undecided_since``,
        and the events it decided: what to tell, in order. Each press caught up with comes after the events of the
        changes begun up to it; events of later changes wait for the presses awaited before them."""
        caught_up: list[tuple[int, Press]] = []
        for press, (read, since) in list(self._awaited.items()):
            read += 1
            if since is None and read >= 2:
                since = t_ms
            self._awaited[press] = read, since
            if since is not None and (undecided_since is None or undecided_since > since):
                caught_up.append((since, press))
                del self._awaited[press]
                self._answered.add(press)
        told: list[Press | Event] = []
        self._held += events
        for since, press in sorted(caught_up):
            told += self._release(since)
            told.append(press)
        told += self._release(self._horizon())
        return told

    def _horizon(self) -> int | None:
        """The frame time the earliest press still awaited is measured from: changes begun after it wait."""
        return min((since for _read, since in self._awaited.values() if since is not None), default=None)

    def _release(self, horizon: int | None) -> list[Event]:
        """The held events of changes begun up to ``horizon`` (all, without one); a zone's events keep their order:
        one held holds the zone's next ones."""
        released, held, blocked = [], [], set()
        for began, event in self._held:
            zone = zone_of(event)
            if zone in blocked or horizon is not None and began is not None and began > horizon:
                held.append((began, event))
                blocked.add(zone)
            else:
                released.append(event)
        self._held = held
        return released

    def release(self) -> list[Event]:
        """Every event held, told now whatever the presses: the camera went offline (the engine lets every press
        through), its clock started again, or the process stops."""
        return self._release(None)

    def all(self) -> list[Press | Event]:
        """Every press awaited, no longer awaited, then every event held: the camera reads nothing (not
        calibrated), so nothing is to come."""
        presses: list[Press | Event] = list(self._awaited)
        self._answered |= set(self._awaited)
        self._awaited = {}
        return presses + self._release(None)
