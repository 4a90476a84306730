"""A minimal stand-in for MicroPython's ``micropython`` module: what the shoe's main.py calls."""

keyboard_interrupt_char = 3


def kbd_intr(char):
    global keyboard_interrupt_char
    keyboard_interrupt_char = char
