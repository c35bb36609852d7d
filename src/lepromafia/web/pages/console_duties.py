"""The task list at the top of each console: the engine's ``duties(state, viewer, now)``
for the office's seats, in words. A page never decides what is due; it only says it:
the sentence, the deadline (a countdown and the Moscow clock time), whether it is
overdue and what the platform does if nobody acts, and the form that does it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...engine.duties import Duty, DutyKind, Seat, duties
from ...engine.state import GameState
from ..i18n import N_, translate
from .render import local

OFFICE_SEATS: dict[str, Seat] = {
    "procurator": Seat.PROCURATOR, "tribune": Seat.TRIBUNE, "arbiter": Seat.ARBITER,
    "consigliere": Seat.CONSIGLIERE,
}

TEXTS: dict[DutyKind, str] = {
    DutyKind.APPOINT_CONSIGLIERE: N_("Appoint the Consigliere"),
    DutyKind.APPOINT_ARBITER: N_("Appoint the Supreme Arbiter"),
    DutyKind.FORM_CITIES: N_("Form the cities ({signups} signed up)"),
    DutyKind.NAME_NUMBERS: N_("Name the mafia's numbers · {city}"),
    DutyKind.START_GAME: N_("Start the game"),
    DutyKind.OFFER_COMMISSAR: N_("Offer the commissar's badge · {city} (attempt {attempt} of {attempts})"),
    DutyKind.SEAL_DEAL: N_("Seal the deal"),
    DutyKind.COMMIT_ENTROPY: N_("Commit to your value for the drawn deal"),
    DutyKind.OPEN_REVEALS: N_("Open the reveals of the drawn deal"),
    DutyKind.REVEAL_ENTROPY: N_("Reveal your value for the drawn deal"),
    DutyKind.APPOINT_GODFATHER: N_("Appoint a Godfather · {city}"),
    DutyKind.SCHEDULE_VOTE: N_("Schedule the vote · {city}"),
    DutyKind.SCHEDULE_JUDGE_ELECTION: N_("Schedule a judge election · {city}"),
    DutyKind.CHOOSE_PARDON_PRESET: N_("Choose the Court's majority rule"),
    DutyKind.ANSWER_CHECK: N_("Answer a check · {city}"),
    DutyKind.SIGN_RESTORATION: N_("Sign the restoration · {city}"),
    DutyKind.REVIEW_RELAY: N_("Forward or reject a mafia relay № {relay}"),
}
"""A host duty's sentence by its kind (English msgid)."""

IF_NOBODY_ACTS: dict[DutyKind, str] = {
    DutyKind.SCHEDULE_VOTE: N_("If you change nothing, the vote runs as scheduled: {opens} – {closes} MSK."),
    DutyKind.ANSWER_CHECK: N_("If nobody answers, the platform answers truly when checks close."),
    DutyKind.CHOOSE_PARDON_PRESET: N_("If nobody acts, the game's setting applies: {majority}."),
    DutyKind.OFFER_COMMISSAR: N_("If nobody acts, the city has no commissar today."),
    DutyKind.SCHEDULE_JUDGE_ELECTION:
        N_("If you change nothing, the election runs as scheduled: {opens} – {closes} MSK."),
    DutyKind.REVEAL_ENTROPY:
        N_("If you do not reveal, your value is replaced from the platform's when the window closes."),
}
"""What the platform does when the duty's moment passes (shown beside it, red once overdue);
a kind without a sentence waits for the host."""

SCHEDULED: dict[DutyKind, str] = {
    DutyKind.SCHEDULE_VOTE: N_("The vote · {city} is scheduled; you may move it"),
    DutyKind.SCHEDULE_JUDGE_ELECTION: N_("The judge election · {city} is scheduled; you may move it"),
}
"""The sentence of a scheduling duty once the platform has set the default: optional now."""

WAITS = N_("Nothing happens on its own: the game waits for you.")

