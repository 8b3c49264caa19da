"""Statistics for surveillance: each seat, player and dealer against what honest play gives
(docs/game-protection.md, "Statistics for surveillance").

Pure: no I/O, no clock. The floor's query (``controller.floor.queries.seat_hands``) gives
one :class:`SeatHand` for each seat dealt in each finished hand, in the order the hands
ended; :func:`charts` follows every unit (a seat, a player, a dealer, a dealer at a seat)
through them with one CUSUM per measure (:class:`Measure`) and says which crossed the
threshold, and at which hand. The same module says what a bookmark for the video is
(:class:`Bookmark`, read by ``controller.floor.queries.bookmarks``) and writes their CSV
(:func:`bookmarks_csv`).

Each measure counts something in a hand (``x``: face-up fours of clubs, bonus cards, wild
cards, the share of the main pot won, alerts) against its expectation in that hand (``e``:
1/52 per up card, 4/52 per card dealt, 1 over the players dealt in, the floor's own rate of
the alert). The CUSUM is the log-likelihood ratio of a count three times its expectation
(Poisson, rate ratio :data:`RATIO`) against its expectation::

    S = max(0, S + x ln 3 - 2 e)        flagged when S >= h

Under honest play each increment's exp has a mean of at most 1 (for the Poisson count it is
exactly 1; a card counted at most once a deck, a share in [0, 1] and a hypergeometric count
give less), so by Ville's inequality a chart crosses ``h`` within ``n`` hands with
probability at most ``n e^-h`` (the average run length to a false alarm is at least
``e^h`` hands). With :data:`THRESHOLD` = 20 that is 2.1e-9 a chart and hand: over 10,000
hands at 8 seats, every chart of every seat, player, dealer and dealer at a seat taken
together, at most about 0.3%.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

#: The rate ratio each chart is tuned to find (a seat getting the 4c three times as often).
RATIO = 3.0
#: The CUSUM's threshold ``h``: a chart is flagged when its statistic reaches it.
THRESHOLD = 20.0
#: A chart's chance of a false alarm in one hand, at most (Ville's inequality).
FALSE_ALARM_PER_HAND = math.exp(-THRESHOLD)
_UP = math.log(RATIO)  # the increment of each count
_DOWN = RATIO - 1.0  # times the expectation, taken off at each hand

#: One card of a deck of 52; the four fours are the wild cards.
CARD = 1 / 52
WILDS = 4

#: The alert kinds counted for surveillance (what the table raises for them).
UNVERIFIED_READ = "unverified_read"
CARD_MOVED = "card_moved"

#: The protection and security alerts: each is a bookmark for the surveillance video
#: (``controller.floor.queries.bookmarks``). Kinds by name, so that the floor keeps
#: bookmarking alerts a newer table raises; a dealer's slip (a misplaced card, a card out
#: of turn) and a device's fault are not among them.
BOOKMARKED = frozenset(
    {
        "foreign_card",  # a card not of the registered deck, re-tagged or cloned
        "deck_rejected",  # a deck missing, doubling or adding cards
        "deck_not_shuffled",  # a deck dealt in an order too close to one before
        "card_in_play",  # a card already in play read again
        "card_not_in_deck",  # a card the deck cannot hold
        "card_mismatch",  # a seat's reader and the shoe disagree on a card
        "deck_during_hand",  # a deck loaded while a hand is dealt
        "wrong_card_named",  # a correction or entry naming a card not out of the shoe
        UNVERIFIED_READ,  # a card at a seat whose tag cannot be read
        CARD_MOVED,  # a confirmed card read at another seat, a folded card or a burn at one
        "device_replaced",  # a shoe or seat board that is not the table's
        "sign_in_attack",  # many wrong PINs
        "sign_in_locked",  # an id locked after wrong PINs
    }
)


class Grouping(StrEnum):
    """Whose chart: a table's seat, a player, a dealer, a dealer dealing to a seat."""

    SEAT = "seat"
    PLAYER = "player"
    DEALER = "dealer"
    DEALER_SEAT = "dealer_seat"


