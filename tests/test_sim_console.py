"""``luck-table sim`` with its console: a person changing the seats at the console while
the automatic dealer deals (sitting players out, letting them go, seating new ones, at the
dealer's seats and others, a rebuy, a supervisor's stack correction), as a subprocess and
on the table core. The simulated seat
board hears each seat taken or freed, the dealer deals on with whoever is seated, and the
summary counts every chip that came and went: conserved."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from controller.sim.dealer import Dealer, DealerError, Tally
from controller.sim.floor import CoreFloor
from controller.sim.view import Event
from controller.table import Leave, NewHand, Refusal, Refuse, SitDown, TableInput, TableSettings
from controller.table.effects import Words
from tests.test_sim_command import SIM
from tests.waiting import wait_until

pytestmark = pytest.mark.slow  # processes

DEADLINE = 120.0


class Run:
    """A ``luck-table sim --progress`` process, its events read as they come; its summary
    (``--json``) once stopped."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.summary = cwd / "summary.json"
        self.process = subprocess.Popen(
            [*SIM, *args, "--progress", "--json", str(self.summary)],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.out: list[dict[str, Any]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The next event ``wanted`` (within the deadline)."""
        deadline = time.monotonic() + DEADLINE
        while True:
            left = deadline - time.monotonic()
            assert left > 0 and self.process.poll() is None, self.out
            try:
                line = self.lines.get(timeout=min(left, 1.0))
            except queue.Empty:
                continue
            event = json.loads(line)
            self.out.append(event)
            if wanted(event):
                return event

    def stop(self) -> tuple[dict[str, Any], str]:
        """Stop it (SIGTERM): its summary, and its stderr."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(60)
        self.reader.join(10)
        assert self.process.stderr is not None
        err = self.process.stderr.read()
        summary = json.loads(self.summary.read_text(encoding="utf-8"))
        return summary, err


def hand_over(number: int) -> Callable[[dict[str, Any]], bool]:
    """Whether an event is hand ``number``'s end."""
    return lambda event: event == {"event": Event.HAND_OVER, "hand": number, "void": False}


def post(http: httpx.Client, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
    response = http.post(path, json=body)
    assert response.status_code == 200, (path, response.text)
    return response


def test_seats_changed_at_the_console_mid_run_keep_the_simulation_going_and_conserved(
    tmp_path: Path,
) -> None:
    run = Run(
        tmp_path, "--hands", "0", "--speed", "max", "--seats", "2", "--console", "127.0.0.1:0"
    )
    try:
        served = run.until(lambda event: event["event"] == Event.CONSOLE)
        url, dealer_pin, supervisor_pin = (
            served[name] for name in ("url", "dealer_pin", "supervisor_pin")
        )
        run.until(hand_over(1))
        with httpx.Client(base_url=url, timeout=30) as http:
            token = post(
                http, "/api/sessions", {"role": "dealer", "id": "DEALER", "pin": dealer_pin}
            )
            http.headers["Authorization"] = f"Bearer {token.json()['token']}"
            post(http, "/api/seats/1/sit_out")  # one player left to deal in: the dealer waits

            def left() -> httpx.Response | None:
                leave = http.post("/api/seats/2/leave")
                if leave.status_code != 409:
                    return leave
                assert leave.json()["code"] == Refuse.SEAT_IN_HAND, leave.text
                return None

            leave = wait_until(left, "the hand in progress ends", DEADLINE, poll=0.05)
            assert leave.status_code == 200, leave.text
            before = http.get("/api/view").json()["hand_number"]  # no hand starts now
            post(http, "/api/seats", {"seat": 2, "player": "Guest", "buy_in": 300})
            post(http, "/api/seats/2/sit_out")
            post(http, "/api/seats", {"seat": 7, "player": "Visitor", "buy_in": 400})
            post(http, "/api/seats/7/rebuy", {"chips": 100})
            supervisor = {"supervisor": "PIT", "pin": supervisor_pin, "why": "chips found"}
            post(http, "/api/supervisor/correct-stack", {**supervisor, "seat": 7, "stack": 550})
            post(http, "/api/seats/1/leave")
            assert http.get("/api/view").json()["hand_number"] == before
            post(http, "/api/seats", {"seat": 1, "player": "Guest", "buy_in": 200})  # deal on
            post(http, "/api/seats/2/sit_in")
            view = http.get("/api/view").json()
            assert [(s["seat"], s["player"]) for s in view["seats"]] == [
                (1, "Guest"),
                (2, "Guest"),
                (7, "Visitor"),
            ]
            run.until(hand_over(before + 2))  # hands dealt to the console's players
            post(http, "/api/seats/7/sit_out")
    finally:
        summary, err = run.stop()
    assert run.process.returncode == 0, err
    assert "Traceback" not in err and "error" not in err, err
    chips = summary["chips"]
    assert chips["conserved"] and chips["cashed_out"] > 0 and chips["corrected"] == 50, chips
    players = [seat["player"] for seat in summary["stacks"]]
    assert players[0] == "Guest" and "Visitor" in players, players
    assert os.path.exists(tmp_path / "data" / "table.sqlite3")


def test_the_dealer_deals_on_with_the_seats_people_changed_and_counts_every_chip() -> None:
    tally = Tally()
    floor = CoreFloor(TableSettings(), tally.observe)
    dealer = Dealer(floor, tally, seats=4, hands=4, seed=1)

    async def person(item: TableInput) -> None:
        assert await floor.submit(item) is None

    async def scenario() -> None:
        while floor.table.hand_number < 1 or floor.table.in_hand:
            await dealer.move()
        await person(Leave(at=floor.now(), seat=3))  # between hands, at the console
        await dealer.move()  # the seat board hears seat 3 freed; the dealer leaves it be
        assert floor.table.seat(3) is None and 3 not in floor.table.occupied
        await person(SitDown(at=floor.now(), seat=3, player="Guest", buy_in=500))
        await person(SitDown(at=floor.now(), seat=8, player="Late", buy_in=300))
        await dealer.run()

    asyncio.run(scenario())
    table = floor.table
    seated = [(seat.seat, seat.player) for seat in table.seats]
    assert seated == [(1, "Aoife"), (2, "Brendan"), (3, "Guest"), (4, "Declan"), (8, "Late")]
    assert table.occupied == (1, 2, 3, 4, 8)  # the sensors agree with the seating
    assert table.hand is not None and 8 in {player.seat for player in table.hand.players}
    assert tally.cashed_out > 0 and tally.conserved(table)


#: The refusal a table in a test gives the dealer's input.
REFUSED_FOR_THE_TEST = Refusal(Words("refused for the test"), "new_hand", Refuse.HAND_IN_PROGRESS)


class FirstAtTheTable(CoreFloor):
    """The table core, where a person's input (``first``) reaches the table just before
    the dealer's next one; or where the table refuses the dealer's ``refuse`` inputs."""

    def __init__(self, tally: Tally) -> None:
        super().__init__(TableSettings(), tally.observe)
        self.first: list[TableInput] = []
        self.refuse: type[TableInput] | None = None

    async def submit(self, item: TableInput) -> Refusal | None:
        if self.first:
            assert self._apply(self.first.pop(0)) is None
        if isinstance(item, self.refuse or ()):
            return REFUSED_FOR_THE_TEST
        return self._apply(item)


async def to_the_next_hand(dealer: Dealer, floor: CoreFloor) -> None:
    """Dealer's moves until its next move starts hand 2."""
    table = floor.table
    while table.hand_number < 1 or table.in_hand or not table.deck_ready:
        await dealer.move()
        table = floor.table


def test_the_dealer_looks_again_when_someone_else_was_first_and_stops_when_refused() -> None:
    tally = Tally()
    floor = FirstAtTheTable(tally)
    dealer = Dealer(floor, tally, seats=3, hands=3, seed=2)

    async def first() -> None:
        await to_the_next_hand(dealer, floor)
        floor.first.append(NewHand(at=floor.now()))  # the console starts the hand
        await dealer.move()  # the dealer's NewHand: refused, the table having moved on
        assert floor.table.hand_number == 2 and floor.table.in_hand
        await dealer.run()

    asyncio.run(first())
    assert floor.table.hand_number == 3 and not floor.table.in_hand  # and dealt on
    assert tally.conserved(floor.table)

    tally = Tally()
    floor = FirstAtTheTable(tally)
    dealer = Dealer(floor, tally, seats=3, hands=3, seed=2)
    floor.refuse = NewHand  # refused by the table the dealer acted on: a fault

    async def refused() -> None:
        await to_the_next_hand(dealer, floor)

    with pytest.raises(DealerError) as caught:
        asyncio.run(refused())
    assert caught.value.refusal is REFUSED_FOR_THE_TEST
