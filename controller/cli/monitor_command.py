"""``luck-table monitor``: watch the shoe and the seat board, journal their events.

``luck-table monitor --shoe PORT [--seats PORT] [--journal FILE] [--json]`` prints every
event as it arrives until SIGINT or SIGTERM (exit status 0); with ``--journal`` each event
is committed to the journal before the device is told it arrived. ``luck-table monitor
--journal FILE --dump [--json]`` prints what a journal holds. Exit status 2 on an error
(a bad port, a wrong device, a journal that cannot be used), with a message on stderr;
exit status 1 when another process writes the journal (the message names it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from datetime import UTC, datetime
from typing import Any

from controller.cli.common import fail
from controller.config import DevicePort
from controller.journal import Input, Journal, JournalError, JournalLocked, to_input
from controller.monitor import Monitor, Observed
from controller.records import ACCESS, TABLE
from controller.rules.cards import Card, counted, shown
from drivers.errors import DriverError
from drivers.protocol import DeviceKind

UNREADABLE = {
    "reject_tray": "rejected to the tray",
    "dealt_unread": "dealt unread (it is on the table)",
}


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "monitor",
        help=summary,
        description="Open the shoe and the seat board, print every event as it arrives "
        "and, with --journal, write each one to the journal before acknowledging it to the "
        "device. Runs until interrupted. With --dump, print what a journal holds.",
    )
    parser.add_argument("--shoe", metavar="PORT", help="the shoe's port: a path, socket://, usb://")
    parser.add_argument("--seats", metavar="PORT", help="the seat board's port")
    parser.add_argument("--journal", metavar="FILE", help="the journal (SQLite), created if absent")
    parser.add_argument("--dump", action="store_true", help="print what the journal holds")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.set_defaults(handler=handler)


def handler(args: argparse.Namespace) -> int:
    try:
        if args.dump:
            return _dump(args)
        return _monitor(args)
    except JournalLocked as error:  # not a usage error: that process may stop
        return fail("monitor", str(error), status=1)
    except (DriverError, JournalError) as error:
        return _error(str(error))


def _dump(args: argparse.Namespace) -> int:
    if args.journal is None:
        return _error("--dump needs --journal FILE")
    if args.shoe or args.seats:
        return _error("give --dump or devices to watch, not both")
    with Journal.open(args.journal, create=False) as journal:
        for entry in journal.entries():
            item = Input(
                entry.recorded_at, entry.source, entry.type, entry.fields, entry.device, entry.seq
            )
            _print(_line(item, entry.position, False, args.json))
    return 0


def _monitor(args: argparse.Namespace) -> int:
    devices = [
        (device, DevicePort(url))
        for device, url in ((DeviceKind.SHOE, args.shoe), (DeviceKind.SEAT_BOARD, args.seats))
        if url is not None
    ]
    if not devices:
        return _error("give --shoe PORT, --seats PORT or both (or --journal FILE --dump)")
    journal = None if args.journal is None else Journal.open(args.journal)
    try:
        asyncio.run(_watch(devices, journal, args.json))
    finally:
        if journal is not None:
            journal.close()
    return 0


async def _watch(
    devices: list[tuple[DeviceKind, DevicePort]], journal: Journal | None, as_json: bool
) -> None:
    def report(seen: Observed) -> None:
        item = to_input(seen.event, seen.device, seen.received_at)
        _print(_line(item, seen.position, seen.duplicate, as_json))

    monitor = Monitor(devices, report, _notice, journal)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, monitor.stop)
    await monitor.run()


def _line(item: Input, position: int | None, duplicate: bool, as_json: bool) -> str:
    """One entry, as text or JSON; ``position``: where it was journaled (None: not). A
    device's event names the device; any other entry (a table input, a refused sign-in or
    PIN) its source."""
    device = item.device
    if as_json:
        return json.dumps(
            {
                "time": _time(item.recorded_at),
                "source": item.source,
                "type": item.type,
                "device": None if device is None else device.kind,
                "serial": None if device is None else device.serial,
                "boot_id": None if device is None else device.boot_id,
                "seq": item.seq,
                "fields": item.fields,
                "position": position,
                "duplicate": duplicate,
            }
        )
    if device is None:
        where = item.source
    else:
        where = f"{device.kind} {device.serial} boot {device.boot_id}"
    if item.seq is not None:
        where += f" seq {item.seq}"
    if duplicate:
        where += " (already in the journal)"
    elif position is not None:
        where += f" #{position}"
    return f"{_time(item.recorded_at)} {where}: {_describe(item)}"


def _describe(item: Input) -> str:
    if item.source == ACCESS and item.type == "failed_attempt":
        return _refused(item.fields)
    if item.source == TABLE:  # the table core's input: its type, then its own fields
        own = {k: v for k, v in item.fields.items() if k not in ("type", "at")}
        return f"{item.type} {json.dumps(own)}"
    return _describe_event(item.type, item.fields)


def _refused(fields: dict[str, Any]) -> str:
    """A refused credential: who tried, as what, for what, from where, and why."""
    action = fields.get("action", "?")
    what = "signing in" if action == "sign_in" else f"PIN for {action}"
    by = f" (asked by {shown(fields['by'])})" if "by" in fields else ""
    who = shown(fields.get("who"))
    via = f" via {fields['peer']}" if "peer" in fields else ""  # a trusted proxy
    return (
        f"refused: {fields.get('role', '?')} {who} {what}{by} from "
        f"{fields.get('client', '?')}{via}: "
        f"{fields.get('reason', '?')} (status {fields.get('status', '?')})"
    )


def _describe_event(kind: str, fields: dict[str, Any]) -> str:
    match kind:
        case "CardRead":
            uid = f", uid {fields['uid']}" if fields["uid"] else ""
            return f"card {Card(fields['card'])} (read counter {fields['read_counter']}{uid})"
        case "CardUnreadable":
            return (
                f"unreadable card, {UNREADABLE.get(fields['disposition'], fields['disposition'])}"
                f" (read counter {fields['read_counter']})"
            )
        case "DeckCard":
            uid = f", uid {fields['uid']}" if fields["uid"] else ""
            return (
                f"deck {fields['deck_id']} registers card {fields['index'] + 1}: "
                f"{Card(fields['card'])}{uid}"
            )
        case "DeckLoaded":
            registered = ", registered card by card" if fields.get("registered") else ""
            return (
                f"deck {fields['deck_id']} loaded: {counted(fields['cards_loaded'], 'card')}, "
                f"{fields['cards_remaining']} in the shoe{registered}"
            )
        case "DeviceFault":
            return f"fault: {fields['code'].replace('_', ' ')}"
        case "DeviceFaultCleared":
            return f"fault cleared: {fields['code'].replace('_', ' ')}"
        case "SeatOccupied":
            return f"seat {fields['seat']} occupied"
        case "SeatVacated":
            return f"seat {fields['seat']} vacated"
        case "CardAtSeat" if fields["card"] is None:
            return f"a card at seat {fields['seat']} (its reader did not know it)"
        case "CardAtSeat":
            uid = f", uid {fields['uid']}" if fields.get("uid") else ""
            return f"card {Card(fields['card'])} at seat {fields['seat']}{uid}"
        case "LinkUp":
            return f"link up: {fields['reason']}"
        case "LinkDown":
            return f"link down ({fields['reason']}): {fields['detail']}"
    return f"{kind} {json.dumps(fields)}"


def _time(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _print(line: str) -> None:
    print(line, flush=True)


def _notice(message: str) -> None:
    print(f"luck-table monitor: {message}", file=sys.stderr, flush=True)


def _error(message: str) -> int:
    return fail("monitor", message)
