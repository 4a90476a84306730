"""Trains the chip counter (``vision.chip_counter``) in torch on bet zones drawn by the virtual table's renderer,
and exports it to ONNX for the table.

    python -m training.train_chips data --out build/chips/train.npz --seeds 1 2 3 4 5 --scenes 100
    python -m training.train_chips data --out build/chips/held_out.npz --seeds 6 --scenes 40
    python -m training.train_chips train --data build/chips/train.npz --held-out build/chips/held_out.npz
    python -m training.train_chips export      # models/chip_counter.pt -> models/chip_counter.onnx

Each scene puts random bets in every bet zone of the seven seats (none in some, one to three denominations of one
to five chips each in the others, piled and spread as the renderer lays a bet; with ``--stacked-share``, that share
of the zones a casino stack of one or two denominations instead) and random cards in the card zones;
the frame is read as the table reads it (calibrated from its markers) and each bet zone's crop is kept with its
counts. A renderer seed draws its own felt noise and light and, for the cards, one of the training decks: the held-
out split is a seed of its own. The virtual table's deck (``svg-standard``) is never drawn here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from controller.felt.layout import BET_AREAS, DEFAULT_LAYOUT, load_layout
from controller.shutdown import exit_cleanly_when_interrupted, written_since
from controller.sim.conditions import DEFAULT_FRAME_SIZE, frame_size
from training.nets import DENSE, standardize, trunk
from vision.chip_counter import (
    CROP_PX,
    DENOMINATIONS,
    MAX_COUNT,
    ONNX_PATH,
    reading_certainty,
    zone_crop,
    zone_to_table,
)
from vision.common import MODELS
from vision.tracker import TrackerConfig

MODEL_PATH = MODELS / "chip_counter.pt"


# --- data ---------------------------------------------------------------------------------------------------------


#: the share of piles drawn taller than 5 when the data asks for them (``--max-height``)
TALL_SHARE = 0.25


def render_zones(seed: int, scenes: int, max_height: int = 5, stacked_share: float = 0.0,
                 max_stack: int | None = None, stack_crops: bool = False,
                 size: tuple[int, int] = DEFAULT_FRAME_SIZE
                 ) -> tuple[np.ndarray, ...]:
    """``scenes`` scenes drawn by a renderer of ``seed``: every bet zone's crop (N x CROP_PX x CROP_PX x 3 RGB), its
    chips counted per denomination (N x len(DENOMINATIONS)) and whether they are a casino stack (N). Piles are 1 to
    5 chips high, and with ``max_height`` above 5, ``TALL_SHARE`` of them 6 to ``max_height`` (the counter learns
    them as "too many to count"). ``stacked_share`` of the zones hold a casino stack instead: 1 to ``max_stack``
    (``max_height`` when not given) chips of one denomination or two, the largest at the bottom (as ``make_stack``
    builds it). With ``stack_crops``, each zone's stack reader crop (``vision.stack_reader``) comes fourth.
    ``size``: the camera's frame (width, height) in pixels."""
    from controller.rules.cards import full_deck
    from controller.sim.render import Renderer, TableCamera
    from controller.sim.scene import CardOnFelt, SceneState
    from training.synth import TRAIN_DECKS
    from vision.calibrate import calibrate
    from vision.stack_reader import stack_crop, stack_zone_to_table

    layout = load_layout(DEFAULT_LAYOUT)
    camera = TableCamera(width=size[0], height=size[1], felt_mm=(layout.width, layout.height))
    renderer = Renderer(layout, camera, deck=TRAIN_DECKS[seed % len(TRAIN_DECKS)], seed=seed)
    rng = np.random.default_rng(seed)
    cards = [str(card) for card in full_deck()]
    table_to_image = None
    stacking = np.random.default_rng([seed, 7])  # drawn apart: without stacks, the data is as it was
    crops, counts, stacked, stack_views = [], [], [], []
    for _ in range(scenes):
        scene, truth = SceneState(), {}
        for seat in layout.seats():
            for area in BET_AREAS:
                count = np.zeros(len(DENOMINATIONS), np.int64)
                if rng.random() > 0.15:
                    for kind in rng.choice(len(DENOMINATIONS), int(rng.choice([1, 1, 2, 2, 3])), replace=False):
                        tall = max_height > 5 and rng.random() < TALL_SHARE
                        count[kind] = rng.integers(6, max_height + 1) if tall else rng.integers(1, 6)
                stack = bool(stacking.random() < stacked_share)
                if stack:  # 1 to max_height chips in all, of one denomination or two
                    count[:] = 0
                    height = int(stacking.integers(1, (max_stack or max_height) + 1))
                    kinds = stacking.choice(len(DENOMINATIONS), 1 if height == 1 else int(stacking.choice([1, 2])),
                                            replace=False)
                    lower = int(stacking.integers(1, height)) if len(kinds) == 2 else height
                    count[kinds[0]] = lower
                    if len(kinds) == 2:
                        count[kinds[1]] = height - lower
                chips = tuple(cents for k in reversed(range(len(DENOMINATIONS))) for cents in
                              [DENOMINATIONS[k]] * int(count[k]))
                scene, truth[seat, area] = scene.with_chips(seat, area, chips, stack), (count, stack)
            for index in range(int(rng.integers(0, 6))):
                scene = scene.with_card(CardOnFelt(seat, index, cards[int(rng.integers(52))], rng.random() < 0.3))
        frame = renderer.render(scene, int(rng.integers(0, 10**6)))
        if table_to_image is None:  # one camera for all the scenes: calibrated once, from its markers
            table_to_image = calibrate(frame, layout).table_to_image
        for (seat, area), (count, stack) in truth.items():
            zone = layout.zone(seat, area)
            crops.append(zone_crop(frame, table_to_image @ zone_to_table(layout, zone)))
            counts.append(count)
            stacked.append(stack)
            if stack_crops:
                stack_views.append(stack_crop(frame, table_to_image @ stack_zone_to_table(zone)))
    zones = (np.array(crops, np.uint8), np.array(counts, np.int64), np.array(stacked, bool))
    return (*zones, np.array(stack_views, np.uint8)) if stack_crops else zones


