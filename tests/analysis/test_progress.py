"""controller.progress: the long commands' progress on stderr (rich), drawn only on a terminal."""

from __future__ import annotations

import io
import re

from rich.console import Console

from controller.progress import Progress, clock


def _terminal(buffer: io.StringIO) -> Console:
    return Console(file=buffer, force_terminal=True, width=160)


def _last_frame(buffer: io.StringIO) -> str:
    """What the terminal shows at the end: the last frame drawn, without the escape codes."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buffer.getvalue().split("\r")[-1])


def test_phases_end_with_a_tick_and_their_time_and_a_bar_counts_its_steps() -> None:
    buffer = io.StringIO()
    with Progress(console=_terminal(buffer)) as progress:
        assert progress.shown
        progress.phase("building the tables")
        assert list(progress.track([1, 2, 3], "reading the photos", unit="images")) == [1, 2, 3]
        progress.phase("counting")
        progress.fraction(0.5)  # a phase given a fraction becomes a bar
        progress.fraction(1.0)
    final = _last_frame(buffer)
    assert "✓ building the tables" in final and "0 s" in final
    assert "reading the photos" in final and "100% (3/3 images)" in final
    assert "✓ counting" in final and "100%" in final


def test_a_loop_not_kept_goes_and_a_failed_phase_says_so() -> None:
    buffer = io.StringIO()
    with Progress(console=_terminal(buffer)) as progress:
        for _ in progress.track(range(2), "epoch 1/2", unit="batches", keep=False):
            pass
        progress.phase("loading the reader")
        progress.fail()
    final = _last_frame(buffer)
    assert "epoch 1/2" not in final and "loading the reader (failed)" in final and "✓" not in final


def test_nothing_is_drawn_where_stderr_is_not_a_terminal_or_when_quiet(capsys, monkeypatch) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):  # rich's switches, which would make a pipe count as a terminal
        monkeypatch.delenv(name, raising=False)
    buffer = io.StringIO()
    for progress in (Progress(console=Console(file=buffer)), Progress(enabled=False, console=_terminal(buffer))):
        with progress:
            assert not progress.shown
            progress.phase("a phase")
            assert list(progress.track("ab", "a loop")) == ["a", "b"]
            progress.fraction(0.5)
            progress.fail()
    assert buffer.getvalue() == ""
    with Progress() as progress:  # the default console: pytest's captured stderr, not a terminal
        progress.phase("a phase")
    assert capsys.readouterr() == ("", "")


def test_durations_read_as_seconds_minutes_or_hours() -> None:
    assert [clock(s) for s in (4.4, 59.6, 123, 3723)] == ["4 s", "1:00", "2:03", "1:02:03"]
