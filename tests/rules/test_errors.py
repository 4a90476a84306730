"""Every error the project defines (controller, vision, training) derives from one root, ``StudTableError``
(controller/errors.py). The shoe's firmware runs MicroPython and keeps its own."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from collections.abc import Iterable, Iterator

import controller
import training
import vision
from controller.errors import StudTableError
from controller.rules.errors import RulesError

#: raised to unwind, never reported as errors: they derive from BaseException, as KeyboardInterrupt does
CONTROL_FLOW = {"controller.sim.devices.Stopped"}


def _modules() -> tuple[list[types.ModuleType], list[str]]:
    """Every module of the project's packages, and those that cannot be imported (named with why)."""
    modules, failures = [], []
    for package in (controller, vision, training):
        modules.append(package)
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            try:
                modules.append(importlib.import_module(info.name))
            except Exception as error:
                failures.append(f"{info.name}: {type(error).__name__}: {error}")
    return modules, failures


def _classes(namespace: object, module: str) -> Iterator[type]:
    for value in vars(namespace).values():
        if inspect.isclass(value) and value.__module__ == module:
            yield value
            yield from _classes(value, module)


def _exceptions(modules: Iterable[types.ModuleType]) -> Iterator[tuple[str, type[BaseException]]]:
    """The exception classes each module defines (nested ones too), by their full name."""
    for module in modules:
        for cls in dict.fromkeys(_classes(module, module.__name__)):
            if issubclass(cls, BaseException):
                yield f"{module.__name__}.{cls.__qualname__}", cls


def _strays(modules: Iterable[types.ModuleType], control_flow: set[str] = CONTROL_FLOW) -> list[str]:
    """Exception classes outside the root, and control-flow ones that an ``except Exception`` would catch."""
    strays = []
    for name, cls in _exceptions(modules):
        if name in control_flow:
            if issubclass(cls, Exception):
                strays.append(f"{name} is control flow but derives from Exception")
        elif not issubclass(cls, StudTableError):
            strays.append(f"{name} does not derive from StudTableError")
    return strays


def test_every_module_of_the_project_imports():
    modules, failures = _modules()
    assert failures == []
    assert len(modules) > 40


def test_every_error_of_the_project_derives_from_the_root():
    modules, _failures = _modules()
    assert _strays(modules) == []


def test_the_walk_finds_the_errors_it_must():
    found = dict(_exceptions(_modules()[0]))
    assert found["controller.rules.errors.CardError"].__mro__[1:3] == (RulesError, StudTableError)
    assert {"controller.bus.BindError", "controller.sensors.shoe.ShoeNotConnected", "vision.capture.SourceError",
            "training.photo.evaluate.ErrataError", *CONTROL_FLOW} <= set(found)


def test_the_check_catches_an_error_outside_the_root():
    module = types.ModuleType("controller.fake")
    exec("class Loose(ValueError): pass\n"
         "class Rooted(StudTableError):\n    class Nested(Exception): pass\n"
         "class Stopped(Exception): pass\n", {"__name__": "controller.fake", "StudTableError": StudTableError},
         vars(module))
    assert _strays([module], {"controller.fake.Stopped"}) == [
        "controller.fake.Loose does not derive from StudTableError",
        "controller.fake.Rooted.Nested does not derive from StudTableError",
        "controller.fake.Stopped is control flow but derives from Exception"]
