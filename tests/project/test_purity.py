"""The rules core is pure: no I/O, no clock, no randomness inside (time and the deck come in as inputs)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "controller" / "rules"
FORBIDDEN_MODULES = {"time", "datetime", "random", "secrets", "os", "sys", "socket", "pathlib", "io", "subprocess",
                     "sqlite3", "zmq", "serial", "threading", "asyncio", "uuid"}
FORBIDDEN_CALLS = {"open", "print", "input"}


def _violations(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module.split(".")[0]]
        else:
            names = []
        found += [f"{path.name}:{node.lineno} imports {name}" for name in names if name in FORBIDDEN_MODULES]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
            found.append(f"{path.name}:{node.lineno} calls {node.func.id}()")
    return found


def test_the_rules_core_does_no_io_reads_no_clock_draws_no_random():
    modules = sorted(RULES.glob("*.py"))
    assert len(modules) >= 10
    assert [v for module in modules for v in _violations(module)] == []


def test_the_check_catches_what_it_looks_for(tmp_path):
    impure = tmp_path / "impure.py"
    impure.write_text("import time\nfrom random import shuffle\nprint(open('x').read())\n")
    assert _violations(impure) == ["impure.py:1 imports time", "impure.py:2 imports random",
                                   "impure.py:3 calls print()", "impure.py:3 calls open()"]


def _loaded(module: str, package: str) -> list[str]:
    """The modules of ``package`` that importing ``module`` loads, in a fresh interpreter."""
    code = (f"import sys, {module}; print(*sorted(name for name in sys.modules "
            f"if name == {package!r} or name.startswith({package!r} + '.')))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                            check=True)
    return result.stdout.split()


def test_the_referee_loads_no_zmq():
    # the store's readers (export, replay, review) play events through the referee without the bus's sockets
    assert _loaded("controller.referee", "zmq") == []


@pytest.mark.parametrize("module", ["controller.engine", "controller.bus.transport"])
def test_the_zmq_check_sees_a_module_that_loads_it(module):
    assert "zmq" in _loaded(module, "zmq")
