"""Types of protocol.py for the host's type checker (protocol.py itself has no annotations: it runs on MicroPython).
Not copied to the Pico."""

PROTOCOL_VERSION: int
DELIMITER: int
HEADER_SIZE: int
CRC_SIZE: int
MAX_PAYLOAD: int
MAX_BODY: int
MAX_ENCODED: int
CRC_POLY: int
CRC_INIT: int

CARD_DRAWN: int
CUT_CARD_SEEN: int
SHOE_STATUS: int
HEARTBEAT: int
ERROR: int
STATUS_REQUEST: int
RESET_COUNT: int
MESSAGES: dict[int, tuple[str, tuple[tuple[str, int], ...]]]

FLAG_CUT_CARD_SEEN: int
FLAG_BEAM_BLOCKED: int
STATUS_REQUESTED: int
STATUS_BOOT: int
STATUS_RESET: int
STATUS_REASONS: dict[int, str]
RESET_UNKNOWN: int
RESET_POWER_ON: int
RESET_WATCHDOG: int
RESET_OTHER: int
RESET_CAUSES: dict[int, str]
ERR_BEAM_BLOCKED: int
ERR_BEAM_CLEARED: int
ERR_BAD_FRAME: int
ERR_UNKNOWN_TYPE: int
ERR_WATCHDOG_RESET: int
ERR_LOST_EDGES: int
ERRORS: dict[int, str]
FRAME_COBS: int
FRAME_SHORT: int
FRAME_LENGTH: int
FRAME_CRC: int
FRAME_TOO_LONG: int
FRAME_UNKNOWN_TYPE: int
FRAME_BAD_PAYLOAD: int
FRAME_ERRORS: dict[int, str]

class ProtocolError(ValueError):
    code: int
    reason: str
    size: int
    def __init__(self, code: int, size: int = ...) -> None: ...

class Frame:
    seq: int
    type: int
    payload: bytes
    def __init__(self, seq: int, msg_type: int, payload: bytes) -> None: ...
    def name(self) -> str | None: ...
    def fields(self) -> dict[str, int]: ...

def crc16(data: bytes | bytearray, crc: int = ...) -> int: ...
def cobs_encode(data: bytes | bytearray) -> bytes: ...
def cobs_decode(data: bytes | bytearray) -> bytes: ...
def pack(msg_type: int, *values: int) -> bytes: ...
def unpack(msg_type: int, payload: bytes | bytearray) -> dict[str, int]: ...
def encode_frame(seq: int, msg_type: int, payload: bytes | bytearray = ...) -> bytes: ...
def encode_message(seq: int, msg_type: int, *values: int) -> bytes: ...
def decode_frame(chunk: bytes | bytearray) -> Frame: ...

class Decoder:
    def __init__(self) -> None: ...
    def reset(self) -> None: ...
    def feed(self, data: bytes | bytearray) -> list[Frame | ProtocolError]: ...
