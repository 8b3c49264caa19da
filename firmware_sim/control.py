"""The control channel of a simulator running as its own process.

One command per line; one reply per line: ``ok <json>`` or ``error <code> <reason>``, the
code why as data (a :class:`~firmware_sim.device.Cannot`), the reason in words.
Arguments are words, some of them ``key=value``. Cards are codes (0..51) or
names such as ``As``, ``4c``, ``Td``. A command that fails changes nothing.
The commands are listed in ``COMMON``, ``SHOE`` and ``SEATS`` below and in
docs/simulator.md; ``help`` lists them too.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from drivers.protocol import to_dict
from firmware_sim.device import Cannot, DeviceError, SimulatedDevice
from firmware_sim.faults import FaultSettingError
from firmware_sim.seats import SimulatedSeatBoard
from firmware_sim.shoe import Cheat, SimulatedShoe
from luck_errors import LuckTableError

RANKS = "23456789TJQKA"
SUITS = "cdhs"


class ControlError(LuckTableError, ValueError):
    """A command line that cannot be understood."""


class QuitRequested(Exception):
    """The ``quit`` command: the runner stops the simulator."""


def refused(code: Cannot, reason: str) -> str:
    """The reply line of a command refused: ``error <code> <reason>``."""
    return f"error {code} {reason}"


def card_code(text: str) -> int:
    """``51``, ``As``, ``as``, ``10h`` -> a card code 0..51."""
    if text.isdigit():
        code = int(text)
        if code > 51:
            raise ControlError(f"card code {code} is outside 0..51")
        return code
    rank, suit = text[:-1].upper().replace("10", "T"), text[-1:].lower()
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS or not suit:
        raise ControlError(f"unknown card {text!r}: use a code 0..51 or a name such as As, 4c")
    return RANKS.index(rank) * 4 + SUITS.index(suit)


def card_name(code: int) -> str:
    return RANKS[code >> 2] + SUITS[code & 3]


class _Args:
    """Positional words and ``key=value`` options of one command, read with checks."""

    def __init__(self, command: str, words: list[str]) -> None:
        self.command = command
        self.positional = [w for w in words if "=" not in w]
        self.options = dict(w.split("=", 1) for w in words if "=" in w)

    def done(self, positional: int = 0, options: tuple[str, ...] = ()) -> None:
        if len(self.positional) > positional:
            raise ControlError(f"{self.command}: unexpected {self.positional[positional]!r}")
        unknown = sorted(set(self.options) - set(options))
        if unknown:
            known = ", ".join(options) or "none"
            raise ControlError(f"{self.command}: unknown option {unknown[0]!r} (options: {known})")

    def word(self, index: int, what: str) -> str:
        if index >= len(self.positional):
            raise ControlError(f"{self.command}: {what} missing")
        return self.positional[index]

    def option_number(self, key: str, default: int | None = None) -> int | None:
        text = self.options.get(key)
        return default if text is None else self.number(text, key)

    def number(self, text: str, what: str, kind: type[int] | type[float] = int) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise ControlError(f"{self.command}: {what} must be a number, not {text!r}") from None


Handler = Callable[[_Args, float], Any]


class Controller:
    """Executes control lines on one simulated device."""

    def __init__(self, device: SimulatedDevice) -> None:
        self.device = device
        self.commands: dict[str, tuple[Handler, str]] = {
            "help": (self._help, "help: list the commands"),
            "status": (self._status, "status: the device's state, counters and fault settings"),
            "settled": (
                self._settled,
                "settled [within=SECONDS]: the status once the device is connected and every "
                "event it sent is acknowledged (waiting up to SECONDS, 0 by default)",
            ),
            "set": (self._set, "set KEY=VALUE...: fault settings, e.g. set drop_rate=0.01"),
            "raise": (self._raise, "raise FAULT: a device fault begins (jam, lid_open, ...)"),
            "clear": (self._clear, "clear FAULT: a device fault ends"),
            "unplug": (self._unplug, "unplug SECONDS: pull the cable, plug it back later"),
            "restart": (
                self._restart,
                "restart [SECONDS]: power cycle (default 0.5 s off): a new boot, "
                "unacknowledged events lost",
            ),
            "quit": (self._quit, "quit: stop the simulator"),
        }
        if isinstance(device, SimulatedShoe):
            self.commands |= {
                "load": (
                    self._load,
                    "load [decks=N] [seed=S] [deck_id=ID] | load cards=As,4c,... "
                    "[cheat=foreign|retagged|cloned|missing|extra [at=N] [of=M]]: load the "
                    "shoe (a cheat tampers with the card at place N of the load; a clone "
                    "copies the card at place M)",
                ),
                "draw": (
                    self._draw,
                    "draw [unreadable] [disposition=reject_tray|dealt_unread]: pull a card",
                ),
                "unreadable_next": (
                    self._shoe(SimulatedShoe.unreadable_next),
                    "unreadable_next: the next card drawn is unreadable",
                ),
                "jam": (self._shoe(SimulatedShoe.jam), "jam: a card sticks in the exit"),
                "clear_jam": (self._shoe(SimulatedShoe.clear_jam), "clear_jam: jam cleared"),
                "open_lid": (self._shoe(SimulatedShoe.open_lid), "open_lid: the lid opens"),
                "close_lid": (self._shoe(SimulatedShoe.close_lid), "close_lid: the lid closes"),
            }
        if isinstance(device, SimulatedSeatBoard):
            self.commands |= {
                "sit": (self._sit, "sit SEAT: a player sits down"),
                "leave": (self._leave, "leave SEAT: a player leaves"),
                "place": (
                    self._place,
                    "place SEAT [CARD] [lands_at=SEAT] [uid=HEX]: a card (with its tag's UID) "
                    "is dealt to a seat",
                ),
                "switch": (
                    self._switch,
                    "switch SEAT CARD [uid=HEX]: a player switches the card at a seat for "
                    "another (by default one with a tag of another deck)",
                ),
            }

    def execute(self, line: str, now: float) -> str:
        """Run one command line at time ``now``; the reply line (without newline).

        Raises :class:`QuitRequested` for ``quit``.
        """
        try:
            words = shlex.split(line)
        except ValueError as exc:
            return refused(Cannot.BAD_COMMAND, str(exc))
        if not words:
            return refused(Cannot.BAD_COMMAND, "empty command; try help")
        entry = self.commands.get(words[0].lower())
        if entry is None:
            return refused(Cannot.BAD_COMMAND, f"unknown command {words[0]!r}; try help")
        handler, _ = entry
        try:
            result = handler(_Args(words[0].lower(), words[1:]), now)
        except ControlError as exc:
            return refused(Cannot.BAD_COMMAND, str(exc))
        except FaultSettingError as exc:
            return refused(Cannot.BAD_VALUE, str(exc))
        except DeviceError as exc:
            return refused(exc.code, str(exc))
        return "ok " + json.dumps(result, sort_keys=True)

    # --- common -----------------------------------------------------------------------

    def _help(self, args: _Args, now: float) -> Any:
        args.done()
        return [text for _, text in self.commands.values()]

    def _status(self, args: _Args, now: float) -> Any:
        args.done()
        device = self.device
        state: dict[str, Any] = {
            "kind": device.KIND.value,
            "connected": device.connected,
            "boot_id": device.boot_id,
            "stats": asdict(device.stats),
            "fault_settings": device.faults.settings(),
            **{k: v for k, v in to_dict(device.status()).items() if k != "type"},
        }
        if isinstance(device, SimulatedShoe):
            state |= {"deck_id": device.deck_id, "read_counter": device.read_counter}
        return state

    def is_settled(self) -> bool:
        """Whether the device is connected and has no event unacknowledged."""
        return self.device.connected and self.device.pending == 0

    def settle_within(self, line: str) -> float:
        """The seconds a ``settled`` line may wait for the device (0 for any other line, or
        one the command refuses)."""
        words = line.split()
        if not words or words[0].lower() != "settled":
            return 0.0
        within = _Args("settled", words[1:]).options.get("within", "0")
        try:
            return max(0.0, float(within))
        except ValueError:
            return 0.0

    def _settled(self, args: _Args, now: float) -> Any:
        args.done(options=("within",))
        within = args.number(args.options.get("within", "0"), "within", float)
        if not self.is_settled():
            pending, connected = self.device.pending, self.device.connected
            raise DeviceError(
                f"not settled within {within} s: {pending} events unacknowledged, "
                + ("connected" if connected else "not connected"),
                Cannot.NOT_SETTLED,
            )
        return self._status(_Args("status", []), now)

    def _set(self, args: _Args, now: float) -> Any:
        if args.positional or not args.options:
            raise ControlError("set: give KEY=VALUE pairs, e.g. set drop_rate=0.01 delay=0.002")
        shoe = isinstance(self.device, SimulatedShoe)
        foreign = "misplace_rate" if shoe else "unreadable_rate"
        if foreign in args.options:
            kind = self.device.KIND.value
            raise ControlError(f"set: {foreign} does not apply to a {kind}")
        values = {
            key: args.number(text, key, int if key == "seed" else float)
            for key, text in args.options.items()
        }
        self.device.faults.update(**values)
        return self.device.faults.settings()

    def _raise(self, args: _Args, now: float) -> Any:
        args.done(1)
        return to_dict(self.device.set_fault(args.word(0, "fault"), True))

    def _clear(self, args: _Args, now: float) -> Any:
        args.done(1)
        return to_dict(self.device.set_fault(args.word(0, "fault"), False))

    def _unplug(self, args: _Args, now: float) -> Any:
        args.done(1)
        seconds = args.number(args.word(0, "seconds"), "seconds", float)
        self.device.unplug(now, seconds)
        return {"reconnect_at": now + seconds}

    def _restart(self, args: _Args, now: float) -> Any:
        args.done(1)
        text = args.positional[0] if args.positional else "0.5"
        seconds = args.number(text, "seconds", float)
        lost = self.device.restart(now, seconds)
        return {"boot_id": self.device.boot_id, "lost": lost, "reconnect_at": now + seconds}

    def _quit(self, args: _Args, now: float) -> Any:
        args.done()
        raise QuitRequested

    # --- shoe -------------------------------------------------------------------------

    def _shoe_device(self) -> SimulatedShoe:
        assert isinstance(self.device, SimulatedShoe)
        return self.device

    def _shoe(self, action: Callable[[SimulatedShoe], None]) -> Handler:
        def run(args: _Args, now: float) -> Any:
            args.done()
            action(self._shoe_device())
            return {}

        return run

    def _load(self, args: _Args, now: float) -> Any:
        args.done(0, ("decks", "seed", "deck_id", "cards", "cheat", "at", "of"))
        options = args.options
        cards = None
        if "cards" in options:
            if "decks" in options:
                raise ControlError("load: give cards=... or decks=N, not both")
            cards = [card_code(t) for t in options["cards"].split(",") if t]
        shoe = self._shoe_device()
        deck = to_dict(
            shoe.load(
                cards,
                decks=args.number(options.get("decks", "1"), "decks"),
                shuffle_seed=args.number(options["seed"], "seed") if "seed" in options else None,
                deck_id=args.number(options["deck_id"], "deck_id")
                if "deck_id" in options
                else None,
                cheat=options.get("cheat"),
                at=args.option_number("at"),
                of=args.option_number("of"),
            )
        )
        if shoe.cheat is None:
            return deck
        kind, place = shoe.cheat
        card = None if kind is Cheat.MISSING else shoe.upcoming()[place]
        return deck | {"cheat": {"kind": kind.value, "at": place, "card": card}}

    def _draw(self, args: _Args, now: float) -> Any:
        unreadable = args.positional == ["unreadable"]
        args.done(1 if unreadable else 0, ("disposition",))
        draw = self._shoe_device().draw(
            unreadable=unreadable, disposition=args.options.get("disposition", "reject_tray")
        )
        tag = {"code": draw.tagged.code, "uid": draw.tagged.uid.hex()}
        return {
            "card": draw.card,
            "name": card_name(draw.card),
            "event": to_dict(draw.message),
            "tag": tag,
        }

    # --- seat board -------------------------------------------------------------------

    def _board(self) -> SimulatedSeatBoard:
        assert isinstance(self.device, SimulatedSeatBoard)
        return self.device

    def _sit(self, args: _Args, now: float) -> Any:
        args.done(1)
        return to_dict(self._board().sit(args.number(args.word(0, "seat"), "seat")))

    def _leave(self, args: _Args, now: float) -> Any:
        args.done(1)
        return to_dict(self._board().leave(args.number(args.word(0, "seat"), "seat")))

    def _place(self, args: _Args, now: float) -> Any:
        args.done(2, ("lands_at", "uid"))
        seat = args.number(args.word(0, "seat"), "seat")
        card = card_code(args.positional[1]) if len(args.positional) > 1 else None
        message = self._board().place(
            seat, card, lands_at=args.option_number("lands_at"), uid=args.options.get("uid", "")
        )
        return None if message is None else to_dict(message)

    def _switch(self, args: _Args, now: float) -> Any:
        args.done(2, ("uid",))
        seat = args.number(args.word(0, "seat"), "seat")
        card = card_code(args.word(1, "card"))
        message = self._board().switch(seat, card, args.options.get("uid"))
        return None if message is None else to_dict(message)
