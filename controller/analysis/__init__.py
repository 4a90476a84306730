"""Analysis of the games: the player's expectation, exact or sampled (``stud-table analyze``)."""
