"""The virtual table: plays coups as a real table would produce them."""
