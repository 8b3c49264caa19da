"""``luck-table eval``: its command-line contract (options, output, errors)."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main

LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))
WORKED_EXAMPLE = ["4d", "Ks", "4c", "9h", "9s", "Kh", "Js", "2c"]


def run(capsys, *argv):
    status = main(["eval", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_worked_example_is_a_king_high_straight_flush(capsys):
    status, out, err = run(capsys, *WORKED_EXAMPLE)
    assert status == 0
    assert out == "King-high straight flush: Ks, 4d as Qs, Js, 4c as Ts, 9s\n"
    assert err == ""


def test_json_gives_straight_flush_13(capsys):
    status, out, _ = run(capsys, "--json", *WORKED_EXAMPLE)
    assert status == 0
    document = json.loads(out)
    assert document["category"] == "straight_flush"
    assert document["ranks"] == [13]
    assert document["description"] == "King-high straight flush"
    assert {"card": "4d", "as": "Qs"} in document["played"]
    assert set(document) == {"category", "ranks", "played", "description"}


def test_cards_may_be_one_quoted_string(capsys):
    status, out, _ = run(capsys, "--json", " ".join(WORKED_EXAMPLE))
    assert status == 0
    assert json.loads(out)["ranks"] == [13]


def test_variant_and_double_ace_flush_flags(capsys):
    _, out, _ = run(capsys, "--json", "--variant", "seven-card-stud", *WORKED_EXAMPLE)
    assert json.loads(out)["category"] == "two_pair"
    _, out, _ = run(capsys, "--json", "--double-ace-flush", "As", "4h", "9s", "5s", "2s")
    assert json.loads(out)["ranks"] == [14, 14, 9, 5, 2]
    _, out, _ = run(capsys, "--json", "As", "4h", "9s", "5s", "2s")
    assert json.loads(out)["ranks"] == [14, 13, 9, 5, 2]


@pytest.mark.parametrize(
    ("cards", "fragment"),
    [
        (["As", "Ks", "Qs", "Js", "Xs"], "'Xs'"),
        (["As", "Ks", "Qs", "Js", "As"], "'As': duplicate card"),
        (["As", "Ks", "Qs", "Js"], "4 cards"),
        (["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s", "6s"], "'6s'"),
    ],
)
def test_bad_single_hands_exit_2_naming_the_token(capsys, cards, fragment):
    status, out, err = run(capsys, *cards)
    assert status == 2
    assert out == ""
    assert fragment in err


def test_no_cards_or_cards_and_batch_together_are_usage_errors(capsys, tmp_path):
    assert run(capsys, "--json")[0] == 2
    hands = tmp_path / "hands.txt"
    hands.write_text("As Ks Qs Js Ts\n")
    status, _, err = run(capsys, "--batch", str(hands), "As")
    assert status == 2
    assert "not both" in err


def test_an_unknown_variant_is_refused(capsys):
    with pytest.raises(SystemExit) as info:
        run(capsys, "--variant", "razz", *WORKED_EXAMPLE)
    assert info.value.code == 2


BATCH = "\n".join(
    [
        " ".join(WORKED_EXAMPLE),
        "As Ks Qs Js Xs",
        "Qh Qd Qc 8h 8c",
        "",
        "As Ks Qs Js",
        "4c Th 8h 5h 3h",
    ]
)


def check_batch_output(out):
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 6
    assert lines[0]["ranks"] == [13]
    assert lines[1] == {"line": 2, "error": lines[1]["error"]}
    assert "'Xs'" in lines[1]["error"]
    assert lines[2]["description"] == "Queens full of eights"
    assert lines[3]["line"] == 4
    assert lines[4]["line"] == 5
    assert "4 cards" in lines[4]["error"]
    assert lines[5]["played"][0] == {"card": "4c", "as": "Ah"}


def test_batch_from_a_file_keeps_going_past_bad_lines_and_exits_1(capsys, tmp_path):
    hands = tmp_path / "hands.txt"
    hands.write_text(BATCH + "\n")
    status, out, _ = run(capsys, "--batch", str(hands))
    assert status == 1
    check_batch_output(out)


def test_batch_from_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BATCH.encode())))
    status, out, _ = run(capsys, "--batch", "-")
    assert status == 1
    check_batch_output(out)


def test_a_clean_batch_exits_0_with_the_flags_applied(capsys, tmp_path):
    hands = tmp_path / "hands.txt"
    hands.write_text("As 4h 9s 5s 2s\n" + " ".join(WORKED_EXAMPLE) + "\n")
    status, out, _ = run(capsys, "--batch", str(hands), "--double-ace-flush")
    assert status == 0
    assert [json.loads(line)["ranks"] for line in out.splitlines()] == [[14, 14, 9, 5, 2], [13]]
    status, out, _ = run(capsys, "--batch", str(hands), "--variant", "seven-card-stud")
    assert status == 0
    assert [json.loads(line)["category"] for line in out.splitlines()] == ["high_card", "two_pair"]


def test_a_missing_batch_file_is_a_usage_error(capsys, tmp_path):
    status, _, err = run(capsys, "--batch", str(tmp_path / "nope.txt"))
    assert status == 2
    assert "nope.txt" in err


@pytest.mark.slow
def test_the_installed_command():
    result = subprocess.run(
        [LUCK_TABLE, "eval", "--json", *WORKED_EXAMPLE],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["category"] == "straight_flush"
    bad = subprocess.run(
        [LUCK_TABLE, "eval", "--batch", "-"],
        input="As Ks Qs Js Ts\nAs\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1
    assert json.loads(bad.stdout.splitlines()[1])["line"] == 2