def make_data(out: Path, seeds: list[int], scenes: int, max_height: int = 5, stacked_share: float = 0.0,
              size: tuple[int, int] = DEFAULT_FRAME_SIZE) -> Path:
    parts = [render_zones(seed, scenes, max_height, stacked_share, size=size) for seed in seeds]
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, crops=np.concatenate([p[0] for p in parts]), counts=np.concatenate([p[1] for p in parts]),
                        stacked=np.concatenate([p[2] for p in parts]), seeds=np.array(seeds))
    return out


# --- the network ----------------------------------------------------------------------------------------------------


def build_net():
    import torch.nn as nn

    class ChipNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features, self.head = trunk((16, 32, 64, 96), (CROP_PX, CROP_PX), 0.2,  # 6 x 6 left
                                             nn.Linear(DENSE, len(DENOMINATIONS) * MAX_COUNT))

        def forward(self, x):
            return self.head(self.features(standardize(x))).view(-1, len(DENOMINATIONS), MAX_COUNT)

    return ChipNet()


def to_tensor(crops: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float().div(255)


def augment(rng: np.random.Generator, crops: np.ndarray) -> np.ndarray:
    """Light and exposure, sensor noise, and the crop a few pixels off (a calibration a millimetre or two out)."""
    x = crops.astype(np.float32)
    n = len(x)
    x = x * rng.uniform(0.8, 1.2, (n, 1, 1, 1)) + rng.uniform(-20, 20, (n, 1, 1, 1)) + rng.normal(0, 4, x.shape)
    dy, dx = rng.integers(-3, 4, 2)
    return np.clip(np.roll(x, (int(dy), int(dx)), (1, 2)), 0, 255).astype(np.uint8)


def predicted_counts(net, crops: np.ndarray) -> np.ndarray:
    import torch

    net.eval()
    with torch.no_grad():
        out = [net(to_tensor(crops[k:k + 512])).argmax(2).numpy() for k in range(0, len(crops), 512)]
    return np.concatenate(out) if out else np.zeros((0, len(DENOMINATIONS)), np.int64)


def load_data(path: Path) -> tuple[np.ndarray, np.ndarray]:
    data = np.load(path)
    return data["crops"], np.minimum(data["counts"], MAX_COUNT - 1)


def train(data: Path, held_out: Path, epochs: int, seed: int, out: Path, threads: int = 2) -> float:
    """A fixed number of epochs (a one-cycle learning rate); the last one is kept. Returns the held-out split's
    share of zones read right (every denomination's count)."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    x, y = load_data(data)
    xh, yh = load_data(held_out)
    print(f"chip zones: {len(x)} to train on, {len(xh)} held out", flush=True)
    net = build_net()
    batches = (len(x) + 63) // 64
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=epochs * batches)
    started = time.time()
    right = 0.0
    for epoch in range(1, epochs + 1):
        net.train()
        order = rng.permutation(len(x))
        total = 0.0
        for k in range(0, len(x), 64):
            batch = order[k:k + 64]
            logits = net(to_tensor(augment(rng, x[batch])))
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, MAX_COUNT),
                                                     torch.from_numpy(y[batch]).reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
            total += loss.item() * len(batch)
        right = float((predicted_counts(net, xh) == yh).all(1).mean())
        print(f"epoch {epoch}: loss {total / len(x):.4f}, held-out zones right {right:.4f} "
              f"({time.time() - started:.0f} s)", flush=True)
    state = {k: v.half() if v.is_floating_point() else v for k, v in net.state_dict().items()}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": state, "denominations": DENOMINATIONS, "max_count": MAX_COUNT,
                "meta": {"epochs": epochs, "seed": seed, "data": str(data), "held_out": str(held_out),
                         "held_out_zones_right": right}}, out)
    return right


def held_out_report(weights: Path, held_out: Path, sure_certainty: float) -> dict[str, object]:
    """The checkpoint on the held-out split, spread piles and casino stacks apart: zones right, zones read wrong
    with a certainty the tracker would vouch for (``sure_certainty``: silent errors), and each denomination's piles
    right by their height (true heights, before the top class folds them)."""
    import torch

    net = build_net()
    net.load_state_dict({k: v.float() for k, v in torch.load(weights, weights_only=False)["state_dict"].items()})
    data = np.load(held_out)
    x, true = data["crops"], data["counts"]
    stacked = data["stacked"] if "stacked" in data else np.zeros(len(x), bool)
    y = np.minimum(true, MAX_COUNT - 1)
    net.eval()
    with torch.no_grad():
        probabilities = np.concatenate([torch.softmax(net(to_tensor(x[k:k + 512])), 2).numpy()
                                        for k in range(0, len(x), 512)])
    p = probabilities.argmax(2)
    certainty = reading_certainty(probabilities)  # as the table's counter vouches
    report: dict[str, object] = {}
    for name, rows in (("spread", ~stacked), ("stacked", stacked)):
        if not rows.any():
            continue
        right = (p[rows] == y[rows]).all(1)
        sure = certainty[rows] >= sure_certainty
        heights = {}
        for h in range(1, int(true.max()) + 1):
            piles = rows[:, None] & (true == h)
            if piles.any():
                target = min(h, MAX_COUNT - 1)
                heights[str(h)] = f"{int((p[piles] == target).sum())}/{int(piles.sum())}"
        report[name] = {"zones_right": f"{int(right.sum())}/{int(rows.sum())}",
                        "zones_wrong_and_sure": f"{int((~right & sure).sum())}/{int(rows.sum())}",
                        "zones_unsure": f"{int((~sure).sum())}/{int(rows.sum())}",
                        "piles_right_by_height": heights}
    return report


def load_checkpoint(weights: Path, build, what: str, module: str):
    """A bet-zone model's checkpoint, refused by name when missing or of other denominations; (net, checkpoint)."""
    import torch

    if not Path(weights).exists():
        raise FileNotFoundError(f"{weights}: no {what} (train it: python -m {module} train)")
    checkpoint = torch.load(weights, map_location="cpu", weights_only=False)
    if list(checkpoint["denominations"]) != DENOMINATIONS:
        raise ValueError(f"{weights}: its denominations are not the chip set's {DENOMINATIONS}")
    net = build()
    net.load_state_dict({k: v.float() for k, v in checkpoint["state_dict"].items()})
    return net.eval(), checkpoint


def write_onnx(model, crop_px: int, outputs: list[str], target: Path, meta: dict[str, object]) -> Path:
    """A bet-zone model (its probabilities computed inside) exported to ONNX: a dynamic batch of 3 x ``crop_px`` x
    ``crop_px`` crops in, ``outputs`` out, the chip set's denominations and ``meta`` in its metadata."""
    import onnx
    import torch

    target.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():  # the TorchScript exporter: these small CNNs have no control flow
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model.eval(), (torch.zeros(1, 3, crop_px, crop_px),), str(target), input_names=["crops"],
                          output_names=outputs, dynamic_axes={name: {0: "n"} for name in ["crops", *outputs]},
                          opset_version=17, dynamo=False)
    exported = onnx.load(str(target))
    for key, value in (("denominations", json.dumps(DENOMINATIONS)), ("meta", json.dumps(meta, default=str))):
        exported.metadata_props.add(key=key, value=value)
    onnx.save(exported, str(target))
    return target


