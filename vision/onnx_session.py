"""The ONNX Runtime session each of the table's four models runs in: the table detector (``vision.onnx_detector``),
the index reader, the chip counter and the stack reader (``vision.chip_counter.zone_model_session``)."""

from __future__ import annotations

from pathlib import Path


def onnx_session(path: Path, threads: int = 2):
    """A CPU session on ``threads`` threads whose workers sleep when idle. ONNX Runtime's workers spin by default
    after each run, waiting for the next one; with models run in turn on the Pi's few cores, one model's
    spinning workers take the cores the other needs (measured: ``models/EXPERIMENTS.md``)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
