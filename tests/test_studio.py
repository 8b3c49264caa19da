"""The studio feed: its configuration (the delay's floor, test mode), its tokens (issued by a
supervisor, journaled, refused when forged, expired or revoked, kept over a restart), its
view (every card, the odds, the bonus-card moment) and, on a live table, that nothing is
released before its delay, also across a restart mid-hand, and that no other role's token
opens it nor a studio token anything else."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import websockets

from controller.config import MIN_STUDIO_DELAY, load_config
from controller.config_file import ConfigError
from controller.journal import Entry, Journal
from controller.journal.snapshots import Snapshots
from controller.recovery import Recovered, Update
from controller.recovery.lagging import first_after, recent
from controller.rules import Phase, Rules, parse_card
from controller.rules.showdown import hand_value
from controller.table import NewHand, SitDown, Table, TableSettings, apply
from dealer_ui.auth import AuthError, Denied
from dealer_ui.codes import Declined
from dealer_ui.studio import (
    ISSUED,
    REVOKED,
    StudioFeed,
    StudioTokens,
    digest,
    hand_odds,
    hand_started,
    on_air,
    studio_view,
)
from firmware_sim.process import AsyncControl as Control
from tests.console_kit import DEALER, PLAYERS, SUPERVISOR, LiveTable, Script, card_names, live_table
from tests.device_inputs import card_read, deck_loaded
from tests.floor_kit import JournalWriter
from tests.service_kit import config, simulator, write_config
from tests.test_serve_console import free_port, with_api
from tests.waiting import async_wait_until

pytestmark = pytest.mark.slow  # processes

#: A table in test mode with a studio delay of 3 seconds.
DELAY = 3.0
TEST_TABLE = f"test_mode = true\n[studio]\ndelay = {DELAY / 60}\n"


# The configuration -----------------------------------------------------------------------


def config_refused(tmp_path: Path, table: str) -> ConfigError:
    """The configuration's refusal of a table file with ``table`` in it (``key`` names the
    setting at fault)."""
    with pytest.raises(ConfigError) as caught:
        config(tmp_path, "/dev/null", table=table)
    return caught.value


def test_the_delay_has_a_floor_that_only_a_table_in_test_mode_goes_below(tmp_path: Path) -> None:
    assert config(tmp_path, "/dev/null").studio.delay == MIN_STUDIO_DELAY
    assert config(tmp_path, "/dev/null").test_mode is False
    studio = config(tmp_path, "/dev/null", table="[studio]\ndelay = 30\n").studio
    assert studio.delay_seconds == 1800
    for low in (0, 14.9, 1):
        for table in (
            f"[studio]\ndelay = {low}\n",
            f"test_mode = false\n[studio]\ndelay = {low}\n",
        ):
            below = config_refused(tmp_path, table)
            assert below.key == "studio.delay" and "at least 15 minutes" in below.allowed
    test = config(tmp_path, "/dev/null", table="test_mode = true\n[studio]\ndelay = 0\n")
    assert test.test_mode and test.studio.delay == 0
    for bad in ("-1", "241", '"15"', "true"):
        table = f"test_mode = true\n[studio]\ndelay = {bad}\n"
        assert config_refused(tmp_path, table).key == "studio.delay"
    assert config_refused(tmp_path, 'test_mode = "yes"\n').key == "table.test_mode"
    assert config_refused(tmp_path, "[studio]\ntoken_hours = 25\n").key == "studio.token_hours"
    assert config_refused(tmp_path, "[studio]\ncolour = 1\n").key == "studio.colour"
    write_config(tmp_path, "/dev/null")  # the file the last one wrote is a good one again


# The tokens ------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def entry(position: int, kind: str, fields: dict[str, Any], at: float = 0.0) -> Entry:
    return Entry(position, at, "access", kind, fields, None, None, None)


def refusal_of(tokens: StudioTokens, token: str | None) -> Denied:
    """Why ``tokens`` refuses ``token`` (it must): the refusal's code."""
    with pytest.raises(AuthError) as refusal:
        tokens.check(token)
    assert refusal.value.status == 401
    return refusal.value.code


