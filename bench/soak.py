"""Link soak: the shoe driver against the simulator at line speed, with faults.

The simulator runs as its own process (``python -m firmware_sim shoe --baud 115200``) on a
pseudo-terminal or TCP, with 1% of its frames corrupted, 1% dropped and 1% duplicated. A
dealer thread draws cards through the control channel as fast as the link takes them (at
most ``window`` events unacknowledged), pulls the cable ``unplugs`` times for ``unplug_s``
seconds (drawing on meanwhile until ``backlog`` events, at most half the cards between two
unplugs, wait in the shoe), draws one probe card
the moment each unplug ends, and power-cycles the shoe once (``restart``: with nothing
pending, so that nothing is lost). The host is the real ShoeDriver with
``ack_on="commit"``, acknowledging each event as it takes it, as a table does.

Printed per phase: cards lost, duplicated and out of order (by the shoe's read counter);
the device's retransmissions against the event frames it sent; wall time against the line's
own time for the same event bytes plus the time the cable was out; card latency (draw to the
consumer) p50/p99/max for the cards that met no outage; and each probe card's latency
against its bound, the wire time of the backlog at the reconnection plus 1 s.

A run that stalls (no event, or nothing journaled, for ``STALL_S``) fails with what was
going on: the last steps of the dealer and events of the host (a ring, always kept), the
dealer thread's stack, the host session's state and last frames (``link_state()``) and the
simulator's status.

Phases: ``pty`` and ``tcp`` (the host is the ShoeDriver in this process), and ``monitor``:
the host is the real ``luck-table monitor --shoe PORT --journal FILE --json`` process on the
pty, killed with SIGKILL ``kills`` times at random moments (each once the dealer is past a
random card, when the monitor next journals a card, after up to 5 ms more) and started again
on the same journal. Its figures come from the journal itself: each CardRead it holds, in
journal order, against the simulator's drawn cards; a card's latency runs from the draw to
the monitor's line for it, which the monitor prints after the commit (for a card whose line
a kill cut off, to that kill). The time the monitor was down (from the start and from each
kill to the next monitor's first LinkUp) is printed and counted in the wall-time budget
beside the cable's (overlaps once); so are the frames the shoe sent while it was down, the
events dropped by the journal as already held, and whether the journal equals the drawn
cards.

Usage: .venv/bin/python bench/soak.py [--cards 10000] [--phases pty,tcp,monitor]
       [--unplugs 6] [--kills 20] [--seed 1] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from figures_kit import Report, add_json_option

from controller.journal import Journal, event_of
from drivers import events as ev
from drivers.device import ShoeDriver
from drivers.session import LinkConfig, max_event_frame
from firmware_sim.device import Cannot
from firmware_sim.process import Control, ControlReplyError, SimulatorProcess

BITS_PER_BYTE = 10  # 8N1
SHOE_VERSION = 1  # the link is the same in every version; a version 1 shoe registers no deck
HEARTBEAT_MS = 200
STALL_S = 60.0  # no progress for this long: the run has stalled
TRACE_LENGTH = 200  # steps of the dealer and events of the host a stall's report shows
LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))


@dataclass(frozen=True)
class Plan:
    """One run: the link, how many cards, the faults and the interruptions."""

    phase: str = "pty"  # "tcp", "monitor": what report() calls it
    link: str = "pty"  # or "tcp"
    kills: int = 0  # SIGKILLs of the host (the monitor phase)
    cards: int = 10_000
    unplugs: int = 6
    unplug_s: float = 2.0
    restart: bool = True
    baud: int = 115200
    fault_rate: float = 0.01  # of frames: corrupted, dropped, duplicated (each)
    window: int = 64  # events unacknowledged at most while the cable is in
    backlog: int = 500  # events the dealer lets wait while the cable is out
    seed: int = 1

    def card_time(self) -> float:
        return max_event_frame(SHOE_VERSION) * BITS_PER_BYTE / self.baud


@dataclass
class Probe:
    """The first card drawn the moment an unplug ended, and the backlog it queued behind."""

    read_counter: int
    backlog: int
    bound: float


@dataclass
class Run:
    """What happened: filled by the dealer (draws) and the host (arrivals)."""

    plan: Plan
    drawn: dict[int, tuple[int, float]] = field(default_factory=dict)  # counter: card, time
    cable_out: list[tuple[float, float]] = field(default_factory=list)  # from, to
    host_out: list[tuple[float, float]] = field(default_factory=list)  # start or kill, up
    redelivered: int = 0  # events sent again after a kill, dropped by the journal
    retransmitted_while_down: int = 0  # by the device, from each kill to the next LinkUp
    probes: list[Probe] = field(default_factory=list)
    arrivals: list[tuple[int, int, float]] = field(default_factory=list)  # counter, card, time
    link_ups: list[ev.LinkUp] = field(default_factory=list)
    restart_lost: int = 0  # events the shoe lost in its power cycle (by its own count)
    device_stats: dict[str, int] = field(default_factory=dict)
    dealt_all: threading.Event = field(default_factory=threading.Event)
    started: float = 0.0
    ended: float = 0.0
    dealer_error: BaseException | None = None
    #: The last steps of the dealer and events of the host: (time, who, what), for a stall.
    trace: deque[tuple[float, str, str]] = field(default_factory=lambda: deque(maxlen=TRACE_LENGTH))
    dealer: threading.Thread | None = None

    def note(self, who: str, what: str) -> None:
        """Keep one step in the trace (a tuple in a ring: cheap enough to stay on)."""
        self.trace.append((time.monotonic(), who, what))

    def met_no_outage(self, counter: int, arrived: float) -> bool:
        """Whether the card went from the shoe to the host with the cable in, the host up."""
        return not self.met(self.cable_out + self.host_out, counter, arrived)

    def met(self, outages: list[tuple[float, float]], counter: int, arrived: float) -> bool:
        """Whether one of the outages fell between the card's draw and its arrival."""
        drawn = self.drawn[counter][1]
        return any(start < arrived and drawn < end for start, end in outages)


