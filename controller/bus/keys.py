"""The bus's CURVE keys: a key pair per process role, made by ``stud-table keys``, and what each role may say.

With ``bus.keys`` set in the table's configuration, every socket of the bus is encrypted and authenticated
(ZeroMQ CURVE): the proxy is the server its publishers and subscribers connect to, and lets in only the public keys
of the roles found in the keys folder (a ZAP handler, ``RoleAuthenticator``); the engine's snapshot server lets in
the same. The proxy knows each message's sender by the key it connected with, not by the name it writes, and passes
on only the topics its role publishes (``ROLES``), under a publisher name of that role: a process holding the vision
key cannot speak as the engine. It lets a subscriber hear only the topics its role may hear: the devices' messages
go to the engine alone (and the demo's simulator). Keys of peers it does not know are counted, never kept.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator

from ..errors import StudTableError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Role:
    #: the topic prefixes its messages may carry
    topics: tuple[str, ...]
    #: the publisher names it may write: one of these, or one of these followed by « - » and more (sensors-t1)
    names: tuple[str, ...]
    #: the topic prefixes it may subscribe to: a subscription must begin with one of them (an empty subscription,
    #: everything, is no one's)
    hears: tuple[str, ...] = ("core.",)

    def may_publish(self, topic: str, publisher: str) -> bool:
        return topic.startswith(self.topics) and any(publisher == name or publisher.startswith(f"{name}-")
                                                     for name in self.names)

    def may_hear(self, subscription: str) -> bool:
        return subscription.startswith(self.hears)


_EVERY_TOPIC = ("vision.", "sensor.", "dealer.", "core.")
#: The table's process roles. The web server holds the keypad's key for the dealer's taps on his screen (it
#: publishes nothing else); the simulator (the demo's virtual table: a dealer's
#: keypad, and a perfect camera with ``--camera direct``) has a key only where ``stud-table keys --simulator`` made it.
#: Only the engine (and the simulator, which plays the devices and watches them) hears what the devices say; every
#: role hears the engine, which publishes no hidden card (``controller.public_state``).
ROLES: dict[str, Role] = {
    "engine": Role(("core.",), ("engine",), _EVERY_TOPIC),
    "vision": Role(("vision.",), ("vision",)),
    "sensors": Role(("sensor.",), ("sensors",)),
    "keypad": Role(("dealer.",), ("keypad",)),
    "web": Role((), ()),
    "simulator": Role(("vision.", "sensor.", "dealer."), ("virtual-table",), _EVERY_TOPIC),
}
#: The proxy's key pair: the server every bus socket checks it talks to (the engine's is the snapshot server's).
PROXY = "proxy"
ENGINE = "engine"
#: The ZAP domain of the table's CURVE servers: their handler is asked for every peer
ZAP_DOMAIN = "stud-table"


class BusKeyError(StudTableError, ValueError):
    """A key the process needs that is missing or unreadable, and what to do."""


def create_keys(folder: Path, simulator: bool = False) -> list[str]:
    """Make the key pairs missing from ``folder`` (the proxy's and each role's); returns the roles made. The folder
    is the service user's only (0700), each secret key file its owner's only (0600)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    made = []
    for name in (PROXY, *(role for role in ROLES if simulator or role != "simulator")):
        if (folder / f"{name}.key_secret").exists():
            continue
        _public, secret = zmq.auth.create_certificates(folder, name)
        os.chmod(secret, 0o600)
        made.append(name)
    return made


class Keys:
    """The keys folder as the processes read it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def pair(self, name: str) -> tuple[bytes, bytes]:
        """(public, secret) of ``name``'s key pair."""
        path = self.folder / f"{name}.key_secret"
        try:
            public, secret = zmq.auth.load_certificate(path)
        except (OSError, ValueError) as error:
            raise BusKeyError(f"{path}: the {name} key pair cannot be read ({error}); make the keys with "
                            f"`stud-table keys --config TABLE.toml`") from None
        if secret is None:
            raise BusKeyError(f"{path} holds no secret key")
        return public, secret

    def public(self, name: str) -> bytes:
        path = self.folder / f"{name}.key"
        try:
            return zmq.auth.load_certificate(path)[0]
        except (OSError, ValueError) as error:
            raise BusKeyError(f"{path}: the {name} public key cannot be read ({error})") from None

    def roles_by_key(self) -> dict[bytes, str]:
        """Each role that has a key in the folder, by its public key (Z85)."""
        return {self.public(role): role for role in ROLES if (self.folder / f"{role}.key").exists()}


def secure_client(context: zmq.Context[zmq.Socket[bytes]], keys: Keys, role: str) -> None:
    """Every socket the context makes from now on is a CURVE client of the proxy, as ``role``."""
    keyed_client(context, keys, role, PROXY)


def bus_context(folder: Path | None, role: str) -> zmq.Context[zmq.Socket[bytes]]:
    """The process's context for the bus. With keys (``folder``), a context of its own whose every socket is a CURVE
    client of the proxy as ``role`` (the virtual camera's frames and the virtual pins then have contexts of their
    own too: ``OffBusServer``). Without, ``zmq.Context.instance()``, which those share."""
    if folder is None:
        return zmq.Context.instance()
    context = zmq.Context()
    secure_client(context, Keys(folder), role)
    return context


def keys_at(folder: Path | None) -> Keys | None:
    """The keys folder a configuration names (``bus.keys``), None on a bus without keys."""
    return None if folder is None else Keys(folder)


def engine_key(folder: Path | None) -> bytes | None:
    """The engine's public key, for a snapshot request; None on a bus without keys."""
    return None if folder is None else Keys(folder).public(ENGINE)


