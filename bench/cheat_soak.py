"""Cheat soak: ``luck-table sim --cheats RATE`` through the simulator processes and the
table service, every cheat injected caught, compared with the same seed on the pure core.

The automatic dealer loads a shuffled deck before each hand, at 8 seats (``--seats``) so
that hands reach the short deck; at ``--cheats`` per deck it carries one cheat, each kind
as likely (docs/sim.md): a foreign, re-tagged or cloned card at any place of the deck (a
late street, a burn, the bonus card), a clone of a card still in the shoe (any card, or the
4c) dealt before its original, a card missing or one of another deck extra; at any seat on
any street, a card switched, a card passed from another live player, a folded hand's or a
burn card brought from the muck, a card with a shielded tag held out. A cheat counts once
it is dealt (one placed where its hand never got to is counted apart). The shoe's
simulator registers each deck card by card and reads every tag, the seat board reads the
tag of every card placed, and the table checks them (docs/game-protection.md); the
supervisor's remedies follow. Cards misplaced and cables pulled run alongside (a card
dealt unread shows no tag: not mixed in).

Printed: hands, time, each kind of cheat injected and caught, those the table cannot catch
(a clone dealt before its original, which stayed in the shoe: docs/game-protection.md,
"What the table cannot detect"), where the cheats were dealt, the cards dealt after each
before its alert, the alerts, and the same for the core run of the same seed (no
simulators, no service: the same hands). It passes (exit status 0) with 0 cheats missed,
each caught at its card (0 cards dealt after it before its alert) but a clone dealt before
its original (caught when the original comes out), no genuine card taken for one, the
chips conserved in both runs, and the service's cheats and hands fingerprint equal to the
core's.

Usage: .venv/bin/python bench/cheat_soak.py [--hands 1000] [--seats 8] [--cheats 0.3]
       [--seed 1] [--misplaced 0.02] [--unplugs 0.005] [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # imported as bench.cheat_soak too

from figures_kit import Report, add_json_option

from controller.sim.dealer import CHEATS, LATE

LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))
KINDS = tuple(kind.value for kind in CHEATS)


def run(args: argparse.Namespace, folder: Path, *, core: bool) -> tuple[int, str, float]:
    """One ``luck-table sim`` run: its status, its output and its seconds."""
    command = [LUCK_TABLE, "sim", "--hands", str(args.hands), "--speed", "max"]
    command += ["--seats", str(args.seats)]
    command += ["--seed", str(args.seed), "--cheats", str(args.cheats)]
    command += ["--misplaced", str(args.misplaced), "--unplugs", str(args.unplugs)]
    command += ["--core-only"] if core else ["--journal", str(folder / "soak.sqlite3")]
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=4 * 3600, check=False
    )
    return done.returncode, done.stdout + done.stderr, time.monotonic() - started


def line(output: str, name: str) -> str:
    found = re.search(rf"^{name}: (.*)$", output, re.MULTILINE)
    return found.group(1) if found else "(none)"


def caught(output: str) -> dict[str, tuple[int, int]]:
    """Each kind's (caught, injected) from the summary's cheats line."""
    cheats = line(output, "cheats")
    return {
        kind: (int(found.group(1)), int(found.group(2)))
        for kind in KINDS
        if (found := re.search(rf"{kind} (\d+)/(\d+)", cheats))
    }


def counted(output: str, what: str) -> int:
    """A count of the summary's cheats line: ``missed``, ``the table cannot catch``."""
    found = re.search(rf"(\d+) {what}\b", line(output, "cheats"))
    return int(found.group(1)) if found else 0


def late(output: str) -> str:
    """The summary's cards dealt after a cheat before its alert ("0 for 12; most 0")."""
    return line(output, "cards dealt after a cheat before its alert")


def late_kinds(output: str) -> set[str]:
    """The kinds the summary says were caught after their card."""
    return set(re.findall(r"(\w+) \d+ \(most \d+\)", line(output, "caught after their card")))