# --- the dealer ----------------------------------------------------------------------------


class Dealer:
    """Draws the cards through the control channel (a thread), keeping to the plan."""

    def __init__(self, sim: SimulatorProcess, run: Run) -> None:
        self.sim = sim
        self.run = run
        self.plan = run.plan
        self.stop = threading.Event()

    def pending(self) -> int:
        return int(self.sim.command("status")["pending"])

    def wait_pending_below(self, limit: int) -> None:
        if self.pending() < limit:
            return
        self.run.note("dealer", f"waits for pending < {limit}")
        while self.pending() >= limit and not self.stop.is_set():
            time.sleep(0.002)

    def draw(self) -> int:
        while True:
            at = time.monotonic()
            try:
                reply = self.sim.command("draw")
            except ControlReplyError as error:
                if error.code is not Cannot.BUFFER_FULL:
                    raise
                self.run.note("dealer", "draw: buffer full")
                time.sleep(0.005)  # the shoe holds the card until the host acknowledges
                continue
            counter = int(reply["event"]["read_counter"])
            self.run.drawn[counter] = (int(reply["card"]), at)
            self.run.note("dealer", f"drew {counter}")
            return counter

    def unplug(self) -> None:
        """Pull the cable; draw on until the backlog waits; draw a probe card at the end."""
        plan = self.plan
        self.run.note("dealer", f"unplugs for {plan.unplug_s} s")
        self.sim.command(f"unplug {plan.unplug_s}")
        start = time.monotonic()
        back = start + plan.unplug_s
        self.run.cable_out.append((start, back))
        backlog = min(plan.backlog, plan.cards // (2 * plan.unplugs + 2))  # half a stretch
        while (
            time.monotonic() < back - 0.05
            and self.pending() < backlog
            and len(self.run.drawn) < plan.cards - 1
        ):
            self.draw()
        time.sleep(max(0.0, back - time.monotonic()))
        self.run.note("dealer", "waits for the cable back")
        while self.sim.command("status")["connected"] is False:
            time.sleep(0.001)
        backlog = self.pending()
        self.run.note("dealer", f"probe behind {backlog}")
        bound = backlog * plan.card_time() + 1.0
        self.run.probes.append(Probe(self.draw(), backlog, bound))

    def power_cycle(self) -> None:
        """Restart the shoe with nothing pending (so nothing is lost); the host must see it."""
        self.wait_pending_below(1)
        start = time.monotonic()
        self.run.note("dealer", "restarts the shoe")
        reply = self.sim.command("restart 0.5")
        self.run.cable_out.append((start, start + 0.5))
        self.run.restart_lost += int(reply["lost"])

    def deal(self) -> None:
        """Deal ``cards`` cards, with the unplugs spread evenly and the restart between."""
        plan = self.plan
        unplug_at = {plan.cards * (k + 1) // (plan.unplugs + 1) for k in range(plan.unplugs)}
        restart_at = plan.cards // 2 + plan.cards // (2 * plan.unplugs + 2)
        restart = plan.restart
        try:
            while len(self.run.drawn) < plan.cards and not self.stop.is_set():
                dealt = len(self.run.drawn)
                if unplug_at and dealt >= min(unplug_at):
                    unplug_at.remove(min(unplug_at))
                    self.unplug()
                    continue
                if restart and dealt >= restart_at:
                    restart = False
                    self.power_cycle()
                self.wait_pending_below(plan.window)
                self.draw()
        except BaseException as error:  # reported by the run, never lost in a thread
            self.run.note("dealer", f"failed: {error!r}")
            self.run.dealer_error = error
        finally:
            self.run.note("dealer", "done")
            self.run.dealt_all.set()


# --- the host ------------------------------------------------------------------------------

Host = Callable[[SimulatorProcess, Run], None]


def driver_host(sim: SimulatorProcess, run: Run) -> None:
    """The real ShoeDriver, acknowledging each event after taking it (ack_on="commit")."""
    config = LinkConfig(
        reset_interval=0.1,
        handshake_timeout=10.0,
        backoff_initial=0.05,
        backoff_max=0.25,
        ack_on="commit",
    )

    def done() -> bool:
        return run.dealt_all.is_set() and len(run.arrivals) >= len(run.drawn)

    async def consume() -> None:
        options = {"baudrate": run.plan.baud}
        async with ShoeDriver.from_url(sim.port, config, **options) as driver:
            quiet_since = time.monotonic()
            while not done():
                try:
                    event = await asyncio.wait_for(driver.next_event(), 0.2)
                except TimeoutError:
                    if time.monotonic() - quiet_since > STALL_S:
                        raise RuntimeError(
                            f"no event for {STALL_S:.0f} s: the link stalled\n"
                            + stall_report(sim, run, driver.link_state())
                        ) from None
                    continue
                now = quiet_since = time.monotonic()
                if isinstance(event, ev.LinkUp):
                    run.link_ups.append(event)
                    run.note("host", f"LinkUp {event.reason}")
                elif isinstance(event, ev.LinkDown):
                    run.note("host", f"LinkDown {event.reason}: {event.detail}")
                elif isinstance(event, ev.CardRead):
                    run.arrivals.append((event.read_counter, event.card, now))
                    run.note("host", f"card {event.read_counter}")
                if not isinstance(event, ev.LinkUp | ev.LinkDown):
                    driver.acknowledge(event)

    asyncio.run(consume())


def stall_report(sim: SimulatorProcess, run: Run, link: dict[str, object] | None) -> str:
    """What the dealer, the host's link and the simulator were doing when a run stalled:
    the last steps and events (seconds before now), the dealer thread's stack, the host
    session's state and last frames (``link``: None when the host is another process), and
    the simulator's status (asked on a connection of its own: the dealer may be waiting on
    the shared one)."""
    now = time.monotonic()
    lines = [f"  {now - at:7.3f} s ago  {who}: {what}" for at, who, what in run.trace]
    lines.append(f"drawn {len(run.drawn)}, arrived {len(run.arrivals)}")
    frame = sys._current_frames().get(run.dealer.ident or 0) if run.dealer else None
    where = "".join(traceback.format_stack(frame)[-4:]) if frame else "not running\n"
    lines.append(f"the dealer thread's stack:\n{where}the host's link: {link or 'not here'}")
    try:
        control = Control(sim.announced["control"], timeout=5.0)
        try:
            lines.append(f"the simulator: {control.command('status')}")
        finally:
            control.close()
    except (OSError, ControlReplyError) as error:
        lines.append(f"the simulator did not answer: {error!r}")
    return "\n".join(lines)


class MonitorProcess:
    """A running ``luck-table monitor --json`` on the shoe and a journal, its lines read in a
    thread: ``reported`` maps each journal position it printed to when (monotonic);
    ``on_up`` is called at its first LinkUp."""

    def __init__(
        self, port: str, journal: Path, errors: IO[str], run: Run, on_up: Callable[[], None]
    ) -> None:
        self.run = run
        self.on_up = on_up
        self.errors = errors
        self.reported: dict[int, float] = {}
        self.cards = 0  # CardReads it journaled
        self.up_at: float | None = None  # its first LinkUp
        self.process = subprocess.Popen(
            [LUCK_TABLE, "monitor", "--shoe", port, "--journal", str(journal), "--json"],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        self.reader = threading.Thread(target=self._read, name="monitor lines", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            now = time.monotonic()
            seen = json.loads(line)
            self.run.note("monitor", f"{seen['type']} at {seen['position']}")
            if seen["type"] == "LinkUp" and self.up_at is None:
                self.up_at = now
                self.on_up()
            if seen["duplicate"]:
                self.run.redelivered += 1
            elif seen["position"] is not None:
                self.reported[seen["position"]] = now
                self.cards += seen["type"] == "CardRead"

    def check(self) -> None:
        """Raise if it has exited (it runs until killed or stopped)."""
        if self.process.poll() is not None:
            raise self._exited()

    def kill(self) -> float:
        """SIGKILL; returns when it was sent."""
        at = time.monotonic()
        self.process.kill()
        self.process.wait()
        self.reader.join(10)
        return at

    def stop(self) -> None:
        """SIGTERM: it journals what it took and exits with status 0."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)
        self.reader.join(10)
        if self.process.returncode != 0:
            raise self._exited()

    def _exited(self) -> RuntimeError:
        self.errors.seek(0)
        status = self.process.returncode
        return RuntimeError(f"the monitor exited with status {status}: {self.errors.read()}")


def journaled_counters(path: Path, after: int, into: set[int]) -> int:
    """Add the read counters of the journal's CardReads past ``after``; the last position."""
    with Journal.open(path, create=False) as journal:
        for entry in journal.entries(after=after):
            after = entry.position
            if entry.type == "CardRead":
                into.add(int(entry.fields["read_counter"]))
    return after


def monitor_host(sim: SimulatorProcess, run: Run) -> None:
    """``luck-table monitor`` on a journal, killed ``kills`` times at random moments and
    started again on the same file; at the end the journal's cards become the arrivals."""
    plan = run.plan
    rng = random.Random(plan.seed)

    def retransmissions() -> int:
        return int(sim.command("status")["stats"].get("retransmissions", 0))

    def up_after_kill(at_kill: int) -> Callable[[], None]:
        def up() -> None:
            run.retransmitted_while_down += retransmissions() - at_kill

        return up

    kill_after = sorted(rng.sample(range(1, plan.cards), plan.kills))
    with tempfile.TemporaryDirectory(prefix="soak-") as directory:
        path = Path(directory) / "soak.journal"
        Journal.open(path).close()
        with open(Path(directory) / "monitor.stderr", "w+") as errors:
            processes = [MonitorProcess(sim.port, path, errors, run, lambda: None)]
            kills: list[float] = []
            try:
                for card in kill_after:  # once past the card, while it journals cards
                    running = processes[-1]
                    while len(run.drawn) < card:
                        running.check()
                        time.sleep(0.002)
                    journaled = running.cards
                    while running.cards == journaled:
                        running.check()
                        time.sleep(rng.uniform(0, 0.005))
                    at_kill = retransmissions()
                    kills.append(running.kill())
                    up = up_after_kill(at_kill)
                    processes.append(MonitorProcess(sim.port, path, errors, run, up))
                wait_for_journal(sim, run, path, processes[-1])
                processes[-1].stop()
            finally:
                for process in processes:
                    if process.process.returncode is None:
                        process.kill()
        run.host_out = [
            (down, process.up_at or down)
            for down, process in zip([run.started, *kills], processes, strict=True)
        ]
        take_journal(run, path, processes, kills)


def wait_for_journal(sim: SimulatorProcess, run: Run, path: Path, running: MonitorProcess) -> None:
    """Until every card drawn is in the journal (or nothing new came for ``STALL_S``)."""
    held: set[int] = set()
    position = 0
    progress = time.monotonic()
    while not (run.dealt_all.is_set() and held >= set(run.drawn)):
        running.check()
        last = journaled_counters(path, position, held)
        if last != position:
            position, progress = last, time.monotonic()
        elif time.monotonic() - progress > STALL_S:
            raise RuntimeError(
                f"nothing journaled for {STALL_S:.0f} s: the run stalled\n"
                + stall_report(sim, run, None)
            )
        time.sleep(0.2)


def take_journal(run: Run, path: Path, processes: list[MonitorProcess], kills: list[float]) -> None:
    """The journal's CardReads in journal order become the arrivals, each at the monitor's
    line for it; a card whose line a kill cut off (committed, not printed) at that kill."""
    reported = {p: at for process in processes for p, at in process.reported.items()}
    clock = time.time() - time.monotonic()
    with Journal.open(path, create=False) as journal:
        for entry in journal.entries():
            event = event_of(entry)
            if isinstance(event, ev.LinkUp):
                run.link_ups.append(event)
            elif isinstance(event, ev.CardRead):
                taken = entry.recorded_at - clock
                at = reported.get(entry.position)
                if at is None:
                    at = min((k for k in kills if k >= taken), default=taken)
                run.arrivals.append((event.read_counter, event.card, at))


PHASES: dict[str, tuple[str, Host]] = {  # name: link, host
    "pty": ("pty", driver_host),
    "tcp": ("tcp", driver_host),
    "monitor": ("pty", monitor_host),
}


# --- a phase -------------------------------------------------------------------------------


def run_phase(plan: Plan, host: Host = driver_host) -> Run:
    link = ["--pty"] if plan.link == "pty" else ["--tcp", "127.0.0.1:0"]
    decks = plan.cards // 52 + 2
    sim = SimulatorProcess(
        "shoe",
        *link,
        "--baud",
        str(plan.baud),
        "--heartbeat-ms",
        str(HEARTBEAT_MS),
        "--seed",
        str(plan.seed),
        "--decks",
        str(decks),
        "--protocol-version",  # a shoe that registers no deck: its hundreds load at once
        str(SHOE_VERSION),
    )
    run = Run(plan)
    try:
        rate = plan.fault_rate
        sim.command(f"set corrupt_frame_rate={rate} drop_rate={rate} duplicate_rate={rate}")
        dealer = Dealer(sim, run)
        thread = threading.Thread(target=dealer.deal, name="dealer", daemon=True)
        run.dealer = thread
        run.started = time.monotonic()
        thread.start()
        try:
            host(sim, run)
        finally:
            run.ended = time.monotonic()
            dealer.stop.set()
            thread.join(30)
        run.device_stats = sim.command("status")["stats"]
    finally:
        sim.stop()
    if run.dealer_error is not None:
        raise run.dealer_error
    return run


# --- what a run shows ----------------------------------------------------------------------


@dataclass(frozen=True)
class Figures:
    lost: list[int]
    duplicated: int
    out_of_order: int
    wrong_card: int
    retransmission_ratio: float
    wall: float
    line_time: float
    outage: float  # the cable out
    host_outage: float  # the host down
    any_outage: float  # the cable out or the host down (overlaps once)
    latencies_ms: list[float]
    probes: list[tuple[Probe, float]]  # with the latency measured

    @property
    def probes_met(self) -> bool:
        return all(latency <= probe.bound for probe, latency in self.probes)


def figures(run: Run) -> Figures:
    plan = run.plan
    counters = [counter for counter, _, _ in run.arrivals]
    arrived = {counter: (card, at) for counter, card, at in run.arrivals}
    lost = sorted(set(run.drawn) - set(arrived))
    out_of_order = sum(b <= a for a, b in itertools.pairwise(counters))
    wrong = sum(arrived[c][0] != run.drawn[c][0] for c in arrived if c in run.drawn)
    sent = run.device_stats.get("retransmissions", 0)
    events = len(run.drawn) + 1  # the cards and the deck
    latencies = sorted(
        (at - run.drawn[c][1]) * 1000 for c, (_, at) in arrived.items() if run.met_no_outage(c, at)
    )
    probes = [(p, arrived[p.read_counter][1] - run.drawn[p.read_counter][1]) for p in run.probes]
    return Figures(
        lost=lost,
        duplicated=len(counters) - len(set(counters)),
        out_of_order=out_of_order,
        wrong_card=wrong,
        retransmission_ratio=(events + sent) / events,
        wall=run.ended - run.started,
        line_time=events * plan.card_time(),
        outage=sum(end - start for start, end in run.cable_out),
        host_outage=sum(end - start for start, end in run.host_out),
        any_outage=covered(run.cable_out + run.host_out),
        latencies_ms=latencies,
        probes=probes,
    )


def covered(intervals: list[tuple[float, float]]) -> float:
    """The time within any of the intervals, each moment once."""
    total, reached = 0.0, float("-inf")
    for start, end in sorted(intervals):
        total += max(0.0, end - max(start, reached))
        reached = max(reached, end)
    return total


def percentile(values: list[float], share: float) -> float:
    return values[min(len(values) - 1, round(share * (len(values) - 1)))] if values else 0.0


def report(run: Run, sheet: Report) -> Figures:
    plan, f = run.plan, figures(run)
    restarts = [up for up in run.link_ups if up.restarted]
    kills = f", {plan.kills} monitor kills" if plan.kills else ""
    print(
        f"  {plan.phase} ({plan.link}): {plan.cards} cards at {plan.baud} baud, "
        f"{plan.fault_rate:.0%} of frames corrupted, dropped and duplicated, {plan.unplugs} "
        f"unplugs of {plan.unplug_s} s, {'a restart' if plan.restart else 'no restart'}{kills}"
    )
    print(
        f"    cards lost {len(f.lost)}, duplicated {f.duplicated}, out of order "
        f"{f.out_of_order}, wrong card {f.wrong_card}"
    )
    print(
        f"    retransmissions: {f.retransmission_ratio:.3f}x the event frames "
        f"({run.device_stats.get('retransmissions', 0)} again for {len(run.drawn) + 1} events); "
        "goal < 1.2x"
    )
    budget = f.line_time + f.any_outage
    out = f"cable out {f.outage:.1f} s"
    if run.host_out:
        out = f"({out} or monitor down {f.host_outage:.1f} s: {f.any_outage:.1f} s)"
    print(
        f"    wall {f.wall:.1f} s; line time of the event bytes {f.line_time:.1f} s + {out} "
        f"= {budget:.1f} s: {f.wall / budget:.2f}x; goal <= 1.5x"
    )
    p50 = statistics.median(f.latencies_ms) if f.latencies_ms else 0.0
    print(
        f"    card latency (cards that met no outage): p50 {p50:.1f} ms, p99 "
        f"{percentile(f.latencies_ms, 0.99):.1f} ms, max {percentile(f.latencies_ms, 1):.1f} ms"
    )
    for probe, latency in f.probes:
        verdict = "met" if latency <= probe.bound else "NOT met"
        if run.met(run.host_out, probe.read_counter, run.drawn[probe.read_counter][1] + latency):
            verdict += " (the monitor was killed on the way)"
        print(
            f"    first card after a reconnect, behind {probe.backlog} events: {latency:.2f} s, "
            f"bound {probe.bound:.2f} s: {verdict}"
        )
    for up in restarts:
        print(f"    restart seen by the host: {up.reason}")
    if plan.restart and not restarts:
        boots = len({up.device.boot_id for up in run.link_ups})
        print(f"    restart seen by the host: not reported; boot ids in its LinkUps: {boots}")
    print(f"    shoe lost in its restart: {run.restart_lost} (it restarted with nothing pending)")
    if run.host_out:  # the monitor
        report_kills(run, sheet)
    to_json(run, f, budget, sheet)
    return f


def to_json(run: Run, f: Figures, budget: float, sheet: Report) -> None:
    """A phase's figures as JSON: its goals as rows, its losses as the checks."""
    phase = run.plan.phase
    p99 = percentile(f.latencies_ms, 0.99)
    ratio = f.retransmission_ratio
    sheet.row(
        f"{phase}: cards lost, duplicated, out of order or wrong",
        len(f.lost) + f.duplicated + f.out_of_order + f.wrong_card,
        "",
        "0",
        not f.lost and f.duplicated == f.out_of_order == f.wrong_card == 0,
    )
    sheet.row(f"{phase}: frames sent over event frames", ratio, "x", "< 1.2x", ratio < 1.2)
    sheet.row(
        f"{phase}: wall time over the line's time and outages",
        f.wall / budget,
        "x",
        "<= 1.5x",
        f.wall / budget <= 1.5,
    )
    sheet.row(
        f"{phase}: first card after each reconnect within its bound",
        sum(latency <= probe.bound for probe, latency in f.probes),
        f"of {len(f.probes)}",
        "all",
        f.probes_met,
    )
    sheet.check(
        f"{phase}: no card lost, duplicated, out of order or wrong",
        not f.lost and f.duplicated == f.out_of_order == f.wrong_card == 0,
    )
    sheet.figures[phase] = {
        "cards": run.plan.cards,
        "unplugs": run.plan.unplugs,
        "kills": run.plan.kills,
        "lost": len(f.lost),
        "duplicated": f.duplicated,
        "out_of_order": f.out_of_order,
        "wrong_card": f.wrong_card,
        "retransmission_ratio": round(ratio, 4),
        "wall_s": round(f.wall, 2),
        "line_time_s": round(f.line_time, 2),
        "cable_out_s": round(f.outage, 2),
        "host_out_s": round(f.host_outage, 2),
        "latency_ms": {
            "p50": round(statistics.median(f.latencies_ms), 2) if f.latencies_ms else None,
            "p99": round(p99, 2),
            "max": round(percentile(f.latencies_ms, 1), 2),
        },
        "probes": [
            {
                "backlog": probe.backlog,
                "latency_s": round(latency, 3),
                "bound_s": round(probe.bound, 3),
            }
            for probe, latency in f.probes
        ],
        "restart_lost": run.restart_lost,
    }


def report_kills(run: Run, sheet: Report) -> None:
    first_up = run.host_out[0][1] - run.started
    downs = sorted(end - start for start, end in run.host_out[1:])
    if downs:
        print(
            f"    monitor SIGKILLed {len(downs)} times: down {statistics.median(downs):.2f} s "
            f"median, {downs[-1]:.2f} s max, from the kill to the next monitor's LinkUp (the "
            f"first monitor was up {first_up:.2f} s after the start)"
        )
    events = len(run.drawn) + 1
    again = run.device_stats.get("retransmissions", 0) - run.retransmitted_while_down
    print(
        f"    events sent again after a kill and dropped by the journal: {run.redelivered}; "
        f"retransmissions without the {run.retransmitted_while_down} frames sent while the "
        f"monitor was down: {(events + again) / events:.3f}x the event frames"
    )
    journal = [card for _, card, _ in run.arrivals]
    drawn = [card for _, (card, _) in sorted(run.drawn.items())]
    print(
        f"    journal: {len(journal)} cards; equals the simulator's drawn cards in order: "
        f"{'yes' if journal == drawn else 'NO'}"
    )
    sheet.check("monitor: the journal equals the drawn cards, in order", journal == drawn)
    if downs:
        sheet.row(
            f"monitor killed {len(downs)} times: down a kill, median", statistics.median(downs), "s"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument(
        "--phases", default=",".join(PHASES), help=f"comma-separated: {', '.join(PHASES)}"
    )
    parser.add_argument("--unplugs", type=int, default=6)
    parser.add_argument("--kills", type=int, default=20, help="monitor kills (monitor phase)")
    parser.add_argument("--seed", type=int, default=1)
    add_json_option(parser)
    args = parser.parse_args()
    sheet = Report.start(__file__, args)
    phases = args.phases.split(",")
    unknown = [phase for phase in phases if phase not in PHASES]
    if unknown:
        parser.error(f"unknown phase {unknown[0]!r}; the phases are {', '.join(PHASES)}")
    print(
        f"bench/soak.py on {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start"
    )
    for phase in phases:
        link, host = PHASES[phase]
        plan = Plan(
            phase=phase,
            link=link,
            kills=args.kills if host is monitor_host else 0,
            cards=args.cards,
            unplugs=args.unplugs,
            seed=args.seed,
        )
        report(run_phase(plan, host), sheet)
    return sheet.finish()


if __name__ == "__main__":
    sys.exit(main())