class OffBusServer:
    """A socket off the bus that only the simulator drives (the virtual camera's frames, the virtual pins), bound at
    ``endpoint``, its ipc file 0600. With ``keys``, a CURVE server with ``role``'s key pair that lets in only the
    ``clients``' keys, in a context of its own (a ZAP handler is its context's); without, on ``context``.
    ``zmq.ZMQError`` or ``OSError`` when it cannot be bound, nothing left open."""

    def __init__(self, endpoint: str, kind: int, keys: Keys | None, role: str, clients: tuple[str, ...],
                 context: zmq.Context[zmq.Socket[bytes]] | None = None,
                 options: tuple[tuple[int, int], ...] = ()) -> None:
        self._own_context: zmq.Context[zmq.Socket[bytes]] | None = None
        self._authenticator: RoleAuthenticator | None = None
        if keys is not None:
            self._own_context = zmq.Context()
            try:
                self._authenticator = RoleAuthenticator(self._own_context, keys, clients)
            except BaseException:
                self._own_context.destroy(linger=0)  # closes what the handler opened: term alone would wait for it
                raise
        self.socket = (self._own_context or context or zmq.Context.instance()).socket(kind)
        try:
            self.socket.setsockopt(zmq.LINGER, 0)
            for option, value in options:
                self.socket.setsockopt(option, value)
            if keys is not None:
                make_server(self.socket, keys.pair(role))
            self.socket.bind(endpoint)
            private_socket_file(endpoint)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.socket.close()
        if self._authenticator is not None:
            self._authenticator.stop()
        if self._own_context is not None:
            self._own_context.term()


def keyed_client(socket: zmq.Socket[bytes] | zmq.Context[zmq.Socket[bytes]], keys: Keys | None, role: str,
                 server: str) -> None:
    """``socket`` (before it connects; or every socket a context makes from now on) a CURVE client as ``role`` of
    the server holding ``server``'s key pair; nothing without keys."""
    if keys is None:
        return
    public, secret = keys.pair(role)
    socket.setsockopt(zmq.CURVE_PUBLICKEY, public)
    socket.setsockopt(zmq.CURVE_SECRETKEY, secret)
    socket.setsockopt(zmq.CURVE_SERVERKEY, keys.public(server))


def make_server(socket: zmq.Socket[bytes], pair: tuple[bytes, bytes]) -> None:
    """``socket`` a CURVE server with the key ``pair`` (before it binds), whose peers a ZAP handler must let in: with
    none running, it refuses them all rather than take any key."""
    public, secret = pair
    socket.setsockopt(zmq.CURVE_PUBLICKEY, public)
    socket.setsockopt(zmq.CURVE_SECRETKEY, secret)
    socket.setsockopt(zmq.CURVE_SERVER, 1)
    # ZAP asked for every peer (a domain given), and a peer refused when no ZAP handler answers
    socket.setsockopt(zmq.ZAP_DOMAIN, ZAP_DOMAIN.encode())
    socket.setsockopt(zmq.ZAP_ENFORCE_DOMAIN, 1)


def worth_logging(count: int) -> bool:
    """Whether the ``count``-th refusal of a kind is logged: the 1st, 10th, 100th, then every 1000th (a peer that
    tries again and again does not flood the log)."""
    return count in (1, 10, 100) or count % 1000 == 0


class RoleAuthenticator(ThreadAuthenticator):
    """The ZAP handler of a context whose sockets are CURVE servers: lets in the roles' keys, names each peer by its
    role (a message's ``User-Id``), and counts the keys refused without keeping them."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]], keys: Keys,
                 roles: tuple[str, ...] | None = None) -> None:
        """``roles``: the roles let in (default: every role)."""
        super().__init__(context)
        self._roles = {key: role for key, role in keys.roles_by_key().items() if roles is None or role in roles}
        self._lock = threading.Lock()
        self.refused = 0
        self.start()
        self.configure_curve_callback(ZAP_DOMAIN, self)

    def callback(self, _domain: str, key: bytes) -> bool:
        if key in self._roles:
            return True
        with self._lock:
            self.refused += 1
            refused = self.refused
        if worth_logging(refused):
            log.warning("bus: %d connection(s) refused: a key that is not one of the roles let in (%s)", refused,
                        ", ".join(sorted(set(self._roles.values()))) or "none")
        return False

    def curve_user_id(self, client_public_key: bytes) -> str:
        return self._roles[zmq.utils.z85.encode(client_public_key)]


class RefusedHandshakes:
    """Counts the peers a CURVE server ``socket`` cut off before any key was checked: no keys at all, or keys for
    another server (the ZAP handler never hears of them). ``monitor`` is the socket to poll; ``take`` reads what it
    says when it is ready."""

    FAILED = zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL

    def __init__(self, socket: zmq.Socket[bytes], what: str) -> None:
        self._socket = socket
        self._what = what
        self.monitor = socket.get_monitor_socket(self.FAILED)
        self.count = 0

    def take(self) -> None:
        self.monitor.recv_multipart()
        self.count += 1
        if worth_logging(self.count):
            log.warning("%s: %d connection(s) refused: no keys, or keys for another server", self._what, self.count)

    def close(self) -> None:
        self._socket.disable_monitor()
        self.monitor.close()


def private_socket_file(endpoint: str) -> None:
    """An ipc socket just bound: its file readable and writable by the service's user only (ZeroMQ makes it with
    the umask's permissions; connecting needs write permission on it). Its folder is made 0700 by the command
    line (``cli._make_ipc_dirs``); one that exists already is left as it is (it may be /run or /tmp)."""
    if endpoint.startswith("ipc://"):
        Path(endpoint[len("ipc://"):]).chmod(0o600)
