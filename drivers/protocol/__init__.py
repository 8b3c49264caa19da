"""The table-hardware wire protocol (versions 1 and 2): the executable form of docs/protocol.md.

Imports nothing else of the project; the firmware simulator and the host
drivers both build on it.

Messages are frozen dataclasses (``drivers.protocol.messages``), validated on
construction (``MessageError``, a ``ValueError``, names the message and field):

- device to host, sequenced events (``SEQUENCED = True``): ``CardMessage`` (CARD),
  ``Unreadable``, ``Deck``, ``DeckCardMessage`` (DECK_CARD, version 2 on), ``Fault``,
  ``FaultCleared``, ``SeatOccupied``, ``SeatCard`` (its tag UID from version 2 on);
- device to host, not sequenced: ``Hello`` (on every connection; carries
  ``protocol_version``, ``device_kind``, ``boot_id``, ``next_seq``/``pending``),
  ``Status`` (heartbeat and answer);
- host to device, not sequenced: ``Ack``, ``Resend``, ``Reset``,
  ``StatusRequest`` (also the host heartbeat), ``Indicator``.

Encoding and decoding (``drivers.protocol.codec``)::

    data = encode_frame(seq, message)      # bytes incl. the 0x00 delimiter;
                                           # seq must be 0 for unsequenced messages;
                                           # version=1 for a version 1 peer
    decoder = FrameDecoder()               # versions=(1,): a version 1 receiver
    for item in decoder.feed(chunk):       # any chunking of the byte stream
        if isinstance(item, DecodeError):  # .code (ErrorCode), .detail, .raw,
            ...                            # .version/.msg_type once the CRC matched
        else:                              # Frame(seq, message, version)
            ...
    decode_frame(one_frame_bytes)          # -> Frame, or raises FrameError(.error)

Sequence numbers are 16-bit and wrap: use ``seq_add`` and ``seq_distance``.
``to_dict``/``from_dict`` turn messages into JSON-ready data and back (vectors,
logs, the simulator's control channel).
"""

from drivers.protocol.codec import (
    DELIMITER,
    MAX_FRAME,
    MAX_PAYLOAD,
    DecodeError,
    ErrorCode,
    Frame,
    FrameDecoder,
    FrameError,
    cobs_decode,
    cobs_encode,
    crc16,
    decode_frame,
    encode_frame,
)
from drivers.protocol.messages import (
    BY_NAME,
    BY_TYPE,
    CARD_CODES,
    MESSAGE_CLASSES,
    PROTOCOL_VERSION,
    SEATS,
    SEQ_MODULUS,
    UID_MAX,
    VERSIONS,
    Ack,
    CardMessage,
    Deck,
    DeckCardMessage,
    DeviceKind,
    Disposition,
    Fault,
    FaultCleared,
    FaultCode,
    Hello,
    Indicator,
    Message,
    MessageError,
    Resend,
    Reset,
    SeatCard,
    SeatOccupied,
    Status,
    StatusRequest,
    Unreadable,
    WireEnum,
    from_dict,
    seq_add,
    seq_distance,
    tag_order,
    to_dict,
)

__all__ = [
    "BY_NAME",
    "BY_TYPE",
    "CARD_CODES",
    "DELIMITER",
    "MAX_FRAME",
    "MAX_PAYLOAD",
    "MESSAGE_CLASSES",
    "PROTOCOL_VERSION",
    "SEATS",
    "SEQ_MODULUS",
    "UID_MAX",
    "VERSIONS",
    "Ack",
    "CardMessage",
    "Deck",
    "DeckCardMessage",
    "DecodeError",
    "DeviceKind",
    "Disposition",
    "ErrorCode",
    "Fault",
    "FaultCleared",
    "FaultCode",
    "Frame",
    "FrameDecoder",
    "FrameError",
    "Hello",
    "Indicator",
    "Message",
    "MessageError",
    "Resend",
    "Reset",
    "SeatCard",
    "SeatOccupied",
    "Status",
    "StatusRequest",
    "Unreadable",
    "WireEnum",
    "cobs_decode",
    "cobs_encode",
    "crc16",
    "decode_frame",
    "encode_frame",
    "from_dict",
    "seq_add",
    "seq_distance",
    "tag_order",
    "to_dict",
]
