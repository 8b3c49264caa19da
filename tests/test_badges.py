"""Staff badges at the console: registered as salted Argon2id hashes of their UIDs (never the
UID), read by the console's PC/SC reader through a private pcscd (firmware_sim.pcsc_rig's
console reader) and, with the PIN, a dealer's sign-in, a dealer push and a supervisor's
approval; a badge alone signs no one in. The pcscd tests are skipped, with the reason,
where pcscd, vpcd, pyscard or the rights for a private mount namespace are missing."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.config import load_config
from controller.config_file import ConfigError, Credential
from dealer_ui.auth import Auth, BadgeError, Denied, badge_holder, hash_badge, hash_pin
from dealer_ui.codes import Declined
from firmware_sim import pcsc_rig
from firmware_sim.pcsc_rig import PcscRig
from firmware_sim.vtag import VirtualTag
from tests.console_kit import LiveTable, live_table
from tests.service_kit import DEALER, SUPERVISOR, simulator, write_config
from tests.waiting import async_wait_until

LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))
DEALER_BADGE = bytes.fromhex("04a1b2c3d4e5f6")
INCOMING_BADGE = bytes.fromhex("04a1b2c3d4e5f7")
SUPERVISOR_BADGE = bytes.fromhex("0411223344")
NOBODY_BADGE = bytes.fromhex("04deadbeef0001")
INCOMING = {"id": "D300", "pin": "246810"}
NEEDS_PCSCD = pytest.mark.skipif(pcsc_rig.missing() is not None, reason=str(pcsc_rig.missing()))


# --- the hashes and the configuration ----------------------------------------------------


def test_a_badge_s_hash_is_salted_and_names_only_its_holder() -> None:
    first, second = hash_badge(DEALER_BADGE), hash_badge(DEALER_BADGE)
    assert first != second  # salted: the same UID twice, two hashes
    assert DEALER_BADGE.hex() not in first
    staff = [Credential("D200", "x", first), Credential("D300", "x", hash_badge(INCOMING_BADGE))]
    assert badge_holder(staff, DEALER_BADGE) == staff[0]
    assert badge_holder(staff, INCOMING_BADGE) == staff[1]
    assert badge_holder(staff, NOBODY_BADGE) is None
    assert badge_holder([Credential("D400", "x")], DEALER_BADGE) is None  # no badge
    with pytest.raises(BadgeError):
        hash_badge(b"")
    with pytest.raises(BadgeError):
        hash_badge(bytes(11))


def _with_badge(folder: Path, badge: str, console: str = "") -> Path:
    path = write_config(folder, "/dev/null")
    text = path.read_text()
    text = text.replace(
        '[[credentials.dealers]]\nid = "D200"\n',
        '[[credentials.dealers]]\nid = "D200"\nbadge = "' + badge + '"\n',
    )
    path.write_text(text.replace("[journal]", console + "[journal]", 1))
    return path


def test_the_configuration_takes_a_badge_s_hash_and_refuses_a_uid_or_a_pin_s_hash(
    tmp_path: Path,
) -> None:
    made = hash_badge(DEALER_BADGE)
    reader = '[devices.console]\ntransport = "pcsc"\nreader = "^Luck Shoe 00 01$"\n'
    config = load_config(_with_badge(tmp_path, made, reader))
    (dealer,) = config.dealers
    assert dealer.badge == made and config.badge_reader == "^Luck Shoe 00 01$"
    assert load_config(_with_badge(tmp_path, made)).badge_reader is None
    for wrong in (DEALER_BADGE.hex(), hash_pin("975310"), "$argon2id$v=19$m=1$broken"):
        with pytest.raises(ConfigError) as refused:
            load_config(_with_badge(tmp_path, wrong))
        assert refused.value.key == "credentials.dealers[0].badge"
        assert DEALER_BADGE.hex() not in str(refused.value)  # never said back
    for console, what in (
        ('[devices.console]\ntransport = "serial"\nreader = "x"\n', "devices.console.transport"),
        ('[devices.console]\ntransport = "pcsc"\nreader = "("\n', "devices.console.reader"),
        ('[devices.console]\ntransport = "pcsc"\nreader = "x"\nport = 1\n', "devices.console.port"),
    ):
        with pytest.raises(ConfigError) as refused:
            load_config(_with_badge(tmp_path, made, console))
        assert refused.value.key == what


@pytest.mark.slow  # processes, a browser or a pcscd
def test_hash_badge_hashes_a_uid_in_hex_on_standard_input() -> None:
    done = subprocess.run(
        [LUCK_TABLE, "hash-badge"],
        input=b"04:A1:b2 c3d4e5f6\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    made = done.stdout.decode().strip()
    assert badge_holder([Credential("D200", "x", made)], DEALER_BADGE) is not None
    done = subprocess.run(
        [LUCK_TABLE, "hash-badge"], input=b"not hex\n", capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stderr.decode().startswith("luck-table hash-badge: error: standard input")


# --- through pcscd, at the console ---------------------------------------------------------


def staff(_: Any) -> Auth:
    """The configuration's dealer and supervisor with their badges, and a second dealer."""
    return Auth(
        [
            Credential(DEALER["id"], hash_pin(DEALER["pin"]), hash_badge(DEALER_BADGE)),
            Credential(INCOMING["id"], hash_pin(INCOMING["pin"]), hash_badge(INCOMING_BADGE)),
        ],
        [
            Credential(
                SUPERVISOR["supervisor"], hash_pin(SUPERVISOR["pin"]), hash_badge(SUPERVISOR_BADGE)
            )
        ],
    )


