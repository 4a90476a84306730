"""Progress of the long commands on stderr, and their plain reports as tables on stdout (both drawn by rich).

``Progress`` shows one line per phase (a spinner, then ✓ and the time it took) and, for a long loop, a bar with
the time elapsed and an estimate of the time left. It draws only where stderr is a terminal (rich's test, which
``FORCE_COLOR=1`` or ``TTY_COMPATIBLE=1`` force and ``TTY_COMPATIBLE=0`` turns off): pipes, log files and CI get
neither carriage returns nor escape codes, and it never writes to stdout (JSON there stays clean).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

from rich import box
from rich import progress as rp
from rich.console import Console
from rich.table import Column, Table
from rich.text import Text

T = TypeVar("T")


def clock(seconds: float) -> str:
    """A duration as a person reads it: ``4 s``, ``2:03`` (minutes), ``1:02:03`` (hours)."""
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, whole = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{whole:02d}" if hours else f"{minutes}:{whole:02d}"


def _is_phase(task: rp.Task) -> bool:
    return bool(task.fields.get("phase")) or task.total is None


class _Bar(rp.BarColumn):
    """The bar, for a loop only: a phase's length is unknown."""

    def render(self, task: rp.Task) -> Any:
        return Text("") if _is_phase(task) else super().render(task)


class _Amount(rp.ProgressColumn):
    """``37%``, with the count where the loop names its unit: ``37% (45/120 images)``."""

    def render(self, task: rp.Task) -> Text:
        if _is_phase(task):
            return Text("")
        text = f"{task.percentage:3.0f}%"
        unit = task.fields.get("unit")
        if unit and task.total is not None:
            text += f" ({int(task.completed):,}/{int(task.total):,} {unit})"
        return Text(text, style="progress.percentage")


class _Times(rp.ProgressColumn):
    """The time elapsed; for a loop still running, the estimate of the time left."""

    max_refresh = 0.5  # an estimate that changes ten times a second cannot be read

    def render(self, task: rp.Task) -> Text:
        elapsed = task.finished_time if task.finished else task.elapsed
        if elapsed is None:
            return Text("")
        text = clock(elapsed)
        if not task.finished and not _is_phase(task) and task.stop_time is None:  # running
            left = task.time_remaining
            text += ", estimating the rest" if left is None else f", about {clock(left)} left"
        return Text(text, style="progress.elapsed")


class Progress:
    """Phases and bars on stderr; every method does nothing where nothing is shown (``shown``).

    ``enabled=False`` (``--quiet``) shows nothing; otherwise it shows where stderr is a terminal. While it is
    shown, what the program prints to stderr, and to stdout where stdout is a terminal too, appears above it.
    """

    def __init__(self, enabled: bool = True, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.shown = enabled and self.console.is_terminal and not self.console.is_dumb_terminal
        self._progress: rp.Progress | None = None
        self._task: rp.TaskID | None = None

    def __enter__(self) -> Progress:
        if self.shown:
            stdout_is_terminal = getattr(sys.stdout, "isatty", lambda: False)()
            self._progress = rp.Progress(
                rp.SpinnerColumn(finished_text="[green]✓[/]"),
                rp.TextColumn("{task.description}", table_column=Column(ratio=1)),  # wraps where the terminal is narrow
                _Bar(bar_width=20),
                _Amount(table_column=Column(no_wrap=True)),
                _Times(table_column=Column(no_wrap=True)),
                console=self.console,
                refresh_per_second=4,
                expand=True,
                redirect_stdout=stdout_is_terminal,  # else stdout's lines go where stdout goes, not above the bar
            )
            self._progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._progress is not None:
            if kind is None:
                self._finish()
            self._progress.stop()
            self._progress = None

    def phase(self, text: str) -> None:
        """Begin a phase of unknown length, ending the one before."""
        self._finish()
        if self._progress is not None:
            self._task = self._progress.add_task(text, total=None, phase=True)

    def bar(self, text: str, total: float | None, unit: str = "", keep: bool = True) -> None:
        """Begin a loop of ``total`` steps (``unit``: what a step is, for the count), ending what came before;
        ``keep=False``: the bar goes once ended (an epoch's, which the epoch's printed line replaces)."""
        self._finish()
        if self._progress is not None:
            self._task = self._progress.add_task(text, total=total, unit=unit, phase=False, keep=keep)

    def update(self, completed: float, total: float | None = None, unit: str | None = None) -> None:
        """The current loop's steps done (of ``total`` where given); a phase so updated becomes a loop."""
        if self._progress is None or self._task is None:
            return
        task = self._current()
        fields: dict[str, Any] = {"phase": False}
        if unit is not None:
            fields["unit"] = unit
        if total is None and task.total is None:
            total = 1.0  # a fraction
        self._progress.update(self._task, completed=completed, total=total, **fields)

    def fraction(self, done: float) -> None:
        """The current loop's share done, 0 to 1."""
        self.update(done, total=1.0)

    def advance(self, steps: float = 1) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, steps)

    def fail(self, why: str = "failed") -> None:
        """End the current phase or loop as not done (``why`` is added to its text)."""
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=f"{self._current().description} ({why})")
            self._progress.stop_task(self._task)
            self._task = None

    def describe(self, text: str) -> None:
        """Rename the current phase or loop (an epoch's figures, say)."""
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=text)

    def track(self, items: Iterable[T], text: str, total: int | None = None, unit: str = "",
              keep: bool = True) -> Iterator[T]:
        """``items``, one at a time, under a bar ``text`` (``bar``)."""
        if total is None and isinstance(items, Sequence):
            total = len(items)
        self.bar(text, total, unit, keep)
        for item in items:
            yield item
            self.advance()

    def _current(self) -> rp.Task:
        assert self._progress is not None
        return next(task for task in self._progress.tasks if task.id == self._task)

    def end(self) -> None:
        """End the current phase or loop (as the next one would)."""
        self._finish()

    def _finish(self) -> None:
        """Mark the current phase or loop done (a loop left unfinished keeps its count)."""
        if self._progress is None or self._task is None:
            return
        task = self._current()
        if not task.fields.get("keep", True):
            self._progress.remove_task(self._task)
        elif task.total is None:
            self._progress.update(self._task, total=1, completed=1)
        elif task.completed >= task.total:
            self._progress.update(self._task, completed=task.total)
        else:
            self._progress.stop_task(self._task)
        self._task = None


def report_table(title: str | None = None, *columns: str) -> Table:
    """A table for a command's plain report: a header row, no borders but the header's rule."""
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, show_edge=False,
                  pad_edge=False)
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == 0 or index == len(columns) - 1 else "right",
                         overflow="fold")
    return table


def print_report(*renderables: Any) -> None:
    """Print lines and tables (each after a blank line) on stdout: no colours or escape codes where stdout is not a
    terminal, nor the spaces rich pads the lines with."""
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, width=100)  # a file or a pipe: rich would wrap at 80
    with console.capture() as captured:
        for index, renderable in enumerate(renderables):
            if index and isinstance(renderable, Table):
                console.print()
            console.print(renderable)
    sys.stdout.write("".join(line.rstrip(" ") + "\n" for line in captured.get().splitlines()))
    sys.stdout.flush()
