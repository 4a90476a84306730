"""Which part of the project may import which, and no import cycles: the contracts in pyproject.toml
(``[tool.importlinter]``), checked by import-linter as ``.venv/bin/lint-imports`` checks them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the command itself, in a process of its own (it configures logging as a command line does)
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint(config: Path, python_path: Path) -> tuple[int, str]:
    done = subprocess.run([str(LINT_IMPORTS), "--config", str(config), "--no-cache"], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(python_path)})
    return done.returncode, done.stdout + done.stderr


def test_the_projects_import_contracts_hold() -> None:
    code, out = _lint(ROOT / "pyproject.toml", ROOT)
    assert code == 0, out
    assert "3 kept, 0 broken" in out


def test_a_cycle_and_a_forbidden_import_are_found(tmp_path) -> None:
    """The same kinds of contract on a small package that breaks both: the check can fail."""
    package = tmp_path / "felt"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from felt import b\n")
    (package / "b.py").write_text("def later():\n    from felt import a\n")  # a lazy import closes a cycle too
    (package / "sub" / "reader.py").write_text("import torch\n")
    config = tmp_path / "contracts.toml"
    config.write_text('[tool.importlinter]\nroot_packages = ["felt"]\ninclude_external_packages = true\n\n'
                      '[[tool.importlinter.contracts]]\nname = "no torch"\ntype = "forbidden"\n'
                      'source_modules = ["felt.sub"]\nforbidden_modules = ["torch"]\n\n'
                      '[[tool.importlinter.contracts]]\nname = "no cycle"\ntype = "acyclic_siblings"\n'
                      'ancestors = ["felt"]\n')
    code, out = _lint(config, tmp_path)
    assert code == 1
    assert "0 kept, 2 broken" in out
    assert "felt.sub.reader -> torch" in out


def test_the_tables_vision_process_loads_no_torch() -> None:
    """What the Pi runs: the vision pipeline and the table reader import, and torch, ultralytics and the training
    code stay unloaded (the Pi's install has none of them)."""
    probe = ("import sys, vision.pipeline, vision.table_reader, controller.cli\n"
             "unwanted = ('torch', 'torchvision', 'ultralytics', 'onnx', 'training', 'controller.sim', 'PIL')\n"
             "print(sorted(m for m in unwanted if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout
    assert out.strip() == "[]"
