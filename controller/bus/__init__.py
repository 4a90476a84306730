"""The ZeroMQ bus: typed messages, the XSUB/XPUB proxy, publishers, subscribers, snapshots."""

from ..errors import StudTableError


class BindError(StudTableError, OSError):
    """A bus endpoint that cannot be bound (taken by another process, or not an address here): said in one line
    that names the endpoint and its setting (``stud-table`` prints it and exits 2)."""

    def __init__(self, endpoint: str, setting: str, reason: str) -> None:
        super().__init__(f"cannot bind {endpoint} ({setting}): {reason}")
