"""The stack reader (``models/stack_reader.pt``, exported to ``models/stack_reader.onnx``): whether a bet zone holds
a casino stack, and its count per denomination; the table reader merges its reading with the chip counter's.

    python -m training.recipes.stack_reader --dry-run

Lineage: one training from fresh weights on bet zones drawn by the virtual table's renderer (renderer seeds 1-5,
one training deck each for the cards around them; half of the zones a casino stack of 1 to 12 chips of one or two
denominations, the others spread piles of 1 to 10), judged on seeds 6 and 7 (``models/EXPERIMENTS.md``,
2026-12-05). Needs Debian ``gnome-cards-data`` and ``kdegames-card-data-kf5`` (the decks).
"""

from __future__ import annotations

import sys

from training.recipes.common import Recipe, Stage, run

STACKS = "python -m training.train_stacks"

RECIPE = Recipe(
    model="stack_reader.pt",
    stages=(
        Stage("render-stacks", "2026-12-05", "b80633b",
              "12 epochs from fresh weights on 14,000 rendered bet zones, half of them casino stacks of 1 to 12 chips"
              " (the top count, 11 or more, taught as too many to count); the last epoch kept, as the rule written"
              " before training said",
              (f"{STACKS} data --out build/stacks/train.npz --seeds 1 2 3 4 5 --scenes 100",
               f"{STACKS} data --out build/stacks/held_out.npz --seeds 6 --scenes 40",
               f"{STACKS} train --data build/stacks/train.npz --held-out build/stacks/held_out.npz --epochs 12"
               " --out {out}"),
              "about 38 minutes of training and 12 of rendering on a shared 2-core CPU"),
    ),
    after=(f"{STACKS} export --weights {{out}} --out {{onnx}}",),
    check=(f"{STACKS} data --out build/stacks/check.npz --seeds 7 --scenes 40",
           f"{STACKS} report --weights {{out}} --held-out build/stacks/check.npz",
           "python benchmarks/chips.py --stacked-share 0.35"),
)

if __name__ == "__main__":
    sys.exit(run(RECIPE))
