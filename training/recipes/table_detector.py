"""The table's detector (``models/table_detector.pt``, exported to ``models/table_detector.onnx``): what the vision
process runs on the overhead camera's seat crops.

    python -m training.recipes.table_detector --dry-run

One stage (commit 5235ac9). Its recorded command said ``--resume-from models/card_detector.pt --lr0 0.004``, but
ultralytics 8.4.190 then trained from fresh weights with its own optimizer (AdamW at 0.001429, one warm-up epoch:
the checkpoint's ``train_args`` say ``pretrained: False``); today's ``training.train_detector`` would really fine-tune
with that flag. This recipe trains as the weights were trained: from ``yolo11n.yaml``.
"""

from __future__ import annotations

import sys

from training.recipes.common import Recipe, Stage, run

RECIPE = Recipe(
    model="table_detector.pt",
    stages=(
        Stage("det3", "2026-11-29", "5235ac9",
              "YOLO11n from fresh weights, 5 epochs at 256 px on rendered seat crops, synthetic scenes and the train"
              " photos",
              ("python -m training.synth --out build/vision/synth --n 150 --seed 1",
               "python -m training.render_data --out build/vision/render --frames 400 --seed 11",
               "python -m training.train_detector prep-detector --synth build/vision/synth build/vision/render"
               " --monitor-trained-on",
               "python -m training.train_detector detector --epochs 5 --imgsz 256 --name det3 --out {out}"),
              "monitor: one train photo in thirteen, trained on too; the synthetic scenes of seed 1 are drawn"
              " differently by today's generator"),
    ),
    after=("python -m training.export_detector --weights {out}",),
    check=("python benchmarks/vision.py --json   # with {out} and its .onnx in models/",),
)

if __name__ == "__main__":
    sys.exit(run(RECIPE))
