"""Stand-ins for MicroPython's own modules (``machine``, ``micropython``), to run the firmware under CPython."""