def test_a_studio_token_is_refused_when_forged_expired_or_revoked_and_never_journaled() -> None:
    clock, monotonic = Clock(), Clock()
    tokens = StudioTokens(clock, monotonic)
    token, made = tokens.new("truck 1", "S100", "D200", hours=2)
    assert made.digest == digest(token) and token not in json.dumps(made.to_json())
    assert refusal_of(tokens, token) is Denied.UNKNOWN_STUDIO_TOKEN  # valid once journaled
    tokens.add(made)
    assert tokens.check(token) == made
    for forged in (token[:-1] + ("A" if token[-1] != "A" else "B"), made.digest, made.id, ""):
        unknown = Denied.UNKNOWN_STUDIO_TOKEN if forged else Denied.NO_STUDIO_TOKEN
        assert refusal_of(tokens, forged) is unknown
    assert refusal_of(tokens, None) is Denied.NO_STUDIO_TOKEN
    clock.now -= 5 * 3600  # the wall clock stepped back: the token ends all the same
    monotonic.now += 2 * 3600
    assert refusal_of(tokens, token) is Denied.STUDIO_TOKEN_EXPIRED
    assert tokens.held() == []
    clock.now += 5 * 3600 + 3600
    monotonic.now -= 3600
    other, second = tokens.new("truck 2", "S100", "D200", hours=2)
    tokens.add(second)
    assert [p.id for p in tokens.held()] == [made.id, second.id]
    assert tokens.revoke(made.id) == made
    assert refusal_of(tokens, token) is Denied.UNKNOWN_STUDIO_TOKEN
    tokens.add(made)  # a revoked id never comes back
    assert refusal_of(tokens, token) is Denied.UNKNOWN_STUDIO_TOKEN
    assert tokens.check(other) == second

    restored = StudioTokens(clock, monotonic)  # after a restart: from the journal's records
    restored.restore(
        [
            entry(1, ISSUED, made.to_json(), made.issued),
            entry(2, ISSUED, second.to_json(), second.issued),  # issued: the record's time
            entry(3, REVOKED, {"id": made.id}),
        ]
    )
    assert restored.check(other) == second
    assert refusal_of(restored, token) is Denied.UNKNOWN_STUDIO_TOKEN
    assert restored.left(second) == pytest.approx(2 * 3600)

    clock.now += 100 * 3600  # stepped forward: what the journal says has expired, has
    forward = StudioTokens(clock, monotonic)
    forward.restore([entry(1, ISSUED, second.to_json(), second.issued)])
    assert forward.held() == []
    clock.now -= 200 * 3600  # a wall clock set back before a restart gives no more than
    back = StudioTokens(clock, monotonic)  # the token's lifetime from the start
    back.restore([entry(1, ISSUED, second.to_json(), second.issued)])
    assert back.left(second) == pytest.approx(2 * 3600)
    monotonic.now += 2 * 3600
    assert refusal_of(back, other) is Denied.STUDIO_TOKEN_EXPIRED


# The view --------------------------------------------------------------------------------


def test_the_studio_view_shows_every_card_the_odds_and_the_bonus_moment() -> None:
    table = hand_started((1, 2, 3))
    # third street: down, down, up to each seat in rounds; the four of clubs up to seat 2
    codes = ["Ah", "Kd", "2s", "Ad", "Kh", "3s", "9c", "4c", "7d"]
    effects: tuple[Any, ...] = ()
    for name in codes:
        step = apply(table, card_read(at=0, code=_code(name)))
        assert not step.refused, step.refused
        table, effects = step.table, step.effects
        if name == "4c":
            moment = studio_view(table, None, on_air(None, table, effects, 0.0, 4.0))
    assert table.hand is not None
    chances = hand_odds(table.hand, seed=1)
    assert chances is not None
    shown = studio_view(table, chances, odds_while_dealing=True)
    assert set(codes) <= card_names(shown)
    assert [p["player"] for p in shown["players"]] == ["P1", "P2", "P3"]
    equities = [p["odds"]["equity"] for p in shown["players"]]
    assert sum(equities) == pytest.approx(1, abs=1e-9)
    assert shown["bonus"] is None
    assert moment["bonus"] == {"seat": 2, "player": "P2", "card": None, "since": 0.0, "hold": 4.0}
    assert [p["bonus_due"] for p in moment["players"]] == [False, True, False]
    assert [c["wild"] for c in moment["players"][1]["cards"]] == [False, False, True]
    no_odds = studio_view(table, None)
    assert all(p["odds"] is None for p in no_odds["players"])


def _code(name: str) -> int:
    return int(parse_card(name))


def played(players: tuple[int, ...] = (1, 2, 3), rules: Rules | None = None) -> list[Update]:
    """A whole hand of ``players`` (P1 at seat 1...) as ``Script(fold_seat=3)`` plays it:
    the four of clubs up to seat 1 on third street (a bonus card), seat 1 bets on fourth
    street, seat 3 folds there, a showdown; each moment one second after the last."""
    script = Script(fold_seat=3)
    table = Table(TableSettings(rules or Rules(), seat_board=False))
    for seat in players:
        table = apply(table, SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=100)).table
    cards = iter(script.deck(table))
    table = apply(table, deck_loaded(at=0, count=52)).table
    table = apply(table, NewHand(at=0)).table
    moments = [Update(0, table, (), 1000.0)]
    while (move := script.move(table)) is not None:
        item = card_read(at=0, code=int(next(cards))) if move == "deal" else move
        assert not isinstance(item, str)
        step = apply(table, item)
        assert not step.refused, step.refused
        table = step.table
        moments.append(Update(len(moments), table, step.effects, 1000.0 + len(moments)))
    return moments


def test_the_studio_message_says_what_the_house_takes_where_it_takes_any() -> None:
    assert all(studio_view(m.table, None)["house"] is None for m in played())
    rules = Rules(rake_percent=10, rake_cap=3, rake_step=1)
    views = [studio_view(m.table, None) for m in played(rules=rules)]
    houses = [view["house"] for view in views if view["in_hand"] or view["phase"]]
    assert houses and all(h["rake_percent"] == 10 and h["rake_cap"] == 3 for h in houses)
    last = views[-1]
    hand = played(rules=rules)[-1].table.hand
    assert hand is not None and hand.rake > 0  # the hand reached the showdown: it was raked
    assert last["house"]["taken"] == {"rake": hand.rake, "jackpot_drop": hand.jackpot_drop}


