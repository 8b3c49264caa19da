"""What the readers see, as the drivers' typed events (``drivers.events``): the one place
where a PC/SC reader's observations become the events a wire-protocol shoe or seat board
sends, so that the table, the journal and game protection cannot tell them apart.

- a tag of the deck comes into the field: at the shoe ``CardRead`` (its card, its UID),
  at a seat ``CardAtSeat`` (its card, its UID);
- a tag of no card of the deck: at the shoe ``CardRead`` with :data:`UNREGISTERED` as the
  card and its UID (the table's ``foreign_card``, as for a wire shoe's card of another
  deck, with no card named), at a seat ``CardAtSeat`` with no card and its UID;
- a tag that did not answer its UID: at the shoe ``CardUnreadable``, dealt unread; at a
  seat ``CardAtSeat`` with no card and no UID;
- the cut card's tag at the shoe: the deck's registration, ``DeckCard`` for each card, then
  ``DeckLoaded``;
- a tag that stays in a field, a tag that leaves: nothing.

``read_counter`` is the driver's count of cards it read since it opened: a reader has no
counter of cards leaving the shoe (docs/hardware.md, "What a reader cannot know").
"""

from __future__ import annotations

from drivers import events as ev
from drivers.pcsc.deck import TagDeck
from drivers.protocol import Disposition, seq_add

#: The card of a ``CardRead`` whose tag is no card of the registered deck: no card's code
#: (0..51); with the UID (journaled with it) the table pauses with ``foreign_card``.
UNREGISTERED = 255


def shoe_card(
    seq: int, origin: ev.Origin, deck: TagDeck, uid: bytes | None, reads: int
) -> list[ev.DeviceEvent]:
    """A tag came into the shoe reader's field (``uid`` None: it did not answer), the
    ``reads``-th card the driver read."""
    if uid is None:
        return [ev.CardUnreadable(seq, reads, Disposition.DEALT_UNREAD, origin=origin)]
    card = deck.card(uid)
    return [ev.CardRead(seq, UNREGISTERED if card is None else card, reads, uid, origin=origin)]


def deck_loaded(seq: int, origin: ev.Origin, deck: TagDeck) -> list[ev.DeviceEvent]:
    """The cut card was shown: the deck's registration, each card with its tag, then the
    deck loaded; numbered from ``seq`` on."""
    out: list[ev.DeviceEvent] = []
    for index, (code, uid) in enumerate(deck.in_code_order()):
        out.append(ev.DeckCard(seq, deck.deck_id, index, code, uid, origin=origin))
        seq = seq_add(seq)
    count = len(out)
    out.append(ev.DeckLoaded(seq, deck.deck_id, count, count, registered=True, origin=origin))
    return out


def seat_card(
    seq: int, origin: ev.Origin, deck: TagDeck, seat: int, uid: bytes | None
) -> ev.CardAtSeat:
    """A tag came into the field of ``seat``'s reader."""
    return ev.CardAtSeat(
        seq, seat, None if uid is None else deck.card(uid), uid or b"", origin=origin
    )
