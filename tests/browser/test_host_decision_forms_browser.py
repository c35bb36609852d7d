"""A host decision's derived form in Chromium (GODFATHER-2, D23; docs/architecture.md, "How
to add a host decision"): the Consigliere opens «How the Godfather is elected» on his
console — a form nobody wrote, derived from ``SetGodfatherElectionRule`` — picks a city and
«unanimity» from the engine's options, gives a reason and sets the rule; the mafia's rule is
recorded. Screenshots of the console with the form open, ru and en, 1280×800 and 390×844.

Cast: as in ``test_discussion_browser`` (one city, the Consigliere «konsil»)."""

from __future__ import annotations

from typing import Any

from .conftest import LiveServer, login
from .test_discussion_browser import GAME, SIZES, started

TOOL = "[data-testid=decision-godfather_election_rule]"


def test_the_consigliere_sets_the_godfather_rule_from_a_derived_form(live: LiveServer, browser: Any,
                                                                     shots: Any) -> None:
    started(live)
    page = login(browser, live, "konsil", width=1280)
    page.goto(f"{live.url}/games/{GAME}/console/consigliere?lang=en")
    page.click(f"{TOOL} summary")
    form = page.locator("[data-testid=decision-form-godfather_election_rule]")
    assert form.locator("select[name=city] option").all_inner_texts() == ["Лепроград"]
    form.locator("select[name=rule]").select_option("unanimity")
    form.locator("input[name=reason]").fill("Все должны согласиться")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("[data-testid=flash], [data-testid=error]")
    assert not page.query_selector("[data-testid=error]"), page.inner_text("[data-testid=error]")
    assert live.state(GAME).records.godfather_rule("Лепроград") == "unanimity"
    page.context.close()
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            shot = login(browser, live, "konsil", width=w)
            shot.set_viewport_size({"width": w, "height": h})
            shot.goto(f"{live.url}/games/{GAME}/console/consigliere?lang={lang}")
            shot.click(f"{TOOL} summary")
            shot.locator(TOOL).scroll_into_view_if_needed()
            shot.screenshot(path=str(shots / f"decision-form-{lang}-{size}.png"))
            shot.context.close()
