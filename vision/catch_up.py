"""The button presses the engine holds until the camera has caught up with them (``Referee.awaiting``).

A dealer presses « fin de donne » as he lays the last card: the camera reports the card once it has held steady
over several frames, after the press has reached the engine. The engine holds the press; this tells it, press by
press, once every change that began on the felt before the press has been reported (``CameraCaughtUp``).
"""

from __future__ import annotations

Press = tuple[str, int]  # the press's publisher and sequence number


class CatchUp:
    """The presses awaited, and when each is caught up with.

    The first frame read after hearing of a press may have been taken before it (the grabber keeps the newest
    frame, whenever it came); the second was taken after the first was handed out, so after the press: the wait is
    measured from it. The press is caught up with once no change seen up to that frame is still undecided."""

    def __init__(self) -> None:
        #: press -> frames read since it was heard of, and the time of the frame the wait is measured from
        self._awaited: dict[Press, tuple[int, int | None]] = {}

    def __bool__(self) -> bool:
        """Whether any press is awaited."""
        return bool(self._awaited)

    def follow(self, awaiting: object) -> None:
        """The engine's state says which presses it holds (``awaiting_camera``): keep those, take up new ones."""
        if not isinstance(awaiting, list):
            return
        held = {(press[0], press[1]) for press in awaiting if isinstance(press, list) and len(press) == 2
                and isinstance(press[0], str) and isinstance(press[1], int)}
        self._awaited = {press: self._awaited.get(press, (0, None)) for press in held}

    def frame_read(self, t_ms: int, undecided_since: int | None) -> list[Press]:
        """A frame read (time ``t_ms``), the tracker's oldest undecided change then began at ``undecided_since``:
        the presses now caught up with, no longer awaited."""
        caught_up = []
        for press, (read, since) in list(self._awaited.items()):
            read += 1
            if since is None and read >= 2:
                since = t_ms
            self._awaited[press] = read, since
            if since is not None and (undecided_since is None or undecided_since > since):
                caught_up.append(press)
                del self._awaited[press]
        return caught_up

    def all(self) -> list[Press]:
        """Every press awaited, no longer awaited: the camera reads nothing (not calibrated), so nothing is to
        come."""
        presses, self._awaited = list(self._awaited), {}
        return presses
