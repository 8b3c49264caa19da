"""The simulated table in the terminal: a live view redrawn with plain ANSI codes (a
terminal), or one line per hand and per alert (anything else: a pipe, a file, a log); and
the summary at the end. For a program instead (``--progress``), one JSON object a line:
the console once served, each hand as it ends."""

from __future__ import annotations

import json
import shutil
import signal
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Literal, TextIO, TypedDict

from controller.rules import Dealt, Effect, Told
from controller.rules.cards import counted
from controller.rules.state import STREET_NAMES
from controller.sim.dealer import Place, SoakCheat, Tally, how_words
from controller.sim.summary import Cheats, Chips, Summary
from controller.table import Mode, Table
from controller.table import effects as told
from controller.table.told import TableTold

HOME, CLEAR_LINE, CLEAR_BELOW = "\x1b[H", "\x1b[K", "\x1b[J"
BOLD, DIM, GREEN, RED, YELLOW, RESET = (
    "\x1b[1m",
    "\x1b[2m",
    "\x1b[32m",
    "\x1b[31m",
    "\x1b[33m",
    "\x1b[0m",
)
_PLAIN_KINDS = frozenset(
    {TableTold.ALERT, TableTold.ALERT_CLEARED, Told.AWARD, TableTold.HAND_OVER, Told.VOID}
)


class View:
    """Shows each step of the table on ``out``: ``live`` redraws the whole view at most
    ``fps`` times a second; otherwise the hands' outcomes and the alerts as lines."""

    def __init__(
        self, out: TextIO, *, live: bool, title: str, hands: int, fps: float = 20.0
    ) -> None:
        self.out = out
        self.live = live
        self.title = title
        self.hands = hands
        self.interval = 1.0 / fps
        self.started = time.monotonic()
        self.drawn = 0.0
        self.tally: Tally | None = None
        self.subtitle = ""  # where the table runs: its devices and journal

    def observe(self, table: Table, effects: Sequence[Effect]) -> None:
        if not self.live:
            for effect in effects:
                if effect.kind in _PLAIN_KINDS:
                    self.out.write(f"{effect.message}\n")
            self.out.flush()
            return
        now = time.monotonic()
        if now - self.drawn >= self.interval or any(e.kind == "alert" for e in effects):
            self.drawn = now
            self.draw(table)

    def draw(self, table: Table) -> None:
        lines = (line + CLEAR_LINE for line in self.render(table))
        self.out.write(HOME + "\n".join(lines) + "\n" + CLEAR_BELOW)  # over the last view
        self.out.flush()

    def render(self, table: Table) -> list[str]:
        """The lines of the live view."""
        hand = table.hand
        signals = table.signals
        lines = [f"{BOLD}{self.title}{RESET}   {self._progress(table)}"]
        lines += [f"{DIM}{self.subtitle}{RESET}", ""] if self.subtitle else [""]
        if hand is not None:
            street = STREET_NAMES.get(hand.street, str(hand.street))
            state = "over" if hand.over else f"{street} street"
            lines.append(
                f"Hand {table.hand_number}: {state}   pot {hand.pot}   "
                f"cards left in the shoe {hand.stub}"
            )
        else:
            lines.append("No hand yet")
        lamp = f"{GREEN}{BOLD}BONUS LAMP ON{RESET}" if signals.lamps.bonus else "bonus lamp off"
        colour = RED if signals.mode is Mode.PAUSED else BOLD
        lines += [f"Dealer display: {colour}{signals.display}{RESET}   {lamp}", ""]
        lines += _seat_rows(table)
        if hand is not None and hand.community is not None:
            lines.append(f"  community card: {hand.community}")
        lines.append("")
        lines.append("Alerts:" if table.alerts else f"Alerts: {DIM}none{RESET}")
        width = shutil.get_terminal_size().columns - 4
        for alert in table.alerts:
            lines.append(f"  {YELLOW}! {alert.message[:width]}{RESET}")
            lines.append(f"    what to do: {alert.remedy[: width - 14]}")
        if self.tally is not None:
            lines += ["", "Recent:"]
            lines += [f"  {DIM}{message[:width]}{RESET}" for message in self.tally.recent]
        return lines

    def _progress(self, table: Table) -> str:
        seconds = time.monotonic() - self.started
        if not self.hands:
            return f"hand {table.hand_number}   {seconds:.0f} s   (Ctrl-C to stop)"
        done = self.tally.hands if self.tally is not None else 0
        width = 20
        filled = width * done // self.hands
        bar = "#" * filled + "." * (width - filled)
        return f"[{bar}] {done}/{counted(self.hands, 'hand')}   {seconds:.0f} s"


