"""An install as the Pi gets it: the wheel, not the checkout. It carries the ONNX models (``vision/models``), the seed
texts and the rule profiles (``controller/seeds``), which the checkout keeps in ``models/`` and ``seeds/`` (the two
links point there), and leaves the training's ``.pt`` weights out; installed apart from the checkout and run from
another folder, ``stud-table demo`` plays a coup with it alone."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: what a build never reads: the checkout's ignored outputs (.gitignore), its history, the tests
NOT_BUILT = {".git", ".venv", "build", "dist", "shared", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis",
             "tests", "test-artifacts"}
PACKAGES = ("controller", "vision", "training", "firmware")


def _source_copy(dest: Path) -> Path:
    """The working tree as ``pip install .`` builds it, links kept. A copy: a build in the checkout would write its
    build/ there, and setuptools' build/lib keeps the files of modules deleted since, which the wheel would carry."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        top = Path(folder) == ROOT
        return {name for name in names if name == "__pycache__" or name.endswith(".egg-info")
                or (top and name in NOT_BUILT)}

    shutil.copytree(ROOT, dest, symlinks=True, ignore=ignore)
    return dest


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return _source_copy(tmp_path_factory.mktemp("source") / "stud-table")


@pytest.fixture(scope="module")
def wheel(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "--disable-pip-version-check", "-q", "-w", str(out), "."], cwd=source,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    [built] = out.glob("stud_table-*.whl")
    return built


@pytest.fixture(scope="module")
def site(wheel, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("install") / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "-q",
                           "--target", str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def _installed(site: Path, cwd: Path, *args: str, timeout: float) -> subprocess.CompletedProcess:
    """This interpreter, with the install first on its path: its finder of the editable install comes after
    ``PYTHONPATH``, so the checkout is never read (``test_the_installed_package_reads_nothing_of_the_checkout``)."""
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(cwd / "cache")}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_wheel_carries_the_models_the_seeds_and_the_profiles_but_no_training_weights(source, wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {n for n in names if n.startswith("vision/models/")} == {
        f"vision/models/{p.name}" for p in (ROOT / "models").glob("*.onnx")} and len(names) > 5
    assert {n for n in names if n.startswith("controller/seeds/")} == {
        f"controller/seeds/{p.relative_to(ROOT / 'seeds').as_posix()}"
        for p in [*(ROOT / "seeds").glob("*.txt"), *(ROOT / "seeds" / "profiles").glob("*.toml")]}
    assert len([n for n in names if n.startswith("controller/seeds/profiles/")]) == 5
    assert not [n for n in names if n.endswith(".pt")]
    assert {"controller/felt/layouts/stud-7.toml", "controller/web/templates/display.html",
            "controller/web/static/display.js"} <= names
    modules = {p.relative_to(source).as_posix() for package in PACKAGES for p in (source / package).rglob("*.py")}
    assert modules <= names, sorted(modules - names)


def test_the_installed_package_reads_nothing_of_the_checkout(site, tmp_path):
    """Its modules, its models (each opened in ONNX Runtime), its profiles all from the install."""
    probe = (
        "import sys\n"
        "import controller, vision\n"
        "from controller.profiles import PROFILES_DIR, SEEDS_DIR, profile_names, load_profile\n"
        "from controller.sim.render import ART_CACHE\n"
        "from vision.common import MODELS\n"
        "from vision.chip_counter import ChipCounter\n"
        "from vision.index_reader import IndexReader\n"
        "from vision.onnx_detector import OnnxDetector\n"
        "from vision.stack_reader import READERS, StackReader\n"
        "OnnxDetector(), IndexReader(), ChipCounter(), [StackReader(reader.path) for reader in READERS]\n"
        "load_profile('fr-2007')\n"
        "print('controller', controller.__file__)\n"
        "print('vision', vision.__file__)\n"
        "print('models', MODELS)\n"
        "print('seeds', SEEDS_DIR)\n"
        "print('profiles', ' '.join(profile_names()))\n"
        "print('art', ART_CACHE)\n"
        "for name, module in sorted(sys.modules.items()):\n"
        "    if name.split('.')[0] in ('controller', 'vision') and getattr(module, '__file__', None):\n"
        "        print('module', module.__file__)\n"
    )
    done = _installed(site, tmp_path, "-c", probe, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split(" ", 1) for line in done.stdout.splitlines()]
    seen = {key: value for key, value in lines if key != "module"}
    assert seen["controller"] == str(site / "controller" / "__init__.py")
    assert seen["vision"] == str(site / "vision" / "__init__.py")
    assert seen["models"] == str(site / "vision" / "models")
    assert seen["seeds"] == str(site / "controller" / "seeds")
    assert seen["profiles"].split() == ["caribbean", "caribbean-us", "fr-1959", "fr-2007", "it"]
    assert seen["art"] == str(tmp_path / "cache" / "stud-table" / "card-art")  # not in site-packages
    modules = [value for key, value in lines if key == "module"]
    assert len(modules) > 10 and all(Path(m).is_relative_to(site) for m in modules), modules


def _played_one_coup(done: subprocess.CompletedProcess, folder: Path) -> None:
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines() if line.startswith("coup ")] == ["coup 1"]
    assert "1 coup played" in done.stdout
    db = sqlite3.connect(folder / "var" / "events.sqlite")
    settled = db.execute("SELECT COUNT(*) FROM coups WHERE settlement IS NOT NULL").fetchone()[0]
    db.close()
    assert settled == 1


def test_the_installed_demo_plays_a_coup_from_another_folder(site, tmp_path):
    folder = tmp_path / "demo"
    done = _installed(site, tmp_path, "-m", "controller.cli", "demo", "--headless", "--coups", "1", "--camera",
                      "direct", "--folder", str(folder), timeout=240)
    _played_one_coup(done, folder)


def test_the_table_processes_import_the_install_even_from_a_checkout_as_their_working_folder(site, tmp_path):
    """The Pi's service runs in its checkout, /opt/stud-table: the processes the table starts import the installed
    package, never the checkout's copy beside them (a ``git pull`` not installed yet)."""
    checkout = tmp_path / "checkout"
    for package in ("controller", "vision"):
        (checkout / package).mkdir(parents=True)
        (checkout / package / "__init__.py").write_text("raise ImportError('the checkout was imported')\n")
    folder = tmp_path / "demo"
    # -P: as the installed console script, the parent itself does not look in its working folder
    done = _installed(site, checkout, "-P", "-m", "controller.cli", "demo", "--headless", "--coups", "1",
                      "--camera", "direct", "--folder", str(folder), timeout=240)
    _played_one_coup(done, folder)
    assert "the checkout was imported" not in (folder / "table.log").read_text(encoding="utf-8", errors="replace")


@pytest.mark.slow
def test_the_installed_demo_reads_its_rendered_camera_with_the_installed_models(site, tmp_path):
    """The vision process runs the wheel's ONNX models on the virtual camera's frames (about 40 s)."""
    folder = tmp_path / "demo"
    done = _installed(site, tmp_path, "-m", "controller.cli", "demo", "--headless", "--coups", "1", "--camera",
                      "rendered", "--folder", str(folder), timeout=300)
    _played_one_coup(done, folder)
    published = re.search(r"which published (\d+) of the (\d+) observations", done.stdout)
    assert published and int(published[1]) > 0, done.stdout
    log = (folder / "table.log").read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log, log
    assert list((tmp_path / "cache" / "stud-table" / "card-art").glob("*/*.png"))  # the deck's art, not plain cards
