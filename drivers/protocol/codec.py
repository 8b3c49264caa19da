"""Frames on the wire: COBS framing with a 0x00 delimiter, header, payload, CRC-16.

A frame body is ``version (u8) | type (u8) | seq (u16) | payload | crc (u16)``,
all big-endian, the CRC being CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF)
over header and payload. The body is COBS-encoded and followed by one 0x00.
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass
from enum import StrEnum

from drivers.protocol.messages import (
    BY_TYPE,
    PROTOCOL_VERSION,
    VERSIONS,
    Hello,
    Message,
    MessageError,
)
from luck_errors import LuckTableError

HEADER = struct.Struct(">BBH")
CRC = struct.Struct(">H")
MAX_PAYLOAD = 64
MIN_BODY = HEADER.size + CRC.size
MAX_BODY = HEADER.size + MAX_PAYLOAD + CRC.size
# COBS adds one byte per started run of 254 bytes; MAX_BODY is below 254.
MAX_FRAME = MAX_BODY + 1
DELIMITER = b"\x00"


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result contains no 0x00."""
    out = bytearray()
    for part in data.split(b"\x00"):
        full = len(part) - len(part) % 254
        for start in range(0, full, 254):
            out.append(0xFF)
            out += part[start : start + 254]
        out.append(len(part) - full + 1)
        out += part[full:]
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of :func:`cobs_encode`; ValueError for a malformed encoding."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError(f"0x00 inside the frame at offset {i}")
        end = i + code
        if end > n:
            raise ValueError(f"block at offset {i} (code {code}) runs past the end ({n} bytes)")
        out += data[i + 1 : end]
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


class ErrorCode(StrEnum):
    """Why a frame was dropped. The values are the names used in the vectors."""

    COBS = "cobs"  # malformed COBS encoding
    TOO_SHORT = "too_short"  # body shorter than header + CRC
    TOO_LONG = "too_long"  # more than MAX_FRAME bytes before a delimiter
    CRC = "crc"  # CRC mismatch: corrupted on the wire
    VERSION = "version"  # another protocol version (see DecodeError.version)
    UNKNOWN_TYPE = "unknown_type"  # a reserved or unknown message type
    LENGTH = "length"  # payload length wrong for the message type
    FIELD = "field"  # a field out of range (card 0..51, seat 1..8, enum, padding, seq 0)


@dataclass(frozen=True)
class Frame:
    """A decoded frame: its sequence number and message, and the protocol version of its
    header (the layout it was read with)."""

    seq: int
    message: Message
    version: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class DecodeError:
    """A dropped frame: what was wrong, and the raw encoded bytes (no delimiter).

    ``version`` and ``msg_type`` are set once the header could be trusted (the
    CRC matched), so a host can say "this device speaks protocol version 2".
    """

    code: ErrorCode
    detail: str
    raw: bytes
    version: int | None = None
    msg_type: int | None = None

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"


class FrameError(LuckTableError, ValueError):
    """Raised by :func:`decode_frame`; ``error`` is the :class:`DecodeError`."""

    def __init__(self, error: DecodeError) -> None:
        super().__init__(str(error))
        self.error = error


def encode_body(seq: int, message: Message, version: int = PROTOCOL_VERSION) -> bytes:
    """Header, payload and CRC, before COBS, in protocol ``version`` (its layout of the
    message). Unsequenced messages must use seq 0; a message the version does not have, or
    a field it cannot carry, is refused (ValueError).

    A ``version`` outside VERSIONS only serves to test how a host refuses a device of
    another version (the payload keeps the newest version's layout).
    """
    if not 0 <= version <= 0xFF:
        raise ValueError(f"protocol version {version} is outside 0..255")
    if version in VERSIONS and version < message.SINCE:
        raise ValueError(f"{message.NAME} does not exist in protocol version {version}")
    if isinstance(message, Hello) and message.protocol_version != version:
        raise ValueError(
            f"HELLO says protocol version {message.protocol_version} in a version {version} frame"
        )
    if not 0 <= seq <= 0xFFFF:
        raise ValueError(f"sequence number {seq} is outside 0..65535")
    if seq and not message.SEQUENCED:
        raise ValueError(f"{message.NAME} is not sequenced: its seq must be 0, not {seq}")
    layout = version if version in VERSIONS else PROTOCOL_VERSION
    head = HEADER.pack(version, message.TYPE, seq) + message.pack_payload(layout)
    return head + CRC.pack(crc16(head))


def encode_frame(seq: int, message: Message, version: int = PROTOCOL_VERSION) -> bytes:
    """The bytes to send for ``message``: COBS-encoded body plus the 0x00 delimiter."""
    return cobs_encode(encode_body(seq, message, version)) + DELIMITER