class Event(StrEnum):
    """What a line of ``--progress`` tells: its ``event``."""

    CONSOLE = "console"  # the console is served: its address and who signs in there
    HAND_OVER = "hand_over"  # a hand ended


class ConsoleServed(TypedDict):
    event: Literal[Event.CONSOLE]
    url: str
    dealer: str
    dealer_pin: str
    supervisor: str
    supervisor_pin: str


class HandOver(TypedDict):
    event: Literal[Event.HAND_OVER]
    hand: int
    void: bool  # a misdeal


class Progress:
    """The run for a program (``--progress``): one JSON object a line on ``out`` (an
    ``Event``), and nothing else there."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def observe(self, table: Table, effects: Sequence[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, told.HandOver):
                self.tell(HandOver(event=Event.HAND_OVER, hand=effect.hand, void=effect.void))

    def tell(self, event: ConsoleServed | HandOver) -> None:
        self.out.write(json.dumps(event) + "\n")
        self.out.flush()


def _seat_rows(table: Table) -> list[str]:
    """The seats: lamp, number, player, stack, bet and cards; the player to act marked."""
    hand = table.hand
    lit = table.signals.lamps.seats
    players = {} if hand is None else {seat: hand.player(seat) for seat in hand.seats}
    waiting = hand.waiting_for if hand is not None else None
    acting = waiting.seat if waiting is not None and waiting.kind != "card" else None
    wild = hand is not None and hand.rules.wild
    rows = [f"{'':2}{'seat':<5}{'player':<10}{'stack':>7}{'bet':>6}  cards"]
    for seat in table.seats:
        player = players.get(seat.seat)
        if player is None:
            row = f"{seat.stack:>7}{'':>6}  {DIM}not in this hand{RESET}"
        else:
            cards = " ".join(_card(dealt, wild) for dealt in player.cards)
            folded = f"  {DIM}folded{RESET}" if player.folded else ""
            row = f"{player.stack:>7}{player.bet or '':>6}  {cards}{folded}"
        if seat.seat == acting:
            row += f"  {BOLD}<- to act{RESET}"
        lamp = ">" if seat.seat in lit else " "
        rows.append(f"{lamp} {seat.seat:<5}{seat.player:<10}{row}")
    return rows


def _card(dealt: Dealt, wild: bool) -> str:
    """A card as the view shows it: face-down cards dim in brackets, fours green when they
    are wild (Luck of the Irish), a bonus card marked with ``+``."""
    text = str(dealt.card) + ("+" if dealt.bonus else "")
    if wild and dealt.card.rank == 4:
        text = f"{GREEN}{text}{RESET}"
    return text if dealt.up else f"{DIM}[{RESET}{text}{DIM}]{RESET}"


def stopped(table: Table, by: signal.Signals = signal.SIGINT) -> str:
    """The line printed when the run is stopped (``by`` Ctrl-C, SIGTERM or SIGHUP): where
    the table was. A hand in progress stays so in the journal; the summary's stacks are as
    that hand started."""
    said = "Ctrl-C" if by is signal.SIGINT else by.name
    hand = table.hand
    if not table.in_hand or hand is None:
        return f"stopped ({said}) between hands"
    street = STREET_NAMES.get(hand.street, str(hand.street))
    return (
        f"stopped ({said}) during hand {table.hand_number}, {street} street "
        "(in progress in the journal; the stacks below are as it started)"
    )


def summary(made: Summary) -> list[str]:
    """The lines of the summary printed at the end of a run, from its data."""
    hands, seconds, chips = made["hands"], made["seconds"], made["chips"]
    lines = [
        f"hands: {hands} ({made['void_hands']} void) in {seconds:.1f} s"
        + (f", {seconds / hands:.2f} s a hand" if hands else ""),
        f"cards: {made['cards']} dealt from {counted(made['decks'], 'deck')}; "
        f"bonus cards: {made['bonus_cards']}"
        + (f" ({made['bonus_declined']} declined)" if made["bonus_declined"] else ""),
        f"decisions: {made['decisions']}",
        f"chips: {chips['bought_in']} bought in, {_moved(chips)}{chips['in_stacks']} in the "
        f"stacks, ledger {chips['ledger']}: "
        + ("conserved" if chips["conserved"] else "NOT CONSERVED"),
        "stacks: " + ", ".join(f"{seat['player']} {seat['stack']}" for seat in made["stacks"]),
    ]
    faults = made["faults"]
    injected = sorted(f"{what.words} {count}" for what, count in faults["injected"].items())
    if faults["line_faults"]:
        injected.append(f"frames dropped or corrupted on the lines at {faults['line_faults']:g}")
    lines.append(f"faults injected: {', '.join(injected) or 'none'}")
    cheats = made["cheats"]
    if cheats["injected"] or cheats["mistaken"] or cheats["never_dealt"]:
        lines.extend(_cheats(cheats))
    if made["alerts"]:
        lines.append("alerts:")
        for kind, alerts in made["alerts"].items():
            hows = "; ".join(
                f"{how_words(how)}: {n}"
                for how, n in sorted(alerts["resolved"].items(), key=lambda i: how_words(i[0]))
            )
            lines.append(f"  {kind}: {alerts['raised']} raised; resolved: {hows or 'none'}")
    else:
        lines.append("alerts: none")
    if made["open_alerts"]:
        lines.append(f"alerts still open: {', '.join(made['open_alerts'])}")
    lines.append(f"hands fingerprint: {made['hands_fingerprint']}")
    if (journal := made["journal"]) is not None:
        line = f"journal: {journal} (luck-table history --journal {journal})"
        lines.append(line + (f"; log: {made['log']}" if made["log"] is not None else ""))
    return lines


def _counts(counts: Mapping[SoakCheat, int]) -> str:
    return ", ".join(f"{key} {count}" for key, count in counts.items())


def _cheats(cheats: Cheats) -> list[str]:
    """``cheats: 12 injected, 11 caught (cloned 2/2, ...); 1 the table cannot catch (...);
    0 missed``; where they were dealt (and those placed but never dealt); the cards dealt
    after each before its alert, and the kinds caught after their card."""
    injected, caught = cheats["injected"], cheats["caught"]
    each = ", ".join(
        f"{kind} {caught.get(kind, 0)}/{injected.get(kind, 0)}"
        for kind in sorted(set(injected) | set(caught))
    )
    line = f"cheats: {sum(injected.values())} injected, {sum(caught.values())} caught ({each}); "
    if hidden := cheats["cannot_catch"]:
        line += (
            f"{sum(hidden.values())} the table cannot catch (a clone dealt before its "
            f"original, which stayed in the shoe: {_counts(hidden)}); "
        )
    line += f"{sum(cheats['missed'].values())} missed"
    if mistaken := cheats["mistaken"]:
        line += f"; {sum(mistaken.values())} genuine card(s) taken for a cheat"
    places = ", ".join(
        f"{Place(at['dest'], at['street'], at['scrambled']).words} {at['cheats']}"
        for at in cheats["dealt_at"]
    )
    never = cheats["never_dealt"]
    where = f"cheats dealt at: {places or 'none'}; placed but never dealt: {sum(never.values())}"
    if never:
        where += f" ({_counts(never)})"
    every: Counter[int] = Counter()
    late: dict[str, list[int]] = {}  # by kind: the cheats caught after their card, the most
    for caught_after in cheats["caught_after"]:
        cards, count = caught_after["cards"], caught_after["cheats"]
        every[cards] += count
        if cards:
            kind = late.setdefault(caught_after["kind"], [0, 0])
            kind[:] = [kind[0] + count, max(kind[1], cards)]
    after = ", ".join(f"{cards} for {count}" for cards, count in sorted(every.items()))
    delay = f"cards dealt after a cheat before its alert: {after or 'none caught'}; "
    delay += f"most {max(every, default=0)}"
    kinds = ", ".join(f"{kind} {count} (most {most})" for kind, (count, most) in late.items())
    return [line, where, delay, f"caught after their card: {kinds or 'none'}"]


def _moved(chips: Chips) -> str:
    """The chips that left the table (cashed out, or to the house's drop box: the rake, the
    jackpot drops and the time charges) and the supervisor's stack corrections, when there
    were any."""
    out = f"{chips['cashed_out']} cashed out, " if chips["cashed_out"] else ""
    if chips["house_takes"] or chips["raked"] or chips["jackpot_dropped"]:
        out += f"{chips['raked']} raked, {chips['jackpot_dropped']} to the jackpot, "
    if chips["time_charge"] or chips["time_collected"]:
        out += f"{chips['time_collected']} time collected, "
    return out + (f"{chips['corrected']:+} corrected, " if chips["corrected"] else "")
