"""The root of every error the table controller raises.

Each error derives from ``StudTableError``, and a leaf also from the builtin it
resembles (``ValueError``, ``OSError``, ``TimeoutError``...), so a caller may
catch the project's errors as a whole or by their kind (the shape of gpiozero's
``exc.py``). No imports: the pure rules core derives its errors from it too.
"""


class StudTableError(Exception):
    """Root of every error raised by the stud table controller."""
