"""The table's sensors and outputs: GPIO inputs (buttons, cut card, shoe) and alarm outputs."""
