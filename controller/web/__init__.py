"""The web pages: the croupier's display (/display) and the surveillance review (/review), one server."""
