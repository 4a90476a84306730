"""The index reader (``models/card_index.pt``, exported to ``models/card_index.onnx``): the table reader's corner
reader, also read by the photo reader.

    python -m training.recipes.card_index --dry-run

Lineage: a first reader on rendered corners (commit 5235ac9), trained on with the decks whose corner shows an index
(commit b691780), then trained again from that reader with the train photos' corners, a quarter of the corners cut
as by the photo's edge (commit 764e39a, the committed weights). Needs the train photos
(``../shared/realcards/ScottJJosh-PokerSensei-train/``) and Debian ``gnome-cards-data``.
"""

from __future__ import annotations

import sys

from training.recipes.common import Recipe, Stage, run

TRAIN = "python -m training.train_index train"

RECIPE = Recipe(
    model="card_index.pt",
    stages=(
        Stage("render", "2026-11-29", "5235ac9",
              "first index reader: corners of 660 frames rendered with nine KDE decks and drawn cards",
              ("python -m training.render_data --out build/vision/render --frames 400 --seed 11",
               "python -m training.render_data --out build/vision/render2 --frames 260 --seed 12"
               " --sizes 1920x1080,2560x1440,2560x1440,3840x2160",
               f"{TRAIN} --data build/vision/render/index_crops.npz --minutes 30 --cut-share 0 --out {{part}}",
               f"{TRAIN} --data build/vision/render/index_crops.npz build/vision/render2/index_crops.npz"
               " --init {part} --max-lr 1e-3 --minutes 22 --cut-share 0 --out {out}"),
              "built by the code of 2026-11-29 (no corner cuts, no foil: --cut-share 0 stands for the first)"),
        Stage("index-decks", "2026-11-29", "b691780",
              "trained on 1,000 frames drawn only with the decks whose corner shows a readable index",
              ("python -m training.render_data --out build/vision/render4-1000 --frames 1000 --seed 14"
               " --decks index",
               f"{TRAIN} --data build/vision/render4-1000/index_crops.npz --init {{parent}} --max-lr 1.5e-3"
               " --minutes 35 --cut-share 0 --out {out}"),
              "the same weights as commit 7ce95c1's"),
        Stage("photo-cut", "2026-12-02", "764e39a",
              "trained again from the index-decks reader on rendered and photographed corners, a quarter cut as by"
              " the photo's edge; epoch 9 of 12 kept by its monitors",
              ("python -m training.render_data --out build/vision/render4 --frames 500 --seed 14 --decks index",
               "python -m training.photo_corners --out build/vision/photo_corners.npz --jitters 1 --reader {parent}",
               f"{TRAIN} --data build/vision/render4/index_crops.npz build/vision/photo_corners.npz"
               " --init {parent} --max-lr 1.5e-3 --minutes 32 --cut-share 0.25 --out {out}"),
              "the photographed corners it trained on were cut by the code of 2026-12-02; minutes-bounded training"
              " on a shared 2-core CPU: another machine runs another number of epochs"),
    ),
    after=("python -m training.train_index export --weights {out} --out {onnx}",),
    check=("python -m training.train_detector monitor-manifest --out build/vision/held_out_scenes.csv",
           "python -m training.photo.evaluate --manifest build/vision/held_out_scenes.csv --models DIR"
           "   # DIR: models/ with {out} in it"),
)

if __name__ == "__main__":
    sys.exit(run(RECIPE))
