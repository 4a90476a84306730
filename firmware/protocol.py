"""The shoe's wire protocol, specified once and imported by both ends (MicroPython on the Pico, CPython on the Pi).

Written for MicroPython too: bytes/bytearray and ints only; no annotations, dataclasses, typing, struct or
``int.to_bytes``. PROTOCOL.md is the human-readable version of this file; a test checks its example frames.

On the wire a frame is ``00 | COBS(body) | 00``; the body is::

    LEN  SEQ  TYPE  PAYLOAD[LEN]  CRC_HI  CRC_LO

LEN is the payload's length (0..MAX_PAYLOAD); SEQ counts each sender's frames modulo 256; the CRC is
CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no final xor) over LEN..PAYLOAD, big-endian.
COBS removes every 0x00 from the body, so 0x00 only ever delimits frames: a receiver that lost its place in the
byte stream is back in step at the next 0x00, and the leading 0x00 cuts any noise off the front of a frame.
Integers in payloads are unsigned and big-endian.
"""

PROTOCOL_VERSION = 1

DELIMITER = 0x00
HEADER_SIZE = 3  # LEN, SEQ, TYPE
CRC_SIZE = 2
MAX_PAYLOAD = 64
MAX_BODY = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
# COBS adds one byte per 254 bytes (and one at the start): anything longer between two delimiters is not a frame
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1

CRC_POLY = 0x1021
CRC_INIT = 0xFFFF

# Message types. Shoe -> host: 0x01..0x7F; host -> shoe: 0x80..0xFF.
CARD_DRAWN = 0x01
CUT_CARD_SEEN = 0x02
SHOE_STATUS = 0x03
HEARTBEAT = 0x04
ERROR = 0x05
STATUS_REQUEST = 0x81
RESET_COUNT = 0x82

# Each message's name and payload layout: (field, size in bytes), unsigned big-endian. The one specification that
# pack() and unpack() (and PROTOCOL.md) follow. A receiver ignores trailing bytes past the fields it knows (room
# for later versions to append fields); a payload shorter than its layout is rejected.
MESSAGES = {
    CARD_DRAWN: ("card_drawn", (("count", 2), ("duration_ms", 2), ("uptime_ms", 4))),
    CUT_CARD_SEEN: ("cut_card_seen", (("count", 2), ("uptime_ms", 4))),
    SHOE_STATUS: ("status", (
        ("reason", 1), ("request_seq", 1), ("count", 2), ("flags", 1), ("uptime_ms", 4),
        ("protocol", 1), ("fw_major", 1), ("fw_minor", 1), ("fw_patch", 1), ("reset_cause", 1),
        ("glitches", 2), ("blockages", 2), ("bad_frames", 2), ("lost_edges", 2), ("tx_errors", 2),
    )),
    HEARTBEAT: ("heartbeat", (("uptime_ms", 4), ("count", 2), ("flags", 1))),
    ERROR: ("error", (("code", 1), ("detail", 4))),
    STATUS_REQUEST: ("status_request", ()),
    RESET_COUNT: ("reset_count", ()),
}

# SHOE_STATUS.flags and HEARTBEAT.flags
FLAG_CUT_CARD_SEEN = 0x01
FLAG_BEAM_BLOCKED = 0x02

# SHOE_STATUS.reason: why the status was sent
STATUS_REQUESTED = 0  # answer to STATUS_REQUEST (request_seq = that request's SEQ)
STATUS_BOOT = 1  # sent once at start-up; the shoe's SEQ restarts at 0 with it
STATUS_RESET = 2  # answer to RESET_COUNT, after the reset (request_seq = that request's SEQ)
STATUS_REASONS = {STATUS_REQUESTED: "request", STATUS_BOOT: "boot", STATUS_RESET: "reset"}

# SHOE_STATUS.reset_cause: why the Pico last started
RESET_UNKNOWN = 0
RESET_POWER_ON = 1
RESET_WATCHDOG = 2
RESET_OTHER = 3
RESET_CAUSES = {RESET_UNKNOWN: "unknown", RESET_POWER_ON: "power_on", RESET_WATCHDOG: "watchdog",
                RESET_OTHER: "other"}

