"""PC/SC card readers as a shoe or a seat board: the asyncio side.

A :class:`PcscShoe` watches one reader at the shoe's mouth; a :class:`PcscSeats` one reader
under each seat's card spot (any seats, 1..8). Both have the public face of
``drivers.device.DeviceDriver`` that the table's intake uses (``open``, ``close``,
``next_event``, ``ready_events``, ``acknowledge``, ``device``, ``set_indicator``; the feed
of events and ``async with`` are the same base, ``drivers.feed.EventFeed``) and yield the
same typed events (``drivers.pcsc.mapping`` makes them): ``LinkUp`` once every reader
is there, ``LinkDown(connection_lost)`` when one goes or pcscd stops, ``LinkUp`` again
when they are back (the same boot: nothing was lost on the driver's side). No card is made
of a tag in a field when the driver first looks, nor of the tag that was in a reader's field
when the link went down and is there again when it is back (the card that lay there).

The readers are watched by a :class:`~drivers.pcsc.scard.Watcher` in a thread of its own;
what it sees is handed to the event loop (``call_soon_threadsafe``) and made into events
there, in order. The events are made on this host, not in a device: ``acknowledge`` only
checks that the event is this driver's; a card that passes a reader while the host is down
is not seen (docs/hardware.md).
"""

from __future__ import annotations

import abc
import asyncio
import random
from collections.abc import Iterable, Mapping
from typing import ClassVar

from drivers import events as ev
from drivers.errors import DriverError, PortNotFoundError
from drivers.feed import EventFeed
from drivers.pcsc import mapping
from drivers.pcsc.deck import TagDeck
from drivers.pcsc.scard import Arrived, Left, Present, Readers, Seen, Watcher
from drivers.protocol import DeviceKind, seq_add, seq_distance
from drivers.session import LinkConfig

#: The protocol version the events are made as (version 2: a shoe registers its decks,
#: seats read tag UIDs).
PROTOCOL_VERSION = 2
#: No firmware: the readers' own firmware is pcscd's business.
NO_FIRMWARE = (0, 0, 0)


