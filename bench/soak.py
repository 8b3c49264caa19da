"""Link soak (issue 9): the shoe driver against the simulator at line speed, with faults.

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

Phases: ``pty`` and ``tcp``. A ``monitor`` phase (the journal killed with SIGKILL during the
run) is meant to be added beside them once ``luck-table monitor`` exists: ``run_phase`` takes
the host as a parameter (``Host``), so a phase whose host is a monitor process fits in.

Usage: .venv/bin/python bench/soak.py [--cards 10000] [--phases pty,tcp] [--unplugs 6]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import platform
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from drivers import events as ev
from drivers.device import ShoeDriver
from drivers.session import MAX_EVENT_FRAME, LinkConfig
from firmware_sim.process import ControlReplyError, SimulatorProcess

BITS_PER_BYTE = 10  # 8N1
HEARTBEAT_MS = 200


@dataclass(frozen=True)
class Plan:
    """One run: the link, how many cards, the faults and the interruptions."""

    link: str = "pty"  # or "tcp"
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
        return MAX_EVENT_FRAME * BITS_PER_BYTE / self.baud


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
    probes: list[Probe] = field(default_factory=list)
    arrivals: list[tuple[int, int, float]] = field(default_factory=list)  # counter, card, time
    link_ups: list[ev.LinkUp] = field(default_factory=list)
    restart_lost: int = 0  # events the shoe lost in its power cycle (by its own count)
    device_stats: dict[str, int] = field(default_factory=dict)
    dealt_all: threading.Event = field(default_factory=threading.Event)
    started: float = 0.0
    ended: float = 0.0
    dealer_error: BaseException | None = None

    def met_no_outage(self, counter: int, arrived: float) -> bool:
        """Whether the card went from the shoe to the host without the cable being out."""
        drawn = self.drawn[counter][1]
        return not any(start < arrived and drawn < end for start, end in self.cable_out)


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
        while self.pending() >= limit and not self.stop.is_set():
            time.sleep(0.002)

    def draw(self) -> int:
        while True:
            at = time.monotonic()
            try:
                reply = self.sim.command("draw")
            except ControlReplyError as error:
                if "buffer full" not in str(error):
                    raise
                time.sleep(0.005)  # the shoe holds the card until the host acknowledges
                continue
            counter = int(reply["event"]["read_counter"])
            self.run.drawn[counter] = (int(reply["card"]), at)
            return counter

    def unplug(self) -> None:
        """Pull the cable; draw on until the backlog waits; draw a probe card at the end."""
        plan = self.plan
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
        while self.sim.command("status")["connected"] is False:
            time.sleep(0.001)
        backlog = self.pending()
        bound = backlog * plan.card_time() + 1.0
        self.run.probes.append(Probe(self.draw(), backlog, bound))

    def power_cycle(self) -> None:
        """Restart the shoe with nothing pending (so nothing is lost); the host must see it."""
        self.wait_pending_below(1)
        start = time.monotonic()
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
            self.run.dealer_error = error
        finally:
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
                    if time.monotonic() - quiet_since > 60:
                        raise RuntimeError("no event for 60 s: the link stalled") from None
                    continue
                now = quiet_since = time.monotonic()
                if isinstance(event, ev.LinkUp):
                    run.link_ups.append(event)
                elif isinstance(event, ev.CardRead):
                    run.arrivals.append((event.read_counter, event.card, now))
                if not isinstance(event, ev.LinkUp | ev.LinkDown):
                    driver.acknowledge(event)

    asyncio.run(consume())


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
    )
    run = Run(plan)
    try:
        rate = plan.fault_rate
        sim.command(f"set corrupt_frame_rate={rate} drop_rate={rate} duplicate_rate={rate}")
        dealer = Dealer(sim, run)
        thread = threading.Thread(target=dealer.deal, name="dealer", daemon=True)
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
    outage: float
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
        latencies_ms=latencies,
        probes=probes,
    )


def percentile(values: list[float], share: float) -> float:
    return values[min(len(values) - 1, round(share * (len(values) - 1)))] if values else 0.0


def report(run: Run) -> Figures:
    plan, f = run.plan, figures(run)
    restarts = [up for up in run.link_ups if up.restarted]
    print(
        f"  {plan.link}: {plan.cards} cards at {plan.baud} baud, {plan.fault_rate:.0%} of frames "
        f"corrupted, dropped and duplicated, {plan.unplugs} unplugs of {plan.unplug_s} s, "
        f"{'a restart' if plan.restart else 'no restart'}"
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
    budget = f.line_time + f.outage
    print(
        f"    wall {f.wall:.1f} s; line time of the event bytes {f.line_time:.1f} s + cable out "
        f"{f.outage:.1f} s = {budget:.1f} s: {f.wall / budget:.2f}x; goal <= 1.5x"
    )
    p50 = statistics.median(f.latencies_ms) if f.latencies_ms else 0.0
    print(
        f"    card latency (cards that met no outage): p50 {p50:.1f} ms, p99 "
        f"{percentile(f.latencies_ms, 0.99):.1f} ms, max {percentile(f.latencies_ms, 1):.1f} ms"
    )
    for probe, latency in f.probes:
        verdict = "met" if latency <= probe.bound else "NOT met"
        print(
            f"    first card after a reconnect, behind {probe.backlog} events: {latency:.2f} s, "
            f"bound {probe.bound:.2f} s: {verdict}"
        )
    for up in restarts:
        print(f"    restart seen by the host: {up.reason}")
    print(f"    shoe lost in its restart: {run.restart_lost} (it restarted with nothing pending)")
    return f


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--phases", default="pty,tcp", help="comma-separated: pty, tcp")
    parser.add_argument("--unplugs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"bench/soak.py on {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start"
    )
    for link in args.phases.split(","):
        plan = Plan(link=link, cards=args.cards, unplugs=args.unplugs, seed=args.seed)
        report(run_phase(plan))


if __name__ == "__main__":
    main()
