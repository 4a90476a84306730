"""Each model's recipe (``training/recipes/``) names the lineage its committed checkpoint records, and every
command it would run names a module that exists."""

from __future__ import annotations

import importlib
import importlib.util
import json
import shlex
from pathlib import Path

import pytest
import torch

from training.recipes.common import GitShow, WriteLineage, plan
from vision.common import MODELS

RECIPES = ["table_detector", "card_index", "card_detector", "card_identifier", "chip_counter", "stack_reader"]


def _recipe(name: str):
    return importlib.import_module(f"training.recipes.{name}").RECIPE


@pytest.mark.parametrize("name", RECIPES)
def test_the_committed_checkpoint_records_the_recipes_lineage(name: str) -> None:
    recipe = _recipe(name)
    checkpoint = torch.load(MODELS / recipe.model, map_location="cpu", weights_only=False)
    recorded = checkpoint["meta"]["lineage"] if "state_dict" in checkpoint else checkpoint["lineage"]
    assert recorded == recipe.lineage()
    assert [stage["commit"] for stage in recorded][-1] is not None  # the last stage is the committed weights


@pytest.mark.parametrize("name", ["card_index", "chip_counter", "stack_reader"])
def test_the_onnx_export_carries_the_same_lineage(name: str) -> None:
    import onnx

    metadata = {entry.key: entry.value for entry in onnx.load(str(MODELS / f"{name}.onnx")).metadata_props}
    assert json.loads(metadata["meta"])["lineage"] == _recipe(name).lineage()


@pytest.mark.parametrize("name", RECIPES)
@pytest.mark.parametrize("from_scratch", [False, True])
def test_every_step_of_a_rebuild_runs_a_module_that_exists(name: str, from_scratch: bool) -> None:
    recipe = _recipe(name)
    if from_scratch is False and recipe.stages[-2:-1] and recipe.stages[-2].commit is None:
        pytest.skip("its last stage's parent was never committed: only --from-scratch rebuilds it")
    steps = list(plan(recipe, Path("build/recipes/x") / recipe.model, from_scratch))
    assert isinstance(steps[-1 - len(recipe.after)], WriteLineage)
    if not from_scratch and len(recipe.stages) > 1:
        assert isinstance(steps[1], GitShow) and steps[1].commit == recipe.stages[-2].commit
    modules = [shlex.split(step)[2] for step in steps if isinstance(step, str) and step.startswith("python -m ")]
    assert modules
    assert [m for m in modules if importlib.util.find_spec(m) is None] == []
