"""Trains the stack reader (``vision.stack_reader``) in torch on bet zones drawn by the virtual table's renderer, and
exports it to ONNX for the table.

    python -m training.train_stacks data --out build/stacks/train.npz --seeds 1 2 3 4 5 --scenes 100
    python -m training.train_stacks data --out build/stacks/held_out.npz --seeds 6 --scenes 40
    python -m training.train_stacks train --data build/stacks/train.npz --held-out build/stacks/held_out.npz
    python -m training.train_stacks report --weights models/stack_reader.pt --held-out build/stacks/held_out.npz
    python -m training.train_stacks export      # models/stack_reader.pt -> models/stack_reader.onnx

The scenes are the chip counter's (``training.train_chips.render_zones``): spread piles of 1 to 10 chips, and by
default half of the zones a casino stack of 1 to 12 chips of one denomination or two, the largest at the bottom.
Each zone gives both crops, the stack reader's and the chip counter's, so that ``report`` can judge the two models
merged as the table merges them (``vision.stack_reader.merge_readings``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from controller.shutdown import exit_cleanly_when_interrupted
from controller.sim.conditions import DEFAULT_FRAME_SIZE
from training.nets import DENSE, standardize, trunk
from training.train_chips import (
    add_data_command,
    add_model_commands,
    augment,
    load_checkpoint,
    render_zones,
    run_model_command,
    to_tensor,
    write_onnx,
)
from vision.chip_counter import DENOMINATIONS, ChipCounter, readings
from vision.common import MODELS
from vision.stack_reader import ONNX_PATH, STACK_CROP_PX, STACK_MAX_COUNT, merge_readings

MODEL_PATH = MODELS / "stack_reader.pt"


# --- data ---------------------------------------------------------------------------------------------------------


def make_data(out: Path, seeds: list[int], scenes: int, stacked_share: float = 0.5, max_stack: int = 12,
              size: tuple[int, int] = DEFAULT_FRAME_SIZE) -> Path:
    parts = [render_zones(seed, scenes, max_height=10, stacked_share=stacked_share, max_stack=max_stack,
                          stack_crops=True, size=size) for seed in seeds]
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, counter_crops=np.concatenate([p[0] for p in parts]),
                        counts=np.concatenate([p[1] for p in parts]), stacked=np.concatenate([p[2] for p in parts]),
                        crops=np.concatenate([p[3] for p in parts]), seeds=np.array(seeds))
    return out


def load_data(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stack crops, whether each is a stack of two chips or more, and its counts (capped at the top class)."""
    data = np.load(path)
    is_stack = data["stacked"] & (data["counts"].sum(1) >= 2)
    return data["crops"], is_stack, np.minimum(data["counts"], STACK_MAX_COUNT - 1)


# --- the network ----------------------------------------------------------------------------------------------------


def build_net():
    import torch.nn as nn

    class StackNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features, self.trunk = trunk((16, 32, 64, 96), (STACK_CROP_PX, STACK_CROP_PX), 0.2)  # 7 x 7 left
            self.stacked = nn.Linear(DENSE, 1)
            self.counts = nn.Linear(DENSE, len(DENOMINATIONS) * STACK_MAX_COUNT)

        def forward(self, x):
            shared = self.trunk(self.features(standardize(x)))
            return self.stacked(shared)[:, 0], self.counts(shared).view(-1, len(DENOMINATIONS), STACK_MAX_COUNT)

    return StackNet()


def load_net(weights: Path):
    """(net, checkpoint), in eval mode."""
    return load_checkpoint(weights, build_net, "stack reader", "training.train_stacks")