class Measure(StrEnum):
    FOUR_UP = "four_up"  # the four of clubs dealt face up
    BONUS = "bonus"  # bonus cards (a face-up 4c earns one)
    WILDS = "wilds"  # fours dealt (wild cards, where the rules make them wild)
    WINS = "wins"  # the share of the main pot won
    UNVERIFIED_READS = "unverified_reads"  # seat reads without a readable tag
    MOVED_CARDS = "moved_cards"  # confirmed cards that moved


#: The measures whose expectation is the floor's own rate (honest play raises none, so
#: there is nothing else to compare with): each counts an alert kind, in the field of
#: :class:`SeatHand` of its name.
ALERT_MEASURES = {Measure.UNVERIFIED_READS: UNVERIFIED_READ, Measure.MOVED_CARDS: CARD_MOVED}


@dataclass(frozen=True, slots=True)
class SeatHand:
    """One seat's part in one finished hand: what it was dealt and won, and the alerts
    raised at it in that hand. ``players``: the seats dealt in; ``wild``: the hand's rules
    make fours wild (and a face-up 4c earns a bonus card); ``won``: its share of the main
    pot (1 alone, 1/2 split two ways, 0)."""

    table_id: str
    number: int  # the hand's number at its table
    seat: int
    player: str | None
    dealer: str | None
    players: int
    wild: bool
    cards: int
    up_cards: int
    fours_up: int
    bonus_cards: int
    wilds: int
    won: float
    unverified_reads: int = 0
    moved_cards: int = 0


@dataclass(frozen=True, slots=True)
class HandRef:
    """A hand: its table and number there."""

    table_id: str
    hand: int


@dataclass(frozen=True, slots=True)
class Chart:
    """One unit's measure over the hands: ``observed`` against ``expected`` in ``hands``
    hands, the CUSUM now and at its highest, and whether it reached the threshold
    (``flagged_at``: the hand at which it first did)."""

    grouping: Grouping
    unit: str
    measure: Measure
    hands: int
    observed: float
    expected: float
    cusum: float
    peak: float
    flagged: bool
    flagged_at: HandRef | None


@dataclass(slots=True)
class _Cusum:
    """A chart as it runs (mutable, inside :func:`charts` only)."""

    hands: int = 0
    observed: float = 0.0
    expected: float = 0.0
    cusum: float = 0.0
    peak: float = 0.0
    flagged_at: HandRef | None = None

    def add(self, observed: float, expected: float, at: HandRef) -> None:
        self.hands += 1
        self.observed += observed
        self.expected += expected
        self.cusum = step(self.cusum, observed, expected)
        self.peak = max(self.peak, self.cusum)
        if self.flagged_at is None and self.cusum >= THRESHOLD:
            self.flagged_at = at


def step(cusum: float, observed: float, expected: float) -> float:
    """The CUSUM after one hand that counted ``observed`` where ``expected`` was due."""
    return max(0.0, cusum + observed * _UP - _DOWN * expected)


def _measures(hand: SeatHand, rates: Mapping[Measure, float]) -> list[tuple[Measure, float, float]]:
    """``hand``'s (measure, observed, expected) at its seat."""
    out = [(Measure.FOUR_UP, float(hand.fours_up), hand.up_cards * CARD)]
    if hand.wild:  # a bonus card, and wild fours, only where the rules have them
        out.append((Measure.BONUS, float(hand.bonus_cards), hand.up_cards * CARD))
        out.append((Measure.WILDS, float(hand.wilds), hand.cards * WILDS * CARD))
    out.append((Measure.WINS, hand.won, 1 / hand.players))
    unverified, moved = rates[Measure.UNVERIFIED_READS], rates[Measure.MOVED_CARDS]
    out.append((Measure.UNVERIFIED_READS, float(hand.unverified_reads), unverified))
    out.append((Measure.MOVED_CARDS, float(hand.moved_cards), moved))
    return out


