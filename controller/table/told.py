"""The kinds of the table core's effects: its own (``controller.table.effects``) and the
alerts' (``Raised``, ``Cleared`` in ``controller.table.alerts``)."""

from __future__ import annotations

from enum import StrEnum


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
    SUPERVISOR = "supervisor"
