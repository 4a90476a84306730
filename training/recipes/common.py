"""What the recipes share: a model's lineage as stages of commands, running them, and writing the lineage into the
checkpoint's metadata without touching its weights."""

from __future__ import annotations

import argparse
import datetime
import shlex
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path("build/recipes")


@dataclass(frozen=True)
class Stage:
    """One training of the model's lineage. ``commands`` are shell-like lines; ``{parent}`` is the weights the
    stage started from (the previous stage's), ``{out}`` what it writes, ``{part}`` an intermediate checkpoint."""

    name: str
    date: str
    commit: str | None  # the commit that committed its weights; None: it never was, it lived in build/
    what: str
    commands: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class Recipe:
    model: str  # file name under models/
    stages: tuple[Stage, ...]
    after: tuple[str, ...] = ()  # run once the lineage is written (the ONNX export), with {out}
    check: tuple[str, ...] = field(default=())  # printed at the end: how the card's figures are measured

    @property
    def stem(self) -> str:
        return Path(self.model).stem

    def stage_path(self, stage: Stage, suffix: str = "") -> Path:
        return BUILD / self.stem / f"{stage.name}{suffix}.pt"

    def lineage(self) -> list[dict[str, Any]]:
        """The recorded stages, each command written with the paths the recipe gives them."""
        records = []
        for i, stage in enumerate(self.stages):
            parent = self.stages[i - 1] if i else None
            out = f"models/{self.model}" if stage.commit else str(self.stage_path(stage))
            paths = {"parent": str(self.stage_path(parent)) if parent else "", "out": out,
                     "part": str(self.stage_path(stage, "-part"))}
            records.append({
                "stage": stage.name, "date": stage.date, "commit": stage.commit, "what": stage.what,
                "parent": {"stage": parent.name, "commit": parent.commit} if parent else None,
                "commands": [line.format(**paths) for line in stage.commands],
                **({"note": stage.note} if stage.note else {}),
            })
        return records


@dataclass(frozen=True)
class GitShow:
    """``git show COMMIT:models/FILE > DEST``: an earlier checkpoint of the lineage, out of git."""

    commit: str
    file: str
    dest: Path

    def __str__(self) -> str:
        return f"git show {self.commit}:models/{self.file} > {self.dest}"


@dataclass(frozen=True)
class WriteLineage:
    out: Path

    def __str__(self) -> str:
        return f"# write the lineage into {self.out}"


Step = str | GitShow | WriteLineage


def plan(recipe: Recipe, out: Path, from_scratch: bool) -> Iterator[Step]:
    """The steps to run, in order."""
    stages = list(recipe.stages)
    made: set[Path] = set()
    first = 0 if from_scratch else len(stages) - 1
    for i in range(first, len(stages)):
        stage, parent = stages[i], (stages[i - 1] if i else None)
        parent_path = recipe.stage_path(parent) if parent else Path()
        if parent is not None and i == first:
            if parent.commit is None:
                raise ValueError(f"{parent.name} was never committed: run with --from-scratch")
            made.add(parent_path.parent)
            yield f"mkdir -p {parent_path.parent}"
            yield GitShow(parent.commit, recipe.model, parent_path)
        target = out if i == len(stages) - 1 else recipe.stage_path(stage)
        if target.parent not in made:
            made.add(target.parent)
            yield f"mkdir -p {target.parent}"
        paths = {"parent": str(parent_path), "out": str(target), "part": str(recipe.stage_path(stage, "-part"))}
        yield from (line.format(**paths) for line in stage.commands)
    yield WriteLineage(out)
    yield from (line.format(out=str(out), onnx=str(out.with_suffix(".onnx"))) for line in recipe.after)


def _argv(line: str) -> list[str]:
    argv = shlex.split(line)
    return [sys.executable, *argv[1:]] if argv[0] == "python" else argv


