"""``luck-table`` as a whole: help, version, one error format, hostile input, closed pipes.

Every test runs the installed command in a real subprocess, as a shell would.
"""

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.cli.common import MESSAGE_LIMIT
from controller.journal import Journal
from dealer_ui.auth import verify_pin

pytestmark = pytest.mark.slow  # the command's processes

LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))
HANDS = Path(__file__).parent / "hands"
WORKED_EXAMPLE = HANDS / "article4_worked_example.json"
TWO_SEATS = '{"seats": {"1": 100, "2": 100}'
ERROR_LINE = re.compile(r"^luck-table (eval|replay|history|hash-pin): error: \S.*\n$")


def luck_table(*argv, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run(
        [LUCK_TABLE, *argv], input=stdin, capture_output=True, check=False, timeout=60
    )


def test_no_arguments_prints_the_help_and_exits_2_like_any_usage_error():
    result = luck_table()
    assert result.returncode == 2
    assert result.stdout == b""
    help_text = result.stderr.decode()
    assert help_text.startswith("usage: luck-table")
    assert "eval" in help_text
    assert "replay" in help_text
    assert luck_table("--help").returncode == 0
    assert luck_table("no-such-command").returncode == 2


def test_version_is_the_package_version_with_where_git_says_it_was_built_from():
    result = luck_table("--version")
    assert result.returncode == 0
    root = Path(__file__).parent.parent
    pyproject = (root / "pyproject.toml").read_text()
    version = re.search(r'^version = "(.+)"$', pyproject, re.MULTILINE)
    assert version is not None
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    said = re.fullmatch(
        r"luck-table (\S+) \(git (?:v(\d+\.\d+\.\d+)-(\d+)-g)?([0-9a-f]{12})(-dirty)?\)\n",
        result.stdout.decode(),
    )
    assert said is not None, result.stdout
    assert said[1] == version[1]
    assert said[4] == head.stdout.strip()
    if said[2] is not None:  # a release tag is known: it is HEAD's or an ancestor's
        tag = f"v{said[2]}"
        assert (
            subprocess.run(
                ["git", "-C", str(root), "merge-base", "--is-ancestor", tag, "HEAD"], check=False
            ).returncode
            == 0
        )


def test_the_version_is_the_changelogs_newest_release_and_the_releases_are_dated_in_order():
    root = Path(__file__).parent.parent
    pyproject = (root / "pyproject.toml").read_text()
    version = re.search(r'^version = "(.+)"$', pyproject, re.MULTILINE)
    assert version is not None
    headings = re.findall(r"^## (.+)$", (root / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert headings[0] == "Unreleased"
    releases = [re.fullmatch(r"(\d+)\.(\d+)\.(\d+) \((\d{4}-\d\d-\d\d)\)", h) for h in headings[1:]]
    assert all(releases), headings
    numbers = [tuple(int(part) for part in r.groups()[:3]) for r in releases if r]
    dates = [r[4] for r in releases if r]
    assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == len(numbers)
    assert dates == sorted(dates, reverse=True)
    assert ".".join(map(str, numbers[0])) == version[1]


def loaded_by(code: str) -> set[str]:
    """The project's modules that a fresh interpreter has loaded after running ``code``."""
    probe = (
        "import sys\n"
        f"{code}\n"
        "print(' '.join(name for name in sys.modules if name.split('.')[0] in "
        "{'controller', 'drivers', 'firmware_sim', 'dealer_ui'}), file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(result.stderr.splitlines()[-1].split())


def test_a_subcommand_loads_only_what_it_uses():
    """Only the module of the subcommand that runs is imported: ``--version`` loads no
    subcommand and no engine; ``replay`` the engine and the hand scripts, not the table
    service, the simulator, the HIL runner or the web layer."""
    everything = {"controller.service", "controller.sim", "controller.hil", "dealer_ui"}
    version = loaded_by(
        "from controller.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n"
        "    pass"
    )
    assert version == {"controller", "controller.cli", "controller.version"}
    replay = loaded_by(
        f"from controller.cli import main\nmain(['replay', {str(WORKED_EXAMPLE)!r}])"
    )
    assert {"controller.cli.replay_command", "controller.history.script"} <= replay
    assert not {name.split(".")[0] for name in replay} & {"dealer_ui", "drivers"}
    assert not replay & everything
    assert not {name for name in replay if name.endswith("_command")} - {
        "controller.cli.replay_command"
    }


@pytest.mark.parametrize(
    "module", ["controller.floor.shipper", "controller.floor.shipper_process", "dealer_ui.archive"]
)
def test_the_floor_shipper_and_the_archive_load_no_command_line(module):
    loaded = loaded_by(f"import {module}")
    assert not {name for name in loaded if name.startswith(("controller.cli", "controller.sim"))}
    assert "controller.hil" not in loaded


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["eval"], b""),
        (["eval", "As", "Ks", "Qs", "Js", "Xs"], b""),
        (["eval", "--batch", "/no/such/file"], b""),
        (["replay", "/no/such/file"], b""),
        (["replay", "-"], b"{"),
    ],
)
def test_every_subcommand_reports_an_error_in_one_format(argv, stdin):
    result = luck_table(*argv, stdin=stdin)
    assert result.returncode == 2
    assert ERROR_LINE.match(result.stderr.decode()), result.stderr


def test_history_of_a_journal_without_hands_says_so(tmp_path):
    path = tmp_path / "table.sqlite"
    Journal.open(path).close()
    result = luck_table("history", "--journal", str(path))
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == f"{path}: the journal holds no hands\n"
    as_json = luck_table("history", "--journal", str(path), "--json")
    assert (as_json.returncode, json.loads(as_json.stdout)) == (0, [])


@pytest.mark.parametrize(("name", "why"), [("none.sqlite", "no such file"), (".", "a folder")])
def test_history_of_an_absent_journal_is_an_error_naming_the_path(tmp_path, name, why):
    path = tmp_path / name
    result = luck_table("history", "--journal", str(path))
    assert (result.returncode, result.stdout) == (2, b"")
    assert ERROR_LINE.match(result.stderr.decode()), result.stderr
    assert f"no journal at {path} ({why}".encode() in result.stderr


def test_hash_pin_prints_a_hash_of_the_pin_on_standard_input():
    result = luck_table("hash-pin", stdin=b"975310\r\n")
    assert (result.returncode, result.stderr) == (0, b"")
    assert verify_pin(result.stdout.decode().strip(), "975310")


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (b"12345\n", "standard input, line 1: a PIN needs at least 6 digits (this one has 5)"),
        (b"", "standard input is empty: no PIN to hash"),
        (b"12\xff4\n", "standard input, line 1: not UTF-8 text: byte 0xff at offset 2"),
    ],
)
@pytest.mark.parametrize("command", [[LUCK_TABLE], [sys.executable, "-m", "controller.config"]])
def test_hash_pin_reports_errors_in_the_common_format(command, stdin, message):
    result = subprocess.run(
        [*command, "hash-pin"], input=stdin, capture_output=True, check=False, timeout=60
    )
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.decode() == f"luck-table hash-pin: error: {message}\n"


