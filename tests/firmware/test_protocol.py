"""The shoe's wire protocol (firmware/protocol.py): CRC, COBS, frames, the stream decoder, the message layouts,
and the example frames of firmware/PROTOCOL.md."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol
from firmware.protocol import Decoder, Frame, ProtocolError

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "firmware" / "PROTOCOL.md"

frames = st.builds(Frame, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=protocol.MAX_PAYLOAD))


def wire(frame: Frame) -> bytes:
    return protocol.encode_frame(frame.seq, frame.type, frame.payload)


def decoded(results: list) -> list[Frame]:
    return [r for r in results if isinstance(r, Frame)]


# -- CRC and COBS


def test_crc16_ccitt_false_check_value():
    assert protocol.crc16(b"123456789") == 0x29B1
    assert protocol.crc16(b"") == 0xFFFF
    assert protocol.crc16(b"6789", protocol.crc16(b"12345")) == 0x29B1


@pytest.mark.parametrize(("raw", "encoded"), [
    (b"", b"\x01"),
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
    (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255))),
    (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
])
def test_cobs_reference_vectors(raw, encoded):
    assert protocol.cobs_encode(raw) == encoded
    assert protocol.cobs_decode(encoded) == raw


@settings(deadline=None)
@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data):
    encoded = protocol.cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + 1 + len(data) // 254
    assert protocol.cobs_decode(encoded) == data


@pytest.mark.parametrize("bad", [b"\x05\x11\x22", b"\x00", b"\x03\x11\x00"])
def test_cobs_decode_refuses_what_encode_cannot_produce(bad):
    with pytest.raises(ProtocolError) as caught:
        protocol.cobs_decode(bad)
    assert caught.value.reason == "cobs"


# -- frames


@settings(deadline=None)
@given(frames)
def test_frame_round_trip(frame):
    encoded = wire(frame)
    assert encoded[0] == 0 and encoded[-1] == 0 and 0 not in encoded[1:-1]
    assert protocol.decode_frame(encoded[1:-1]) == frame
    assert len(encoded) - 2 <= protocol.MAX_ENCODED


def test_sequence_numbers_wrap_in_one_byte():
    assert protocol.decode_frame(protocol.encode_frame(256 + 3, protocol.HEARTBEAT, b"")[1:-1]).seq == 3


def _reencode(body: bytes | bytearray) -> bytes:
    return protocol.cobs_encode(bytes(body))


@pytest.mark.parametrize(("damage", "reason"), [
    (lambda body: body[:-1] + bytes([body[-1] ^ 0x40]), "crc"),
    (lambda body: body[:3] + bytes([body[3] ^ 0x01]) + body[4:], "crc"),
    (lambda body: bytes([body[0] + 1]) + body[1:], "length"),
    (lambda body: body[:4], "short"),
])
def test_damaged_frames_are_refused_with_the_reason(damage, reason):
    body = protocol.cobs_decode(protocol.encode_message(5, protocol.CARD_DRAWN, 1, 50, 1234)[1:-1])
    with pytest.raises(ProtocolError) as caught:
        protocol.decode_frame(_reencode(damage(body)))
    assert caught.value.reason == reason


@settings(deadline=None)
@given(frames, st.integers(0, 200), st.integers(0, 7))
def test_any_single_bit_flip_is_caught(frame, byte_index, bit):
    body = bytearray(protocol.cobs_decode(wire(frame)[1:-1]))
    body[byte_index % len(body)] ^= 1 << bit
    with pytest.raises(ProtocolError):
        protocol.decode_frame(_reencode(body))


def test_payload_too_long_is_refused_when_encoding():
    with pytest.raises(ValueError, match="exceeds"):
        protocol.encode_frame(0, protocol.HEARTBEAT, bytes(protocol.MAX_PAYLOAD + 1))


# -- the stream decoder


def test_decoder_resynchronises_after_garbage_and_partial_frames():
    good = [protocol.encode_message(i, protocol.HEARTBEAT, 1000 * i, i, 0) for i in range(3)]
    stream = b"REPL banner >>> " + good[0] + good[1][:6] + good[2] + b"\x00\x00\x00"
    results = Decoder().feed(stream)
    assert [r.seq for r in decoded(results)] == [0, 2]
    assert [r.reason for r in results if isinstance(r, ProtocolError)] == ["cobs", "short"]


def test_decoder_never_buffers_more_than_a_frame():
    decoder = Decoder()
    flood = bytes(random.Random(3).randrange(1, 256) for _ in range(5000))
    results = decoder.feed(flood)
    assert [r.reason for r in results] == ["too_long"]
    assert len(decoder._buf) <= protocol.MAX_ENCODED
    frame = protocol.encode_message(1, protocol.CUT_CARD_SEEN, 30, 99)
    assert decoded(decoder.feed(flood + frame)) == [protocol.decode_frame(frame[1:-1])]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=300), frames), max_size=12), st.binary(max_size=300),
       st.lists(st.integers(1, 64), min_size=1, max_size=8))
def test_every_frame_between_noise_is_decoded_in_order_however_the_bytes_are_split(pairs, tail, cuts):
    stream = b"".join(noise + wire(frame) for noise, frame in pairs) + tail
    decoder = Decoder()
    results = []
    i = 0
    for n in cuts * (len(stream) // sum(cuts) + 1):
        results += decoder.feed(stream[i:i + n])
        i += n
    got = iter(decoded(results))
    # every frame comes out, in order (noise could in principle hold a valid frame of its own: allowed, not needed)
    assert all(any(g == frame for g in got) for _, frame in pairs)
    assert all(isinstance(r, Frame | ProtocolError) for r in results)


@settings(deadline=None)
@given(st.binary(max_size=2000))
def test_the_decoder_takes_any_bytes(data):
    for result in Decoder().feed(data):
        assert isinstance(result, Frame | ProtocolError)


# -- message layouts


def _sample(msg_type):
    return [(1 << (8 * size)) - 1 - i for i, (_, size) in enumerate(protocol.MESSAGES[msg_type][1])]


@pytest.mark.parametrize("msg_type", sorted(protocol.MESSAGES))
def test_every_message_packs_and_unpacks(msg_type):
    name, layout = protocol.MESSAGES[msg_type]
    values = _sample(msg_type)
    payload = protocol.pack(msg_type, *values)
    assert len(payload) == sum(size for _, size in layout) <= protocol.MAX_PAYLOAD
    assert protocol.unpack(msg_type, payload) == dict(zip([f for f, _ in layout], values, strict=True))
    assert protocol.unpack(msg_type, payload + b"\x99\x98") == protocol.unpack(msg_type, payload)  # newer sender
    frame = protocol.decode_frame(protocol.encode_message(1, msg_type, *values)[1:-1])
    assert frame.name() == name and frame.fields() == protocol.unpack(msg_type, payload)
    if layout:
        with pytest.raises(ProtocolError, match="bad_payload"):
            protocol.unpack(msg_type, payload[:-1])


def test_directions_and_field_names():
    assert all((t < 0x80) == (t not in (protocol.STATUS_REQUEST, protocol.RESET_COUNT)) for t in protocol.MESSAGES)
    assert len(protocol.pack(protocol.SHOE_STATUS, *_sample(protocol.SHOE_STATUS))) == 24
    for _, layout in protocol.MESSAGES.values():
        assert len({f for f, _ in layout}) == len(layout)


def test_pack_refuses_values_that_do_not_fit():
    with pytest.raises(ValueError, match="count = 65536"):
        protocol.pack(protocol.CARD_DRAWN, 65536, 1, 1)
    with pytest.raises(ValueError, match="does not fit"):
        protocol.pack(protocol.ERROR, -1, 0)
    with pytest.raises(ValueError, match="takes 3 field"):
        protocol.pack(protocol.CARD_DRAWN, 1, 2)
    with pytest.raises(ValueError, match="unknown message type"):
        protocol.pack(0x7F)
    with pytest.raises(ProtocolError, match="unknown_type"):
        protocol.unpack(0x7F, b"")


# -- PROTOCOL.md


def _examples():
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    found = re.findall(r"^([A-Z_]+) (seq=.*)\n  body ([0-9a-f ]+)\n  wire ([0-9a-f ]+)$", text, re.MULTILINE)
    return [(name, dict(kv.split("=") for kv in fields.split()), bytes.fromhex(body), bytes.fromhex(on_wire))
            for name, fields, body, on_wire in found]


def test_protocol_md_has_an_example_of_every_message():
    names = {name for name, *_ in _examples()}
    assert names == {"CARD_DRAWN", "CUT_CARD_SEEN", "SHOE_STATUS", "HEARTBEAT", "ERROR", "STATUS_REQUEST",
                     "RESET_COUNT"}
    assert {getattr(protocol, name) for name in names} == set(protocol.MESSAGES)


@pytest.mark.parametrize("example", _examples(), ids=lambda e: e[0])
def test_protocol_md_example_frames_are_right(example):
    name, fields, body, on_wire = example
    msg_type = getattr(protocol, name)
    values = {k: int(v) for k, v in fields.items()}
    seq = values.pop("seq")
    assert protocol.encode_message(seq, msg_type, *values.values()) == on_wire
    assert protocol.cobs_decode(on_wire[1:-1]) == body
    [frame] = Decoder().feed(on_wire)
    assert (frame.seq, frame.type, frame.fields()) == (seq, msg_type, values)
    assert protocol.crc16(body[:-2]) == int.from_bytes(body[-2:], "big")


def test_the_type_stub_names_everything_the_module_has():
    stub = ast.parse(PROTOCOL_MD.with_name("protocol.pyi").read_text(encoding="utf-8"))
    in_stub = {t.target.id for t in stub.body if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name)}
    in_stub |= {n.name for n in stub.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    public = {name for name in vars(protocol) if not name.startswith("_")}
    assert in_stub == public