def seat_of(view: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(p for p in view["players"] if p["seat"] == seat)


def test_the_studio_message_has_each_players_stack_bet_action_hand_and_winnings() -> None:
    views = [studio_view(m.table, None) for m in played()]
    assert views[0]["players"][0] | {"cards": []} == {
        "seat": 1,
        "player": "P1",
        "stack": 99,  # the ante in
        "bet": 0,
        "folded": False,
        "mucked": False,
        "all_in": False,
        "to_act": False,
        "action": None,
        "made": None,
        "winner": False,
        "won": 0,
        "bonus_due": False,
        "cards": [],
        "odds": None,
    }
    assert views[0]["limits"] == {
        "ante": 1,
        "bring_in": 2,
        "small_bet": 5,
        "big_bet": 10,
        "max_raises": 3,
    }
    # to act: the seat the hand waits for a decision from, none while cards are dealt
    for view, moment in zip(views, played(), strict=True):
        hand = moment.table.hand
        assert hand is not None
        waiting = hand.waiting_for
        acting = [p["seat"] for p in view["players"] if p["to_act"]]
        deciding = waiting is not None and waiting.kind != "card"
        assert acting == ([waiting.seat] if deciding and waiting is not None else [])
        if view["phase"] == "betting":  # first to act in the round
            assert hand.first is not None
            assert view["first"] == hand.players[hand.first].seat
        else:
            assert view["first"] is None
    # the bring-in: the lowest card up, seat 2, and the words of the table
    brought = next(v for v in views if v["bring_in"] is not None)
    assert brought["bring_in"] | {"pot": 0} == {
        "seat": 2,
        "player": "P2",
        "do": "bring_in",
        "to": 2,
        "pot": 0,
        "street": 3,
        "words": "brings in for 2",
    }
    assert seat_of(brought, 2)["bet"] == 2 and seat_of(brought, 2)["stack"] == 97
    action = {key: value for key, value in brought["bring_in"].items() if key != "player"}
    assert seat_of(brought, 2)["action"] == action
    # fourth street: seat 1 bets 10 (its stack and bet this street), seat 3 folds
    bet = next(v for v in views if (seat_of(v, 1)["action"] or {}).get("do") == "bet")
    assert seat_of(bet, 1)["action"] | {"pot": 0} == {
        "seat": 1,
        "do": "bet",
        "to": 10,
        "pot": 0,
        "street": 4,
        "words": "bets 10",
    }
    assert (seat_of(bet, 1)["bet"], seat_of(bet, 1)["stack"]) == (10, 87)
    folded = next(v for v in views if seat_of(v, 3)["folded"])
    assert seat_of(folded, 3)["action"]["words"] == "folds"
    assert seat_of(folded, 3)["made"] is None
    # the bets of a street are gone at the next street's deal
    fifth = next(v for v in views if v["street"] == 5)
    assert [p["bet"] for p in fifth["players"]] == [0, 0, 0]
    # the hand's name, in the table's words: named from a pair on, high cards not
    first_cards = next(v for v in views if seat_of(v, 1)["made"] is not None)
    assert len(seat_of(first_cards, 1)["cards"]) == 2
    assert seat_of(first_cards, 1)["made"] == {
        "category": "pair",
        "words": "Pair of twos",
        "full": None,
    }
    wild = next(v for v in views if seat_of(v, 1)["bonus_due"])
    assert seat_of(wild, 1)["made"]["words"] == "Three of a kind, twos"  # the four is wild
    unnamed = [p for v in views for p in v["players"] if p["cards"] and p["made"] is None]
    assert unnamed and all(p["folded"] or len(p["cards"]) < 5 for p in unnamed)
    # the showdown: each hand shown named whole, the winner marked with what they won
    end = views[-1]
    assert end["phase"] == "complete" and end["pot"] == 29
    hand = played()[-1].table.hand
    assert hand is not None
    winner, loser, gone = (seat_of(end, seat) for seat in (1, 2, 3))
    assert (winner["winner"], winner["won"], winner["stack"]) == (True, 29, 116)
    assert (loser["winner"], loser["won"]) == (False, 0)
    assert (gone["winner"], gone["won"], gone["made"]) == (False, 0, None)
    assert winner["made"]["category"] == "four_of_a_kind"
    assert winner["made"]["full"] == hand_value(hand, hand.player(1)).description
    assert loser["made"]["words"] == "Two pair, sixes and threes"
    assert [p["to_act"] for p in end["players"]] == [False, False, False]
    assert all(view["bonus"] is None for view in views)  # none on air: none given


def test_the_bonus_moment_stays_on_air_for_its_hold_whatever_the_table_does() -> None:
    moments = played()
    feed = StudioFeed(cast(Any, None), 0.0, bonus_hold=4.0)
    shown: list[dict[str, Any] | None] = []
    for moment in moments:
        feed._publish(moment, None)
        shown.append(json.loads(feed.current)["table"]["bonus"])
    earned = next(n for n, m in enumerate(moments) if m.table.hand.bonus_seats())  # type: ignore[union-attr]
    since = moments[earned].at
    assert shown[earned] == {"seat": 1, "player": "P1", "card": None, "since": since, "hold": 4.0}
    on = [n for n, bonus in enumerate(shown) if bonus is not None]
    # on air from the moment it is earned until 4 s of the table's time later, through the
    # bonus card's deal and the first decisions, then gone
    assert on == [n for n, m in enumerate(moments) if since <= m.at < since + 4.0]
    assert len(on) == 4
    dealt = [shown[n]["card"] for n in on]  # type: ignore[index]
    hand = moments[on[-1]].table.hand
    assert hand is not None
    bonus_card = next(str(d.card) for d in hand.player(1).cards if d.bonus)
    assert dealt == [None, bonus_card, bonus_card, bonus_card]
    assert any(moments[n].table.hand.phase is Phase.BETTING for n in on)  # type: ignore[union-attr]
    # a hold of 0: on air in its own moment only (as before)
    brief = StudioFeed(cast(Any, None), 0.0, bonus_hold=0.0)
    for moment in moments[: earned + 2]:
        brief._publish(moment, None)
    assert json.loads(brief.current)["table"]["bonus"] is None


def test_the_odds_wait_until_each_streets_cards_are_all_out() -> None:
    table = hand_started((1, 2))
    for name in ("Ah", "Kd", "2s", "3s"):  # third street, two down to each: no card up yet
        table = apply(table, card_read(at=0, code=_code(name))).table
    assert table.hand is not None and table.hand.phase is Phase.DEAL
    chances = hand_odds(table.hand, seed=1)
    assert chances is not None
    dealing = studio_view(table, chances)
    assert dealing["odds_held"] is True and dealing["method"] == chances["method"]
    assert [p["odds"] for p in dealing["players"]] == [None, None]
    shown = studio_view(table, chances, odds_while_dealing=True)
    assert shown["odds_held"] is False and all(p["odds"] for p in shown["players"])
    for name in ("9c", "7d"):  # the up cards: the street's cards all out, a decision due
        table = apply(table, card_read(at=0, code=_code(name))).table
    assert table.hand is not None and table.hand.phase is Phase.BETTING
    out = studio_view(table, hand_odds(table.hand, seed=1))
    assert out["odds_held"] is False
    assert sum(p["odds"]["equity"] for p in out["players"]) == pytest.approx(1, abs=1e-9)


def test_the_studios_bonus_hold_and_odds_while_dealing_are_house_settings(
    tmp_path: Path,
) -> None:
    studio = config(tmp_path, "/dev/null").studio
    assert (studio.bonus_hold, studio.odds_while_dealing) == (4.0, False)
    set_ = "[studio]\nbonus_hold = 6\nodds_while_dealing = true\n"
    studio = config(tmp_path, "/dev/null", table=set_).studio
    assert (studio.bonus_hold, studio.odds_while_dealing) == (6.0, True)
    for bad, what in (
        ("bonus_hold = -1", "studio.bonus_hold"),
        ("bonus_hold = 31", "studio.bonus_hold"),
        ('bonus_hold = "4"', "studio.bonus_hold"),
        ("odds_while_dealing = 1", "studio.odds_while_dealing"),
    ):
        assert config_refused(tmp_path, f"[studio]\n{bad}\n").key == what
    write_config(tmp_path, "/dev/null")


# On a live table -------------------------------------------------------------------------


async def issue(live: LiveTable, label: str = "truck") -> dict[str, Any]:
    body = {**SUPERVISOR, "why": "tonight's broadcast", "label": label}
    response = await live.post("/api/studio-tokens", body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def journaled(live: LiveTable, kind: str) -> list[Entry]:
    with Journal.open(live.service.config.journal, create=False) as journal:
        return [e for e in journal.entries(source="access") if e.type == kind]


async def studio_messages(url: str, token: str, into: list[tuple[float, dict[str, Any]]]) -> None:
    """Every studio message with the time it arrived (seconds since the epoch)."""
    async with websockets.connect(url.replace("http", "ws", 1) + f"/studio/ws?token={token}") as ws:
        async for text in ws:
            into.append((time.time(), json.loads(text)))


async def refused(url: str, path: str) -> tuple[int | None, str]:
    """The close code and reason of a feed opened at ``path`` (one that sends: None)."""
    async with websockets.connect(url.replace("http", "ws", 1) + path) as ws:
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None
            return closed.rcvd.code, closed.rcvd.reason
    return None, ""


async def released(messages: list[tuple[float, dict[str, Any]]], position: int) -> None:
    """Wait until the studio has been sent the moment at ``position`` (its odds are computed
    one after the other in one worker: on a busy machine, many seconds after the hand)."""
    await async_wait_until(
        lambda: messages and (messages[-1][1]["position"] or 0) >= position,
        f"the studio's moment {position}",
        180,
        poll=0.05,
    )


def released_in_time(messages: list[tuple[float, dict[str, Any]]], delay: float) -> None:
    """No message arrived before the delay had passed since its moment's journaled time."""
    for arrived, message in messages:
        if message["table"] is not None:
            assert arrived >= message["at"] + delay, (arrived - message["at"], message["seq"])


def test_the_studio_gets_every_card_and_the_odds_only_after_the_delay(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with live_table(tmp_path, shoe, table=TEST_TABLE) as live:
            await live.seat_players()
            url = live.served.url
            wrong = {**SUPERVISOR, "pin": "0000", "why": "x", "label": "truck"}
            response = await live.post("/api/studio-tokens", wrong)
            assert response.status_code == 401, response.text
            public = await live.http.post(
                "/api/studio-tokens", json={**SUPERVISOR, "why": "x", "label": "t"}
            )
            assert public.status_code == 403, public.text
            issued = await issue(live)
            token = issued["token"]
            records = journaled(live, ISSUED)
            assert [r.fields["id"] for r in records] == [issued["id"]]
            assert records[0].fields["digest"] == digest(token)
            assert token not in json.dumps([r.fields for r in records])
            attempts = [e.fields for e in journaled(live, "failed_attempt")]
            assert [a["action"] for a in attempts] == [ISSUED]

            # a studio token opens nothing live; no other token opens the studio feed
            studio = {"Authorization": f"Bearer {token}"}
            assert (await live.http.get("/api/view", headers=studio)).status_code == 401
            assert (await refused(url, f"/ws?token={token}"))[0] == 4401
            dealer_token = live.dealer["Authorization"].split()[1]
            player = (await live.post("/api/player-tokens", {"seat": 1})).json()["token"]
            for other in (dealer_token, player, "", token[:-2], digest(token), issued["id"]):
                code, reason = await refused(url, f"/studio/ws?token={other}")
                assert code == 4401, (other, reason)
                headers = {"Authorization": f"Bearer {other}"} if other else {}
                response = await live.http.get("/api/studio", headers=headers)
                assert response.status_code == 401, response.text

            messages: list[tuple[float, dict[str, Any]]] = []
            collector = asyncio.create_task(studio_messages(url, token, messages))
            await live.play_hand(Script())
            dealt = live.service.table
            last = live.service.position
            await released(messages, last)
            # the studio got it all: every card dealt, odds at every moment with cards
            assert dealt.hand is not None
            every = {str(d.card) for p in dealt.hand.players for d in p.cards}
            assert every <= set().union(
                *(card_names(m["table"]) for _, m in messages if m["table"])
            )
            with_cards = [m for _, m in messages if m["table"] and m["table"]["players"]]
            assert any((m["table"]["bonus"] or {}).get("seat") == 1 for m in with_cards)
            for message in with_cards:
                if message["table"]["odds_held"]:  # a street's cards being dealt
                    assert all(seat["odds"] is None for seat in message["table"]["players"])
                    continue
                for seat in message["table"]["players"]:
                    if seat["cards"] and not seat["folded"] and message["table"]["phase"] != "void":
                        assert seat["odds"] is not None or seat["mucked"], message["table"]
            released_in_time(messages, DELAY)
            now = await live.http.get("/api/studio", headers=studio)
            assert now.json()["position"] == last
            # surveillance reads the past hands from the journal while the studio follows it
            sign_in = {"role": "surveillance", "id": "S100", "pin": SUPERVISOR["pin"]}
            watcher = (await live.http.post("/api/sessions", json=sign_in)).json()["token"]
            past = await live.http.get(
                "/api/history", headers={"Authorization": f"Bearer {watcher}"}
            )
            assert [hand["hand"] for hand in past.json()] == [1], past.text
            listed = await live.http.get(
                "/api/studio-tokens", headers={"Authorization": f"Bearer {watcher}"}
            )
            assert [(t["id"], t["label"]) for t in listed.json()] == [(issued["id"], "truck")]
            assert token not in listed.text and digest(token) not in listed.text
            assert (
                await live.http.get("/api/studio-tokens", headers=live.dealer)
            ).status_code == 403
            feed = live.served.app.state.table.studio
            assert feed.timings and all(done >= at for _, at, done in feed.timings)

            # revoked: the open feed is closed, and the token opens nothing more
            revoke = {**SUPERVISOR, "why": "the broadcast ended"}
            response = await live.post(f"/api/studio-tokens/{issued['id']}/revoke", revoke)
            assert response.status_code == 200, response.text
            with pytest.raises(websockets.ConnectionClosedError) as closed:
                await asyncio.wait_for(collector, 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
            assert (await refused(url, f"/studio/ws?token={token}"))[0] == 4401
            again = await live.post(f"/api/studio-tokens/{issued['id']}/revoke", revoke)
            assert again.status_code == 404 and again.json()["code"] == Declined.TOKEN_NOT_HELD
            assert [r.fields["id"] for r in journaled(live, REVOKED)] == [issued["id"]]

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))


def test_only_a_supervisor_issues_lists_and_revokes_studio_tokens(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The public, a player's token and a studio token issue, list and revoke nothing
    (403, 401: a studio token is no session); a dealer's session lists nothing, and at a
    dealer's or surveillance session a dealer's own id and PIN, or a wrong PIN, issue and
    revoke nothing (401, each journaled as a failed attempt); the token issued still holds.
    A refused studio token is logged (never the token), not journaled. A table in test mode
    with a delay under the floor says so in the log when it starts."""

    async def scenario() -> None:
        async with live_table(tmp_path, shoe, table=TEST_TABLE) as live:
            await live.seat_players()
            issued = await issue(live)
            token = issued["token"]
            player = (await live.post("/api/player-tokens", {"seat": 1})).json()["token"]
            sign_in = {"role": "surveillance", "id": "S100", "pin": SUPERVISOR["pin"]}
            watcher = (await live.http.post("/api/sessions", json=sign_in)).json()["token"]
            revoke_path = f"/api/studio-tokens/{issued['id']}/revoke"
            issuing = ("POST", "/api/studio-tokens", {**SUPERVISOR, "why": "x", "label": "mine"})
            revoking = ("POST", revoke_path, {**SUPERVISOR, "why": "x"})
            listing = ("GET", "/api/studio-tokens", None)
            for who, headers, status in (
                ("the public", {}, 403),
                ("a player", bearer(player), 403),
                ("the studio", bearer(token), 401),
            ):
                for method, path, body in (issuing, revoking, listing):
                    response = await live.http.request(method, path, json=body, headers=headers)
                    assert response.status_code == status, (who, path, response.text)
            assert (await live.http.get(listing[1], headers=live.dealer)).status_code == 403

            as_dealer = {"supervisor": DEALER["id"], "pin": DEALER["pin"], "why": "x"}
            wrong = {**SUPERVISOR, "pin": "0000", "why": "x"}
            tries = (  # four: one fewer than the address's lockout
                (live.dealer, issuing[1], {**as_dealer, "label": "mine"}),
                (live.dealer, revoke_path, wrong),
                (bearer(watcher), revoke_path, as_dealer),
                (bearer(watcher), issuing[1], {**wrong, "label": "mine"}),
            )
            for headers, path, body in tries:
                response = await live.http.post(path, json=body, headers=headers)
                assert response.status_code == 401, (path, body, response.text)
                assert response.json()["code"] == Denied.WRONG_PIN
            attempts = [e.fields for e in journaled(live, "failed_attempt")]
            assert [(a["who"], a["action"], a["by"]) for a in attempts] == [
                ("D200", ISSUED, "D200"),
                ("S100", REVOKED, "D200"),
                ("D200", REVOKED, "S100"),
                ("S100", ISSUED, "S100"),
            ]
            assert all(body["pin"] not in json.dumps(attempts) for _, _, body in tries)

            assert [r.fields["id"] for r in journaled(live, ISSUED)] == [issued["id"]]
            assert journaled(live, REVOKED) == []
            listed = await live.http.get("/api/studio-tokens", headers=bearer(watcher))
            assert [t["id"] for t in listed.json()] == [issued["id"]], listed.text
            assert (await live.http.get("/api/studio", headers=bearer(token))).status_code == 200

            with caplog.at_level(logging.WARNING, "dealer_ui.app"):
                forged = await live.http.get("/api/studio", headers=bearer("forged-token-7"))
                code, _ = await refused(live.served.url, "/studio/ws?token=forged-token-8")
            assert forged.status_code == 401 and code == 4401
            started = [r.getMessage() for r in caplog.records if "test mode" in r.getMessage()]
            assert started == [
                "test mode: the studio's delay is 3 s, under the 15 minutes of a table that "
                "deals for real"
            ]
            refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
            assert len(refusals) == 2, refusals
            assert not any("forged-token" in message for message in refusals)
            assert len(journaled(live, "failed_attempt")) == len(tries)

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_restart_mid_hand_releases_nothing_early(tmp_path: Path) -> None:
    """The table stops in the middle of a hand and starts again: the studio, which had
    not yet been sent the last moments, gets them after their delay, never before; its
    token still holds."""
    messages: list[tuple[float, dict[str, Any]]] = []

    async def first_half(live: LiveTable) -> tuple[str, str, int]:
        await live.seat_players()
        token = (await issue(live))["token"]
        ended = await issue(live, "truck 2")
        revoke = {**SUPERVISOR, "why": "not needed"}
        response = await live.post(f"/api/studio-tokens/{ended['id']}/revoke", revoke)
        assert response.status_code == 200, response.text
        script = Script()
        await live.load(script.deck(live.service.table))
        (await live.post("/api/hands")).raise_for_status()
        for _ in range(6):  # third street, part of it
            await live.draw()
        return token, ended["token"], live.service.position

    async def scenario() -> None:
        async with live_table(tmp_path, shoe, table=TEST_TABLE) as live:
            token, revoked, stopped_at = await first_half(live)
            stopped = time.time()
        async with live_table(tmp_path, shoe, table=TEST_TABLE) as live:
            code, reason = await refused(live.served.url, f"/studio/ws?token={revoked}")
            assert code == 4401 and "revoked" in reason  # revoked before: still revoked
            collector = asyncio.create_task(studio_messages(live.served.url, token, messages))
            await released(messages, stopped_at)
            collector.cancel()
            await asyncio.gather(collector, return_exceptions=True)
        assert messages[-1][0] >= stopped - 0.5 + DELAY

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))
    released_in_time(messages, DELAY)
    six = [
        m
        for _, m in messages
        if m["table"] and sum(len(p["cards"]) for p in m["table"]["players"]) == 6
    ]
    assert six, "the sixth card's moment was released after the restart"


def test_a_flood_of_forged_tokens_and_a_chatty_studio_change_nothing(tmp_path: Path) -> None:
    """Forged tokens by the dozen are each refused (and none is journaled: nobody fills the
    journal by trying), a studio client that sends junk is not listened to (closed with
    1008 once it sends more than the feed's rate: docs/security.md), and the table deals
    on and the real studio, connected again, gets its feed."""

    async def scenario() -> None:
        api = {"max_websockets": 100, "max_connections": 100}  # the guard lets them in
        async with live_table(tmp_path, shoe, table=TEST_TABLE, api=api) as live:
            await live.seat_players()
            token = (await issue(live))["token"]
            before = len(journaled(live, "failed_attempt"))
            url = live.served.url
            forged = [refused(url, f"/studio/ws?token=forged{n}") for n in range(40)]
            codes = await asyncio.gather(*forged)
            assert {code for code, _ in codes} == {4401}
            assert len(journaled(live, "failed_attempt")) == before
            ws_url = url.replace("http", "ws", 1) + f"/studio/ws?token={token}"
            async with websockets.connect(ws_url) as chatty:
                await chatty.recv()
                for _ in range(500):
                    await chatty.send('{"type": "studio", "token": "x", "role": "surveillance"}')
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    while True:
                        await asyncio.wait_for(chatty.recv(), 60)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            async with websockets.connect(ws_url) as studio:
                first = json.loads(await studio.recv())
                await live.load(Script().deck(live.service.table))
                (await live.post("/api/hands")).raise_for_status()
                await live.draw()
                position = live.service.position
                while True:
                    message = json.loads(await asyncio.wait_for(studio.recv(), 60))
                    if (message["position"] or 0) >= position:
                        break
                assert message["seq"] > first["seq"]
                assert card_names(message["table"])  # the card dealt, after the delay

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))


def test_the_journal_read_back_from_a_time_keeps_every_input_after_it(tmp_path: Path) -> None:
    """``recent``: the table at the time asked for and every input journaled after it, in
    journal order; once one input is after the time, every later one is kept, also one
    whose time is earlier (a clock set back): its table holds the inputs before it."""
    path = tmp_path / "t.sqlite"
    writer = JournalWriter(path, clock=1_800_000_000_000)
    for seat in range(1, 9):  # positions 1..8, one second apart
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=100))
    writer.ok(deck_loaded(at=0, count=52))  # position 9
    at_nine = Recovered(writer.table, 9).state()
    writer.clock -= 5000  # the clock set back five seconds
    writer.ok(NewHand(at=0))  # position 10, journaled at 1 s after position 4's time
    writer.clock += 10_000
    writer.ok(card_read(at=0, code=0))  # position 11, at 16 s
    writer.journal.close()
    base = 1_800_000_000.0
    snapshots = Snapshots(path)
    with Journal.open_read_only(path) as journal:
        replayed = recent(journal, snapshots, base + 10, 11)
        snapshots.save(9, 0, at_nine)  # a snapshot at position 9: read from it on
        assert first_after(journal, base + 10, 11) == 11
        from_nine = recent(journal, snapshots, base + 10, 11)
        assert (from_nine.before.position, from_nine.before.at) == (10, base + 5)
        assert [update.position for update in from_nine.updates] == [11]
        assert from_nine.before.table == replayed.before.table
        assert from_nine.updates == replayed.updates
        assert first_after(journal, base + 6.5, 10) == 7
        read = recent(journal, snapshots, base + 6.5, 10)
        assert (read.before.position, read.before.at) == (6, base + 6)
        assert [update.position for update in read.updates] == [7, 8, 9, 10]
        assert read.updates[-1].at == base + 5  # kept, after the others
        assert read.updates[-1].table.hand is not None
        everything = recent(journal, snapshots, base, 10)
        assert everything.before.position == 0 and len(everything.updates) == 10
        nothing = recent(journal, snapshots, base + 100, 10)
        assert nothing.before.position == 10 and nothing.updates == ()
    snapshots.close()


class SteppedClock:
    """A wall clock that an operator (or NTP) steps: the real time plus ``offset``."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


async def journaled_when(live: LiveTable, into: dict[int, float]) -> None:
    """The monotonic time each input was applied at, by its journal position."""
    updates = live.service.updates()
    try:
        async for update in updates:
            into[update.position] = time.monotonic()
    finally:
        updates.close()


def test_a_stepped_wall_clock_releases_nothing_early_and_holds_nothing_back(
    tmp_path: Path,
) -> None:
    """The wall clock steps an hour forward mid-hand, just after hole cards were dealt:
    the studio still gets them only once the delay has passed by the monotonic clock.
    Then it steps back two hours: the studio goes on within the delay and a few seconds.
    Each step is journaled and raises a non-blocking alert."""
    wall = SteppedClock()
    messages: list[tuple[float, dict[str, Any]]] = []
    applied: dict[int, float] = {}

    async def collect(url: str, token: str) -> None:
        ws_url = url.replace("http", "ws", 1) + f"/studio/ws?token={token}"
        async with websockets.connect(ws_url) as ws:
            async for text in ws:
                messages.append((time.monotonic(), json.loads(text)))

    async def scenario() -> None:
        async with live_table(tmp_path, shoe, table=TEST_TABLE, clock=wall) as live:
            watcher = asyncio.create_task(journaled_when(live, applied))
            await live.seat_players()
            token = (await issue(live))["token"]
            collector = asyncio.create_task(collect(live.served.url, token))
            script = Script()
            await live.load(script.deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            for _ in range(4):  # hole cards
                await live.draw()
            dealt = live.service.position
            wall.offset += 3600  # NTP steps the clock an hour forward
            await live.draw()
            await released(messages, dealt)
            wall.offset -= 7200  # and two hours back
            await live.draw()
            last = live.service.position
            stepped_back = time.monotonic()
            await released(messages, last)
            assert messages[-1][0] - stepped_back < DELAY + 5  # no freeze
            alerts = [a for a in live.service.table.alerts if a.kind.value == "clock_stepped"]
            assert [round(a.facts.step / 60_000) for a in alerts] == [60, -120]  # type: ignore[attr-defined]
            assert not live.service.table.paused
            with Journal.open(live.service.config.journal, create=False) as journal:
                steps = [e.fields["step"] for e in journal.entries() if e.type == "clock_stepped"]
            assert [round(step / 60_000) for step in steps] == [60, -120]
            for task in (collector, watcher):
                task.cancel()
            await asyncio.gather(collector, watcher, return_exceptions=True)

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))
    first = min(applied)  # the moments before the test watched: the service's start
    with_table = [(t, m) for t, m in messages if m["table"] and m["position"] >= first]
    assert len(with_table) > 5
    for arrived, message in with_table:  # 10 ms: the test's subscriber hears of it after
        assert arrived >= applied[message["position"]] + DELAY - 0.01, message["position"]


#: libfaketime (Debian's ``faketime`` package): the wall clock of a process stepped from a
#: file, its monotonic clock left alone, as NTP or an operator steps a machine's clock.
FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


class Served:
    """A ``luck-table serve`` process's API, as a dealer and as surveillance."""

    def __init__(self, url: str) -> None:
        self.http = httpx.AsyncClient(base_url=url, timeout=60)
        self.dealer: dict[str, str] = {}
        self.watch: dict[str, str] = {}

    async def answering(self, process: subprocess.Popen[bytes]) -> None:

        async def answers() -> bool:
            assert process.poll() is None, "the service process stopped"
            with contextlib.suppress(httpx.TransportError):
                return (await self.http.get("/api/view")).status_code == 200
            return False

        await async_wait_until(answers, "the console answers", 60, poll=0.1)
        signed = await self.http.post("/api/sessions", json={"role": "dealer", **DEALER})
        self.dealer = bearer(signed.json()["token"])
        watcher = {"role": "surveillance", "id": SUPERVISOR["supervisor"], "pin": SUPERVISOR["pin"]}
        self.watch = bearer((await self.http.post("/api/sessions", json=watcher)).json()["token"])

    async def view(self) -> dict[str, Any]:
        response = await self.http.get("/api/view", headers=self.watch)
        response.raise_for_status()
        return dict(response.json())

    async def until(self, check: Callable[[dict[str, Any]], bool], what: str) -> None:
        async def holds() -> bool:
            return check(await self.view())

        await async_wait_until(holds, what, 60, poll=0.05)

    async def draw(self, shoe: Control) -> None:
        before = await self.view()
        await shoe.command("draw")
        await shoe.settled()  # acknowledged once journaled and applied
        await self.until(lambda seen: seen != before, "the card on the table")


def last_input(config: Path) -> int:
    """The journal position of the table's last input (the journal of ``config``)."""
    with Journal.open_read_only(load_config(config).journal) as journal:
        return max(entry.position for entry in journal.entries() if entry.source != "access")


@pytest.mark.skipif(
    not FAKETIME.exists(), reason="libfaketime is not installed (apt-get install -y faketime)"
)
def test_the_service_process_under_a_stepped_clock_releases_nothing_early(tmp_path: Path) -> None:
    """``luck-table serve`` under libfaketime: its wall clock stepped an hour forward just
    after the hole cards are dealt, then two hours back. The studio gets no hole card before
    the delay has passed since it was dealt (by the monotonic clock), goes on within
    seconds of the step back, and each step is journaled and raises its alert."""
    delay = 10.0
    offset = tmp_path / "faketime"
    offset.write_text("+0\n")
    environment = {
        **os.environ,
        "LD_PRELOAD": str(FAKETIME),
        "FAKETIME_TIMESTAMP_FILE": str(offset),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
    messages: list[tuple[float, dict[str, Any]]] = []
    port = free_port()
    url = f"http://127.0.0.1:{port}"

    async def collect(token: str) -> None:
        ws_url = url.replace("http", "ws", 1) + f"/studio/ws?token={token}"
        async with websockets.connect(ws_url) as ws:
            async for text in ws:
                messages.append((time.monotonic(), json.loads(text)))

    async def scenario(shoe_process: Any, config: Path) -> None:
        shoe = await Control.connect(shoe_process.announced["control"])
        await shoe.settled()
        service = Served(url)
        with (tmp_path / "serve.log").open("ab") as log:
            process = subprocess.Popen(
                [LUCK_TABLE, "serve", "--config", str(config)], stderr=log, env=environment
            )
        try:
            await service.answering(process)
            table = Table(load_config(config).settings)
            for seat in range(1, PLAYERS + 1):
                body = {"seat": seat, "player": f"P{seat}", "buy_in": 100}
                answer = await service.http.post("/api/seats", json=body, headers=service.dealer)
                assert answer.status_code == 200, answer.text
                table = apply(table, SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=100)).table
            body = {**SUPERVISOR, "why": "tonight's broadcast", "label": "truck"}
            issued = await service.http.post(
                "/api/studio-tokens", json=body, headers=service.dealer
            )
            assert issued.status_code == 200, issued.text
            collector = asyncio.create_task(collect(issued.json()["token"]))
            order = Script().deck(table)
            await shoe.command("load cards=" + ",".join(str(int(card)) for card in order))
            await service.until(lambda seen: seen["deck_ready"], "the deck loaded")
            started = await service.http.post("/api/hands", headers=service.dealer)
            assert started.status_code == 200, started.text
            dealing = time.monotonic()  # no hole card was journaled before this
            for _ in range(2 * PLAYERS):  # every hole card of third street
                await service.draw(shoe)
            offset.write_text("+3600\n")  # NTP steps the clock an hour forward
            await service.draw(shoe)
            await released(messages, last_input(config))
            offset.write_text("-3600\n")  # and two hours back
            await service.draw(shoe)
            stepped_back = time.monotonic()
            await released(messages, last_input(config))
            assert messages[-1][0] - stepped_back < delay + 5  # no freeze
            seen = await service.view()
            stepped = [a for a in seen["alerts"] if a["kind"] == "clock_stepped"]
            assert len(stepped) == 2 and not any(a["blocking"] for a in stepped), seen["alerts"]
            collector.cancel()
            await asyncio.gather(collector, return_exceptions=True)
            process.terminate()
            assert process.wait(timeout=30) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(30)
        with Journal.open_read_only(load_config(config).journal) as journal:
            steps = [e.fields["step"] for e in journal.entries() if e.type == "clock_stepped"]
        assert [round(step / 60_000) for step in steps] == [60, -120]
        holes = [
            arrived
            for arrived, message in messages
            if message["table"]
            and any(c["face"] == "down" for p in message["table"]["players"] for c in p["cards"])
        ]
        assert holes and min(holes) >= dealing + delay, min(holes) - dealing

    with simulator("shoe") as shoe_process:
        config = with_api(tmp_path, shoe_process.port, port)
        config.write_text(
            config.read_text().replace("[table]\n", "[table]\ntest_mode = true\n", 1)
            + f"\n[studio]\ndelay = {delay / 60}\n"
        )
        asyncio.run(asyncio.wait_for(scenario(shoe_process, config), 240))