@pytest.mark.parametrize(
    ("second", "out"),
    [(b"246802", "$argon2id$"), (b"246803", "error: the PIN typed: the two PINs typed differ")],
)
def test_hash_pin_at_a_terminal_asks_twice(second, out):
    pid, terminal = os.forkpty()
    if pid == 0:  # the child, on the terminal
        os.execv(LUCK_TABLE, [LUCK_TABLE, "hash-pin"])
    deadline = time.monotonic() + 30

    def read() -> bytes:
        """What the child wrote next (b"" once it has ended), within the deadline."""
        ready, _, _ = select.select([terminal], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"the child said nothing more within 30 s: {said!r}"
        try:
            return os.read(terminal, 1024)
        except OSError:  # the child has ended: the terminal is closed
            return b""

    said = b""
    for answer in (b"246802", second):
        while not said.endswith(b": "):
            chunk = read()
            assert chunk, f"the child ended before asking: {said!r}"
            said += chunk
        os.write(terminal, answer + b"\n")
        said += b"\n"
    while True:
        chunk = read()
        if not chunk:
            break
        said += chunk
    _, status = os.waitpid(pid, 0)
    os.close(terminal)
    assert os.waitstatus_to_exitcode(status) == (0 if out.startswith("$") else 2)
    text = said.decode()
    assert "PIN: " in text and "PIN again: " in text and out in text
    assert "246802" not in text  # never echoed


def hostile_scripts() -> dict[str, bytes]:
    return {
        "a 5,000-digit number": f'{{"seats": {{"1": {"7" * 5000}, "2": 100}}}}'.encode(),
        "JSON nested 1,000 deep": ("[" * 1000 + "]" * 1000).encode(),
        "an action nested 900 deep": (
            TWO_SEATS + ', "actions": [' + "[" * 900 + "]" * 900 + "]}"
        ).encode(),
        "invalid UTF-8": TWO_SEATS.encode() + b', "cards": ["K\xff"]}',
        "a 1 MB card": (TWO_SEATS + ', "cards": ["' + "K" * 1_000_000 + '"]}').encode(),
        "a 1 MB field name": (TWO_SEATS + ', "' + "x" * 1_000_000 + '": 1}').encode(),
    }


@pytest.mark.parametrize("name", list(hostile_scripts()))
@pytest.mark.parametrize("from_stdin", [False, True])
def test_replay_refuses_hostile_scripts_with_status_2_and_a_short_message(
    name, from_stdin, tmp_path
):
    script = hostile_scripts()[name]
    if from_stdin:
        result = luck_table("replay", "-", stdin=script)
    else:
        path = tmp_path / "script.json"
        path.write_bytes(script)
        result = luck_table("replay", str(path))
    assert result.returncode == 2, result.stderr
    assert b"Traceback" not in result.stderr
    assert ERROR_LINE.match(result.stderr.decode()), result.stderr[:500]
    assert len(result.stderr) < MESSAGE_LIMIT + 100  # of a megabyte
    as_json = luck_table("replay", "-", "--json", stdin=script)
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["status"] == "error"
    assert len(as_json.stdout) < MESSAGE_LIMIT + 200


def test_replay_says_where_the_utf8_is_invalid(tmp_path):
    path = tmp_path / "script.json"
    script = hostile_scripts()["invalid UTF-8"]
    path.write_bytes(script)
    where = f"not UTF-8 text: byte 0xff at offset {script.index(0xFF)}".encode()
    assert where in luck_table("replay", str(path)).stderr
    piped = luck_table("replay", "-", stdin=path.read_bytes())
    assert b"standard input: not UTF-8 text" in piped.stderr


@pytest.mark.parametrize("from_stdin", [False, True])
def test_eval_batch_reports_bad_lines_in_place_and_keeps_going(from_stdin, tmp_path):
    lines = b"As Ks Qs Js Ts\nK\xffs Qs Js Ts 9s\n" + b"K" * 1_000_000 + b"\n" + b"7" * 5000
    lines += b"\n2c 3c 4c 5c 6c\n"
    if from_stdin:
        result = luck_table("eval", "--batch", "-", stdin=lines)
    else:
        path = tmp_path / "hands.txt"
        path.write_bytes(lines)
        result = luck_table("eval", "--batch", str(path))
    assert result.returncode == 1
    assert result.stderr == b""
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [entry.get("line") for entry in out] == [None, 2, 3, 4, None]
    assert out[1]["error"] == "not UTF-8 text: byte 0xff at offset 1"
    assert "characters cut" in out[2]["error"]
    assert all(len(json.dumps(entry)) < 400 for entry in out)
    assert out[4]["category"] == "straight_flush"


def test_a_single_hostile_card_is_cut_in_the_message():
    result = luck_table("eval", "As", "Ks", "Qs", "Js", "K" * 100_000)
    assert result.returncode == 2
    assert ERROR_LINE.match(result.stderr.decode())
    assert len(result.stderr) < 400


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["replay", str(WORKED_EXAMPLE)], b""),
        (["replay", str(WORKED_EXAMPLE), "--json"], b""),
        (["eval", "--batch", "-"], b"4d Ks 4c 9h 9s Kh Js 2c\n" * 1000),
        (["eval", "4d", "Ks", "4c", "9h", "9s", "Kh", "Js", "2c"], b""),
    ],
)
def test_a_closed_pipe_stops_the_command_quietly(argv, stdin):
    # The reader has gone (`luck-table ... | head -1` after its line): every write fails.
    # The command stops with SIGPIPE's status, as a Unix tool does, and prints nothing.
    read_end, write_end = os.pipe()
    os.close(read_end)
    with subprocess.Popen(
        [LUCK_TABLE, *argv], stdin=subprocess.PIPE, stdout=write_end, stderr=subprocess.PIPE
    ) as process:
        os.close(write_end)
        _, err = process.communicate(stdin, timeout=60)
    assert err == b""
    assert process.returncode == 141
