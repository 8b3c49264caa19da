"""Device events as the table core takes them (``FromDevice``), made for tests by their
table form: ``card_read(at=1, code=5)`` is the input of the record ``{"type": "card_read",
"at": 1, "code": 5}``, read as the table reads its own records
(``controller.table.input_from_json``). What a device says beside what the table acts on
(a read counter, a deck card's index) is then 0, and ``seq`` None (not known) unless
given: the input a test makes is the one its table form reads back as.
"""

from __future__ import annotations

from typing import Any

from controller.table import FromDevice, input_from_json
from controller.table.inputs import CODEC


def device_input(tag: str, **fields: Any) -> FromDevice:
    """The device's input of the table form ``tag`` with ``fields`` (Python values)."""
    item = input_from_json({"type": tag, **{k: CODEC.encode(v) for k, v in fields.items()}})
    assert isinstance(item, FromDevice), tag
    return item


def card_read(**fields: Any) -> FromDevice:
    """The shoe read a card: ``at``, ``code``, ``uid`` (hex), ``seq``."""
    return device_input("card_read", **fields)


def card_unreadable(**fields: Any) -> FromDevice:
    """A card left the shoe unread: ``at``, ``disposition``, ``seq``."""
    return device_input("card_unreadable", **fields)


def card_at_seat(**fields: Any) -> FromDevice:
    """The seat board saw a card at a seat: ``at``, ``seat``, ``code``, ``uid``, ``seq``."""
    return device_input("card_at_seat", **fields)


def seat_occupied(**fields: Any) -> FromDevice:
    return device_input("seat_occupied", **fields)


def seat_vacated(**fields: Any) -> FromDevice:
    return device_input("seat_vacated", **fields)


def deck_card(**fields: Any) -> FromDevice:
    """One card of a deck's registration: ``at``, ``deck``, ``code``, ``uid``, ``seq``."""
    return device_input("deck_card", **fields)


def deck_loaded(**fields: Any) -> FromDevice:
    """A deck loaded: ``at``, ``count``, ``deck`` (None: the shoe registered none), ``seq``."""
    return device_input("deck_loaded", **fields)


def device_fault(**fields: Any) -> FromDevice:
    """A fault began: ``at``, ``device``, ``fault``, ``seq``."""
    return device_input("device_fault", **fields)


def device_fault_cleared(**fields: Any) -> FromDevice:
    return device_input("device_fault_cleared", **fields)
