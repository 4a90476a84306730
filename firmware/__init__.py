"""The card shoe's MicroPython firmware and the wire protocol it shares with the host (see PROTOCOL.md)."""
