"""The bonus moment fits a 7-inch panel: at 1024x600, while the bonus card is due (free, or
offered at its price), the prompt is whole on the screen (nothing cut off, no scrolling),
in the largest type on the page and never smaller than an ordinary deal prompt, with every
control reachable; in a real Chromium against the table service on the shoe simulator.

Screenshots (``console-bonus-PRICE-1024x600.png``) are saved in the folder named by
``LUCK_SCREENSHOTS`` (else the test's temporary folder).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.console_kit import Script, dealer_signed_in
from tests.test_console_browser import console, on_the_shoe, settled_page
from tests.test_console_touch import SMALL, reachable

pytestmark = pytest.mark.slow  # a live table

#: The prompt's box and type, the largest type of any text on the page, and an ordinary
#: deal prompt's type (drawn as the page draws one).
PROMPT = """() => {
  const next = document.getElementById('next');
  const size = (node) => parseFloat(getComputedStyle(node).fontSize);
  const texts = [...document.querySelectorAll('body *')].filter((node) =>
    node.getClientRects().length && !node.closest('[hidden], dialog:not([open])')
    && [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim()));
  const probe = document.createElement('p');
  probe.className = 'next-line';
  probe.textContent = 'DEAL: seat 3, face up';
  document.querySelector('main').append(probe);
  const deal = size(probe);
  probe.remove();
  const box = next.getBoundingClientRect();
  return {text: next.textContent, size: size(next), deal,
          largest: Math.max(...texts.map(size)),
          inside: box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight
                  && box.right <= innerWidth,
          whole: next.scrollHeight <= next.clientHeight + 1
                 && next.scrollWidth <= next.clientWidth + 1};
}"""


@pytest.mark.parametrize("price", [0, 5])
def test_the_bonus_prompt_fits_a_7_inch_panel(tmp_path: Path, price: int) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    game = f'showdown = "manual"\nbonus_price = {price}'

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL, touch=True, game=game) as (
            live,
            _browser,
            page,
        ):
            await dealer_signed_in(page)
            await live.seat_players()
            bonus = lambda table: table.signals.display.startswith("BONUS")  # noqa: E731
            await live.play_hand(Script(), stop=bonus)
            await settled_page(page, live)
            if price:  # the offer waits for the player's decision: its buttons armed
                await page.locator(
                    '#choice-buttons button[data-do="bonus"]:enabled'
                ).first.wait_for()
            seen = await page.evaluate(PROMPT)
            assert seen["text"] == live.service.table.signals.display, seen
            assert seen["text"].startswith("BONUS"), seen
            assert seen["inside"] and seen["whole"], seen
            assert seen["size"] >= seen["deal"] and seen["size"] >= seen["largest"], seen
            await reachable(page)
            await page.screenshot(path=str(shots / f"console-bonus-{price}-1024x600.png"))

    on_the_shoe(scenario)
