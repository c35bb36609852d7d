"""The demo transcript: a seeded 5-city game told as its Day Posts, votes and result.

Cast: the bots' default cast (``procurator``, ``consigliere``, ``arbiter``, five cities
of twenty residents ``pCC_NN``); seeds 7 (the demo's, ends at an evening vote) and 12
(ends at a morning, without a Day Post).
"""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime, timedelta
from functools import cache

import pytest
from rich.console import Console
from typer.testing import CliRunner

from lepromafia.bots.simulate import play
from lepromafia.bots.strategy.match import play as play_strategy
from lepromafia.cli.demo_cmd import play_game, run_demo
from lepromafia.cli.main import app
from lepromafia.cli.transcript import Section, render, transcript
from lepromafia.engine import audience, evolve
from lepromafia.engine import events as ev
from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.state import GameState

USER = re.compile(r"\bp\d\d_\d\d\b")
FACTION = re.compile(r"\bмафия\b|честный житель", re.IGNORECASE)


@cache
def log(seed: int) -> tuple[ev.Event, ...]:
    return tuple(play(seed, hosts=0.0).table.events)  # the demo plays the residents only


def text(sections: list[Section]) -> str:
    return "\n".join(f"{s.title}\n" + "\n".join(s.lines) for s in sections)


def during_game(sections: list[Section]) -> list[Section]:
    return [s for s in sections if s.kind != "archive"]


def test_every_day_post_is_in_the_transcript_with_its_night_deaths():
    """POST-2, POST-3, HOST-PROC-3: one Day Post per game day, night deaths with faction."""
    events = log(7)
    sections = transcript(events)
    posts = [e for e in events if isinstance(e, ev.DayPostPublished)]
    titles = [s.title for s in sections if s.title.startswith("Пост дня")]
    assert [t.split(" — ")[0] for t in titles] == [f"Пост дня {p.day}" for p in posts]
    for post in posts:
        section = next(s for s in sections if s.title.startswith(f"Пост дня {post.day} "))
        body = "\n".join(section.lines)
        for death in post.night_deaths:
            word = "мафия" if death.faction == "mafia" else "честный житель"
            assert f"{death.user} ({death.city}) — {word}" in body
        if post.touring_city:  # TOUR-2
            assert f"гастролирует мафия города {post.touring_city}" in body


def test_yesterdays_executions_are_repeated_in_the_next_day_post():
    """HOST-PROC-3, EXEC-16: the previous day's executions, with the executed's factions."""
    events = log(7)
    sections = transcript(events)
    posts = [e for e in events if isinstance(e, ev.DayPostPublished)]
    assert sum(len(p.executions) for p in posts) > 20
    for post in posts:
        section = next(s for s in sections if s.title.startswith(f"Пост дня {post.day} "))
        for death in post.executions:
            word = "мафия" if death.faction == "mafia" else "честный житель"
            assert f"  {death.city}: казнён {death.user} — {word}" in section.lines


def test_a_day_without_execution_is_announced_with_its_reason():
    """EXEC-2 (AMB-4), HOST-PROC-3: nobody nominated → no vote, and the Day Post says so."""
    at = datetime(2026, 12, 3, 20, 0, tzinfo=MOSCOW)
    events = [
        ev.NoExecution(at=at, audience=audience.PUBLIC, city="Лепроград", day=3, reason="no_candidates"),
        ev.DayPostPublished(at=at + timedelta(hours=14), audience=audience.PUBLIC, day=4,
                            night_deaths=(), executions=(), no_execution=("Лепроград",),
                            touring_city="Баянск", decided=()),
    ]
    sections = transcript(events)
    assert sections[0].lines == ("Лепроград — кандидатов 0", "  ⇒ никто не казнён (никого не выдвинули)")
    assert sections[1].title == "Пост дня 4 — 4 декабря 2026"
    assert sections[1].lines == (
        "Этой ночью никто не погиб.",
        "Итоги вчерашнего дня:",
        "  Лепроград: казни не было (никого не выдвинули)",
        "Этой ночью гастролирует мафия города Баянск.",
    )


