"""The table core: pure like the hand engine. ``table + input -> Step(table, effects, signals)``.

No clock, no I/O, deterministic: the time of an input is part of the input, so replaying
the journal's inputs gives the same table, byte for byte in ``to_json``. Driving a table::

    table = Table(TableSettings(rules=Rules(), min_buy_in=100, max_buy_in=1000))
    step = apply(table, SitDown(at=t, seat=1, player="Ann", buy_in=200))
    step.table, step.effects         # the new table and what to tell people, in order
    step.refused                     # the reason when the input was not taken, else None
    step.refusal.code                # ... and why, as data (``Refuse``, the engine's ``Illegal``)
    loaded = DeckLoaded(seq, deck_id, 52, 52)   # a device's event (``drivers.events``)
    step = step.then(FromDevice(at=t, device=DeviceKind.SHOE, seq=seq, event=loaded))  # the next
    step = step.then(NewHand(at=t))                # input, from the last step
    read = CardRead(seq, card, read_counter, uid)  # the shoe's events, as its driver has them
    step = step.then(FromDevice(at=t, device=DeviceKind.SHOE, seq=seq, event=read))
    step = step.then(Decide(at=t, seat=4, do=Do.CALL))   # a player's decision
    step.signals                     # Signals(display="DEAL: seat 3, face up", lamps=Lamps(...))
    step.table.alerts                # open alerts, each with its message and remedy
    Table.from_json(table.to_json()) == table; input_from_json(item.to_json()) == item

``apply`` never raises for a well-formed input: what cannot be taken now leaves the table
unchanged and returns one ``refused`` effect with the reason (the engine's words for a
refused decision). Effects are records (``controller.rules.Effect``): the engine's
(``controller.rules.effects``) and the table's (``controller.table.effects``, the alerts'
``Raised`` and ``Cleared``). docs/table.md describes every input, effect, alert and remedy.
"""

from controller.table.alerts import (
    ALERT_RULES,
    Alert,
    AlertFacts,
    AlertKind,
    AlertRule,
    Clearance,
    Cleared,
    Raised,
    Severity,
)
from controller.table.core import Step, apply, paused_refusal, second_needed
from controller.table.effects import Refusal, Refuse, Why
from controller.table.inputs import (
    INPUT_TYPES,
    AcknowledgeAlert,
    By,
    ChangeSeat,
    ClockStepped,
    Configure,
    CorrectCard,
    CorrectStack,
    Covered,
    DealerIn,
    Decide,
    DeviceRestarted,
    EnterCard,
    FromDevice,
    Leave,
    LinkDown,
    LinkUp,
    NewHand,
    Rebuy,
    Remedy,
    ResolveAlert,
    SignInAttack,
    SignInLocked,
    SitDown,
    SitIn,
    SitOut,
    SupervisorInput,
    TableInput,
    TableInputError,
    Tick,
    UndoDecision,
    VoidHand,
    WrongFace,
    input_from_json,
)
from controller.table.settings import Protection, Serials, SettingsError, TableSettings
from controller.table.state import (
    Lamps,
    Mode,
    Placement,
    Seat,
    Signals,
    Table,
)
from controller.table.told import device_words

__all__ = [
    "ALERT_RULES",
    "INPUT_TYPES",
    "AcknowledgeAlert",
    "Alert",
    "AlertFacts",
    "AlertKind",
    "AlertRule",
    "By",
    "ChangeSeat",
    "Clearance",
    "Cleared",
    "ClockStepped",
    "Configure",
    "CorrectCard",
    "CorrectStack",
    "Covered",
    "DealerIn",
    "Decide",
    "DeviceRestarted",
    "EnterCard",
    "FromDevice",
    "Lamps",
    "Leave",
    "LinkDown",
    "LinkUp",
    "Mode",
    "NewHand",
    "Placement",
    "Protection",
    "Raised",
    "Rebuy",
    "Refusal",
    "Refuse",
    "Remedy",
    "ResolveAlert",
    "Seat",
    "Serials",
    "SettingsError",
    "Severity",
    "SignInAttack",
    "SignInLocked",
    "Signals",
    "SitDown",
    "SitIn",
    "SitOut",
    "Step",
    "SupervisorInput",
    "Table",
    "TableInput",
    "TableInputError",
    "TableSettings",
    "Tick",
    "UndoDecision",
    "VoidHand",
    "Why",
    "WrongFace",
    "apply",
    "device_words",
    "input_from_json",
    "paused_refusal",
    "second_needed",
]