def run(recipe: Recipe, argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m training.recipes.{recipe.stem}",
                                     description=f"Rebuild models/{recipe.model} from committed data and code.")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--from-scratch", action="store_true",
                        help="run every stage of the lineage, not only the last one from its parent's weights")
    parser.add_argument("--out", type=Path, default=BUILD / recipe.stem / recipe.model,
                        help="where the rebuilt checkpoint goes (not models/ unless you say so)")
    parser.add_argument("--stamp", type=Path, metavar="FILE",
                        help="write the recorded lineage into FILE's metadata (weights unchanged) and stop")
    parser.add_argument("--lineage", action="store_true", help="print the recorded lineage as JSON and stop")
    args = parser.parse_args(argv)
    if args.lineage:
        import json

        print(json.dumps(recipe.lineage(), indent=2))
        return 0
    if args.stamp:
        compared = write_lineage(args.stamp, recipe.lineage())
        print(f"lineage ({len(recipe.stages)} stages) written into {args.stamp}; {compared} tensors unchanged")
        return 0
    steps = list(plan(recipe, args.out, args.from_scratch))
    ran: list[str] = []
    for step in steps:
        print(step, flush=True)
        if args.dry_run:
            continue
        if isinstance(step, GitShow):
            (ROOT / step.dest).parent.mkdir(parents=True, exist_ok=True)
            with open(ROOT / step.dest, "wb") as sink:
                subprocess.run(["git", "show", f"{step.commit}:models/{step.file}"], cwd=ROOT, stdout=sink,
                               check=True)
        elif isinstance(step, WriteLineage):
            head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                  text=True).stdout.strip()
            rebuilt = {"stage": "rebuild", "date": datetime.date.today().isoformat(), "commit": head or None,
                       "what": f"rebuilt by python -m training.recipes.{recipe.stem}"
                               + (" --from-scratch" if args.from_scratch else ""),
                       "commands": ran}
            write_lineage(ROOT / step.out, [*recipe.lineage(), rebuilt])
        else:
            subprocess.run(_argv(step), cwd=ROOT, check=True)
        ran.append(str(step))
    for line in recipe.check:
        print(f"# then: {line.format(out=args.out)}")
    return 0


def _tensors(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every tensor in a checkpoint: plain ones, those of dicts and lists, and those of pickled modules."""
    import torch

    if isinstance(value, torch.Tensor):
        yield prefix, value
    elif isinstance(value, torch.nn.Module):
        for key, tensor in value.state_dict().items():
            yield f"{prefix}.{key}", tensor
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _tensors(item, f"{prefix}/{key}")
    elif isinstance(value, list | tuple):
        for k, item in enumerate(value):
            yield from _tensors(item, f"{prefix}[{k}]")


def write_lineage(path: Path, lineage: list[dict[str, Any]]) -> int:
    """Write ``lineage`` into the checkpoint at ``path``: ``meta["lineage"]`` of a torch dict with a ``state_dict``
    (the index reader, the identifier), ``["lineage"]`` of an ultralytics checkpoint. Every tensor is compared
    before and after (names, dtypes, shapes, values); the file is replaced only if all are equal. Returns how many
    were compared."""
    import torch

    path = Path(path)
    checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    before = dict(_tensors(checkpoint))
    if "state_dict" in checkpoint:
        checkpoint.setdefault("meta", {})["lineage"] = lineage
    elif "model" in checkpoint:
        checkpoint["lineage"] = lineage
    else:
        raise ValueError(f"{path}: neither a state_dict checkpoint nor an ultralytics one")
    temporary = path.with_name(path.name + ".lineage-tmp")
    torch.save(checkpoint, temporary)
    after = dict(_tensors(torch.load(temporary, map_location="cpu", weights_only=False)))
    changed = [name for name in before if name not in after or before[name].dtype != after[name].dtype
               or before[name].shape != after[name].shape or not torch.equal(before[name], after[name])]
    if changed or set(after) != set(before):
        temporary.unlink()
        raise RuntimeError(f"{path}: tensors would change ({changed[:3]}...): lineage not written")
    temporary.replace(path)
    return len(before)
