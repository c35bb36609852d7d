"""M7: the archive of a finished game reads as a story — per day and city a table of the
vote (each candidate, his votes, his voters, who changed his mind), the condemned, the
deaths with their factions; the deal's check with the sealed lists, and the deal's notary
inbox showing those lists; no event class name and no dict anywhere.

Cast: the bots' finished game of ``tests/service/finished_game.py`` (Лепроград and
Лепросицилия, six residents each), imported as ``done``; read by an anonymous visitor.
Rules: EXEC-9, EXEC-14 (the published tally), RANDOM-2, RANDOM-5, §9.4.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.table import Table

from ..service.finished_game import import_game, play_finished_game
from .conftest import Api
from .sound_app import make_sound_api
from .test_every_page_in_every_language import problems


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, Table]]:
    for api in make_sound_api(Path(tmp_path_factory.mktemp("story"))):
        table = play_finished_game().table
        api.client.portal.call(import_game, api.web.service.store, "done", table)  # type: ignore[union-attr]
        yield api, table


def page(api: Api, path: str, lang: str = "ru") -> str:
    r = api.client.get(f"{path}{'&' if '?' in path else '?'}lang={lang}")
    assert r.status_code == 200, r.text[:300]
    return str(r.text)


def test_each_day_and_city_has_its_vote_table_condemned_and_deaths(done: tuple[Api, Table]) -> None:
    """EXEC-9, EXEC-14: every closed vote is a table row per candidate with his voters."""
    api, table = done
    html = page(api, "/games/done/archive")
    closed = [e for e in table.events if isinstance(e, ev.VotingClosed)]
    assert closed
    for vote in closed:
        day = html[html.index(f'data-testid="story-day" data-day="{vote.day}"'):]
        city = day[day.index(f'data-city="{vote.city}"'):]
        city = city[:city.index("</table>")]
        for t in vote.tallies:
            row = re.search(rf"<tr[^>]*><td>{t.candidate}(.*?)</tr>", city, re.S)
            assert row, (vote.city, vote.day, t.candidate)
            assert f"<td>{t.votes}</td>" in row.group(1)
            assert (", ".join(t.voters) or "—") in row.group(1)
        if vote.condemned:
            assert re.search(rf"{vote.condemned}\s*<span class=\"pill\">приговорён", city), vote
    for died in (e for e in table.events if isinstance(e, ev.ResidentDied)):
        assert f"✝ <strong>{died.user}</strong>" in html, died.user
    english = page(api, "/games/done/archive", "en")
    assert "The game day by day" in english and "Changed their minds" in english
    data = {*table.game.residents, *table.game.cities, table.game.title, "consigliere", "procurator", "Заговор"}
    for lang, text in (("ru", html), ("en", english)):
        assert problems(text, lang, data, rules_page=False) == [], lang


def test_the_deal_notary_shows_its_sealed_lists_that_hash_to_the_commitment(done: tuple[Api, Table]) -> None:
    """RANDOM-2, RANDOM-5: «Нотариус · запечатанные списки раздачи» opens on the lists, each
    resident at his sealed position, the mafia's positions marked, the check passed."""
    api, table = done
    ended = next(e for e in table.events if isinstance(e, ev.GameEnded))
    notary = next(i for i in table.game.inboxes.values() if i.kind == "notary" and i.title == "RANDOM-2")
    archive = page(api, "/games/done/archive")
    assert "Нотариус · запечатанные списки раздачи" in archive and "RANDOM-2" not in archive
    html = page(api, f"/games/done/archive/inbox?inbox={quote(notary.id, safe='')}")
    assert 'data-testid="notary-lists"' in html and 'data-verified="true"' in html
    assert "Сообщений пока нет" not in html
    mafiosi = {u for e in table.events if isinstance(e, ev.MafiaDealt) for u in e.mafiosi}
    for city, users in ended.deal_lists:
        sealed = html[html.index(f'data-testid="sealed-list" data-city="{city}"'):]
        sealed = sealed[:sealed.index("</table>")]
        for n, user in enumerate(users, 1):
            mark = "мафия" if user in mafiosi else "честный"
            assert re.search(rf"<td>{n}</td><td>{user}</td><td>(<span[^>]*>)?{mark}", sealed), (city, n, user)