ANCHORS: dict[DutyKind, str] = {
    DutyKind.APPOINT_CONSIGLIERE: "f-appoint", DutyKind.APPOINT_ARBITER: "f-appoint",
    DutyKind.FORM_CITIES: "f-form-cities", DutyKind.NAME_NUMBERS: "f-numbers-{slug}",
    DutyKind.START_GAME: "f-start", DutyKind.OFFER_COMMISSAR: "f-offer-{slug}",
    DutyKind.SEAL_DEAL: "f-seal", DutyKind.APPOINT_GODFATHER: "f-godfather",
    DutyKind.SCHEDULE_VOTE: "f-vote-{slug}", DutyKind.SCHEDULE_JUDGE_ELECTION: "f-judge-{slug}",
    DutyKind.CHOOSE_PARDON_PRESET: "f-preset", DutyKind.ANSWER_CHECK: "f-check-{slug}",
    DutyKind.SIGN_RESTORATION: "f-restoration", DutyKind.REVIEW_RELAY: "f-relay-{relay}",
    DutyKind.COMMIT_ENTROPY: "../draw", DutyKind.OPEN_REVEALS: "../draw",
    DutyKind.REVEAL_ENTROPY: "../draw",
}
"""The form on the console that does the duty (already filled in with its defaults); the
drawn deal's steps are on its own page (``../draw`` from the console)."""


@dataclass(frozen=True, slots=True)
class DutyRow:
    kind: str
    text: str
    required: bool
    deadline: datetime | None
    overdue: bool
    fallback: str
    anchor: str


def city_slugs(state: GameState) -> dict[str, str]:
    """A stable HTML id part per city (names are Cyrillic and may hold spaces)."""
    return {name: f"c{i}" for i, name in enumerate(state.cities, 1)}


def office_duties(state: GameState, viewer: str, now: datetime, office: str, lang: str,
                  settled: frozenset[DutyKind] = frozenset()) -> list[DutyRow]:
    """The office's duties in words; ``settled`` are optional ones the host has already
    decided (a choice he may still change from its form, no longer a task)."""
    seat = OFFICE_SEATS[office]
    slugs = city_slugs(state)
    return [_row(state, d, now, lang, slugs) for d in duties(state, viewer, now)
            if d.seat is seat and not (d.kind in settled and not d.required)]


def _row(state: GameState, d: Duty, now: datetime, lang: str, slugs: dict[str, str]) -> DutyRow:
    fields = _fields(state, d, lang)
    slug = slugs.get(d.city or "", "")
    overdue = d.deadline is not None and now >= d.deadline
    fallback = IF_NOBODY_ACTS.get(d.kind, WAITS) if d.required is False or d.kind not in SCHEDULED \
        else WAITS
    text = TEXTS.get(d.kind, N_("A decision awaits you")) if d.required or d.kind not in SCHEDULED \
        else SCHEDULED[d.kind]
    return DutyRow(
        kind=d.kind.value, text=translate(lang, text, **fields),
        required=d.required, deadline=d.deadline, overdue=overdue,
        fallback=translate(lang, fallback, **fields),
        anchor=_link(ANCHORS.get(d.kind, "tools").format(slug=slug, **fields)))


def _link(target: str) -> str:
    return target if target.startswith("../") else "#" + target


def _fields(state: GameState, d: Duty, lang: str) -> dict[str, Any]:
    from .terms import term

    args = d.arguments
    fields: dict[str, Any] = {k: v for k, v in args.items() if isinstance(v, (str, int))}
    fields.setdefault("city", "")
    fields.setdefault("relay", "")
    fields["attempts"] = state.settings.commissar_offer_attempts
    fields.setdefault("signups", len(state.signups))
    for key in ("opens_at", "closes_at"):
        if isinstance(args.get(key), datetime):
            fields[key.removesuffix("_at")] = local(args[key]).split(" ")[-1]
    fields.setdefault("opens", "")
    fields.setdefault("closes", "")
    fields["majority"] = term(lang, "majority", state.settings.pardon_majority)
    return fields


__all__ = ["DutyRow", "city_slugs", "office_duties"]
