"""The photo reader's identifier (``models/card_identifier.pt``): a small CNN on a 96 px square crop per card.

    python -m training.recipes.card_identifier --dry-run

Lineage: trained from scratch (commit d6ca16b), then trained on six times, each from the one before: 30 more epochs
(fc4a7c3), crops cut by the photo's edge (0a3f5d3), crops averaged from the photo (bd863dd), slivers down to 20 % of
the card (built in build/, never committed), its augmentation averaged (0e10b5c), 30 % of its crops cut (2f0cc7a,
the committed weights). Needs the train photos (``../shared/realcards/ScottJJosh-PokerSensei-train/``).
"""

from __future__ import annotations

import sys

from training.recipes.common import Recipe, Stage, run

IDENTIFIER = "python -m training.train_detector identifier"
ON = f"{IDENTIFIER} --init {{parent}} --max-lr 1e-3 --minutes 25 --synth-per-class 40 --epochs 30"

RECIPE = Recipe(
    model="card_identifier.pt",
    stages=(
        Stage("scratch", "2026-11-29", "d6ca16b", "from scratch; 27 epochs in its 68-minute budget, best kept",
              (f"{IDENTIFIER} --epochs 60 --synth-per-class 40 --minutes 68 --edge-cut 0 --out {{out}}",),
              "no edge-cut crops then (--edge-cut 0); no foil faces then (no flag turns today's off)"),
        Stage("more-epochs", "2026-12-01", "fc4a7c3", "30 more epochs",
              (f"{IDENTIFIER} --init {{parent}} --max-lr 1.5e-3 --minutes 30 --synth-per-class 40 --edge-cut 0"
               " --out {out}",)),
        Stage("edge-cut", "2026-12-01", "0a3f5d3", "15 % of its crops cut as by the photo's edge",
              (f"{ON} --edge-cut 0.15 --out {{out}}",),
              "cut crops kept 35-75 % of the card then (20-75 % today)"),
        Stage("averaged-crops", "2026-12-01", "bd863dd", "its crops of the photos averaged, not sampled",
              (f"{ON} --edge-cut 0.15 --out {{out}}",)),
        Stage("slivers", "2026-12-01", None, "edge-cut crops down to 20 % of the card (never committed)",
              (f"{ON} --edge-cut 0.15 --out {{out}}",),
              "ran with the augmentation of commit 04842a2 (git show 04842a2:vision/identifier_train.py)"),
        Stage("averaged-augmentation", "2026-12-01", "0e10b5c",
              "its training crops shrunk by area averaging before they are turned",
              (f"{ON} --edge-cut 0.15 --out {{out}}",),
              "trained with the turn's pivot half a pixel off, mended afterwards"),
        Stage("cut-30", "2026-12-01", "2f0cc7a", "30 % of its crops cut by the edge; best of 30 epochs (27) kept",
              (f"{IDENTIFIER} --init {{parent}} --max-lr 1e-3 --minutes 20 --synth-per-class 40 --epochs 30"
               " --edge-cut 0.3 --out {out}",)),
    ),
    check=("python -m training.train_detector monitor-manifest --out build/vision/held_out_scenes.csv",
           "python -m training.photo.evaluate --manifest build/vision/held_out_scenes.csv --models DIR"
           "   # DIR: models/ with {out} in it"),
)

if __name__ == "__main__":
    sys.exit(run(RECIPE))
