"""The kinds of the table core's effects: its own (``controller.table.effects``) and the
alerts' (``Raised``, ``Cleared`` in ``controller.table.alerts``); and a device as people
say it (:func:`device_words`)."""

from __future__ import annotations

from enum import StrEnum

from drivers.protocol import DeviceKind


def device_words(device: DeviceKind) -> str:
    """The device as people say it: "shoe", "seat board"."""
    return device.value.replace("_", " ")


class TableTold(StrEnum):
    """The kinds of the table's effects (the engine's are ``controller.rules.Told``)."""

    REFUSED = "refused"
    DISPLAY = "display"
    LAMPS = "lamps"
    ALERT = "alert"
    ALERT_CLEARED = "alert_cleared"
    ALERT_ACKNOWLEDGED = "alert_acknowledged"
    HAND_STARTED = "hand_started"
    DEALER_IN = "dealer_in"
    HAND_OVER = "hand_over"
    HELD_CARD = "held_card"
    REJECTED = "rejected"
    IGNORED = "ignored"
    UNREAD = "unread"
    WAITING = "waiting"
    SEAT = "seat"
    DECK = "deck"
    DECK_REGISTERED = "deck_registered"
    LINK = "link"
    RESTART = "restart"
    SIT_DOWN = "sit_down"
    SIT_OUT = "sit_out"
    SIT_IN = "sit_in"
    CASH_OUT = "cash_out"
    SEAT_CHANGE = "seat_change"
    REBUY = "rebuy"
    CONFIGURED = "configured"
    TIME_CHARGE = "time_charge"
    SUPERVISOR = "supervisor"
