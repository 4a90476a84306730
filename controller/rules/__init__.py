"""The rules core: pure functions and state, no I/O, clock or randomness."""