def at_the_card(output: str) -> bool:
    """Every cheat caught was caught at its card (none dealt after it before its alert),
    but a clone dealt before its original, caught when the original comes out."""
    if line(output, "caught after their card") == "(none)":  # a summary without the line
        return late(output).endswith("; most 0")
    return late_kinds(output) <= LATE


def report(name: str, status: int, output: str, seconds: float) -> None:
    hands = line(output, "hands").split(" in ")[0]
    print(f"{name}: status {status}, hands {hands}, {seconds:.1f} s")
    print(f"  cheats: {line(output, 'cheats')}")
    print(f"  cheats dealt at: {line(output, 'cheats dealt at')}")
    print(f"  cards dealt after a cheat before its alert: {late(output)}")
    print(f"  caught after their card: {line(output, 'caught after their card')}")
    alerts = re.findall(r"^  (\w+): (\d+) raised", output, re.MULTILINE)
    print("  alerts raised: " + ", ".join(f"{kind} {count}" for kind, count in alerts))
    print(f"  chips: {line(output, 'chips')}")
    print(f"  hands fingerprint: {line(output, 'hands fingerprint')}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--cheats", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--misplaced", type=float, default=0.02)
    parser.add_argument("--unplugs", type=float, default=0.005)
    add_json_option(parser)
    args = parser.parse_args(argv)
    figures = Report.start(__file__, args)
    print(
        f"cheat soak: {args.hands} hands at {args.seats} seats, cheats {args.cheats} per deck, "
        f"misplaced {args.misplaced}, unplugs {args.unplugs}, seed {args.seed}; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start"
    )
    with tempfile.TemporaryDirectory(prefix="cheat-soak-") as folder:
        served = run(args, Path(folder), core=False)
        core = run(args, Path(folder), core=True)
    report("simulators and service", *served)
    report("core (same seed)", *core)
    kinds = caught(served[1])
    missed = counted(served[1], "missed")
    hidden = counted(served[1], "the table cannot catch")
    accounted = all(got <= count for got, count in kinds.values())
    accounted = accounted and sum(count - got for got, count in kinds.values()) == missed + hidden
    equal = all(
        line(served[1], name) == line(core[1], name)
        for name in ("cheats", "cheats dealt at", "hands fingerprint")
    )
    injected = sum(count for _, count in kinds.values())
    print(
        f"result: {injected} cheats injected, {missed} missed, {hidden} the table cannot "
        f"catch; every kind injected: {len(kinds) == len(KINDS)}; each caught at its card "
        f"(a clone dealt before its original: when the original comes out): "
        f"{at_the_card(served[1])}; the same as the core's: {equal}"
    )
    ok = served[0] == core[0] == 0 and missed == 0 < injected and accounted and equal
    ok = ok and at_the_card(served[1]) and at_the_card(core[1])
    print("PASS" if ok else "FAIL")
    figures.row("cheats injected", injected)
    figures.row("cheats missed", missed, "", "0", missed == 0)
    figures.row("cheats the table cannot catch (a clone's original left in the shoe)", hidden)
    figures.row("through the simulators and the service", served[2], "s")
    figures.row("the same hands on the core", core[2], "s")
    figures.check("both runs ended with status 0", served[0] == core[0] == 0)
    figures.check(
        "every cheat injected caught but those the table cannot catch, at least one injected",
        missed == 0 < injected and accounted,
    )
    figures.check("the cheats and the hands the same as the core's", equal)
    figures.check(
        "each cheat caught at its card (no card dealt after it before its alert), "
        "a clone dealt before its original when the original comes out",
        at_the_card(served[1]) and at_the_card(core[1]),
    )
    figures.figures = {
        "hands": args.hands,
        "seats": args.seats,
        "cheats_per_deck": args.cheats,
        "seed": args.seed,
        "kinds": {kind: {"caught": got, "injected": count} for kind, (got, count) in kinds.items()},
        "cannot_catch": hidden,
        "cards_after": late(served[1]),
        "caught_after_their_card": line(served[1], "caught after their card"),
        "chips": line(served[1], "chips"),
        "hands_fingerprint": line(served[1], "hands fingerprint"),
    }
    return figures.finish()


if __name__ == "__main__":
    sys.exit(main())
