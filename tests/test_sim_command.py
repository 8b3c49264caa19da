"""``luck-table sim`` as a real subprocess."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

from controller.sim.dealer import Injected
from controller.sim.view import Event

pytestmark = pytest.mark.slow  # processes

LUCK_TABLE = Path(sys.executable).with_name("luck-table")
SIM = [str(LUCK_TABLE), "sim"]
_SUMMARIES = itertools.count(1)


def sim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SIM, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def summarized(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """A run and its summary as data (``--json FILE``, docs/sim.md)."""
    path = cwd / f"summary-{next(_SUMMARIES)}.json"
    done = sim(*args, "--json", str(path), cwd=cwd)
    assert path.exists(), done.stdout + done.stderr
    return done, json.loads(path.read_text(encoding="utf-8"))


def test_three_hands_at_full_speed_are_dealt_the_same_twice(tmp_path: Path) -> None:
    """Simulator processes, the table service and its journal in ./data: run twice."""
    first, summary = summarized("--hands", "3", "--speed", "max", "--seed", "1", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert (summary["hands"], summary["void_hands"]) == (3, 0)
    assert summary["chips"]["conserved"] and summary["alerts"] == {}
    assert summary["journal"] == "data/table.sqlite3" and summary["log"] == "data/table.log"
    # the words for people: one line per hand when not a terminal, the summary from the data
    assert first.stdout.count("is over") == 3
    assert f"hands fingerprint: {summary['hands_fingerprint']}\n" in first.stdout
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
    second, again = summarized("--hands", "3", "--speed", "max", "--seed", "1", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    for name in ("cards", "decisions", "stacks", "hands_fingerprint"):
        assert summary[name] == again[name]
    args = ("--hands", "3", "--speed", "max", "--core-only")
    _, core = summarized(*args, "--seed", "1", cwd=tmp_path)
    assert core["hands_fingerprint"] == summary["hands_fingerprint"]
    assert core["journal"] is None and core["log"] is None
    _, other = summarized(*args, "--seed", "2", cwd=tmp_path)
    assert other["hands_fingerprint"] != summary["hands_fingerprint"]


def test_faults_are_counted_and_resolved(tmp_path: Path) -> None:
    _, clean = summarized(
        "--hands", "4", "--speed", "max", "--seed", "3", "--core-only", cwd=tmp_path
    )
    faulty, summary = summarized(
        *("--hands", "4", "--speed", "max", "--seed", "3"),
        *("--unreadable", "0.1", "--misplaced", "0.1", "--unplugs", "0.02"),
        *("--line-faults", "0.01"),
        cwd=tmp_path,
    )
    assert faulty.returncode == 0, faulty.stderr
    injected = summary["faults"]["injected"]
    assert injected[Injected.UNREADABLE] > 0 and injected[Injected.MISPLACED] > 0
    unread = summary["alerts"]["unread_card"]
    assert sum(unread["resolved"].values()) == unread["raised"] > 0
    assert summary["open_alerts"] == []
    assert summary["faults"]["line_faults"] == 0.01
    pulled = (Injected.SHOE_UNPLUGGED, Injected.SEAT_BOARD_UNPLUGGED)
    unplugs = sum(injected.get(what, 0) for what in pulled)
    downs = summary["alerts"].get("link_down", {"raised": 0})["raised"]
    # every pull is noticed; a machine loaded past the links' silence (three heartbeats of
    # 250 ms) takes a link down too, as it would at a table: more may be raised, none fewer
    assert downs >= unplugs, summary
    assert summary["hands_fingerprint"] == clean["hands_fingerprint"]


def test_every_cheat_injected_is_caught_through_the_simulators_and_in_the_core(
    tmp_path: Path,
) -> None:
    """The short soak: cheats at every other deck, through simulator processes and the
    service, then in the core; the same hands with cheats in both (the seed)."""
    args = ("--hands", "12", "--speed", "max", "--seed", "4", "--cheats", "0.5")
    served, summary = summarized(*args, "--misplaced", "0.05", cwd=tmp_path)
    assert served.returncode == 0, served.stdout + served.stderr
    cheats = summary["cheats"]
    injected, caught = sum(cheats["injected"].values()), sum(cheats["caught"].values())
    hidden = sum(cheats["cannot_catch"].values())  # a clone's original unseen
    assert injected == caught + hidden > 0, cheats
    assert cheats["missed"] == {} == cheats["mistaken"], cheats
    assert summary["open_alerts"] == []
    core_run, core = summarized(*args, "--misplaced", "0.05", "--core-only", cwd=tmp_path)
    assert core_run.returncode == 0, core_run.stdout
    compared = ("injected", "caught", "cannot_catch", "missed", "never_dealt", "dealt_at")
    assert {name: core["cheats"][name] for name in compared} == {
        name: cheats[name] for name in compared
    }
    assert core["hands_fingerprint"] == summary["hands_fingerprint"]
    many_run, many = summarized(
        *("--hands", "120", "--speed", "max", "--seed", "6", "--cheats", "0.6", "--core-only"),
        cwd=tmp_path,
    )
    assert many_run.returncode == 0, many_run.stdout
    every = many["cheats"]
    for kind in ("foreign", "retagged", "cloned", "missing", "extra", "switched"):
        assert every["caught"].get(kind) == every["injected"].get(kind, 0) > 0, (kind, every)


@pytest.mark.parametrize(
    ("stop", "by"),
    [
        (lambda pid: os.killpg(pid, signal.SIGINT), "SIGINT"),  # Ctrl-C: to the group
        (lambda pid: os.kill(pid, signal.SIGTERM), "SIGTERM"),  # kill, systemd: to it alone
    ],
    ids=["ctrl-c", "sigterm"],
)
def test_ctrl_c_or_sigterm_stops_the_table_and_the_simulators_and_prints_the_summary(
    tmp_path: Path, stop: Callable[[int], None], by: str
) -> None:
    errors = (tmp_path / "stderr").open("w+")  # a file, not a pipe nobody reads while it deals
    summary = tmp_path / "summary.json"
    process = subprocess.Popen(
        [*SIM, "--hands", "0", "--speed", "max", "--progress", "--json", str(summary)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    output = Output(process.stdout)
    try:
        output.wait_for({"event": Event.HAND_OVER, "hand": 2, "void": False}, timeout=120)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    children = ["pgrep", "-P", str(process.pid)]
    simulators = subprocess.run(children, capture_output=True, text=True, check=True).stdout.split()
    assert len(simulators) == 2  # the shoe and the seat board
    stop(process.pid)
    process.wait(timeout=60)
    output.join(timeout=10)
    errors.close()
    err = (tmp_path / "stderr").read_text()
    assert process.returncode == 0, err
    stopped = json.loads(summary.read_text(encoding="utf-8"))
    assert stopped["stopped"]["by"] == by and stopped["chips"]["conserved"]
    assert stopped["hands"] >= 2
    assert "Traceback" not in err and "error" not in err
    assert "while stopping" not in (tmp_path / "data" / "table.log").read_text()
    for pid in simulators:  # stopped by the run, not by the signal: no simulator left behind
        assert not Path(f"/proc/{pid}").exists()


class Output:
    """A ``--progress`` run's events read in the background, so that a test can wait for
    one with a deadline."""

    def __init__(self, stream: IO[str]) -> None:
        self._events: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:  # one JSON object a line, nothing else
            with self._arrived:
                self._events.append(json.loads(line))
                self._arrived.notify_all()

    def wait_for(self, wanted: dict[str, Any], timeout: float) -> None:
        with self._arrived:
            if not self._arrived.wait_for(lambda: wanted in self._events, timeout):
                pytest.fail(f"no {wanted!r} in {timeout} s: {self._events[-20:]}")

    def join(self, timeout: float) -> None:
        """Until the output ends (every event read)."""
        self._reader.join(timeout)
        assert not self._reader.is_alive(), "the output did not end"


def test_the_console_is_served_while_the_table_deals(tmp_path: Path) -> None:
    result, summary = summarized(
        "--hands", "1", "--speed", "max", "--console", "127.0.0.1:0", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    console = re.search(  # the words for people: where the console is, who signs in
        r"^console (http://127\.0\.0\.1:\d+) \(dealer DEALER/\d{6}, supervisor PIT/\d{6}\)",
        result.stdout,
        re.M,
    )
    assert console, result.stdout
    assert (summary["hands"], summary["void_hands"]) == (1, 0)


@pytest.mark.parametrize("timing", ["end", "street"])
def test_the_house_s_rake_and_drop_are_counted_in_the_chips_check(
    tmp_path: Path, timing: str
) -> None:
    house = '{"variant": "seven-card-stud", "rake_percent": 10, "rake_cap": 3, '
    house += f'"jackpot_drop": 1, "jackpot_drop_at": 10, "rake_timing": "{timing}"}}'
    journal = tmp_path / "raked.sqlite3"
    result, summary = summarized(
        *("--hands", "6", "--speed", "max", "--core-only", "--journal", str(journal)),
        *("--rules", house),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "(4 to the house)" in result.stdout  # the awards say what the house took
    chips = summary["chips"]
    assert chips["raked"] > 0 and chips["jackpot_dropped"] > 0 and chips["house_takes"], chips
    assert chips["bought_in"] == chips["raked"] + chips["jackpot_dropped"] + chips["in_stacks"]
    assert chips["conserved"] and summary["journal"] == str(journal), summary
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
    result, summary = summarized(
        *("--config", str(config), "--hands", "3", "--speed", "max", "--seed", "2"),
        *("--journal", str(journal), "--console", "127.0.0.1:0"),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"^console http://127\.0\.0\.1:\d+ \(dealer DEALER/\d{6}", result.stdout, re.M)
    chips = summary["chips"]
    assert chips["raked"] > 0 and chips["conserved"] and summary["alerts"] == {}, summary
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
    result, summary = summarized(
        "--config", str(timed), "--hands", "2", "--speed", "max", "--core-only", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert summary["chips"]["time_collected"] > 0 and summary["chips"]["time_charge"], summary


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
        (("--json", "nowhere/summary.json"), "--json nowhere/summary.json: no folder nowhere"),
    ):
        result = sim(*args, cwd=tmp_path)
        assert result.returncode == 2
        assert words in result.stderr and "Traceback" not in result.stderr
    assert existing.read_bytes() == b"not ours"