class PcscDevice(EventFeed):
    """Readers by key (``patterns``: key -> a regular expression searched in the reader
    names pcscd gives) making one device's events. Use as ``async with``, iterate."""

    KIND: ClassVar[DeviceKind]

    def __init__(
        self, patterns: Mapping[str, str], deck: TagDeck, config: LinkConfig | None = None
    ) -> None:
        super().__init__()
        if not patterns:
            raise DriverError(f"a PC/SC {self.KIND.value} needs at least one reader")
        self.patterns = dict(patterns)
        self.deck = deck
        self.config = config or LinkConfig()
        self.port = "pcsc:" + ",".join(f"{key}={pattern}" for key, pattern in self.patterns.items())
        self._boot_id = random.getrandbits(32)
        self._seq = 0
        self._watcher: Watcher | None = None
        self._found: Mapping[str, str] = {}
        self._detail = "not opened"
        self._info: ev.DeviceInfo | None = None
        self._origin: ev.Origin | None = None
        self._up = False
        self._opened = asyncio.Event()
        self._closed = False
        #: Device events made since the driver opened, and the sequence number after the
        #: last one acknowledged.
        self.made = 0
        self._acked_next = 0
        #: The lamps the table asked for (a reader shows none): bonus, seats.
        self.lamps: tuple[bool, frozenset[int]] = (False, frozenset())
        #: The tag in each reader's field now, by key (None: one was there when the driver
        #: first looked, or it did not answer).
        self._holding: dict[str, bytes | None] = {}
        #: The tags in the fields when the link went down: the same tag in the same field
        #: when it is back is the card that lay there all along, not a new one.
        self._lay: dict[str, bytes | None] = {}

    # --- the driver's face ----------------------------------------------------------------

    @property
    def link_up(self) -> bool:
        return self._up

    @property
    def device(self) -> ev.DeviceInfo | None:
        """The readers as the last LinkUp named them."""
        return self._info

    @property
    def held(self) -> set[str]:
        """The keys whose reader's field holds a tag now."""
        return set(self._holding)

    @property
    def pending(self) -> int:
        """Device events made and not yet acknowledged."""
        return seq_distance(self._acked_next, self._seq)

    @property
    def readers(self) -> Mapping[str, str]:
        """The reader of each key, as pcscd names it now (those found)."""
        return dict(self._found)

    async def open(self) -> None:
        """Start watching; returns once every reader is there (LinkUp is the first event).
        Raises PcscUnavailable (no pyscard), PortNotFoundError (a reader is missing, or
        pcscd does not answer, after the link's handshake timeout)."""
        if self._loop is not None:
            raise DriverError(f"{self.port} is already open")
        self._loop = asyncio.get_running_loop()
        self._watcher = Watcher(self.patterns, self._from_thread, retry=self.config.backoff_initial)
        self._watcher.start()
        try:
            await asyncio.wait_for(self._opened.wait(), self.config.handshake_timeout)
        except TimeoutError:
            detail = self._detail
            await self.close()
            raise PortNotFoundError(f"{self.port}: {detail}") from None

    async def close(self) -> None:
        """Stop watching; the iterator ends after a LinkDown(closed)."""
        if self._closed:
            return
        self._closed = True
        if self._watcher is not None:
            await asyncio.to_thread(self._watcher.stop)
        if self._up:
            self._up = False
            self._deliver(ev.LinkDown(ev.LinkDownReason.CLOSED, "closed by the host"))
        self._end()

    def acknowledge(self, event: ev.DeviceEvent) -> None:
        """``event`` is durable. The readers hold nothing to forget: this checks only that
        the event is this driver's (raises DriverError otherwise)."""
        origin = event.origin
        if origin is None or origin.owner is not self:
            raise DriverError(f"{self.port}: cannot acknowledge {event!r}: not this driver's")
        after = seq_add(event.seq)
        if seq_distance(self._acked_next, after) > 0:
            self._acked_next = after

    def set_indicator(self, bonus_lamp: bool = False, seat_lamps: Iterable[int] = ()) -> None:
        """A reader has no lamps: the console shows the bonus card and the seats. Kept, for
        the device status."""
        self.lamps = (bonus_lamp, frozenset(seat_lamps))

    # --- inside ---------------------------------------------------------------------------

    def _from_thread(self, seen: Seen) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._seen, seen)

    def _seen(self, seen: Seen) -> None:
        if self._closed:
            return
        match seen:
            case Readers():
                self._readers(seen)
            case Present(key=key):
                self._holding[key] = None
            case Left(key=key):
                self._holding.pop(key, None)
            case Arrived(key=key, uid=uid):
                self._holding[key] = uid
                lay = self._lay.pop(key, None)
                if uid is not None and uid == lay:
                    return  # it lay in the field while the reader was away
                if self._up and self._origin is not None:
                    for event in self._tag(key, uid, self._origin):
                        self._deliver(event)

    def _readers(self, seen: Readers) -> None:
        everyone = seen.service and len(seen.found) == len(self.patterns)
        self._detail = seen.detail or ("" if seen.service else "pcscd is not running")
        if everyone and self._up and dict(seen.found) == dict(self._found):
            return
        if self._up:  # one went, or another reader now matches: down, then up as it is
            self._up = False
            why = self._detail or "the readers changed"
            self._deliver(ev.LinkDown(ev.LinkDownReason.CONNECTION_LOST, why))
            self._lay_down()  # a reader replaced at once too: its tags lay there
        self._found = dict(seen.found)
        if not everyone:
            self._lay_down()
            return
        first = self._info is None
        self._info = ev.DeviceInfo(
            kind=self.KIND,
            serial=", ".join(self._found[key] for key in self.patterns),
            boot_id=self._boot_id,
            port=self.port,
            firmware=NO_FIRMWARE,
            protocol_version=PROTOCOL_VERSION,
        )
        self._origin = ev.Origin(self, self._info.id)
        self._up = True
        reason = "readers found" if first else "readers back"
        self._deliver(
            ev.LinkUp(self._info, f"{reason}: {self._info.serial}", next_seq=self._seq, pending=0)
        )
        self._opened.set()

    def _lay_down(self) -> None:
        """The link is down: the tags in the fields now lay there (the same tag in the
        same key's field when the link is back, whichever reader that is, is no new card)."""
        self._lay.update({key: uid for key, uid in self._holding.items() if uid})
        self._holding.clear()

    @abc.abstractmethod
    def _tag(self, key: str, uid: bytes | None, origin: ev.Origin) -> list[ev.DeviceEvent]:
        """The events of a tag that came into the field of ``key``'s reader."""

    def _numbered(self, events: list[ev.DeviceEvent]) -> list[ev.DeviceEvent]:
        self._seq = seq_add(self._seq, len(events))
        self.made += len(events)
        return events


class PcscShoe(PcscDevice):
    """A reader at the shoe's mouth (key ``shoe``): each tag that comes into its field is
    the next card out; the deck's cut card says the deck is loaded."""

    KIND = DeviceKind.SHOE
    KEY = "shoe"

    def __init__(self, reader: str, deck: TagDeck, config: LinkConfig | None = None) -> None:
        super().__init__({self.KEY: reader}, deck, config)
        #: Cards read since the driver opened (a reader has no read counter of its own).
        self.reads = 0

    def _tag(self, key: str, uid: bytes | None, origin: ev.Origin) -> list[ev.DeviceEvent]:
        if uid is not None and uid == self.deck.cut:
            return self._numbered(mapping.deck_loaded(self._seq, origin, self.deck))
        self.reads += 1
        return self._numbered(mapping.shoe_card(self._seq, origin, self.deck, uid, self.reads))


class PcscSeats(PcscDevice):
    """A reader under each seat's card spot (``readers``: seat -> reader-name pattern): a
    tag that comes into a seat's field is a card at that seat."""

    KIND = DeviceKind.SEAT_BOARD

    def __init__(
        self, readers: Mapping[int, str], deck: TagDeck, config: LinkConfig | None = None
    ) -> None:
        for seat in readers:
            if not 1 <= seat <= 8:
                raise DriverError(f"seat {seat}: seats are 1..8")
        super().__init__({str(seat): pattern for seat, pattern in readers.items()}, deck, config)

    def _tag(self, key: str, uid: bytes | None, origin: ev.Origin) -> list[ev.DeviceEvent]:
        return self._numbered([mapping.seat_card(self._seq, origin, self.deck, int(key), uid)])