async def shown(live: LiveTable, rig: PcscRig, uid: bytes) -> dict[str, Any]:
    """The badge ``uid`` shown to the console's reader (and taken away): its tap."""
    before = (await live.http.get("/api/badge")).json()
    tag = VirtualTag(uid)
    await asyncio.to_thread(rig.enter, "console", tag)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10  # pcscd polls vpcd every 400 ms: two polls a tag
        while True:
            tap = (await live.http.get("/api/badge")).json()
            if (
                tap is not None
                and tap != before
                and (before is None or tap["tap"] != before["tap"])
            ):
                return dict(tap)
            assert loop.time() < deadline, "the console's reader did not read the badge"
            await asyncio.sleep(0.05)
    finally:
        tag.leave()


@pytest.mark.slow  # processes, a browser or a pcscd
@NEEDS_PCSCD
def test_badges_at_the_console_sign_in_push_and_approve_with_the_pin(tmp_path: Path) -> None:
    async def scenario(shoe: Any, rig: PcscRig) -> None:
        pattern = rig.pattern("console")
        reader = f"[devices.console]\ntransport = \"pcsc\"\nreader = '{pattern}'\n"
        async with live_table(tmp_path, shoe, auth=staff, shoe_lines=reader) as live:
            http = live.http
            assert (await http.get("/api/badge")).json() is None  # nothing shown yet
            # a wire shoe without a seat board: the seats' protections do not hold
            console = (await http.get("/api/console")).json()
            assert console["lacking"] == ["seat_checks", "player_away"]

            # a dealer's badge, then the PIN: a wrong one is refused, the tap waits
            tap = await shown(live, rig, DEALER_BADGE)
            assert tap["kind"] == "dealer" and set(tap) == {"tap", "kind", "age"}  # no id
            wrong = await http.post(
                "/api/sessions/badge", json={"badge": tap["tap"], "pin": "000000"}
            )
            assert wrong.status_code == 401
            right = {"badge": tap["tap"], "pin": DEALER["pin"]}
            signed = await http.post("/api/sessions/badge", json=right)
            assert signed.status_code == 200, signed.text
            assert signed.json()["who"] == DEALER["id"]
            again = await http.post("/api/sessions/badge", json=right)
            assert again.status_code == 401  # a tap serves once
            assert again.json()["code"] == Denied.NO_BADGE
            assert (await http.get("/api/badge")).json() is None
            dealer = {"Authorization": f"Bearer {signed.json()['token']}"}

            # nobody's badge: shown as nobody's, and signs no one in with any PIN
            nobody = await shown(live, rig, NOBODY_BADGE)
            assert nobody["kind"] is None
            refused = await http.post(
                "/api/sessions/badge", json={"badge": nobody["tap"], "pin": DEALER["pin"]}
            )
            assert refused.status_code == 401 and refused.json()["code"] == Denied.WRONG_BADGE

            # a dealer push: the incoming dealer's badge and PIN relieve the dealer
            tap = await shown(live, rig, INCOMING_BADGE)
            push = {"badge": tap["tap"], "pin": INCOMING["pin"]}
            pushed = await http.post("/api/dealer-push", json=push, headers=dealer)
            assert pushed.status_code == 200, pushed.text
            assert pushed.json()["who"] == INCOMING["id"]
            assert live.service.table.dealer == INCOMING["id"]
            gone = await http.get("/api/requests", headers=dealer)
            assert gone.status_code == 401  # the outgoing dealer is signed out
            live.dealer = {"Authorization": f"Bearer {pushed.json()['token']}"}

            # a supervisor's approval by badge and PIN; a dealer's badge approves nothing
            await live.seat_players()
            body = {"seat": 1, "stack": 150, "why": "Chips miscounted"}
            asked = await live.post("/api/requests", {"action": "correct-stack", "body": body})
            assert asked.status_code == 200, asked.text
            approve = f"/api/requests/{asked.json()['id']}/approve"
            tap = await shown(live, rig, DEALER_BADGE)
            not_a_supervisor = await live.post(approve, {"badge": tap["tap"], "pin": DEALER["pin"]})
            assert not_a_supervisor.status_code == 401
            assert not_a_supervisor.json()["code"] == Denied.WRONG_BADGE
            tap = await shown(live, rig, SUPERVISOR_BADGE)
            assert tap["kind"] == "supervisor"
            approved = await live.post(approve, {"badge": tap["tap"], "pin": SUPERVISOR["pin"]})
            assert approved.status_code == 200, approved.text
            seat = live.service.table.seat(1)
            assert seat is not None and seat.stack == 150
            both = await live.post(approve, {"badge": tap["tap"], **SUPERVISOR})
            assert both.status_code == 422  # an id or a badge, not both
            assert both.json()["code"] == Declined.ID_OR_BADGE

    with PcscRig(tmp_path / "rig") as rig, simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe, rig), 300))


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.slow  # processes, a browser or a pcscd
@NEEDS_PCSCD
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's Chromium is not installed")
def test_the_console_page_takes_a_badge_for_the_id_and_signs_in_with_the_pin(
    tmp_path: Path,
) -> None:
    from playwright.async_api import async_playwright  # noqa: PLC0415 (the browser tests' own)

    async def scenario(shoe: Any, rig: PcscRig) -> None:
        pattern = rig.pattern("console")
        reader = f"[devices.console]\ntransport = \"pcsc\"\nreader = '{pattern}'\n"
        async with (
            live_table(tmp_path, shoe, auth=staff, shoe_lines=reader) as live,
            async_playwright() as playwright,
        ):
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM))
            try:
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                page.set_default_timeout(20_000)
                await page.goto(f"{live.served.url}/")
                sign_in = page.locator("#sign-in")
                await sign_in.wait_for()
                lacking = page.locator("#lacking")  # the hardware's limits, in the bar
                await lacking.get_by_text("2 CHECKS OFF").wait_for(state="attached")
                title = await lacking.get_attribute("title")
                assert title is not None and "no seat sensors" in title and "seat checks" in title
                nobody = await shown(live, rig, NOBODY_BADGE)
                assert nobody["kind"] is None
                await sign_in.get_by_text("This badge is not registered").wait_for()
                await shown(live, rig, DEALER_BADGE)
                await sign_in.get_by_text("Badge read: enter the PIN").wait_for()
                dealer_id = sign_in.locator("input[name=dealer]")
                assert await dealer_id.input_value() == ""  # the id never reaches the page
                await sign_in.get_by_label("PIN", exact=True).fill(DEALER["pin"])
                await sign_in.get_by_role("button", name="Sign in").click()
                await sign_in.wait_for(state="hidden")
                stored = await page.evaluate("() => Object.values(sessionStorage)")
                assert DEALER["id"] in stored
                # the push: the incoming dealer's badge stands for the id in the push dialog
                await page.locator("#push").click()
                push = page.locator("#push-dialog")
                await push.wait_for()
                await shown(live, rig, SUPERVISOR_BADGE)  # a supervisor's is no dealer's
                await push.get_by_text("Not a dealer's badge").wait_for()
                await shown(live, rig, INCOMING_BADGE)
                await push.get_by_text("Badge read: enter the PIN").wait_for()
                assert await push.locator("input[name=dealer]").input_value() == ""
                await push.get_by_label("Their PIN").fill(INCOMING["pin"])
                await push.get_by_role("button", name="Push").click()
                await push.wait_for(state="hidden")
                await async_wait_until(
                    lambda: live.service.table.dealer == INCOMING["id"], "the push by badge"
                )
            finally:
                await browser.close()

    with PcscRig(tmp_path / "rig") as rig, simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe, rig), 300))


@pytest.mark.slow  # processes, a browser or a pcscd
@NEEDS_PCSCD
def test_hash_badge_reads_the_badge_shown_to_a_reader(tmp_path: Path) -> None:
    with PcscRig(tmp_path / "rig") as rig:
        command = [LUCK_TABLE, "hash-badge", "--reader", rig.pattern("console")]
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as process:
            assert process.stderr is not None and process.stdout is not None
            said = process.stderr.readline()  # pcscd has the reader: the badge may come
            assert "show the badge" in said, said
            tag = VirtualTag(SUPERVISOR_BADGE)
            rig.enter("console", tag)
            try:
                assert process.wait(timeout=30) == 0, process.stderr.read()
            finally:
                tag.leave()
            made = process.stdout.read().strip()
    assert SUPERVISOR_BADGE.hex() not in made
    assert badge_holder([Credential("S100", "x", made)], SUPERVISOR_BADGE) is not None
