"""Settings for the whole suite."""

from __future__ import annotations

import signal

import pytest

from controller.felt.layout import load_layout


def pytest_configure(config) -> None:
    # A suite started in the background by a script (`cmd &` without job control) inherits SIGINT ignored, and so
    # would every process it starts: the tests that press Ctrl-C on a demo need SIGINT as a terminal delivers it.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def layout():
    """The committed felt layout (stud-7), read once."""
    return load_layout()