def test_votes_show_tallies_voters_mind_changes_and_lots():
    """EXEC-9, EXEC-10, EXEC-14, EX-2: counted voters, «не казнить», the logged lot."""
    events = log(7)
    body = text(transcript(events))
    closed = [e for e in events if isinstance(e, ev.VotingClosed)]
    with_lot = next(e for e in closed if e.lot)
    assert f"жребий (seed {with_lot.lot_seed}) среди {', '.join(with_lot.lot)}" in body
    leader = next(t for t in with_lot.tallies if t.candidate == with_lot.ranking[0])
    assert f"{leader.candidate}: {leader.votes} «казнить» — {', '.join(leader.voters)}" in body
    changed = next(t for e in closed for t in e.tallies if t.changed_minds)
    assert f"{changed.candidate} ← {', '.join(changed.changed_minds)}" in body
    executions = [e for e in events if isinstance(e, ev.ResidentDied) and e.cause == "execution"]
    assert body.count("⇒ казнён") == len(executions)


def test_the_result_score_and_city_decisions_close_the_game():
    """WIN-1, WIN-2, WIN-3, WIN-4, WIN-5: every city decision, the overall result and the score by city."""
    events = log(7)
    sections = transcript(events)
    body = text(sections)
    for decided in (e for e in events if isinstance(e, ev.CityDecided)):
        assert f"Судьба города {decided.city} решена" in body
    final = next(s for s in sections if s.title == "Итог игры")
    # Seed 7's winner follows the bots' random stream (the sim branch's bots won it for
    # the honest side); the line must name whichever side GameResultFixed records.
    result = next(e.result for e in events if isinstance(e, ev.GameResultFixed))
    winner = {"mafia": "победа мафии", "honest": "победа честных граждан"}[result]
    assert final.lines[0] == f"Результат: {winner}."
    assert sections[-1].kind == "archive"


def test_a_game_ending_at_dawn_still_reports_the_nights_deaths():
    """SEC-8, HOST-PROC-3, POST-3: the last night's victims appear in that morning's Day Post
    (issue 10, D18: a game ending at dawn has its Day Post too)."""
    events = log(dawn_seed())
    sections = transcript(events)
    last_post = next(e for e in reversed(events) if isinstance(e, ev.DayPostPublished))
    assert last_post.final and last_post.at == events[-1].at
    morning = [s for s in sections if s.title.startswith(f"Пост дня {last_post.day}")
               or s.title.startswith(f"Утро дня {last_post.day}")][-1]
    last_night = [e for e in events if isinstance(e, ev.ResidentDied)
                  and e.cause == "night_kill" and e.at == events[-1].at]
    assert last_night
    for death in last_night:
        assert any(line.strip().startswith(f"{death.user} ({death.city})") for line in morning.lines)
    assert text(sections).count("Результат игры зафиксирован") <= 1  # fixed that morning, once


@cache
def strategy_log(seed: int) -> tuple[ev.Event, ...]:
    """The demo's game: strategy bots at skill 2 against 2 (issue 15)."""
    return tuple(play_strategy(seed, check="cheap").table.events)


def dawn_seed() -> int:
    """The first seed whose game is decided by a night's deaths at dawn."""
    for seed in range(100):
        events = log(seed)
        end = events[-1].at
        fixed = next(e for e in events if isinstance(e, ev.GameResultFixed))
        if fixed.at == end and any(
            isinstance(e, ev.ResidentDied) and e.cause == "night_kill" and e.at == end for e in events
        ):
            return seed
    raise AssertionError("no game ends at dawn")


def cut_points(events: tuple[ev.Event, ...]) -> list[tuple[int, GameState]]:
    """After every Day Post and every closed vote: the game as it stood then."""
    state = None
    points = []
    for i, event in enumerate(events):
        state = evolve(state, event)
        if isinstance(event, ev.DayPostPublished | ev.VotingClosed | ev.NightStarted):
            points.append((i + 1, state))
    return points


@pytest.mark.parametrize("seed", [7, 12, 21])
def test_while_the_game_runs_no_living_faction_and_no_consigliere_is_shown(seed):
    """HOST-CONS-5, HOST-PROC-3, POST-2, SEC-9: the transcript of any moment of the game
    names a faction only for the dead, and never the Consigliere or the deal lists."""
    events = log(seed)
    for cut, state in cut_points(events):
        assert state.consigliere == "consigliere"
        body = text(transcript(events[:cut]))
        assert "consigliere" not in body.lower()
        assert "консильери" not in body.lower()
        for line in body.splitlines():
            if FACTION.search(line):
                for user in USER.findall(line):
                    assert not state.residents[user].alive, f"{user} alive at {cut}: {line}"
        assert "№" not in body  # RANDOM-3: the sealed positions stay sealed
        assert "Архивы" not in body


