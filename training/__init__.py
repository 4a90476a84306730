"""What builds and measures the table's models, never run at the table: synthetic and rendered training data,
the detector's, index reader's and identifier's training, their ONNX export, the replay of rendered video through
the table reader, and (``training.photo``) the photo reader that ``stud-table eval-vision`` measures on photographs.

Its dependencies come with the ``train`` extra (torch, ultralytics, onnx, pillow, cairosvg); the table's install
leaves them out.
"""

import os

# Keep ultralytics offline: never fetch weights, fonts or telemetry.
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_VERBOSE", "False")
