"""The felt's description: where each seat's zones lie (``layout``, ``layouts/``) and the chips a casino puts on
them (``chips``). The simulator, the vision process and the configuration all read it; it imports none of them."""