# ERROR.code, and what ERROR.detail holds for each
ERR_BEAM_BLOCKED = 1  # detail: ms the beam has been broken (sent once, when it passes the longest plausible card)
ERR_BEAM_CLEARED = 2  # detail: ms the beam was broken in all (the blockage ended; no card was counted)
ERR_BAD_FRAME = 3  # detail: FRAME_* reason of a frame from the host that the shoe dropped
ERR_UNKNOWN_TYPE = 4  # detail: the TYPE byte of a well-formed frame the shoe does not know
ERR_WATCHDOG_RESET = 5  # detail: 0; sent once after boot when the watchdog restarted the shoe
ERR_LOST_EDGES = 6  # detail: sensor edges dropped because the interrupt queue was full
ERRORS = {ERR_BEAM_BLOCKED: "beam_blocked", ERR_BEAM_CLEARED: "beam_cleared", ERR_BAD_FRAME: "bad_frame",
          ERR_UNKNOWN_TYPE: "unknown_type", ERR_WATCHDOG_RESET: "watchdog_reset", ERR_LOST_EDGES: "lost_edges"}

# Why a receiver dropped a chunk of bytes (ProtocolError.reason, and ERR_BAD_FRAME's detail as a number)
FRAME_COBS = 1  # not valid COBS
FRAME_SHORT = 2  # shorter than LEN + SEQ + TYPE + CRC
FRAME_LENGTH = 3  # LEN disagrees with the body's length
FRAME_CRC = 4  # CRC mismatch
FRAME_TOO_LONG = 5  # more than MAX_ENCODED bytes without a delimiter
FRAME_UNKNOWN_TYPE = 6  # well-formed, but TYPE is not in MESSAGES
FRAME_BAD_PAYLOAD = 7  # well-formed, but the payload is shorter than the type's layout
FRAME_ERRORS = {FRAME_COBS: "cobs", FRAME_SHORT: "short", FRAME_LENGTH: "length", FRAME_CRC: "crc",
                FRAME_TOO_LONG: "too_long", FRAME_UNKNOWN_TYPE: "unknown_type", FRAME_BAD_PAYLOAD: "bad_payload"}


class ProtocolError(ValueError):
    """Bytes that are not a valid frame or message. ``code`` is a FRAME_* number, ``reason`` its name."""

    def __init__(self, code, size=0):
        super().__init__(FRAME_ERRORS.get(code, "unknown"))
        self.code = code
        self.reason = FRAME_ERRORS.get(code, "unknown")
        self.size = size  # bytes dropped


class Frame:
    """One decoded frame: its sequence number, message type and raw payload."""

    def __init__(self, seq, msg_type, payload):
        self.seq = seq
        self.type = msg_type
        self.payload = payload

    def __eq__(self, other):
        return (isinstance(other, Frame) and self.seq == other.seq and self.type == other.type
                and self.payload == other.payload)

    def __repr__(self):
        return f"Frame(seq={self.seq}, type=0x{self.type:02x}, payload={self.payload!r})"

    def name(self):
        entry = MESSAGES.get(self.type)
        return entry[0] if entry else None

    def fields(self):
        """The payload as a dict of field -> int (raises ProtocolError for an unknown type or a short payload)."""
        return unpack(self.type, self.payload)


def _crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ CRC_POLY) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data, crc=CRC_INIT):
    """CRC-16/CCITT-FALSE of ``data`` (check value: crc16(b"123456789") == 0x29B1)."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the same bytes with no 0x00 in them, one byte longer (per 254)."""
    out = bytearray(1)
    code_at = 0
    code = 1
    full = False
    for byte in data:
        full = False
        if byte:
            out.append(byte)
            code += 1
            if code < 0xFF:
                continue
            full = True
        out[code_at] = code
        code_at = len(out)
        out.append(0)
        code = 1
    if full:
        return bytes(out[:code_at])  # data ended with a full block: no empty block after it
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Inverse of cobs_encode; raises ProtocolError(FRAME_COBS) on anything cobs_encode cannot have produced."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            raise ProtocolError(FRAME_COBS, n)
        for j in range(i + 1, end):
            if data[j] == 0:
                raise ProtocolError(FRAME_COBS, n)
            out.append(data[j])
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def _put(out, value, size, name):
    if value < 0 or value >> (8 * size):
        raise ValueError(f"{name} = {value} does not fit in {size} byte(s)")
    for shift in range((size - 1) * 8, -8, -8):
        out.append((value >> shift) & 0xFF)


