"""The simulated table in the terminal: a live view redrawn with plain ANSI codes (a
terminal), or one line per hand and per alert (anything else: a pipe, a file, a log); and
the summary at the end."""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from typing import TextIO

from controller.rules import Dealt, Effect, Told
from controller.rules.cards import counted
from controller.rules.state import STREET_NAMES
from controller.sim.dealer import Tally
from controller.table import Mode, Table
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


def stopped(table: Table, by: str = "Ctrl-C") -> str:
    """The line printed when the run is stopped (``by`` Ctrl-C or SIGTERM): where the table
    was. A hand in progress stays so in the journal; the summary's stacks are as that hand
    started."""
    hand = table.hand
    if not table.in_hand or hand is None:
        return f"stopped ({by}) between hands"
    street = STREET_NAMES.get(hand.street, str(hand.street))
    return (
        f"stopped ({by}) during hand {table.hand_number}, {street} street "
        "(in progress in the journal; the stacks below are as it started)"
    )


def summary(tally: Tally, table: Table, seconds: float) -> list[str]:
    """The lines of the summary printed at the end of a run."""
    stacks = sum(seat.stack for seat in table.seats)
    lines = [
        f"hands: {tally.hands} ({tally.void_hands} void) in {seconds:.1f} s"
        + (f", {seconds / tally.hands:.2f} s a hand" if tally.hands else ""),
        f"cards: {tally.cards} dealt from {counted(tally.decks, 'deck')}; "
        f"bonus cards: {tally.bonus_cards}"
        + (f" ({tally.bonus_declined} declined)" if tally.bonus_declined else ""),
        f"decisions: {tally.decisions}",
        f"chips: {tally.bought_in} bought in, {_moved(tally, table)}{stacks} in the stacks, "
        f"ledger {table.chips}: " + ("conserved" if tally.conserved(table) else "NOT CONSERVED"),
        "stacks: " + ", ".join(f"{seat.player} {seat.stack}" for seat in table.seats),
    ]
    injected = sorted(f"{what.words} {count}" for what, count in tally.injected.items())
    if tally.line_faults:
        injected.append(f"frames dropped or corrupted on the lines at {tally.line_faults:g}")
    lines.append(f"faults injected: {', '.join(injected) or 'none'}")
    if tally.cheats or tally.signals or tally.unreached:
        lines.extend(_cheats(tally))
    if tally.raised:
        lines.append("alerts:")
        for kind, count in sorted(tally.raised.items()):
            hows = "; ".join(f"{how}: {n}" for how, n in sorted(tally.resolved[kind].items()))
            lines.append(f"  {kind}: {count} raised; resolved: {hows or 'none'}")
    else:
        lines.append("alerts: none")
    if tally.open:
        lines.append(f"alerts still open: {', '.join(sorted(tally.open.values()))}")
    lines.append(f"hands fingerprint: {tally.hand_digest}")
    return lines


def _cheats(tally: Tally) -> list[str]:
    """``cheats: 12 injected, 11 caught (cloned 2/2, ...); 1 the table cannot catch (...);
    0 missed``; where they were dealt (and those placed but never dealt); the cards dealt
    after each before its alert, and the kinds caught after their card."""
    kinds = sorted(set(tally.cheats) | set(tally.caught))
    each = ", ".join(f"{kind} {tally.caught[kind]}/{tally.cheats[kind]}" for kind in kinds)
    line = f"cheats: {tally.cheats.total()} injected, {tally.caught.total()} caught ({each}); "
    if tally.hidden:
        hidden = ", ".join(f"{kind} {count}" for kind, count in sorted(tally.hidden.items()))
        line += (
            f"{tally.hidden.total()} the table cannot catch (a clone dealt before its "
            f"original, which stayed in the shoe: {hidden}); "
        )
    line += f"{tally.missed.total()} missed"
    if tally.mistaken:
        line += f"; {tally.mistaken.total()} genuine card(s) taken for a cheat"
    places = ", ".join(f"{where} {count}" for where, count in sorted(tally.places.items()))
    never = tally.unreached.total()
    where = f"cheats dealt at: {places or 'none'}; placed but never dealt: {never}"
    if never:
        where += " (" + ", ".join(f"{k} {n}" for k, n in sorted(tally.unreached.items())) + ")"
    every = tally.after
    after = ", ".join(f"{cards} for {count}" for cards, count in sorted(every.items()))
    most = max(every, default=0)
    delay = f"cards dealt after a cheat before its alert: {after or 'none caught'}; most {most}"
    late = ", ".join(
        f"{kind} {sum(count for cards, count in counts.items() if cards)} (most {max(counts)})"
        for kind, counts in sorted(tally.late.items())
        if max(counts, default=0)
    )
    return [line, where, delay, f"caught after their card: {late or 'none'}"]


def _moved(tally: Tally, table: Table) -> str:
    """The chips that left the table (cashed out, or to the house's drop box: the rake, the
    jackpot drops and the time charges) and the supervisor's stack corrections, when there
    were any."""
    out = f"{tally.cashed_out} cashed out, " if tally.cashed_out else ""
    if table.settings.rules.house_takes or tally.raked or tally.jackpot_dropped:
        out += f"{tally.raked} raked, {tally.jackpot_dropped} to the jackpot, "
    if table.settings.time_charge or tally.time_collected:
        out += f"{tally.time_collected} time collected, "
    return out + (f"{table.corrected:+} corrected, " if table.corrected else "")
