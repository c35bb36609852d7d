# ruff: noqa: E501 - translation tables read best one entry per line
"""The archive's public timeline as sentences: one line per common public event, in the
reader's language. Other events keep their type name and raw fields."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..i18n import N_, translate
from .terms import term


def _outcome(lang: str, value: Any) -> str:
    return term(lang, "result", value)

Row = dict[str, Any]


def _people(lang: str, notices: list[Row]) -> str:
    if not notices:
        return translate(lang, "nobody")
    return ", ".join(f"{n['user']} ({n['city']}, {translate(lang, n['faction'])})" for n in notices)


def _day_post(lang: str, r: Row) -> str:
    return translate(lang, "Day Post of day {day}: executed: {executed}; died at night: {night}.",
                     day=r["day"], executed=_people(lang, r.get("executions") or []),
                     night=_people(lang, r.get("night_deaths") or []))


def _vote_closed(lang: str, r: Row) -> str:
    if not r.get("condemned"):
        return translate(lang, "The vote closed in {city} (day {day}): nobody is condemned.", **r)
    if r.get("lot"):
        return translate(lang, "The vote closed in {city} (day {day}): {condemned} is condemned by lot.", **r)
    return translate(lang, "The vote closed in {city} (day {day}): {condemned} is condemned.", **r)


DEATHS = {
    "execution": N_("{user} ({city}) was executed; {faction}."),
    "night_kill": N_("{user} ({city}) was killed at night; {faction}."),
    "suicide": N_("{user} ({city}) committed suicide; {faction}."),
}


def _died(lang: str, r: Row) -> str:
    template = DEATHS.get(str(r.get("cause")), N_("{user} ({city}) died; {faction}."))
    return translate(lang, template, user=r["user"], city=r["city"], faction=translate(lang, str(r["faction"])))


def _verdict(lang: str, r: Row) -> str:
    template = (N_("The Court pardoned {candidate} ({city}), {yes}:{no}.") if r["pardoned"]
                else N_("The Court did not pardon {candidate} ({city}), {yes}:{no}."))
    return translate(lang, template, candidate=r["candidate"], city=r["city"],
                     yes=r.get("pardon_votes", ""), no=r.get("no_pardon_votes", ""))


def _judge(lang: str, r: Row) -> str:
    if r.get("elected"):
        return translate(lang, "{elected} was elected judge of {city}.", elected=r["elected"], city=r["city"])
    return translate(lang, "No judge was elected in {city}.", city=r["city"])


SENTENCES: dict[str, Callable[[str, Row], str]] = {
    "DayStarted": lambda lang, r: translate(lang, "Day {day} began.", day=r["day"]),
    "NightStarted": lambda lang, r: translate(lang, "Night {night} began.", night=r["night"]),
    "DayPostPublished": _day_post,
    "VotingOpened": lambda lang, r: translate(
        lang, "The vote opened in {city} (day {day}); candidates: {candidates}.", city=r["city"],
        day=r["day"], candidates=", ".join(r.get("candidates") or ()) or translate(lang, "nobody")),
    "VotingClosed": _vote_closed,
    "NoExecution": lambda lang, r: translate(lang, "No execution in {city} (day {day}).", city=r["city"], day=r["day"]),
    "ResidentDied": _died,
    "VerdictReached": _verdict,
    "JudgeElectionClosed": _judge,
    "CityDecided": lambda lang, r: translate(lang, "{city} is decided: {outcome}.", city=r["city"],
                                             outcome=_outcome(lang, r["outcome"])),
    "GameResultFixed": lambda lang, r: translate(lang, "The game's result is fixed: {result}.",
                                                 result=_outcome(lang, r["result"])),
    "GameEnded": lambda lang, r: translate(lang, "The game ended: {result}.", result=_outcome(lang, r["result"])),
}


def sentence(lang: str, row: Row) -> str | None:
    """The event as one translated sentence, or None for the less common kinds (and for a
    row whose fields do not fit, so an odd record never breaks the page)."""
    make = SENTENCES.get(str(row.get("type")))
    if make is None:
        return None
    try:
        return make(lang, row)
    except (KeyError, TypeError, IndexError, ValueError):
        return None
