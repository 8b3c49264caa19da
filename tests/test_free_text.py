"""Free text (controller.text): what a person types is NFC, printable and storable, on every
channel that takes it: the console's API (422 naming the field and the character), the table
core's input parsing, the configuration; while a journal written before the rule still reads
as it was written."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

from controller.config import ConfigError, parse_config
from controller.records import record_of, table_inputs
from controller.table import SitDown, TableInputError, VoidHand, input_from_json
from controller.text import NAME, REASON, REFUSED, FreeText, TextError
from dealer_ui.codes import Declined
from tests.console_kit import SUPERVISOR, live_table
from tests.floor_kit import floor_database
from tests.hypothesis_profiles import examples
from tests.service_kit import simulator

#: The characters that spoof a screen or break a store, by kind (issue 33, finding 5 and 9).
BAD = [
    "\x00",  # NUL: PostgreSQL's text cannot hold it
    "\x07",
    "\x1b",  # C0, the escape of terminal sequences
    "\x7f",
    "\x85",
    "\x9b",  # C1
    *map(chr, range(0x202A, 0x202F)),  # bidi embeddings and overrides
    *map(chr, range(0x2066, 0x206A)),  # bidi isolates
    "\u200e",
    "\u200f",
    "\u061c",  # bidi marks
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",  # zero-width
    "\u00ad",  # soft hyphen (Cf)
    "\ud800",
    "\udfff",  # lone surrogates
    "\ue000",  # private use
    "\U000e0001",  # language tag (Cf)
    "\u0378",  # unassigned
    "\u2028",
    "\u2029",  # line and paragraph separators
]


def printable(text: str) -> bool:
    return all(unicodedata.category(char) not in REFUSED for char in text)


@given(st.text(max_size=80))
@settings(max_examples=examples(400))
def test_what_the_rule_keeps_is_nfc_printable_stripped_and_within_its_limit(text: str) -> None:
    rule = FreeText(40)
    try:
        kept = rule(text)
    except TextError:
        return
    assert unicodedata.is_normalized("NFC", kept)
    assert printable(kept) and kept == kept.strip() and 1 <= len(kept) <= 40
    kept.encode("utf-8")  # no surrogate
    assert rule(kept) == kept  # kept once, kept again the same


@given(
    st.text(max_size=30),
    st.one_of(st.sampled_from(BAD), st.characters(categories=list(REFUSED))),
    st.text(max_size=30),
)
@settings(max_examples=examples(300))
def test_any_bad_character_is_refused_naming_it_and_its_place(
    before: str, bad: str, after: str
) -> None:
    text = before + bad + after
    with pytest.raises(TextError) as refused:
        REASON(text)
    first = next(i for i, char in enumerate(text) if unicodedata.category(char) in REFUSED)
    assert f"U+{ord(text[first]):04X}" in str(refused.value)
    assert f" at {first + 1}:" in str(refused.value)


def test_the_words_of_a_refusal() -> None:
    with pytest.raises(TextError, match=r"^U\+202E RIGHT-TO-LEFT OVERRIDE at 5: only printable"):
        NAME("EVIL\u202eEVIL")
    with pytest.raises(TextError, match=r"^U\+0000 \(a control character\) at 1:"):
        NAME("\x00")
    with pytest.raises(TextError, match="65 characters: at most 64"):
        NAME("x" * 65)
    with pytest.raises(TextError, match="10000 characters: at most 64"):  # not looked at
        NAME("\x00" * 10_000)
    with pytest.raises(TextError, match="empty"):
        NAME(" \u3000 ")
    assert NAME("  Jose\u0301 O\u2019Neill ") == "Jos\u00e9 O\u2019Neill"


@pytest.fixture(scope="module")
def floor() -> Iterator[psycopg.Connection]:
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute("CREATE TABLE kept (name text NOT NULL, data jsonb NOT NULL)")
        yield connection


@given(st.text(max_size=64))
@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_postgresql_stores_whatever_the_rule_keeps(floor: psycopg.Connection, text: str) -> None:
    try:
        kept = NAME(text)
    except TextError:
        return
    row = floor.execute(
        "INSERT INTO kept VALUES (%s, %s) RETURNING name, data", (kept, Jsonb({"player": kept}))
    ).fetchone()
    assert row == (kept, {"player": kept})


def test_the_table_core_refuses_bad_text_but_replays_a_journal_as_written() -> None:
    bad = {"type": "sit_down", "at": 1, "seat": 1, "player": "EVIL\u202eEVIL", "buy_in": 100}
    with pytest.raises(TableInputError, match=r"sit_down\.player: U\+202E .* at 5"):
        input_from_json(bad)
    void = {"type": "void_hand", "at": 1, "who": "S100", "why": "\x00"}
    with pytest.raises(TableInputError, match=r"void_hand\.why: U\+0000"):
        input_from_json(void)
    nfd = input_from_json({**bad, "player": " Jose\u0301"})
    assert isinstance(nfd, SitDown) and nfd.player == "Jos\u00e9"
    # journaled before the rule: read back as written, so recovery gives the same table
    old = SitDown(at=1000, seat=1, player="EVIL\x00\u202e", buy_in=100)
    assert table_inputs(record_of(old)) == (old,)
    old_void = VoidHand(at=1000, who="S100", why="\u200b")
    assert table_inputs(record_of(old_void)) == (old_void,)


def test_the_configuration_refuses_a_table_name_that_is_not_free_text(tmp_path: Path) -> None:
    data: dict[str, Any] = {
        "table": {"id": "T1", "name": "Table \u202e1"},
        "devices": {"shoe": {"port": "/dev/null"}},
        "journal": {"path": "j.sqlite"},
    }
    with pytest.raises(ConfigError) as refused:
        parse_config(data, tmp_path)
    assert refused.value.key == "table.name" and "U+202E" in refused.value.allowed  # named


@pytest.mark.slow
def test_the_console_refuses_bad_free_text_with_422_naming_the_field(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            cases = [
                ("EVIL\u202eEVIL", "player: Value error, U+202E RIGHT-TO-LEFT OVERRIDE at 5"),
                ("\x00", "player: Value error, U+0000 (a control character) at 1"),
                ("P" * 65, "player: Value error, 65 characters: at most 64"),
            ]
            for name, reason in cases:
                refused = await live.post("/api/seats", {"seat": 1, "player": name, "buy_in": 9})
                assert refused.status_code == 422, refused.text
                assert refused.json()["error"] == "invalid"
                assert refused.json()["code"] == Declined.INVALID_FIELD
                assert refused.json()["reason"].startswith(reason), refused.json()
            void = await live.post("/api/supervisor/void", {**SUPERVISOR, "why": "ok\u2066"})
            assert void.status_code == 422 and void.json()["reason"].startswith("why: ")
            assert "U+2066" in void.json()["reason"]
            label = {**SUPERVISOR, "why": "show", "label": "truck\u200b"}
            studio = await live.post("/api/studio-tokens", label)
            assert studio.status_code == 422 and studio.json()["reason"].startswith("label: ")
            sign_in = {"role": "dealer", "id": "D100\x00", "pin": "1234"}
            signed = await live.http.post("/api/sessions", json=sign_in)
            assert signed.status_code == 422 and signed.json()["reason"].startswith("id: ")
            for answer in (void, studio, signed):
                assert answer.json()["code"] == Declined.INVALID_FIELD
            assert live.service.table.seat(1) is None  # nothing taken
            sat = await live.post("/api/seats", {"seat": 1, "player": "Zoe\u0308 ", "buy_in": 100})
            assert sat.status_code == 200, sat.text
            seat = live.service.table.seat(1)
            assert seat is not None and seat.player == "Zo\u00eb"  # NFC, stripped

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 400))