def alert_rates(hands: Iterable[SeatHand]) -> dict[Measure, float]:
    """The floor's own rate of each alert measure: alerts per seat and hand."""
    seat_hands = list(hands)
    return {
        measure: sum(getattr(hand, measure.value) for hand in seat_hands) / len(seat_hands)
        if seat_hands
        else 0.0
        for measure in ALERT_MEASURES
    }


def charts(hands: Iterable[SeatHand]) -> list[Chart]:
    """Every unit's chart of every measure over ``hands`` (in the order the hands ended),
    flagged first, then by how near the threshold each came."""
    seat_hands = list(hands)
    rates = alert_rates(seat_hands)
    running: dict[tuple[Grouping, str, Measure], _Cusum] = {}
    # A dealer's hand is every seat's together: counts and expectations summed, once a hand.
    dealer_hand: dict[tuple[str, HandRef], dict[Measure, list[float]]] = {}
    for hand in seat_hands:
        at = HandRef(hand.table_id, hand.number)
        seat = f"{hand.table_id}:{hand.seat}"
        units = [(Grouping.SEAT, seat)]
        if hand.player:
            units.append((Grouping.PLAYER, hand.player))
        if hand.dealer:
            units.append((Grouping.DEALER_SEAT, f"{hand.dealer}@{seat}"))
            sums = dealer_hand.setdefault((hand.dealer, at), {})
        for measure, observed, expected in _measures(hand, rates):
            for grouping, unit in units:
                chart = running.get((grouping, unit, measure))
                if chart is None:
                    chart = running[grouping, unit, measure] = _Cusum()
                chart.add(observed, expected, at)
            if hand.dealer and measure is not Measure.WINS:  # every hand is won at the table
                total = sums.setdefault(measure, [0.0, 0.0])
                total[0] += observed
                total[1] += expected
    for (dealer, at), sums in dealer_hand.items():  # in the order first seen: the hands'
        for measure, (observed, expected) in sums.items():
            running.setdefault((Grouping.DEALER, dealer, measure), _Cusum()).add(
                observed, expected, at
            )
    out = [
        Chart(
            grouping,
            unit,
            measure,
            c.hands,
            c.observed,
            c.expected,
            c.cusum,
            c.peak,
            c.flagged_at is not None,
            c.flagged_at,
        )
        for (grouping, unit, measure), c in running.items()
    ]
    return sorted(out, key=lambda c: (not c.flagged, -c.peak, c.grouping, c.unit, c.measure))


@dataclass(frozen=True, slots=True)
class Bookmark:
    """A protection or security alert as a bookmark for the surveillance video: its table,
    seat (None: the table's), the time of the journal entry whose input raised it (``at``:
    ms since the Unix epoch, UTC, by the table's clock) and its kind; with the hand, the
    alert's number, card and words to find it by (docs/game-protection.md)."""

    table_id: str
    table_name: str
    session: int
    alert_id: int
    at: int
    time: str  # ``at`` as ISO 8601 UTC with milliseconds
    seat: int | None
    kind: str
    hand_number: int
    card: str | None
    message: str


#: The columns of a bookmarks CSV, in order.
BOOKMARK_COLUMNS = (
    "time",
    "at",
    "table_id",
    "table_name",
    "seat",
    "kind",
    "hand_number",
    "alert_id",
    "session",
    "card",
    "message",
)


def _cell(value: object) -> str:
    """A CSV cell a spreadsheet shows as text: one that would start a formula is quoted
    with a leading apostrophe (a table's name is the operator's words)."""
    text = "" if value is None else str(value)
    return f"'{text}" if text[:1] in {"=", "+", "-", "@", "\t", "\r"} else text


def bookmarks_csv(marks: Iterable[Bookmark]) -> str:
    """The bookmarks as CSV (RFC 4180, a header line, CRLF) for a video system's import."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(BOOKMARK_COLUMNS)
    for mark in marks:
        writer.writerow([_cell(getattr(mark, column)) for column in BOOKMARK_COLUMNS])
    return out.getvalue()
