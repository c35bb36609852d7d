"""Review m8: on a phone the floating «Онлайн» pill covered text. In Chromium at 390×844
(touch, 2× scale), in Russian and English, the live-status marker of the game page, the
city inbox and the Tribune's console is a small dot in the corner that overlaps no
character of the page at any scroll position, and it still says its state to a screen
reader (role="status", its words in the text).

Cast and game: ``test_today_browser.started`` — Лепроград of six, the Procurator
«prokurator», the Tribune «tribune1»; Day 1 of a started game. Rules: INBOX-CITY-1.
"""

from __future__ import annotations

from typing import Any

from .conftest import LiveServer
from .test_today_browser import CITY, GAME, open_as, shot, started

COVERED = """() => {
  const pill = document.getElementById('live-status');
  if (!pill) return ['no live status'];
  const found = [];
  const step = Math.max(200, window.innerHeight - 100);
  for (let y = 0; ; y += step) {
    window.scrollTo(0, y);
    const p = pill.getBoundingClientRect();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim() || pill.contains(n)) continue;
      const el = n.parentElement;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none' || el.closest('[hidden]')) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) {
        if (r.width && r.height && r.left < p.right && r.right > p.left && r.top < p.bottom && r.bottom > p.top)
          found.push(n.textContent.trim().slice(0, 40) + ' @' + y);
      }
    }
    if (y + window.innerHeight >= document.documentElement.scrollHeight) break;
  }
  return found;
}"""


def test_the_live_dot_covers_no_text_on_a_phone_m8(live: LiveServer, browser: Any) -> None:
    honest, _ = started(live)
    city_inbox = live.state(GAME).current[f"city:{CITY}"]
    pages = ((honest, f"/games/{GAME}", "game"), (honest, f"/games/{GAME}/inboxes/{city_inbox}", "city"),
             ("tribune1", f"/games/{GAME}/console/tribune", "tribune"))
    for lang in ("ru", "en"):
        for user, path, name in pages:
            page = open_as(browser, live, user, "phone", lang)
            page.goto(f"{live.url}{path}")
            pill = page.locator("#live-status")
            pill.wait_for(state="attached")
            box = pill.bounding_box()
            assert box is not None and box["width"] <= 24 and box["height"] <= 24, box
            assert pill.get_attribute("role") == "status" and pill.inner_text().strip()
            assert page.evaluate(COVERED) == [], (lang, name)
            shot(page, f"m8-live-dot-{name}-{lang}-phone")
            page.context.close()
