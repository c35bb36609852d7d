"""The vote keywords stay Russian, as the rules require (EXEC-5, EXEC-7), with a gloss beside
the buttons in the reader's language (review M12).

Cast as in ``test_vote_record``: p01_03 opens p01_01's voting inbox on Day 2 at 20:05.
"""

from __future__ import annotations

from .conftest import Api
from .test_vote_record import day_two, section, vote_page


def test_the_buttons_post_the_russian_keywords_and_say_what_they_mean(api: Api) -> None:
    box, _other = day_two(api)
    english = vote_page(api, "p01_03", box, lang="en")
    assert 'value="казнить"' in english and 'value="не казнить"' in english
    assert section(english, "vote-gloss") == "«казнить» is a vote to execute; «не казнить» withdraws it."
    russian = section(vote_page(api, "p01_03", box), "vote-gloss")
    assert russian == "«казнить» — голос за казнь; «не казнить» снимает этот голос."
