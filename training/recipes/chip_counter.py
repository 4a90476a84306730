"""The chip counter (``models/chip_counter.pt``, exported to ``models/chip_counter.onnx``): the table reader's count
of each bet zone's chips per denomination.

    python -m training.recipes.chip_counter --dry-run

Lineage: one training from fresh weights on bet zones drawn by the virtual table's renderer (renderer seeds 1-5,
one training deck each for the cards around them; piles of 1 to 10 chips, those above 5 taught as "too many to
count"), the held-out split a seed of its own (6). Needs Debian
``gnome-cards-data`` and ``kdegames-card-data-kf5`` (the decks).
"""

from __future__ import annotations

import sys

from training.recipes.common import Recipe, Stage, run

CHIPS = "python -m training.train_chips"

RECIPE = Recipe(
    model="chip_counter.pt",
    stages=(
        Stage("render-tall", "2026-12-03", "dfd8f4a",
              "12 epochs from fresh weights on 14,000 rendered bet zones, a quarter of the piles 6 to 10 chips high and"
              " labelled as the top class (too many to count); the last epoch kept, as the rule written before"
              " training said",
              (f"{CHIPS} data --out build/chips/train.npz --seeds 1 2 3 4 5 --scenes 100 --max-height 10",
               f"{CHIPS} data --out build/chips/held_out.npz --seeds 6 --scenes 40 --max-height 10",
               f"{CHIPS} train --data build/chips/train.npz --held-out build/chips/held_out.npz --epochs 12"
               " --out {out}"),
              "about 30 minutes on a shared 2-core CPU; replaces the stage of c4ca1f9 (piles of 1 to 5 only)"),
    ),
    after=(f"{CHIPS} export --weights {{out}} --out {{onnx}}",),
    check=(f"{CHIPS} report --weights {{out}} --held-out build/chips/held_out.npz",
           "python benchmarks/chips.py"),
)

if __name__ == "__main__":
    sys.exit(run(RECIPE))
