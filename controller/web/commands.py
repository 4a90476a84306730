"""Entry points for the command line (wired in ``controller/cli.py``)."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import Any

from controller.config import TableConfig, load_config

from .app import create_app, default_review_db_path
from .report import verify_report
from .reviewdb import ROLES, ReviewDB, UserExists


def serve(config_path: str | Path, host: str | None = None, port: int | None = None) -> int:
    """``stud-table web --config FILE``: the display and the review on the table's web host and port, until
    SIGINT or SIGTERM (uvicorn's own handlers while it serves; the process's stop request,
    ``controller.shutdown.STOP``, before and after: a signal that came while the app was loading stops it at once,
    and the ones uvicorn raises again once it has shut down are only counted)."""
    import uvicorn

    from controller.shutdown import STOP

    config = load_config(config_path)
    app = create_app(config)
    server = uvicorn.Server(server_config(config, app, host, port))
    callback = STOP.on_stop(lambda: setattr(server, "should_exit", True))  # handler: ``controller.cli.main``'s
    try:
        if not STOP.requested:
            server.run()
    finally:
        STOP.forget(callback)
    if not server.started and not STOP.requested:
        return 3  # could not start (the port taken...): uvicorn.run's own exit code, its log says why
    return 0


def server_config(config: TableConfig, app: Any, host: str | None = None, port: int | None = None) -> Any:
    """uvicorn's settings for the table's web server: HTTPS when ``[web]`` names a certificate, and
    X-Forwarded-For believed only from ``web.trusted_proxies`` (uvicorn's default believes 127.0.0.1, which lets
    any local client pick the address that the login limit counts against)."""
    import uvicorn

    tls: dict[str, Any] = {}
    if config.web_tls_certificate is not None and config.web_tls_key is not None:
        tls = {"ssl_certfile": str(config.web_tls_certificate), "ssl_keyfile": str(config.web_tls_key)}
    return uvicorn.Config(app, host=host or config.web_host, port=port or config.web_port, log_level="info",
                          timeout_graceful_shutdown=2, proxy_headers=bool(config.web_trusted_proxies),
                          forwarded_allow_ips=list(config.web_trusted_proxies) or None, **tls)


def create_user(config_path: str | Path, username: str, role: str, password: str | None = None,
                review_db: str | Path | None = None, hasher: Any = None) -> int:
    """``stud-table web-user --config FILE USERNAME ROLE``: the password is asked twice unless given."""
    if role not in ROLES:
        print(f"role must be one of: {', '.join(ROLES)}", file=sys.stderr)
        return 2
    if password is None:
        password = getpass.getpass(f"password for {username}: ")
        if getpass.getpass("again: ") != password:
            print("the two passwords differ", file=sys.stderr)
            return 2
    path = Path(review_db) if review_db else default_review_db_path(load_config(config_path))
    db = ReviewDB(path, hasher=hasher)
    try:
        db.create_user(username, role, password)
    except ValueError as error:
        print(str(error), file=sys.stderr)
        return 2
    except UserExists as error:
        print(f"cannot create {username}: {error}", file=sys.stderr)
        return 1
    finally:
        db.close()
    print(f"user {username} ({role}) created in {path}")
    return 0


def verify_report_command(report_path: str | Path, public_key_path: str | Path) -> int:
    """``stud-table verify-report FILE --key PUBLIC.pem``: exit 0 when valid, 1 otherwise."""
    ok, message = verify_report(report_path, public_key_path)
    print(message)
    return 0 if ok else 1
