"""What the table runs to see: the camera (capture), the felt's calibration, the table reader (detector and index
reader, both ONNX), the tracker that turns frames into bus events, and the saved evidence of a flag.

Nothing here imports training code, ultralytics, torch or the simulator (``lint-imports``, run by
``tests/project/test_imports.py``): the Pi's install has none of them.
"""