def test_the_archive_opens_only_at_game_end_and_checks_the_commitment():
    """§9.4, HOST-CONS-5, RANDOM-4, RANDOM-5: factions, Consigliere, commissars, notary check."""
    events = log(7)
    ended = events[-1]
    assert isinstance(ended, ev.GameEnded)
    archive = transcript(events)[-1]
    body = "\n".join(archive.lines)
    assert "Консильери: consigliere" in body
    for city, user in ended.commissars:
        assert f"{city} — {user}" in body
    for _city, order in ended.deal_lists:
        for user, faction in ended.factions:
            if faction == "mafia" and user in order:
                assert f"{user} (№{order.index(user) + 1}," in body
    assert "✓ Запечатанные списки и соль дают опубликованный хэш (RANDOM-5)." in body


def test_a_tampered_deal_list_fails_the_commitment_check():
    """RANDOM-5: swapping two residents of a sealed list no longer matches the hash."""
    events = log(7)
    ended = events[-1]
    assert isinstance(ended, ev.GameEnded)
    city, order = ended.deal_lists[0]
    swapped = (order[1], order[0], *order[2:])
    forged = dataclasses.replace(ended, deal_lists=((city, swapped), *ended.deal_lists[1:]))
    body = "\n".join(transcript((*events[:-1], forged))[-1].lines)
    assert "✗" in body and "✓" not in body


def test_a_private_event_never_reaches_the_transcript():
    """§9, visible_to(event, None): an event for named users only is left out entirely."""
    events = log(7)
    closed = next(e for e in events if isinstance(e, ev.VotingClosed))
    secret = dataclasses.replace(closed, city="Секретград", audience=audience.only("procurator"))
    i = events.index(closed)
    doctored = (*events[:i], secret, *events[i:])
    assert "Секретград" not in text(transcript(doctored))
    public = dataclasses.replace(secret, audience=audience.PUBLIC)
    assert "Секретград" in text(transcript((*events[:i], public, *events[i:])))


def test_english_transcript_has_the_same_shape():
    ru, en = transcript(log(7), "ru"), transcript(log(7), "en")
    assert [s.kind for s in ru] == [s.kind for s in en]
    assert any(s.title.startswith("Day Post 2 ") for s in en)
    result = next(e.result for e in log(7) if isinstance(e, ev.GameResultFixed))
    assert {"mafia": "Result: the mafia wins.", "honest": "Result: the honest citizens win."}[result] \
        in text(en)


def test_the_demo_plays_exactly_the_strategy_bots_game_and_reports_each_day():
    """Issue 15: the demo is the strategy bots' seeded game (skill 2 against 2)."""
    days: list[int] = []
    table = play_game(7, 5, on_day=days.append)
    assert tuple(table.events) == strategy_log(7)
    assert days == list(range(1, table.game.day + 1))


def test_render_gives_one_panel_or_line_per_section():
    sections = transcript(log(7))
    console = Console(record=True, width=100)
    for renderable in render(sections):
        console.print(renderable)
    out = console.export_text()
    last_post = max(e.day for e in log(7) if isinstance(e, ev.DayPostPublished))
    assert f"Пост дня {last_post}" in out and "Архивы открыты" in out


def test_lepromafia_demo_prints_the_transcript():
    runner = CliRunner()
    result = runner.invoke(app, ["demo", "--seed", "7"])
    assert result.exit_code == 0, result.output
    assert "Игровой день" in result.output
    assert "Пост дня 2" in result.output and "Итог игры" in result.output
    result = runner.invoke(app, ["demo", "--lang", "en"])
    assert result.exit_code == 0 and "Day Post 2" in result.output


def test_an_unknown_language_is_rejected():
    result = CliRunner().invoke(app, ["demo", "--lang", "de"])
    assert result.exit_code == 2
    assert "Пост дня" not in result.output


def test_run_demo_returns_the_finished_table():
    """The demo prints the strategy bots' game to its end: every Day Post and the result."""
    console = Console(record=True, width=100)
    table = run_demo(7, 5, console=console)
    assert table.game.result is not None
    out = console.export_text()
    assert f"Пост дня {table.game.day}" in out and "Итог игры" in out