def decode_body(
    body: bytes, raw: bytes, versions: tuple[int, ...] = VERSIONS
) -> Frame | DecodeError:
    """Check and parse one COBS-decoded body; ``raw`` is what arrived on the wire.
    ``versions``: the protocol versions the receiver speaks (a version 1 device: ``(1,)``)."""
    if len(body) < MIN_BODY:
        return DecodeError(
            ErrorCode.TOO_SHORT, f"{len(body)} bytes, at least {MIN_BODY} needed", raw
        )
    (received,) = CRC.unpack_from(body, len(body) - CRC.size)
    computed = crc16(body[: -CRC.size])
    if received != computed:
        return DecodeError(
            ErrorCode.CRC, f"CRC 0x{received:04x} received, 0x{computed:04x} computed", raw
        )
    version, msg_type, seq = HEADER.unpack_from(body)
    if version not in versions:
        spoken = ", ".join(map(str, versions))
        return DecodeError(
            ErrorCode.VERSION,
            f"protocol version {version}, this receiver speaks {spoken}",
            raw,
            version,
            msg_type,
        )
    cls = BY_TYPE.get(msg_type)
    if cls is None or version < cls.SINCE:
        return DecodeError(
            ErrorCode.UNKNOWN_TYPE, f"message type 0x{msg_type:02x}", raw, version, msg_type
        )
    if seq and not cls.SEQUENCED:
        detail = f"{cls.NAME} is not sequenced but has seq {seq}"
        return DecodeError(ErrorCode.FIELD, detail, raw, version, msg_type)
    payload = body[HEADER.size : -CRC.size]
    size = cls.layout(version).size
    if len(payload) != size:
        return DecodeError(
            ErrorCode.LENGTH,
            f"{cls.NAME} payload is {size} bytes in version {version}, got {len(payload)}",
            raw,
            version,
            msg_type,
        )
    try:
        message = cls.unpack_payload(payload, version)
    except MessageError as exc:
        return DecodeError(ErrorCode.FIELD, str(exc), raw, version, msg_type)
    if isinstance(message, Hello) and message.protocol_version != version:
        detail = f"HELLO says protocol version {message.protocol_version} in a v{version} frame"
        return DecodeError(ErrorCode.FIELD, detail, raw, version, msg_type)
    return Frame(seq, message, version)


def _decode_raw(raw: bytes, versions: tuple[int, ...]) -> Frame | DecodeError:
    if len(raw) > MAX_FRAME:
        return DecodeError(ErrorCode.TOO_LONG, f"{len(raw)} bytes, at most {MAX_FRAME}", raw)
    try:
        body = cobs_decode(raw)
    except ValueError as exc:
        return DecodeError(ErrorCode.COBS, str(exc), raw)
    return decode_body(body, raw, versions)


def decode_frame(data: bytes, versions: tuple[int, ...] = VERSIONS) -> Frame:
    """Decode exactly one frame (with or without its trailing 0x00); FrameError if bad."""
    raw = data[:-1] if data.endswith(DELIMITER) else data
    result = _decode_raw(raw, versions)
    if isinstance(result, DecodeError):
        raise FrameError(result)
    return result


class FrameDecoder:
    """Incremental decoder: feed it bytes as they arrive, get frames and errors in order.

    Bytes up to each 0x00 form one frame. A bad frame yields a :class:`DecodeError`
    and is dropped whole; decoding resumes at the next 0x00. Empty frames
    (consecutive delimiters) are ignored. At most ``max_frame`` bytes are ever
    buffered: a longer run yields one TOO_LONG error and is discarded up to the
    next delimiter. ``versions``: the protocol versions the receiver speaks.
    """

    def __init__(self, max_frame: int = MAX_FRAME, versions: tuple[int, ...] = VERSIONS) -> None:
        self._max = max_frame
        self.versions = versions
        self._buffer = bytearray()
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes held of a frame not yet terminated."""
        return len(self._buffer)

    def reset(self) -> None:
        """Forget a partial frame (e.g. after reconnecting)."""
        self._buffer.clear()
        self._discarding = False

    def feed(self, data: bytes) -> list[Frame | DecodeError]:
        out: list[Frame | DecodeError] = []
        start = 0
        while True:
            end = data.find(0, start)
            self._take(data[start:] if end < 0 else data[start:end], out)
            if end < 0:
                return out
            if self._buffer:
                out.append(_decode_raw(bytes(self._buffer), self.versions))
            self._buffer.clear()
            self._discarding = False
            start = end + 1

    def _take(self, chunk: bytes, out: list[Frame | DecodeError]) -> None:
        if self._discarding or not chunk:
            return
        if len(self._buffer) + len(chunk) > self._max:
            raw = bytes(self._buffer + chunk[: self._max - len(self._buffer)])
            out.append(
                DecodeError(ErrorCode.TOO_LONG, f"no delimiter within {self._max} bytes", raw)
            )
            self._buffer.clear()
            self._discarding = True
            return
        self._buffer += chunk
