"""The simulated table's summary as data: what a run dealt and what happened in it, from
the dealer's ``Tally`` and the table at the end.

``luck-table sim --json FILE`` writes it as one JSON object (each enum as its value; the
fields: docs/sim.md, "The summary as JSON"), and the summary printed for people
(``controller.sim.view.summary``) is made from it: a program reads the one, a person the
other, and they say the same.
"""

from __future__ import annotations

from collections import Counter
from typing import TypedDict, TypeVar

from controller.rules import Dest
from controller.sim.dealer import How, Injected, SoakCheat, Tally
from controller.table import Table

K = TypeVar("K", bound=str)


class Chips(TypedDict):
    """The chips check: every chip bought in and not cashed out is in a stack or went to
    the house's drop box, and the table's ledger agrees (``conserved``)."""

    bought_in: int  # buy-ins and rebuys, the console's too
    cashed_out: int
    raked: int  # the house's rake, into the drop box
    jackpot_dropped: int  # the jackpot drops, into the drop box
    time_collected: int  # the time charges, into the drop box
    corrected: int  # the supervisor's stack corrections, from the table's ledger
    in_stacks: int
    ledger: int  # the chips on the table by its ledger
    conserved: bool
    house_takes: bool  # the rules take a rake or a jackpot drop
    time_charge: bool  # the table charges its players for their time


class Stack(TypedDict):
    seat: int
    player: str
    stack: int


class Faults(TypedDict):
    injected: dict[Injected, int]  # the faults and mistakes injected, by what they were
    line_faults: float  # the share of frames dropped or corrupted on the lines (0: none)


class CheatsAt(TypedDict):
    """The cheats that came into play at one place (``controller.sim.dealer.Place``)."""

    dest: Dest | None  # None: at the deck's load (a card missing or extra)
    street: int | None  # a seat's card's street
    scrambled: bool  # after the burn cards were scrambled into a short deck's stub
    cheats: int


class CaughtAfter(TypedDict):
    """The cheats of ``kind`` caught with ``cards`` dealt after their own before the alert."""

    kind: SoakCheat
    cards: int
    cheats: int


class Cheats(TypedDict):
    """The cheats injected (``--cheats``) and what became of them, each by kind."""

    injected: dict[SoakCheat, int]  # came into play (dealt, or at the deck's load)
    caught: dict[SoakCheat, int]
    cannot_catch: dict[SoakCheat, int]  # a clone dealt before its original, left in the shoe
    missed: dict[SoakCheat, int]
    mistaken: dict[str, int]  # alerts of a cheat with none in play: a genuine card taken for one
    never_dealt: dict[SoakCheat, int]  # placed where the run never got to: not injected
    dealt_at: list[CheatsAt]
    caught_after: list[CaughtAfter]


class Alerts(TypedDict):
    """The alerts of one kind raised, and how each closed."""

    raised: int
    resolved: dict[How, int]


class Stopped(TypedDict):
    """What stopped the run before its hands were dealt, and the hand then in progress (in
    progress in the journal, not counted; None: between hands)."""

    by: str  # the signal's name: SIGINT (Ctrl-C), SIGTERM, SIGHUP
    hand: int | None


class Summary(TypedDict):
    hands: int  # hands over, the void ones too
    void_hands: int
    seconds: float
    cards: int  # cards dealt out of the shoe
    decks: int
    bonus_cards: int
    bonus_declined: int  # a priced bonus card's offers declined
    decisions: int
    chips: Chips
    stacks: list[Stack]
    faults: Faults
    cheats: Cheats
    alerts: dict[str, Alerts]  # by the alert's kind (``AlertKind``'s value)
    open_alerts: list[str]  # the kinds of those still open at the end
    hands_fingerprint: str  # of every hand's outcome: the same hands, the same fingerprint
    stopped: Stopped | None
    journal: str | None  # the run's journal (none: --core-only without --journal)
    log: str | None  # the table service's log (none: --core-only)


def summarize(
    tally: Tally,
    table: Table,
    seconds: float,
    *,
    stopped: Stopped | None = None,
    journal: str | None = None,
    log: str | None = None,
) -> Summary:
    """The summary of a run: ``tally``, the table at its end, its ``seconds``."""
    return Summary(
        hands=tally.hands,
        void_hands=tally.void_hands,
        seconds=round(seconds, 3),
        cards=tally.cards,
        decks=tally.decks,
        bonus_cards=tally.bonus_cards,
        bonus_declined=tally.bonus_declined,
        decisions=tally.decisions,
        chips=Chips(
            bought_in=tally.bought_in,
            cashed_out=tally.cashed_out,
            raked=tally.raked,
            jackpot_dropped=tally.jackpot_dropped,
            time_collected=tally.time_collected,
            corrected=table.corrected,
            in_stacks=sum(seat.stack for seat in table.seats),
            ledger=table.chips,
            conserved=tally.conserved(table),
            house_takes=table.settings.rules.house_takes,
            time_charge=bool(table.settings.time_charge),
        ),
        stacks=[Stack(seat=s.seat, player=s.player, stack=s.stack) for s in table.seats],
        faults=Faults(injected=_sorted(tally.injected), line_faults=tally.line_faults),
        cheats=_cheats(tally),
        alerts={
            kind: Alerts(raised=count, resolved=_sorted(tally.resolved[kind]))
            for kind, count in sorted(tally.raised.items())
        },
        open_alerts=sorted(tally.open.values()),
        hands_fingerprint=tally.hand_digest,
        stopped=stopped,
        journal=journal,
        log=log,
    )


def _cheats(tally: Tally) -> Cheats:
    return Cheats(
        injected=_sorted(tally.cheats),
        caught=_sorted(tally.caught),
        cannot_catch=_sorted(tally.hidden),
        missed=_sorted(tally.missed),
        mistaken=_sorted(tally.mistaken),
        never_dealt=_sorted(tally.unreached),
        dealt_at=[
            CheatsAt(dest=place.dest, street=place.street, scrambled=place.scrambled, cheats=n)
            for place, n in sorted(tally.places.items(), key=lambda item: item[0].words)
        ],
        caught_after=[
            CaughtAfter(kind=kind, cards=cards, cheats=n)
            for kind, counts in sorted(tally.late.items())
            for cards, n in sorted(counts.items())
        ],
    )


def _sorted(counts: Counter[K]) -> dict[K, int]:
    """``counts`` by their keys in order, without those at 0."""
    return {key: counts[key] for key in sorted(counts) if counts[key]}