def predict(net, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The probabilities the table's ONNX export gives: (N,) a stack, (N, denominations, STACK_MAX_COUNT) counts."""
    import torch

    net.eval()
    stacked, counts = [], []
    with torch.no_grad():
        for k in range(0, len(crops), 256):
            logit, count_logits = net(to_tensor(crops[k:k + 256]))
            stacked.append(torch.sigmoid(logit).numpy())
            counts.append(torch.softmax(count_logits, 2).numpy())
    if not stacked:
        return np.zeros(0, np.float32), np.zeros((0, len(DENOMINATIONS), STACK_MAX_COUNT), np.float32)
    return np.concatenate(stacked), np.concatenate(counts)


def train(data: Path, held_out: Path, epochs: int, seed: int, out: Path, threads: int = 2, init: Path | None = None,
          peak_lr: float = 3e-3, more_data: tuple[Path, ...] = ()) -> dict[str, float]:
    """A fixed number of epochs (a one-cycle learning rate peaking at ``peak_lr``); the last one is kept. The count
    heads learn from stacks only; whether a stack is there, from every zone. ``init``: a checkpoint to start from (a
    fine-tune), whose lineage the new one carries on; ``more_data``: further zones trained on with ``data``'s."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    x, is_stack, y = (np.concatenate(parts) for parts in zip(*map(load_data, (data, *more_data)), strict=True))
    xh, stack_h, yh = load_data(held_out)
    print(f"zones: {len(x)} to train on ({int(is_stack.sum())} stacks), {len(xh)} held out", flush=True)
    net, parent = load_net(init) if init is not None else (build_net(), {})
    batches = (len(x) + 63) // 64
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, peak_lr, total_steps=epochs * batches)
    started = time.time()
    figures: dict[str, float] = {}
    for epoch in range(1, epochs + 1):
        net.train()
        order = rng.permutation(len(x))
        total = 0.0
        for k in range(0, len(x), 64):
            batch = order[k:k + 64]
            logit, count_logits = net(to_tensor(augment(rng, x[batch])))
            target = torch.from_numpy(is_stack[batch].astype(np.float32))
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, target)
            stacks = torch.from_numpy(is_stack[batch])
            if stacks.any():
                loss = loss + torch.nn.functional.cross_entropy(
                    count_logits[stacks].reshape(-1, STACK_MAX_COUNT), torch.from_numpy(y[batch][is_stack[batch]])
                    .reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
            total += loss.item() * len(batch)
        stacked, counts = predict(net, xh)
        figures = {"stack_seen_right": float(((stacked >= 0.5) == stack_h).mean()),
                   "stacks_counted_right": float((counts[stack_h].argmax(2) == yh[stack_h]).all(1).mean())}
        print(f"epoch {epoch}: loss {total / len(x):.4f}, held-out {figures} ({time.time() - started:.0f} s)",
              flush=True)
    state = {k: v.half() if v.is_floating_point() else v for k, v in net.state_dict().items()}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": state, "denominations": DENOMINATIONS, "max_count": STACK_MAX_COUNT,
                "meta": {"epochs": epochs, "seed": seed, "data": str(data), "held_out": str(held_out), **figures,
                         "init": str(init) if init else None,
                         "lineage": parent.get("meta", {}).get("lineage", [])}},
               out)
    return figures


# --- judging it with the chip counter, as the table merges them -----------------------------------------------------


def held_out_report(weights: Path, held_out: Path, sure_certainty: float, counter: Path | None = None
                    ) -> dict[str, object]:
    """The stack reader merged with the committed chip counter (``merge_readings``), as the table reads a zone, and
    the counter alone, on the held-out split: zones right and sure, wrong and sure (silent errors), unsure; spread
    zones and stacks of two chips or more apart, stacks also by height. A zone is right when its value in cents is
    and, for a count at the top class (too many to count), when the true count reaches it."""
    net, _checkpoint = load_net(weights)
    data = np.load(held_out)
    counts, stacked_truth = data["counts"], data["stacked"] & (data["counts"].sum(1) >= 2)
    value = counts @ np.array(DENOMINATIONS)
    chip_counter = ChipCounter(counter) if counter else ChipCounter()
    counter_p = chip_counter.probabilities(data["counter_crops"])
    stack_p, stack_counts = predict(net, data["crops"])
    alone = readings(counter_p)
    merged = merge_readings(counter_p, stack_p, stack_counts)
    report: dict[str, object] = {"sure_certainty": sure_certainty}
    for name, zones in (("merged", merged), ("counter_alone", alone)):
        right = np.array([sum(cents * n for cents, n in reading.items()) == v
                          for (reading, _c), v in zip(zones, value, strict=True)])
        sure = np.array([c >= sure_certainty for _reading, c in zones])
        part: dict[str, object] = {}
        for kind, rows in (("spread", ~stacked_truth), ("stacked", stacked_truth)):
            part[kind] = _outcomes(right[rows], sure[rows])
        heights = counts.sum(1)
        part["stacked_by_height"] = {str(h): _outcomes(right[stacked_truth & (heights == h)],
                                                       sure[stacked_truth & (heights == h)])
                                     for h in range(2, int(heights[stacked_truth].max(initial=1)) + 1)
                                     if (stacked_truth & (heights == h)).any()}
        report[name] = part
    report["stack_seen"] = {"stacks_taken_for_spread": int((stacked_truth & (stack_p < 0.5)).sum()),
                            "spread_taken_for_stacks": int((~stacked_truth & (stack_p >= 0.5)).sum()),
                            "stacks": int(stacked_truth.sum()), "spread": int((~stacked_truth).sum())}
    return report


def _outcomes(right: np.ndarray, sure: np.ndarray) -> dict[str, int]:
    return {"zones": int(len(right)), "right_and_sure": int((right & sure).sum()),
            "wrong_and_sure": int((~right & sure).sum()), "unsure": int((~sure).sum())}


# --- export ---------------------------------------------------------------------------------------------------------


def export(weights: Path = MODEL_PATH, target: Path = ONNX_PATH) -> Path:
    """The checkpoint exported to ONNX (the stack's sigmoid and the counts' softmax included)."""
    import torch

    net, checkpoint = load_net(weights)

    class WithProbabilities(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x):
            logit, counts = self.net(x)
            return torch.sigmoid(logit), torch.softmax(counts, 2)

    return write_onnx(WithProbabilities(), STACK_CROP_PX, ["stacked", "counts"], target, checkpoint.get("meta", {}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train_stacks")
    sub = parser.add_subparsers(dest="command", required=True)
    data = add_data_command(sub, "render bet zones, both crops of each, with their chips")
    data.add_argument("--stacked-share", type=float, default=0.5)
    data.add_argument("--max-stack", type=int, default=12, choices=range(2, 21), metavar="2..20")
    add_model_commands(sub, "stack reader", "build/stacks", MODEL_PATH, ONNX_PATH)
    training = sub.choices["train"]
    training.add_argument("--init", type=Path, help="a checkpoint to fine-tune (default: fresh weights)")
    training.add_argument("--peak-lr", type=float, default=3e-3, help="the one-cycle schedule's peak learning rate")
    training.add_argument("--more-data", type=Path, nargs="+", default=[], metavar="NPZ",
                          help="further zones (made by data) trained on with --data's")
    args = parser.parse_args(argv)
    if args.command == "data":
        return exit_cleanly_when_interrupted(parser.prog, lambda: print(
            f"{make_data(args.out, args.seeds, args.scenes, args.stacked_share, args.max_stack, args.camera_size)}: "
            f"{len(args.seeds) * args.scenes * 28} zones"))

    def train_to(args: argparse.Namespace) -> str:
        figures = train(args.data, args.held_out, args.epochs, args.seed, args.out, args.threads, args.init,
                        args.peak_lr, tuple(args.more_data))
        return f"held-out {figures} -> {args.out}"

    return run_model_command(parser, args, export, held_out_report, train_to)

if __name__ == "__main__":
    sys.exit(main())