def export(weights: Path = MODEL_PATH, target: Path = ONNX_PATH) -> Path:
    """The checkpoint exported to ONNX (softmax over the counts included)."""
    import torch

    net, checkpoint = load_checkpoint(weights, build_net, "chip counter", "training.train_chips")

    class WithSoftmax(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x):
            return torch.softmax(self.net(x), 2)

    return write_onnx(WithSoftmax(), CROP_PX, ["probabilities"], target, checkpoint.get("meta", {}))


def add_data_command(sub, help_text: str) -> argparse.ArgumentParser:
    """The ``data`` command both bet-zone models have, with its common options (each adds its own)."""
    data = sub.add_parser("data", help=help_text)
    data.add_argument("--out", type=Path, required=True)
    data.add_argument("--seeds", type=int, nargs="+", required=True, help="renderer seeds (one deck each)")
    data.add_argument("--scenes", type=int, default=100, help="scenes per seed (28 zones each)")
    data.add_argument("--camera-size", type=frame_size, default=DEFAULT_FRAME_SIZE, metavar="WIDTHxHEIGHT",
                      help="the overhead camera's frame in pixels (default 1920x1080)")
    return data


def add_model_commands(sub, what: str, build_dir: str, model_path: Path, onnx_path: Path) -> None:
    """The ``train``, ``report`` and ``export`` commands both bet-zone models have."""
    training = sub.add_parser("train", help=f"train the {what} in torch (then run: export)")
    training.add_argument("--data", type=Path, default=Path(f"{build_dir}/train.npz"))
    training.add_argument("--held-out", type=Path, default=Path(f"{build_dir}/held_out.npz"))
    training.add_argument("--epochs", type=int, default=12)
    training.add_argument("--seed", type=int, default=0)
    training.add_argument("--out", type=Path, default=model_path)
    training.add_argument("--threads", type=int, default=2)
    report = sub.add_parser("report", help="a checkpoint's figures on a held-out split, as JSON")
    report.add_argument("--weights", type=Path, default=model_path)
    report.add_argument("--held-out", type=Path, default=Path(f"{build_dir}/held_out.npz"))
    report.add_argument("--sure-certainty", type=float, default=None,
                        help="the certainty from which a reading is vouched for (default: the tracker's)")
    exporting = sub.add_parser("export", help="export a trained checkpoint to ONNX, as the table runs it")
    exporting.add_argument("--weights", type=Path, default=model_path)
    exporting.add_argument("--out", type=Path, default=onnx_path)


