"""The page header fits a phone: in Chromium at 390×844 (touch, 2× scale), in Russian and
English, logged out and logged in, on the home page, the rules, the login form, the game
page, the city inbox and the notifications, the whole header lies inside the viewport — the
page does not scroll sideways, no part of the header scrolls or clips its items, the
language switch is on screen, and no two of the header's items overlap. At 1280×800 the same
holds, on one line. The screenshots go to var/screenshots/.

Cast and game: ``test_today_browser.started`` — Лепроград of six, Day 1 of a started game;
the honest resident it returns first reads every page logged in; «konstantin», registered
as «Константин Константинопольский» (the longest name the header has to show), reads the
home page; an anonymous visitor reads the public pages. Rules: none (the layout).
"""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import PASSWORD, LiveServer
from .test_today_browser import CITY, GAME, SIZES, shot, started

LONG_NAME = ("konstantin", "Константин Константинопольский")

FITS = """() => {
  const vw = window.innerWidth;
  const problems = [];
  if (document.documentElement.scrollWidth > vw)
    problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + vw);
  const header = document.querySelector('header.topbar');
  for (const box of [header, ...header.querySelectorAll('*')]) {
    if (box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== 'visible'
        && box.clientWidth > 1  // words for screen readers only
        && !box.matches('.me'))  // a long name ends in an ellipsis, by design
      problems.push('clipped inside ' + box.className + ': ' + box.scrollWidth + ' > ' + box.clientWidth);
  }
  const lang = header.querySelector('.lang').getBoundingClientRect();
  if (lang.left < 0 || lang.right > vw || lang.width === 0)
    problems.push('the language switch at ' + lang.left + '..' + lang.right + ' of ' + vw);
  const items = [...header.querySelectorAll('.brand-mark, .topnav a, .topnav button, .topnav .me')]
    .filter(e => e.getClientRects().length && e.getBoundingClientRect().width > 1);
  const rects = items.map(e => [e.textContent.trim() || e.className, e.getBoundingClientRect()]);
  for (const [name, r] of rects)
    if (r.left < 0 || r.right > vw) problems.push(name + ' off screen: ' + r.left + '..' + r.right);
  for (let i = 0; i < rects.length; i++)
    for (let j = i + 1; j < rects.length; j++) {
      const [a, p] = rects[i], [b, q] = rects[j];
      if (items[i].contains(items[j]) || items[j].contains(items[i])) continue;
      if (p.left < q.right - .5 && q.left < p.right - .5 && p.top < q.bottom - .5 && q.top < p.bottom - .5)
        problems.push(a + ' overlaps ' + b);
    }
  return problems;
}"""


def visit(browser: Any, live: LiveServer, user: str | None, size: str, lang: str) -> Any:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU",
                                  device_scale_factor=2 if size == "phone" else 1,
                                  is_mobile=size == "phone", has_touch=size == "phone")
    page = context.new_page()
    if user:
        page.goto(f"{live.url}/login")
        page.fill("#login", user)
        page.fill("#password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(f"{live.url}/")
    page.goto(f"{live.url}/lang/{lang}?next=/")
    return page


def test_the_header_fits_a_phone_in_both_languages(live: LiveServer, browser: Any) -> None:
    player, _ = started(live)
    login, name = LONG_NAME
    r = httpx.post(f"{live.url}/api/auth/register", timeout=120,
                   json={"login": login, "password": PASSWORD, "display_name": name})
    assert r.status_code == 201, r.text
    city_inbox = live.state(GAME).current[f"city:{CITY}"]
    visits: dict[str | None, dict[str, str]] = {
        None: {"home": "/", "rules": "/rules", "login": "/login"},
        player: {"home": "/", "rules": "/rules", "game": f"/games/{GAME}",
                 "inbox": f"/games/{GAME}/inboxes/{city_inbox}", "notifications": "/notifications"},
        login: {"home": "/"},
    }
    for size in ("phone", "desktop"):
        for lang in ("ru", "en"):
            for user, paths in visits.items():
                page = visit(browser, live, user, size, lang)
                for what, path in paths.items():
                    page.goto(f"{live.url}{path}")
                    if user:  # the notifications count has arrived (the widest the header gets)
                        page.wait_for_function(
                            "() => document.querySelector('[data-notify-badge] a').dataset.unread !== undefined")
                    assert page.evaluate(FITS) == [], (size, lang, user, what)
                    top = page.locator(".topbar").bounding_box()
                    assert top and top["height"] < 56, (size, lang, user, what, top)  # one line
                    shot(page, f"header-{what}-{'anonymous' if user is None else user}-{size}-{lang}")
                page.context.close()
