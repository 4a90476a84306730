"""The ``stud-table`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .profiles import load_profile, profile_names
from .rules.errors import RulesError
from .rules.history import parse_history
from .rules.summary import table_summary
from .rules.table import Table
from .rules.tomlread import TomlError


def _print_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def cmd_profiles(args: argparse.Namespace) -> int:
    for name in profile_names():
        profile = load_profile(name)
        print(f"{name:14} {profile.title}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    history = parse_history(Path(args.file).read_text(encoding="utf-8"))
    profile = load_profile(history.profile_name)
    table = Table(history.rules(profile))
    for index, op in enumerate(history.operations):
        try:
            table.apply(op)
        except RulesError as error:
            print(f"{args.file}: operation {index + 1} ({op.kind}): {error}", file=sys.stderr)
            return 1
    summary = table_summary(table, history=True)
    if args.json:
        _print_json(summary)
    else:
        print(f"{summary['operations']} operations, phase {summary['phase']}, {len(summary['flags'])} flags")
        for flag in summary["flags"]:
            print(f"  [{flag['severity']}] {flag['label_fr']}: {flag['detail']}")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from .analysis.exact import analyze

    profile = load_profile(args.profile)
    actions = frozenset(args.actions.split(",")) if args.actions else None

    def progress(fraction: float) -> None:
        if not args.quiet:
            print(f"\r{fraction:6.1%}", end="", file=sys.stderr, flush=True)

    result = analyze(profile, args.strategy, actions=actions, sample=args.sample, seed=args.seed, progress=progress)
    if not args.quiet:
        print(file=sys.stderr)
    if args.json:
        _print_json(result)
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .sim.demo import run_demo

    pace = args.pace if args.pace is not None else (0.0 if args.headless else 0.3)
    folder = Path(args.folder) if args.folder else None
    return run_demo(args.coups, args.seed, args.profile, args.headless, pace, folder, script=args.script,
                    camera=args.camera)


def _setup_logging(level: str = "INFO") -> None:
    import logging

    logging.basicConfig(level=level, format="%(asctime)s %(name)s %(levelname)s %(message)s")


def cmd_proxy(args: argparse.Namespace) -> int:
    import signal
    import threading

    from .bus.proxy import Proxy
    from .config import load_config

    _setup_logging()
    config = load_config(args.config)
    _make_ipc_dirs(config.bus_publish, config.bus_subscribe)
    proxy = Proxy(config.bus_publish, config.bus_subscribe)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    proxy.close()
    return 0


def _make_ipc_dirs(*endpoints: str) -> None:
    for endpoint in endpoints:
        if endpoint.startswith("ipc://"):
            Path(endpoint[len("ipc://"):]).parent.mkdir(parents=True, exist_ok=True)


def cmd_engine(args: argparse.Namespace) -> int:
    import zmq

    from .config import load_config
    from .engine import Engine, serve
    from .store import EventStore

    _setup_logging()
    config = load_config(args.config)
    config.store_path.parent.mkdir(parents=True, exist_ok=True)
    _make_ipc_dirs(config.bus_snapshot)
    store = EventStore(config.store_path, config.evidence_dir)
    engine = Engine(config.rules, store, zmq.Context.instance(), config.bus_subscribe, config.bus_publish,
                    config.bus_snapshot, jackpot_meter=config.jackpot_meter_cents)
    serve(engine)
    store.close()
    return 0


def cmd_vision(args: argparse.Namespace) -> int:
    from vision.pipeline import cmd_vision as run_vision  # torch and OpenCV load for this command only

    from .config import load_config

    _setup_logging()
    return run_vision(load_config(args.config))


def cmd_sensors(args: argparse.Namespace) -> int:
    import signal

    import zmq

    from .config import load_config
    from .sensors.bridge import SensorBridge

    _setup_logging()
    config = load_config(args.config)
    factory = None
    if args.virtual_pins:  # the virtual table's wiring: mock pins driven over ZeroMQ, never on a real table
        from .sensors.virtual import mock_factory

        if not config.gpio:
            print("stud-table sensors: --virtual-pins needs [gpio.*] pins in the configuration", file=sys.stderr)
            return 2
        factory = mock_factory()
    bridge = SensorBridge(config, zmq.Context.instance(), pin_factory=factory)
    pins = None
    if args.virtual_pins and bridge.gpio:
        from .sensors.virtual import VirtualPinsServer

        pins = VirtualPinsServer(zmq.Context.instance(), args.virtual_pins, bridge.gpio, factory)
    signal.signal(signal.SIGTERM, lambda *_: bridge.stop())
    signal.signal(signal.SIGINT, lambda *_: bridge.stop())
    try:
        bridge.run()
    finally:
        if pins:
            pins.close()
        bridge.close()
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .config import load_config
    from .supervisor import Supervisor, serve, table_processes

    _setup_logging()
    config = load_config(args.config)  # checked once here, so a typo stops everything with its line
    children = table_processes(Path(args.config), with_sensors=bool(config.gpio or config.shoe_port),
                               with_vision=config.camera_source != "sim")
    serve(Supervisor(children, health_every=args.health_every))
    return 0


def cmd_web(args: argparse.Namespace) -> int:
    from .web.commands import serve

    _setup_logging()
    return int(serve(args.config, host=args.host, port=args.port) or 0)


def cmd_web_user(args: argparse.Namespace) -> int:
    from .web.commands import create_user

    return int(create_user(args.config, args.username, args.role, review_db=args.review_db) or 0)


def cmd_verify_report(args: argparse.Namespace) -> int:
    from .web.commands import verify_report_command

    return int(verify_report_command(args.file, args.key) or 0)


def cmd_eval_vision(args: argparse.Namespace) -> int:
    from vision.evaluate import main as evaluate_main

    argv = ["--manifest", args.manifest]
    if args.exclude:
        argv += ["--exclude", args.exclude]
    if args.both:
        argv.append("--both")
    if args.errata:
        argv += ["--errata", args.errata]
    if args.models:
        argv += ["--models", args.models]
    if args.json:
        argv.append("--json")
    return int(evaluate_main(argv) or 0)


def cmd_verify_log(args: argparse.Namespace) -> int:
    from .store import verify_log

    path = Path(args.file)
    if not path.exists():
        print(f"stud-table: {path}: no such file", file=sys.stderr)
        return 2
    report = verify_log(path)
    if report.ok:
        print(f"{path}: {report.records} records, the chain is intact")
        return 0
    print(f"{path}: {report.records} records, {len(report.problems)} problems:")
    for problem in report.problems:
        print(f"  {problem}")
    return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stud-table", description="Casino stud poker table controller")
    commands = parser.add_subparsers(dest="command", required=True)

    profiles = commands.add_parser("profiles", help="list and validate the shipped rule profiles")
    profiles.set_defaults(func=cmd_profiles)

    replay = commands.add_parser("replay", help="replay a table history file; print state, flags and payouts")
    replay.add_argument("file")
    replay.add_argument("--json", action="store_true")
    replay.set_defaults(func=cmd_replay)

    analyze = commands.add_parser("analyze", help="the game's exact figures (house edge, rates) by enumeration")
    analyze.add_argument("--profile", required=True, choices=profile_names())
    analyze.add_argument("--strategy", required=True, choices=["optimal", "pair-plus", "always-raise"])
    analyze.add_argument("--actions", help="restrict the optimal strategy to these actions, e.g. fold,raise")
    analyze.add_argument("--sample", type=int, help="Monte-Carlo: sample this many deals instead of enumerating")
    analyze.add_argument("--seed", type=int, default=0)
    analyze.add_argument("--json", action="store_true")
    analyze.add_argument("--quiet", action="store_true", help="no progress on stderr")
    analyze.set_defaults(func=cmd_analyze)

    proxy = commands.add_parser("proxy", help="run the bus's XSUB/XPUB proxy")
    proxy.add_argument("--config", required=True)
    proxy.set_defaults(func=cmd_proxy)

    engine = commands.add_parser("engine", help="run the engine: bus events -> store -> rules core -> bus")
    engine.add_argument("--config", required=True)
    engine.set_defaults(func=cmd_engine)

    sensors = commands.add_parser("sensors", help="run the GPIO sensors and the shoe's serial link onto the bus")
    sensors.add_argument("--config", required=True)
    sensors.add_argument("--virtual-pins", metavar="ENDPOINT",
                         help="virtual table only: mock GPIO pins, driven by requests on this ZeroMQ endpoint")
    sensors.set_defaults(func=cmd_sensors)

    vision = commands.add_parser("vision", help="run the camera, detector, identifier and tracker onto the bus")
    vision.add_argument("--config", required=True)
    vision.set_defaults(func=cmd_vision)

    run = commands.add_parser("run", help="run the table: proxy, engine, sensors, supervised")
    run.add_argument("--config", required=True)
    run.add_argument("--health-every", type=float, default=30.0, help="seconds between health lines in the log")
    run.set_defaults(func=cmd_run)

    web = commands.add_parser("web", help="the croupier display (/display) and the surveillance review (/review)")
    web.add_argument("--config", required=True)
    web.add_argument("--host")
    web.add_argument("--port", type=int)
    web.set_defaults(func=cmd_web)

    web_user = commands.add_parser("web-user", help="create a review user (asks for the password twice)")
    web_user.add_argument("--config", required=True)
    web_user.add_argument("username")
    web_user.add_argument("role", choices=["surveillance", "supervisor", "admin"])
    web_user.add_argument("--review-db")
    web_user.set_defaults(func=cmd_web_user)

    report = commands.add_parser("verify-report", help="check a signed coup report (signature and hash chain)")
    report.add_argument("file")
    report.add_argument("--key", required=True, help="the table's public key (table-signing.pub)")
    report.set_defaults(func=cmd_verify_report)

    eval_vision = commands.add_parser("eval-vision", help="score the camera's reader on a manifest of real photos")
    eval_vision.add_argument("--manifest", required=True, help="manifest.csv (image,label,x1,y1,x2,y2)")
    eval_vision.add_argument("--exclude", help="CSV of images to leave out (val_overlap.csv: its val_image column)")
    eval_vision.add_argument("--both", action="store_true", help="all images, and without --exclude, in one pass")
    eval_vision.add_argument("--errata", help="CSV of label corrections (models/val_label_errata.csv for the val set)")
    eval_vision.add_argument("--models", help="folder of the reader's weights, to score candidates (default: models/)")
    eval_vision.add_argument("--json", action="store_true")
    eval_vision.set_defaults(func=cmd_eval_vision)

    def cmd_calibrate(args: argparse.Namespace) -> int:
        from vision.calibrate import cmd_calibrate as calibrate_command  # OpenCV loads for this command only

        return calibrate_command(args)

    calibrate = commands.add_parser("calibrate", help="find the felt's ArUco markers; save the camera's homography")
    calibrate.add_argument("--config", help="the table's configuration ([camera] source; default --out folder)")
    calibrate.add_argument("--layout", help="the felt's layout file (default: vision/layouts/stud-7.toml)")
    frame = calibrate.add_mutually_exclusive_group()
    frame.add_argument("--image", help="calibrate on this image file")
    frame.add_argument("--camera", help="grab one frame from this OpenCV source: device index, file or URL")
    calibrate.add_argument("--out", help="the calibration JSON (default: calibration.json beside --config, or here)")
    calibrate.add_argument("--drawn", help="PNG of the frame with the zones drawn (default: beside --out)")
    calibrate.set_defaults(func=cmd_calibrate)

    verify = commands.add_parser("verify-log", help="check the event store's hash chain; name any broken record")
    verify.add_argument("file")
    verify.set_defaults(func=cmd_verify_log)

    demo = commands.add_parser("demo", help="the table stack on a virtual table: plays coups until stopped")
    demo.add_argument("--coups", type=int, help="play this many coups, then stop (default: until Ctrl-C)")
    demo.add_argument("--pace", type=float, help="seconds between two events (default 0.3; 0 with --headless)")
    demo.add_argument("--folder", help="where to keep the configuration, store and log (default: a new temp folder)")
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--profile", default="fr-2007", choices=profile_names())
    demo.add_argument("--headless", action="store_true", help="open no browser")
    demo.add_argument("--script", help="play the coups of this script (TOML; see deploy/demo-script.toml)")
    demo.add_argument("--camera", choices=["rendered", "direct"], default="rendered",
                      help="rendered: frames drawn and read by the vision process with the committed models "
                           "(default); direct: the observations a perfect camera would publish (fast)")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (RulesError, TomlError, OSError) as error:
        print(f"stud-table: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
