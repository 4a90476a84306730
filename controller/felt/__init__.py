"""The felt's description: where each seat's zones lie (``layout``, ``layouts/``) and the chips a casino puts on
them (``chips``). The simulator and the vision process read it, the configuration names its file; it imports
none of them."""