def pack(msg_type, *values):
    """The payload of a message of ``msg_type`` with its fields' ``values`` in layout order."""
    entry = MESSAGES.get(msg_type)
    if entry is None:
        raise ValueError(f"unknown message type 0x{msg_type:02x}")
    layout = entry[1]
    if len(values) != len(layout):
        raise ValueError(f"{entry[0]} takes {len(layout)} field(s), got {len(values)}")
    out = bytearray()
    for i in range(len(layout)):
        _put(out, values[i], layout[i][1], layout[i][0])
    return bytes(out)


def unpack(msg_type, payload):
    """A message's payload as a dict of field -> int; trailing bytes past the layout are ignored."""
    entry = MESSAGES.get(msg_type)
    if entry is None:
        raise ProtocolError(FRAME_UNKNOWN_TYPE, len(payload))
    fields = {}
    i = 0
    for name, size in entry[1]:
        if i + size > len(payload):
            raise ProtocolError(FRAME_BAD_PAYLOAD, len(payload))
        value = 0
        for j in range(i, i + size):
            value = (value << 8) | payload[j]
        fields[name] = value
        i += size
    return fields


def encode_frame(seq, msg_type, payload=b""):
    """The bytes to put on the wire for one frame, delimiters included."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytearray((len(payload), seq & 0xFF, msg_type & 0xFF))
    body.extend(payload)
    crc = crc16(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    return b"\x00" + cobs_encode(body) + b"\x00"


def encode_message(seq, msg_type, *values):
    """encode_frame of pack(msg_type, *values)."""
    return encode_frame(seq, msg_type, pack(msg_type, *values))


def decode_frame(chunk):
    """The Frame in ``chunk`` (the bytes between two delimiters); raises ProtocolError if it is not one."""
    if len(chunk) > MAX_ENCODED:
        raise ProtocolError(FRAME_TOO_LONG, len(chunk))
    body = cobs_decode(chunk)
    if len(body) < HEADER_SIZE + CRC_SIZE:
        raise ProtocolError(FRAME_SHORT, len(chunk))
    if body[0] != len(body) - HEADER_SIZE - CRC_SIZE:
        raise ProtocolError(FRAME_LENGTH, len(chunk))
    end = len(body) - CRC_SIZE
    if crc16(body[:end]) != (body[end] << 8) | body[end + 1]:
        raise ProtocolError(FRAME_CRC, len(chunk))
    return Frame(body[1], body[2], bytes(body[HEADER_SIZE:end]))


class Decoder:
    """Splits a byte stream into frames. ``feed(data)`` returns, in order, a Frame for each good frame and a
    ProtocolError (returned, not raised) for each chunk of bytes dropped. Empty chunks (00 00) are not reported.
    Never holds more than MAX_ENCODED bytes: a longer run without a delimiter is reported once as FRAME_TOO_LONG
    and skipped up to the next delimiter."""

    def __init__(self):
        self._buf = bytearray()
        self._skipping = False

    def reset(self):
        """Forget a partial frame (after a reconnection, say)."""
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data):
        results = []
        buf = self._buf
        for byte in data:
            if byte == DELIMITER:
                if self._skipping:
                    self._skipping = False
                elif buf:
                    try:
                        results.append(decode_frame(buf))
                    except ProtocolError as error:
                        results.append(error)
                    buf = bytearray()
            elif self._skipping:
                continue
            elif len(buf) >= MAX_ENCODED:
                results.append(ProtocolError(FRAME_TOO_LONG, len(buf) + 1))
                buf = bytearray()
                self._skipping = True
            else:
                buf.append(byte)
        self._buf = buf
        return results