def run_model_command(parser: argparse.ArgumentParser, args: argparse.Namespace, export_to, report, train_to
                      ) -> int:
    """Run ``train`` (``train_to(args)`` returns the line to print), ``report`` or ``export``."""
    if args.command == "export":
        try:
            print(f"exported to {export_to(args.weights, args.out)}")
        except (FileNotFoundError, ValueError) as error:
            parser.error(str(error))
        return 0
    if args.command == "report":
        sure_certainty = TrackerConfig().sure_certainty if args.sure_certainty is None else args.sure_certainty
        print(json.dumps(report(args.weights, args.held_out, sure_certainty)))
        return 0
    kept = written_since(time.time(), args.out)
    return exit_cleanly_when_interrupted(parser.prog, lambda: print(train_to(args)), kept)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train_chips")
    sub = parser.add_subparsers(dest="command", required=True)
    data = add_data_command(sub, "render bet zones with their chip counts")
    data.add_argument("--max-height", type=int, default=5, choices=range(5, 16), metavar="5..15",
                      help="the tallest pile drawn (above 5: a quarter of the piles are taller than 5)")
    data.add_argument("--stacked-share", type=float, default=0.0,
                      help="the share of zones holding a casino stack instead of spread piles")
    add_model_commands(sub, "counter", "build/chips", MODEL_PATH, ONNX_PATH)
    args = parser.parse_args(argv)
    if args.command == "data":
        return exit_cleanly_when_interrupted(parser.prog, lambda: print(
            f"{make_data(args.out, args.seeds, args.scenes, args.max_height, args.stacked_share, args.camera_size)}: "
            f"{len(args.seeds) * args.scenes * 28} zones"))

    def train_to(args: argparse.Namespace) -> str:
        right = train(args.data, args.held_out, args.epochs, args.seed, args.out, args.threads)
        return f"held-out zones right {right:.4f} -> {args.out}"

    return run_model_command(parser, args, export, held_out_report, train_to)

if __name__ == "__main__":
    sys.exit(main())
