"""``luck-table sim`` as a real subprocess."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest

pytestmark = pytest.mark.slow  # processes

LUCK_TABLE = Path(sys.executable).with_name("luck-table")
SIM = [str(LUCK_TABLE), "sim"]


def sim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SIM, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def field(output: str, name: str) -> str:
    match = re.search(rf"^{name}: (.*)$", output, re.MULTILINE)
    assert match, f"no {name!r} line in:\n{output}"
    return match.group(1)


def test_three_hands_at_full_speed_are_dealt_the_same_twice(tmp_path: Path) -> None:
    """Simulator processes, the table service and its journal in ./data: run twice."""
    first = sim("--hands", "3", "--speed", "max", "--seed", "1", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert field(first.stdout, "hands").startswith("3 (0 void)")
    assert field(first.stdout, "chips").endswith("conserved")
    assert "NOT" not in field(first.stdout, "chips")
    assert field(first.stdout, "alerts") == "none"
    assert first.stdout.count("is over") == 3  # one line per hand when not a terminal
    assert "\x1b[" not in first.stdout  # no terminal codes into a pipe
    journal = tmp_path / "data" / "table.sqlite3"
    assert journal.exists() and (tmp_path / "data" / "table.log").exists()
    history = subprocess.run(
        [str(LUCK_TABLE), "history", "--journal", str(journal)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert history.stdout.count("=== hand ") == 3
    second = sim("--hands", "3", "--speed", "max", "--seed", "1", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    for name in ("cards", "decisions", "stacks", "hands fingerprint"):
        assert field(first.stdout, name) == field(second.stdout, name)
    core = sim("--hands", "3", "--speed", "max", "--seed", "1", "--core-only", cwd=tmp_path)
    assert field(core.stdout, "hands fingerprint") == field(first.stdout, "hands fingerprint")
    other = sim("--hands", "3", "--speed", "max", "--seed", "2", "--core-only", cwd=tmp_path)
    assert field(other.stdout, "hands fingerprint") != field(first.stdout, "hands fingerprint")


def test_faults_are_counted_and_resolved(tmp_path: Path) -> None:
    clean = sim("--hands", "4", "--speed", "max", "--seed", "3", "--core-only", cwd=tmp_path)
    faulty = sim(
        *("--hands", "4", "--speed", "max", "--seed", "3"),
        *("--unreadable", "0.1", "--misplaced", "0.1", "--unplugs", "0.02"),
        *("--line-faults", "0.01"),
        cwd=tmp_path,
    )
    assert faulty.returncode == 0, faulty.stderr
    injected = field(faulty.stdout, "faults injected")
    assert "unreadable card" in injected and "misplaced card" in injected
    unread = re.search(r"^  unread_card: (\d+) raised; resolved: (.*)$", faulty.stdout, re.M)
    assert unread, faulty.stdout
    counts = [int(n) for n in re.findall(r": (\d+)", unread.group(2))]
    assert sum(counts) == int(unread.group(1)) > 0
    assert "alerts still open" not in faulty.stdout
    assert "frames dropped or corrupted" in injected
    unplugs = sum(int(n) for n in re.findall(r"unplugged (\d+)", injected))
    downs = re.search(r"^  link_down: (\d+) raised", faulty.stdout, re.M)
    # every pull is noticed; a machine loaded past the links' silence (three heartbeats of
    # 250 ms) takes a link down too, as it would at a table: more may be raised, none fewer
    assert (int(downs.group(1)) if downs else 0) >= unplugs, faulty.stdout
    fingerprint = "hands fingerprint"
    assert field(faulty.stdout, fingerprint) == field(clean.stdout, fingerprint)


def test_every_cheat_injected_is_caught_through_the_simulators_and_in_the_core(
    tmp_path: Path,
) -> None:
    """The short soak: cheats at every other deck, through simulator processes and the
    service, then in the core; the same hands with cheats in both (the seed)."""
    args = ("--hands", "12", "--speed", "max", "--seed", "4", "--cheats", "0.5")
    served = sim(*args, "--misplaced", "0.05", cwd=tmp_path)
    assert served.returncode == 0, served.stdout + served.stderr
    cheats = field(served.stdout, "cheats")
    injected, caught = (int(n) for n in re.findall(r"(\d+) (?:injected|caught)", cheats))
    hidden = re.search(r"(\d+) the table cannot catch", cheats)  # a clone's original unseen
    assert injected == caught + (int(hidden.group(1)) if hidden else 0) > 0, cheats
    assert cheats.endswith("; 0 missed"), cheats
    assert "alerts still open" not in served.stdout
    core = sim(*args, "--misplaced", "0.05", "--core-only", cwd=tmp_path)
    assert core.returncode == 0, core.stdout
    assert field(core.stdout, "cheats") == cheats
    assert field(core.stdout, "hands fingerprint") == field(served.stdout, "hands fingerprint")
    many = sim(
        "--hands",
        "120",
        "--speed",
        "max",
        "--seed",
        "6",
        "--cheats",
        "0.6",
        "--core-only",
        cwd=tmp_path,
    )
    assert many.returncode == 0, many.stdout
    every = field(many.stdout, "cheats")
    for kind in ("foreign", "retagged", "cloned", "missing", "extra", "switched"):
        found = re.search(rf"{kind} (\d+)/(\d+)", every)
        assert found and found.group(1) == found.group(2) != "0", (kind, every)


@pytest.mark.parametrize(
    ("stop", "by"),
    [
        (lambda pid: os.killpg(pid, signal.SIGINT), "Ctrl-C"),  # a terminal's, to the group
        (lambda pid: os.kill(pid, signal.SIGTERM), "SIGTERM"),  # kill, systemd: to it alone
    ],
    ids=["ctrl-c", "sigterm"],
)
def test_ctrl_c_or_sigterm_stops_the_table_and_the_simulators_and_prints_the_summary(
    tmp_path: Path, stop: Callable[[int], None], by: str
) -> None:
    errors = (tmp_path / "stderr").open("w+")  # a file, not a pipe nobody reads while it deals
    process = subprocess.Popen(
        [*SIM, "--hands", "0", "--speed", "max"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    output = Output(process.stdout)
    try:
        output.wait_for("hand 2 is over\n", timeout=120)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    children = ["pgrep", "-P", str(process.pid)]
    simulators = subprocess.run(children, capture_output=True, text=True, check=True).stdout.split()
    assert len(simulators) == 2  # the shoe and the seat board
    stop(process.pid)
    process.wait(timeout=60)
    out = output.text(timeout=10)
    errors.close()
    err = (tmp_path / "stderr").read_text()
    assert process.returncode == 0, err
    assert f"stopped ({by})" in out and "conserved" in field(out, "chips")
    assert "Traceback" not in err and "error" not in err
    assert "while stopping" not in (tmp_path / "data" / "table.log").read_text()
    for pid in simulators:  # stopped by the run, not by the signal: no simulator left behind
        assert not Path(f"/proc/{pid}").exists()


class Output:
    """A process's output read in the background, so that a test can wait for a line with
    a deadline and still get the whole output once the process has ended."""

    def __init__(self, stream: IO[str]) -> None:
        self._lines: list[str] = []
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._arrived:
                self._lines.append(line)
                self._arrived.notify_all()

    def wait_for(self, wanted: str, timeout: float) -> None:
        with self._arrived:
            if not self._arrived.wait_for(lambda: wanted in self._lines, timeout):
                pytest.fail(f"no {wanted!r} in {timeout} s: {''.join(self._lines[-20:])}")

    def text(self, timeout: float) -> str:
        self._reader.join(timeout)
        assert not self._reader.is_alive(), "the output did not end"
        return "".join(self._lines)


def test_the_console_is_served_while_the_table_deals(tmp_path: Path) -> None:
    result = sim("--hands", "1", "--speed", "max", "--console", "127.0.0.1:0", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    console = re.search(
        r"^console (http://127\.0\.0\.1:\d+) \(dealer DEALER/\d{6}, supervisor PIT/\d{6}\)",
        result.stdout,
        re.M,
    )
    assert console, result.stdout
    assert field(result.stdout, "hands").startswith("1 (0 void)")


@pytest.mark.parametrize("timing", ["end", "street"])
def test_the_house_s_rake_and_drop_are_counted_in_the_chips_check(
    tmp_path: Path, timing: str
) -> None:
    house = '{"variant": "seven-card-stud", "rake_percent": 10, "rake_cap": 3, '
    house += f'"jackpot_drop": 1, "jackpot_drop_at": 10, "rake_timing": "{timing}"}}'
    journal = tmp_path / "raked.sqlite3"
    result = sim(
        *("--hands", "6", "--speed", "max", "--core-only", "--journal", str(journal)),
        *("--rules", house),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "(4 to the house)" in result.stdout  # the awards say what the house took
    chips = field(result.stdout, "chips")
    raked = re.search(r"(\d+) raked, (\d+) to the jackpot, (\d+) in the stacks", chips)
    assert raked and int(raked.group(1)) > 0 and int(raked.group(2)) > 0, chips
    bought = int(chips.split(" bought in")[0])
    assert bought == sum(int(n) for n in raked.groups()), chips
    assert chips.endswith(": conserved"), chips
    # the journal records each hand's take, and the record replays to it
    record = subprocess.run(
        [str(LUCK_TABLE), "history", "--journal", str(journal), "--hand", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    outcome = json.loads(record)["outcome"]
    assert outcome["rake"] + outcome["jackpot_drop"] == outcome["pots"][0]["taken"] > 0
    audit = subprocess.run(
        [str(LUCK_TABLE), "replay", "-"],
        input=record,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "replays to the outcome the table recorded" in audit.stdout + audit.stderr
    assert "RAKE " in audit.stdout


def test_the_simulated_dealers_push_each_other_and_each_hand_names_its_dealer(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "pushed.sqlite3"
    args = ("--hands", "5", "--speed", "max", "--dealer-push", "2", "--core-only")
    result = sim(*args, "--journal", str(journal), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    history = subprocess.run(
        [str(LUCK_TABLE), "history", "--journal", str(journal), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    dealers = [hand["dealer"] for hand in json.loads(history)]
    assert dealers == ["SIM-D1", "SIM-D1", "SIM-D2", "SIM-D2", "SIM-D1"]


def table_configuration(folder: Path, **table: str) -> Path:
    """The example configuration of a table (deploy/), with the house's rake and a short
    studio delay in test mode, its shoe's serial named, and ``table``'s settings."""
    example = Path(__file__).parent.parent / "deploy" / "table.example.toml"
    text = example.read_text(encoding="utf-8")
    for setting, value in {
        "test_mode": "true",
        "rake_percent": "10",
        "rake_cap": "4",
        "jackpot_drop": "1",
        "jackpot_drop_at": "20",
        "delay": "0.1",
        **table,
    }.items():
        text, replaced = re.subn(rf"^#? ?{setting} = \S+", f"{setting} = {value}", text, flags=re.M)
        assert replaced == 1, setting
    text = text.replace('# serial = "SHOE-0042"', 'serial = "SHOE-0042"')
    path = folder / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_whole_table_configuration_is_dealt_on_the_simulators(tmp_path: Path) -> None:
    """``--config``: the file's rules, table and studio on the simulators, with the run's own
    journal and sign-ins (the file's PIN hashes cannot be signed in with) and any device's
    serial (the simulators' are not the file's)."""
    config = table_configuration(tmp_path)
    journal = tmp_path / "configured.sqlite3"
    result = sim(
        *("--config", str(config), "--hands", "3", "--speed", "max", "--seed", "2"),
        *("--journal", str(journal), "--console", "127.0.0.1:0"),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"^console http://127\.0\.0\.1:\d+ \(dealer DEALER/\d{6}", result.stdout, re.M)
    chips = field(result.stdout, "chips")
    raked = re.search(r"(\d+) raked, (\d+) to the jackpot", chips)
    assert raked and int(raked.group(1)) > 0, chips
    assert chips.endswith(": conserved") and field(result.stdout, "alerts") == "none", chips
    history = subprocess.run(
        [str(LUCK_TABLE), "history", "--journal", str(journal), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    hands = json.loads(history)
    assert len(hands) == 3 and all(hand["script"]["rules"]["rake_percent"] == 10 for hand in hands)
    timed = table_configuration(
        tmp_path, rake_percent="0", rake_cap="0", jackpot_drop="0", jackpot_drop_at="0"
    )
    timed.write_text(
        timed.read_text().replace("# time_charge = 0 ", "time_charge = 5 "), encoding="utf-8"
    )
    result = sim(
        "--config", str(timed), "--hands", "2", "--speed", "max", "--core-only", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"\b[1-9]\d* time collected", field(result.stdout, "chips")), result.stdout


def test_bad_options_are_refused_with_status_2(tmp_path: Path) -> None:
    existing = tmp_path / "live.sqlite3"  # perhaps a live table's journal: never replaced
    existing.write_bytes(b"not ours")
    good = table_configuration(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text().replace("test_mode = true", 'test_mode = "yes"'))
    for args, words in (
        (("--seats", "9"), "--seats 9"),
        (("--speed", "fast"), "--speed fast"),
        (("--unreadable", "2"), "unreadable"),
        (("--bonus-price", "-1"), "bonus-price"),
        (("--journal", str(existing)), "the file exists"),
        (("--console", "8080"), "--console 8080: give HOST:PORT"),
        (("--console", "127.0.0.1:1", "--core-only"), "no table service with --core-only"),
        (("--floor", "floor.casino"), "--floor = 'floor.casino': a PostgreSQL connection"),
        (("--floor", "host=x", "--core-only"), "--floor: there is no journal to ship"),
        (("--table-id", "T 1"), "--table-id 'T 1': letters, digits"),
        (("--dealer-push", "-1"), "--dealer-push -1: a number of hands"),
        (("--cheats", "1.5"), "cheats"),
        (("--cheats", "0.1", "--dealer", "human"), "--cheats: the automatic dealer's"),
        (("--cheats", "0.1", "--unreadable", "0.1"), "--cheats with --unreadable"),
        (("--rules", "{rake_percent: 5}"), "--rules: not valid JSON"),
        (("--rules", "[5]"), "--rules: a JSON object of settings"),
        (("--rules", '{"rake_percent": 5}'), "--rules: rules.rake_cap: must be a positive"),
        (("--rules", '{"rake": 5}'), "--rules: rules: unknown setting 'rake'"),
        (("--rules", '{"variant": "seven-card-stud"}', "--variant", "seven-card-stud"), "both"),
        (
            ("--config", "nowhere.toml"),
            "--config nowhere.toml: file = 'nowhere.toml': cannot be read",
        ),
        (("--config", str(bad)), "table.test_mode = 'yes': true or false"),
        (("--config", str(good), "--rules", "{}"), "--rules with --config: the configuration"),
        (("--config", str(good), "--table-id", "T-9"), "--table-id with --config"),
    ):
        result = sim(*args, cwd=tmp_path)
        assert result.returncode == 2
        assert words in result.stderr and "Traceback" not in result.stderr
    assert existing.read_bytes() == b"not ours"
