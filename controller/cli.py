"""The ``stud-table`` command line."""

from __future__ import annotations

# isort: off
# First, before the standard library's modules even: importing it installs the stop handler in the stud-table
# process, and from then on a Ctrl-C or SIGTERM while the rest loads is recorded, not a traceback.
from . import shutdown

# isort: on
import argparse
import importlib.util
import json
import sys
from pathlib import Path

from .errors import StudTableError
from .profiles import load_profile, profile_names
from .rules.errors import RulesError
from .rules.history import parse_history
from .rules.summary import table_summary
from .rules.table import Table


def _print_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def cmd_profiles(args: argparse.Namespace) -> int:
    for name in profile_names():
        profile = load_profile(name)
        print(f"{name:14} {profile.title}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from .progress import print_report
    from .replay import ReplayError, history_rules, history_text, report
    from .rules.errors import HistoryError

    path = Path(args.file)
    try:
        history = parse_history(history_text(path))
        table = Table(history_rules(history, path.parent))
    except ReplayError as error:
        print(f"stud-table: {error}", file=sys.stderr)
        return 2
    except HistoryError as error:
        print(f"stud-table: {path}, line {error.line_number}: {error.message}", file=sys.stderr)
        return 2
    for op, line in zip(history.operations, history.lines, strict=True):
        try:
            table.apply(op)
        except RulesError as error:  # a readable line the table refuses: bad input too, so exit 2 like the rest
            print(f"stud-table: {path}, line {line} ({op.kind}): {error}", file=sys.stderr)
            return 2
    summary = table_summary(table, history=True)
    if args.json:
        _print_json(summary)
    else:
        print_report(*report(summary))
    return 0


def cmd_export_history(args: argparse.Namespace) -> int:
    from .config import load_config
    from .export import ExportError, coup_history, profile_reference
    from .files import write_atomically

    config = load_config(args.config)
    try:
        coup = coup_history(args.store, config.rules, args.coup, config.jackpot_meter_cents)
        profile = profile_reference(config.rules, config.profile_file,
                                    Path(args.output).parent if args.output else None)
    except ExportError as error:
        print(f"stud-table: {error}", file=sys.stderr)
        return 2
    text = coup.text(config.rules, args.store, profile)
    if args.output:
        write_atomically(Path(args.output), text.encode())
        print(f"{args.output}: coup {coup.coup}, {len(coup.operations)} operations"
              + ("" if coup.ended else " (still in progress)"))
    else:
        sys.stdout.write(text)
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from .analysis.expectation import analyze
    from .analysis.report import analysis_report
    from .progress import Progress, print_report

    profile = load_profile(args.profile)
    actions = frozenset(args.actions.split(",")) if args.actions else None
    with Progress(enabled=not args.quiet) as progress:  # on stderr, where it is a terminal
        result = analyze(profile, args.strategy, actions=actions, sample=args.sample, seed=args.seed,
                         progress=progress.fraction, phase=progress.phase)
    if args.json:
        _print_json(result)
    else:
        print_report(*analysis_report(result, profile.jackpot_stake_cents if profile.jackpot else None))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .sim.demo import run_demo

    pace = args.pace if args.pace is not None else (0.0 if args.headless else 0.3)
    folder = Path(args.folder) if args.folder else None
    if args.camera_condition:
        from .sim.conditions import CONDITIONS

        if "list" in args.camera_condition:
            for name, what in CONDITIONS.items():
                print(f"{name}: {what}")
            return 0
        unknown = [name for name in args.camera_condition if name not in CONDITIONS]
        if unknown:
            print(f"stud-table demo: no camera condition {unknown[0]!r} (known: {', '.join(CONDITIONS)})",
                  file=sys.stderr)
            return 2
    for option, given in (("--camera-condition", args.camera_condition), ("--camera-size", args.camera_size)):
        if given and args.camera != "rendered":
            print(f"stud-table demo: {option} needs the rendered camera", file=sys.stderr)
            return 2
    return run_demo(args.coups, args.seed, args.profile, args.headless, pace, folder, script=args.script,
                    camera=args.camera, conditions=frozenset(args.camera_condition or ()),
                    camera_size=args.camera_size, dealer=args.dealer, stacked_bets=args.stacked_bets)


def _frame_size(text: str) -> tuple[int, int]:
    """``demo --camera-size``'s WIDTHxHEIGHT; the simulator's module is loaded only when the option is given (the
    table's own processes never load the simulator)."""
    from .sim.conditions import frame_size

    return frame_size(text)


def _setup_logging(level: str = "INFO") -> None:
    import logging

    logging.basicConfig(level=level, format="%(asctime)s %(name)s %(levelname)s %(message)s")


def cmd_proxy(args: argparse.Namespace) -> int:
    import logging

    from .bus.keys import keys_at
    from .bus.proxy import Proxy
    from .config import load_config

    _setup_logging()
    config = load_config(args.config)
    _make_ipc_dirs(config.bus_publish, config.bus_subscribe)
    proxy = Proxy(config.bus_publish, config.bus_subscribe, keys_at(config.bus_keys))
    while not shutdown.STOP.wait(3600):  # polled: a signal the kernel hands to another thread still ends it
        pass
    proxy.close()
    logging.getLogger("stud-table.proxy").info("proxy: stopped on %s", shutdown.STOP.describe())
    return 0


def _make_ipc_dirs(*endpoints: str) -> None:
    """The sockets' folders, the service user's only when made here (``bus.keys.private_socket_file``)."""
    for endpoint in endpoints:
        if endpoint.startswith("ipc://"):
            # another process of the table may make it at the same moment; one that exists keeps its mode
            Path(endpoint[len("ipc://"):]).parent.mkdir(mode=0o700, parents=True, exist_ok=True)


def cmd_engine(args: argparse.Namespace) -> int:

    from .bus.keys import ENGINE, bus_context, keys_at
    from .config import load_config
    from .engine import Engine, serve
    from .signing import key_path, load_or_create_key
    from .store import EventStore

    _setup_logging()
    config = load_config(args.config)
    config.store_path.parent.mkdir(parents=True, exist_ok=True)
    _make_ipc_dirs(config.bus_snapshot)
    context = bus_context(config.bus_keys, ENGINE)
    store = EventStore(config.store_path, config.evidence_dir)
    try:
        engine = Engine(config.rules, store, context, config.bus_subscribe, config.bus_publish,
                        config.bus_snapshot, jackpot_meter=config.jackpot_meter_cents,
                        signing=(config.table_id, load_or_create_key(key_path(config.store_path))),
                        from_checkpoint=not args.replay_all, keys=keys_at(config.bus_keys))
        serve(engine)  # until SIGINT or SIGTERM, even one that came while the store was replayed
    finally:
        store.close()  # after the last batch's commit: serve returns between batches
    shutdown.term_context(context)  # the sockets are closed: the last state goes out (linger), then the I/O threads
    return 0


def cmd_vision(args: argparse.Namespace) -> int:
    from vision.pipeline import cmd_vision as run_vision  # OpenCV and ONNX Runtime load for this command only

    from .config import load_config

    _setup_logging()
    return run_vision(load_config(args.config))


def cmd_sensors(args: argparse.Namespace) -> int:

    from .bus.keys import bus_context, keys_at
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
    context = bus_context(config.bus_keys, "sensors")
    bridge = SensorBridge(config, context, pin_factory=factory)
    pins = None
    try:
        if args.virtual_pins and bridge.gpio:
            from .sensors.virtual import VirtualPinsServer

            pins = VirtualPinsServer(context, args.virtual_pins, bridge.gpio, factory, keys_at(config.bus_keys))
        shutdown.STOP.on_stop(bridge.stop)  # at once if a signal came while starting
        bridge.run()
    finally:
        if pins:
            pins.close()
        bridge.close()
    shutdown.term_context(context)
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
    missing = [name for name in ("torch", "ultralytics") if importlib.util.find_spec(name) is None]
    if missing:  # the table's install leaves the train extra out
        print(f"stud-table eval-vision: the photo reader needs the train extra ({', '.join(missing)} not installed): "
              "pip install -e '.[train]'", file=sys.stderr)
        return 2
    from training.photo.evaluate import main as evaluate_main

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
    if args.quiet:
        argv.append("--quiet")
    return int(evaluate_main(argv) or 0)


def cmd_verify_log(args: argparse.Namespace) -> int:
    """Exit 0: intact; 1: a record or a signed head proves the store was tampered with; 2: a file that is not a
    store, or a head or key that cannot be read."""
    from .heads import BadHead, check_heads, load_head, store_has_heads
    from .signing import key_path, public_key
    from .store import NotAStore, verify_log

    path = Path(args.file)
    if not path.is_file():
        print(f"stud-table: {path}: no such file", file=sys.stderr)
        return 2
    public = Path(args.key) if args.key else key_path(path).with_suffix(".pub")
    try:
        report = verify_log(path)
        kept = load_head(args.head) if args.head else None
        key = public_key(public) if args.key or public.exists() else None
    except (NotAStore, BadHead) as error:
        print(f"stud-table: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"stud-table: {public}: not the table's public key ({error})", file=sys.stderr)
        return 2
    if key is None and (kept is not None or store_has_heads(path)):
        print(f"stud-table: no public key at {public} to check the signed heads with: give --key (the table's "
              "table-signing.pub, kept elsewhere)", file=sys.stderr)
        return 2
    findings = check_heads(path, key, kept) if key is not None else None
    problems = report.problems + (findings.problems if findings else [])
    if problems:
        print(f"{path}: {report.records} records, {len(problems)} problems:")
        for problem in problems:
            print(f"  {problem}")
    else:
        print(f"{path}: {report.records} records, the chain is intact" + (", and its signed heads" if findings else ""))
    for note in findings.notes if findings else []:
        print(f"  note: {note}")
    return 1 if problems else 0


def cmd_export_head(args: argparse.Namespace) -> int:
    """The store's latest signed head, as JSON, to keep elsewhere (``verify-log --head``)."""
    import json

    from .heads import latest_head
    from .store import NotAStore

    if not Path(args.file).is_file():
        print(f"stud-table: {args.file}: no such file", file=sys.stderr)
        return 2
    try:
        document = latest_head(args.file)
    except NotAStore as error:
        print(f"stud-table: {error}", file=sys.stderr)
        return 2
    if document is None:
        print(f"stud-table: {args.file}: no coup has ended yet: nothing is signed", file=sys.stderr)
        return 1
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    if args.out:
        Path(args.out).write_text(text)
        head = document["head"]
        print(f"head of coup {head['coup']} (records 1..{head['event']}) written to {args.out}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_keys(args: argparse.Namespace) -> int:
    from .bus.keys import PROXY, ROLES, create_keys
    from .config import load_config

    config = load_config(args.config)
    if config.bus_keys is None:
        print(f"stud-table keys: {args.config} names no folder for the keys: add keys = \"keys\" under [bus]",
              file=sys.stderr)
        return 2
    made = create_keys(config.bus_keys, simulator=args.simulator)
    kept = [name for name in (PROXY, *ROLES)
            if name not in made and (config.bus_keys / f"{name}.key_secret").exists()]
    print(f"{config.bus_keys}: made {', '.join(made) or 'none'}" + (f"; kept {', '.join(kept)}" if kept else ""))
    print("each process reads its own role's secret key there; the proxy and the engine let in only these keys")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stud-table", description="Casino stud poker table controller")
    commands = parser.add_subparsers(dest="command", required=True)

    profiles = commands.add_parser("profiles", help="list and validate the shipped rule profiles")
    profiles.set_defaults(func=cmd_profiles)

    from .replay import FORMAT_EXAMPLE

    replay = commands.add_parser("replay", help="replay a table history file; print state, flags and payouts",
                                 description="Replay a table history file through the rules core; print the "
                                             "state, the flags, then each settlement's payouts in paying order.",
                                 epilog=FORMAT_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    replay.add_argument("file", help="a history file (stud-table export-history writes one from the store)")
    replay.add_argument("--json", action="store_true", help="the whole state as JSON (amounts in cents)")
    replay.set_defaults(func=cmd_replay)

    export_history = commands.add_parser(
        "export-history", help="write a coup recorded in the table's store as a history file (for replay)",
        description="Play the store's events through the engine's referee, as the engine does, and write coup N "
                    "as a history file: replay reads it back to the engine's state, flags and payouts.")
    export_history.add_argument("store", metavar="STORE.sqlite", help="the table's event store")
    export_history.add_argument("--coup", type=int, required=True, metavar="N",
                                help="the coup's number, as the review and the flags give it")
    export_history.add_argument("--config", required=True,
                                help="the table's configuration: the rules in force (the store does not record "
                                     "them) and the jackpot meter")
    export_history.add_argument("-o", "--output", metavar="FILE", help="write here (default: standard output)")
    export_history.set_defaults(func=cmd_export_history)

    analyze = commands.add_parser("analyze", help="the game's exact figures (house edge, rates) by enumeration")
    analyze.add_argument("--profile", required=True, choices=profile_names())
    analyze.add_argument("--strategy", required=True, choices=["optimal", "pair-plus", "always-raise"])
    analyze.add_argument("--actions", help="restrict the optimal strategy to these actions, e.g. fold,raise")
    analyze.add_argument("--sample", type=int, help="Monte-Carlo: sample this many deals instead of enumerating")
    analyze.add_argument("--seed", type=int, default=0)
    analyze.add_argument("--json", action="store_true")
    analyze.add_argument("--quiet", action="store_true",
                         help="no progress on stderr (shown only where stderr is a terminal)")
    analyze.set_defaults(func=cmd_analyze)

    proxy = commands.add_parser("proxy", help="run the bus's XSUB/XPUB proxy")
    proxy.add_argument("--config", required=True)
    proxy.set_defaults(func=cmd_proxy)

    engine = commands.add_parser("engine", help="run the engine: bus events -> store -> rules core -> bus")
    engine.add_argument("--config", required=True)
    engine.add_argument("--replay-all", action="store_true",
                        help="replay the whole log on start, not only what follows the last coup's checkpoint")
    engine.set_defaults(func=cmd_engine)

    sensors = commands.add_parser("sensors", help="run the GPIO sensors and the shoe's serial link onto the bus")
    sensors.add_argument("--config", required=True)
    sensors.add_argument("--virtual-pins", metavar="ENDPOINT",
                         help="virtual table only: mock GPIO pins, driven by requests on this ZeroMQ endpoint")
    sensors.set_defaults(func=cmd_sensors)

    vision_help = ("run the camera, the table detector, the index reader, the chip counter and the stack reader (on "
                   "ONNX Runtime), and the tracker, onto the bus")
    vision = commands.add_parser("vision", help=vision_help, description=vision_help[0].upper() + vision_help[1:])
    vision.add_argument("--config", required=True)
    vision.set_defaults(func=cmd_vision)

    run_help = ("run the table's processes, supervised: proxy, engine and web; sensors when GPIO pins or a shoe are "
                "configured; vision when a camera is (camera.source not sim)")
    run = commands.add_parser("run", help=run_help, description=run_help[0].upper() + run_help[1:])
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
    eval_vision.add_argument("--quiet", action="store_true",
                             help="no progress on stderr (shown only where stderr is a terminal)")
    eval_vision.set_defaults(func=cmd_eval_vision)

    def cmd_calibrate(args: argparse.Namespace) -> int:
        from vision.calibrate import cmd_calibrate as calibrate_command  # OpenCV loads for this command only

        return calibrate_command(args)

    calibrate = commands.add_parser("calibrate", help="find the felt's ArUco markers; save the camera's homography")
    calibrate.add_argument("--config", help="the table's configuration ([camera] source; default --out folder)")
    calibrate.add_argument("--layout", help="the felt's layout file (default: controller/felt/layouts/stud-7.toml)")
    frame = calibrate.add_mutually_exclusive_group()
    frame.add_argument("--image", help="calibrate on this image file")
    frame.add_argument("--camera", help="grab one frame from this OpenCV source: device index, file or URL")
    calibrate.add_argument("--out", help="the calibration JSON (default: calibration.json beside --config, or here)")
    calibrate.add_argument("--drawn", help="PNG of the frame with the zones drawn (default: beside --out)")
    calibrate.set_defaults(func=cmd_calibrate)

    verify = commands.add_parser("verify-log", help="check the event store's hash chain and its signed heads; name "
                                                    "any broken record")
    verify.add_argument("file")
    verify.add_argument("--head", help="a head kept elsewhere (stud-table export-head): proves the store was not cut, "
                                       "rewritten or added to since")
    verify.add_argument("--key", help="the table's public key (PEM; default: table-signing.pub beside the store)")
    verify.set_defaults(func=cmd_verify_log)
    keys = commands.add_parser("keys", help="make the bus's CURVE key pairs (one per process role) in bus.keys")
    keys.add_argument("--config", required=True)
    keys.add_argument("--simulator", action="store_true",
                      help="also the demo's virtual table's key (never on a real table: it may speak as the camera, "
                           "the sensors and the keypad)")
    keys.set_defaults(func=cmd_keys)
    export_head = commands.add_parser("export-head", help="the event store's latest signed head, to keep elsewhere")
    export_head.add_argument("file")
    export_head.add_argument("-o", "--out", help="write it here (default: standard output)")
    export_head.set_defaults(func=cmd_export_head)

    demo = commands.add_parser("demo", help="the table stack on a virtual table: plays coups until stopped")
    demo.add_argument("--coups", type=int, help="play this many coups, then stop (default: until Ctrl-C)")
    demo.add_argument("--dealer", choices=["real", "patient"], default="real",
                      help="real (default): his gestures take a real dealer's time (controller/sim/pace.py) and he "
                           "never waits for the camera; a button he presses is held by the engine until the camera "
                           "has caught up with it; patient: after every change on the felt he waits until the vision "
                           "process has seen it (for debugging the camera)")
    demo.add_argument("--stacked-bets", choices=["confirm", "spread"], default="confirm",
                      help="the house rule for a bet built as a casino stack, which an overhead camera cannot count: "
                           "confirm (default): the dealer confirms its amount; spread: the display asks him to have "
                           "it spread, and the camera reads the pile (the table's stacked_bets)")
    demo.add_argument("--pace", type=float,
                      help="with --dealer patient: seconds between two events (default 0.3; 0 with --headless)")
    demo.add_argument("--folder", help="where to keep the configuration, store and log (default: a new temp folder)")
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--profile", default="fr-2007", choices=profile_names())
    demo.add_argument("--headless", action="store_true", help="open no browser")
    demo.add_argument("--script", help="play the coups of this script (TOML; see deploy/demo-script.toml)")
    demo.add_argument("--camera", choices=["rendered", "direct"], default="rendered",
                      help="rendered: frames drawn and read by the vision process with the committed models "
                           "(default); direct: the observations a perfect camera would publish (fast)")
    demo.add_argument("--camera-condition", action="append", metavar="NAME",
                      help="make the rendered camera harder (repeatable): noise, motion blur, compression, glare, "
                           "another felt or deck, a knock; `--camera-condition list` names them")
    demo.add_argument("--camera-size", type=_frame_size, metavar="WIDTHxHEIGHT",
                      help="the rendered camera's frame in pixels (default 1920x1080; 3840x2160 reads casino "
                           "stacks better)")
    demo.set_defaults(func=cmd_demo)
    return parser


#: the commands that run until stopped: SIGINT or SIGTERM asks for an orderly stop, once or twice, at any moment
#: (controller/shutdown.py); they exit 0 when stopped so, since such a stop is how they are meant to end
LONG_RUNNING = frozenset({"proxy", "engine", "sensors", "vision", "run", "web", "demo"})


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    stop = shutdown.STOP
    if args.command in LONG_RUNNING:
        stop.install()  # already, from the import, for the stud-table process itself
        if stop.requested:  # stopped while it was loading: nothing started, nothing to stop
            stop.ignore_further()
            return 0
    else:
        stop.uninstall()  # a short command: Ctrl-C interrupts it as usual
        if stop.requested:
            return 128 + (stop.signum or 0)
    if args.command not in LONG_RUNNING:  # interrupted (Ctrl-C, SIGTERM): one line, no traceback
        return shutdown.exit_cleanly_when_interrupted("stud-table", lambda: _run(args))
    try:
        return _run(args)
    finally:
        stop.ignore_further()  # done: a late Ctrl-C must not kill the exit


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except (StudTableError, OSError) as error:  # a bad configuration or key, a bus endpoint taken (BindError)...
        print(f"stud-table: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        zmq = sys.modules.get("zmq")  # only the commands that use the bus have loaded it
        if zmq is None or not isinstance(error, zmq.ZMQError):
            raise
        print(f"stud-table: {error}", file=sys.stderr)  # e.g. an endpoint that is no address at all
        return 2


if __name__ == "__main__":
    sys.exit(main())
