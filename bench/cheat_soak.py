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

Both runs write their summary as data (``luck-table sim --json FILE``, docs/sim.md), which
this reads. Printed: hands, time, each kind of cheat injected and caught, those the table
cannot catch (a clone dealt before its original, which stayed in the shoe:
docs/game-protection.md, "What the table cannot detect"), where the cheats were dealt, the
cards dealt after each before its alert, the alerts, and the same for the core run of the
same seed (no simulators, no service: the same hands). It passes (exit status 0) with 0
cheats missed, each caught at its card (0 cards dealt after it before its alert) but a
clone dealt before its original (caught when the original comes out), no genuine card
taken for one, the chips conserved in both runs, and the service's cheats and hands
fingerprint equal to the core's.

Usage: .venv/bin/python bench/cheat_soak.py [--hands 1000] [--seats 8] [--cheats 0.3]
       [--seed 1] [--misplaced 0.02] [--unplugs 0.005] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # imported as bench.cheat_soak too

from figures_kit import Report, add_json_option

from controller.rules import Dest
from controller.sim.dealer import CHEATS, LATE, Place, SoakCheat
from controller.sim.summary import Cheats, CheatsAt, Summary

LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))
KINDS = tuple(kind.value for kind in CHEATS)


def run(args: argparse.Namespace, folder: Path, *, core: bool) -> tuple[int, Summary, float]:
    """One ``luck-table sim`` run: its status, its summary (its ``--json``) and its seconds."""
    summary = folder / ("core.json" if core else "served.json")
    command = [LUCK_TABLE, "sim", "--hands", str(args.hands), "--speed", "max"]
    command += ["--seats", str(args.seats), "--json", str(summary)]
    command += ["--seed", str(args.seed), "--cheats", str(args.cheats)]
    command += ["--misplaced", str(args.misplaced), "--unplugs", str(args.unplugs)]
    command += ["--core-only"] if core else ["--journal", str(folder / "soak.sqlite3")]
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=4 * 3600, check=False
    )
    if not summary.exists():
        sys.exit(f"luck-table sim wrote no summary (status {done.returncode}):\n{done.stderr}")
    made: Summary = json.loads(summary.read_text())  # each enum as its value
    return done.returncode, made, time.monotonic() - started


def caught(cheats: Cheats) -> dict[SoakCheat, tuple[int, int]]:
    """Each kind's (caught, injected), from the summary's cheats."""
    return {
        kind: (cheats["caught"].get(kind, 0), count) for kind, count in cheats["injected"].items()
    }


def compared(cheats: Cheats) -> dict[str, object]:
    """The summary's cheats compared between the two runs: all but how late each was
    caught, which each run is judged on alone (``at_the_card``)."""
    return {name: value for name, value in cheats.items() if name != "caught_after"}


def at_the_card(cheats: Cheats) -> bool:
    """Every cheat caught was caught at its card (none dealt after it before its alert),
    but a clone dealt before its original, caught when the original comes out."""
    return all(after["kind"] in LATE for after in cheats["caught_after"] if after["cards"])


def place(at: CheatsAt) -> str:
    """Where cheats were dealt, as the sim's summary says it."""
    dest = None if at["dest"] is None else Dest(at["dest"])  # read as its value
    return Place(dest, at["street"], at["scrambled"]).words


def late(cheats: Cheats) -> str:
    """The cards dealt after a cheat before its alert ("0 for 12, 3 for 1; most 3")."""
    every: Counter[int] = Counter()
    for after in cheats["caught_after"]:
        every[after["cards"]] += after["cheats"]
    counts = ", ".join(f"{cards} for {count}" for cards, count in sorted(every.items()))
    return f"{counts or 'none caught'}; most {max(every, default=0)}"


def report(name: str, status: int, summary: Summary, seconds: float) -> None:
    cheats = summary["cheats"]
    kinds = ", ".join(f"{kind} {got}/{count}" for kind, (got, count) in caught(cheats).items())
    places = ", ".join(f"{place(at)} {at['cheats']}" for at in cheats["dealt_at"])
    print(f"{name}: status {status}, hands {summary['hands']}, {seconds:.1f} s")
    injected, hidden = sum(cheats["injected"].values()), sum(cheats["cannot_catch"].values())
    missed, mistaken = sum(cheats["missed"].values()), sum(cheats["mistaken"].values())
    print(
        f"  cheats: {injected} injected ({kinds}); {hidden} the table cannot catch; "
        f"{missed} missed; {mistaken} genuine cards taken"
    )
    never = sum(cheats["never_dealt"].values())
    print(f"  cheats dealt at: {places or 'none'}; never dealt: {never}")
    print(f"  cards dealt after a cheat before its alert: {late(cheats)}")
    alerts = summary["alerts"]
    print("  alerts raised: " + ", ".join(f"{kind} {a['raised']}" for kind, a in alerts.items()))
    print(f"  chips conserved: {summary['chips']['conserved']}")
    print(f"  hands fingerprint: {summary['hands_fingerprint']}")


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
    cheats, core_cheats = served[1]["cheats"], core[1]["cheats"]
    kinds = caught(cheats)
    missed, hidden = sum(cheats["missed"].values()), sum(cheats["cannot_catch"].values())
    accounted = all(got <= count for got, count in kinds.values())
    accounted = accounted and sum(count - got for got, count in kinds.values()) == missed + hidden
    equal = compared(cheats) == compared(core_cheats)
    equal = equal and served[1]["hands_fingerprint"] == core[1]["hands_fingerprint"]
    injected = sum(cheats["injected"].values())
    print(
        f"result: {injected} cheats injected, {missed} missed, {hidden} the table cannot "
        f"catch; every kind injected: {len(kinds) == len(KINDS)}; each caught at its card "
        f"(a clone dealt before its original: when the original comes out): "
        f"{at_the_card(cheats)}; the same as the core's: {equal}"
    )
    conserved = served[1]["chips"]["conserved"] and core[1]["chips"]["conserved"]
    ok = served[0] == core[0] == 0 and missed == 0 < injected and accounted and equal
    ok = ok and at_the_card(cheats) and at_the_card(core_cheats)
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
        at_the_card(cheats) and at_the_card(core_cheats),
    )
    figures.figures = {
        "hands": args.hands,
        "seats": args.seats,
        "cheats_per_deck": args.cheats,
        "seed": args.seed,
        "kinds": {kind: {"caught": got, "injected": count} for kind, (got, count) in kinds.items()},
        "cannot_catch": hidden,
        "dealt_at": {place(at): at["cheats"] for at in cheats["dealt_at"]},
        "cards_after": late(cheats),
        "caught_after": cheats["caught_after"],
        "chips_conserved": conserved,
        "hands_fingerprint": served[1]["hands_fingerprint"],
    }
    return figures.finish()


if __name__ == "__main__":
    sys.exit(main())
