"""Forms into engine commands. A bad field raises ``FormError`` (an HTML message with the
stable code ``bad_form``) before anything reaches the service; the engine judges the rest."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime, time
from typing import Any

from ...engine import commands as cmd
from ...engine import commands_host as hc
from ...engine.calendar import MOSCOW
from ...engine.state import NO_KILL, GameState
from ..errors import WebError, WebErrorCode
from ..i18n import N_
from .host_decision_forms import WithDeclared

Form = dict[str, Any]
"""Field -> str, or list[str] for repeated fields."""

_DRAWS: ContextVar[random.Random] = ContextVar("page_draws")


def _rng() -> random.Random:
    """The platform's draws for the form being handled: ``platform_rng`` keyed by its
    command id (set by the route with ``draws``), so a retried form draws the same."""
    return _DRAWS.get()


@contextmanager
def draws(rng: random.Random) -> Iterator[None]:
    token = _DRAWS.set(rng)
    try:
        yield
    finally:
        _DRAWS.reset(token)


LABELS: dict[str, str] = {
    "title": N_("Title"), "text": N_("Text"), "city": N_("City"), "user": N_("User"),
    "reason": N_("Reason"), "numbers": N_("Numbers, comma separated"), "first_day": N_("First day"),
    "day": N_("Day number"), "time": N_("Time (HH:MM)"), "length_days": N_("Length, days"),
    "end_at": N_("Day ends at"), "next_start_at": N_("Next day starts at"), "opens_at": N_("Opens"),
    "closes_at": N_("Closes"), "nominations_close_at": N_("Nominations close"), "until": N_("Until"),
    "starts_at": N_("From"), "delegate": N_("Stand-in Tribune"), "rule": N_("Rule"),
    "contest": N_("Contest"), "participants": N_("Participants"), "results": N_("Results"),
    "cities": N_("Cities"), "new_name": N_("New name"), "target": N_("Target"),
    "candidate": N_("Candidate"), "order": N_("Mafiosi in order, comma separated"),
    "godfather": N_("Godfather"), "office": N_("Office"), "members": N_("Members"),
    "accused": N_("Accused"), "charge": N_("Charge"), "case": N_("Case"),
    "new_tribune": N_("New Tribune"), "bonus": N_("Bonus"), "outcome": N_("Outcome"),
    "game_id": N_("Game id"), "kind": N_("Kind"), "grievance": N_("Grievance"),
    "city_count": N_("Number of cities"), "population_per_city": N_("Residents per city"),
    "mafia_share_percent": N_("Mafia share, %"), "day_start_time": N_("Day start (Moscow)"),
    "default_vote_opens": N_("Vote opens"), "default_vote_closes": N_("Vote closes"),
    "commissar_check_mode": N_("Commissar checks"),
    "name": N_("City name"), "tribune": N_("Tribune"), "residents": N_("Residents"),
}
"""Each form field's visible label (the template's own msgid): an error names the field
as the person sees it, never by its name in the form."""

_MARKED = N_("the marked field")


class FormError(WebError):
    """A form field left empty or filled in wrongly; the page shows the message beside it,
    naming the field by its visible label. ``field`` is the input's name in the form."""

    def __init__(self, field: str, code: WebErrorCode = WebErrorCode.BAD_FORM) -> None:
        base = re.sub(r"_\d+$", "", field.removesuffix("_date").removesuffix("_time"))
        super().__init__(code, field=field, detail=LABELS.get(base, _MARKED))


def _raw(form: Form, name: str) -> str:
    value = form.get(name, "")
    if isinstance(value, list):
        value = value[0] if value else ""
    return str(value).strip()


def text(form: Form, name: str, *, required: bool = True, limit: int = 200) -> str:
    value = _raw(form, name)
    if required and not value:
        raise FormError(name, WebErrorCode.FIELD_REQUIRED)
    if len(value) > limit:
        raise FormError(name)
    return value


def many(form: Form, name: str) -> list[str]:
    value = form.get(name, [])
    items = value if isinstance(value, list) else [value]
    return [str(v).strip() for v in items if str(v).strip()]


def names(form: Form, name: str) -> tuple[str, ...]:
    return tuple(u.strip() for u in text(form, name, limit=4000).replace(";", ",").split(",") if u.strip())


def integer(form: Form, name: str, lo: int = 0, hi: int = 10**9) -> int:
    raw = text(form, name, limit=12)
    if not raw.lstrip("-").isdigit() or not lo <= int(raw) <= hi:
        raise FormError(name)
    return int(raw)


_HHMM = re.compile(r"([01]?\d|2[0-3])[:.]([0-5]\d)")


def clock_time(form: Form, name: str, *, required: bool = True) -> time | None:
    """A 24-hour Moscow time typed as HH:MM (14:00; 9:30 and 14.00 are accepted too)."""
    raw = _raw(form, name)
    if not raw:
        if required:
            raise FormError(name, WebErrorCode.FIELD_REQUIRED)
        return None
    found = _HHMM.fullmatch(raw)
    if found is None:
        raise FormError(name, WebErrorCode.FIELD_TIME)
    return time(int(found.group(1)), int(found.group(2)))


def moment(form: Form, name: str, *, required: bool = True) -> datetime | None:
    """A moment in Moscow time: the consoles' picker sends a day (``<name>_date``, ISO, from
    a list) and a time (``<name>_time``, HH:MM); a single ISO ``<name>`` is read too."""
    if f"{name}_date" in form or f"{name}_time" in form:
        day_raw = _raw(form, f"{name}_date")
        when = clock_time(form, f"{name}_time", required=required and bool(day_raw))
        if not day_raw and when is None:
            if required:
                raise FormError(f"{name}_time", WebErrorCode.FIELD_REQUIRED)
            return None
        try:
            day = date.fromisoformat(day_raw)
        except ValueError as exc:
            raise FormError(f"{name}_date", WebErrorCode.FIELD_DATE) from exc
        if when is None:
            raise FormError(f"{name}_time", WebErrorCode.FIELD_REQUIRED)
        return datetime.combine(day, when, MOSCOW)
    raw = text(form, name, required=required, limit=40)
    if not raw:
        return None
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError as exc:
        raise FormError(name) from exc
    return parsed.replace(tzinfo=MOSCOW) if parsed.tzinfo is None else parsed


def day_of(form: Form, name: str) -> date:
    raw = text(form, name, limit=12)
    try:
        return date.fromisoformat(raw)
    except ValueError as exc:
        raise FormError(name, WebErrorCode.FIELD_DATE) from exc


def choice(form: Form, name: str, allowed: tuple[str, ...]) -> str:
    """A required field with a closed set of values (a button's value)."""
    value = text(form, name, limit=40)
    if value not in allowed:
        raise FormError(name)
    return value


def flag(form: Form, name: str) -> bool:
    return text(form, name, required=False, limit=10).lower() in ("1", "true", "yes", "on")


def must(value: datetime | None, name: str) -> datetime:
    if value is None:
        raise FormError(name, WebErrorCode.FIELD_REQUIRED)
    return value


# --- the platform's shuffles and draws (never the engine's) ---------------------------


def shuffled_lists(state: GameState) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], str]:
    """RANDOM-1/2: each city's residents in a fresh random order, and a salt (RANDOM-3)."""
    lists = []
    for name, city in state.cities.items():
        order = list(city.residents)
        _rng().shuffle(order)
        lists.append((name, tuple(order)))
    return tuple(lists), f"{_rng().getrandbits(128):032x}"


def drawn_numbers(state: GameState, city: str) -> tuple[int, ...]:
    c = state.cities.get(city)
    if c is None:
        raise FormError("city")
    return tuple(sorted(_rng().sample(range(1, len(c.residents) + 1), c.mafia_count)))


def shuffled_living(state: GameState, city: str) -> tuple[tuple[str, ...], str]:
    """RESTORE-3, RANDOM-3: a restored city's living residents in a fresh random order, and a salt."""
    if city not in state.cities:
        raise FormError("city")
    order = list(state.living(city))
    _rng().shuffle(order)
    return tuple(order), f"{_rng().getrandbits(128):032x}"


def drawn_restoration_numbers(state: GameState, city: str) -> tuple[int, ...]:
    """RESTORE-4: as many distinct numbers as the sealed list's mafia count, drawn for the Procurator."""
    c = state.cities.get(city)
    if c is None or c.restoration is None or not c.restoration.order:
        raise FormError("city")
    r = c.restoration
    return tuple(sorted(_rng().sample(range(1, len(r.order) + 1), r.mafia_count)))


def city_plans(raw: str) -> tuple[cmd.CityPlan, ...]:
    """'Name; tribune; a, b, c' per line."""
    plans = []
    for line in raw.splitlines():
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(";")]
        if len(parts) != 3:
            raise FormError("cities")
        residents = tuple(u.strip() for u in parts[2].split(",") if u.strip())
        plans.append(cmd.CityPlan(name=parts[0], tribune=parts[1], residents=residents))
    if not plans:
        raise FormError("cities")
    return tuple(plans)


def city_rows(form: Form) -> tuple[cmd.CityPlan, ...]:
    """CITY-3, HOST-TRIB-1: the Form-cities form, one row per city (``name_1``,
    ``tribune_1``, ``residents_1``, …); an empty name or Tribune is refused beside its
    field. The older one-text-per-line form (``cities``) is read too."""
    if "cities" in form:
        return city_plans(text(form, "cities", limit=20000))
    numbers = sorted(int(k.removeprefix("name_")) for k in form
                     if k.startswith("name_") and k.removeprefix("name_").isdigit())
    if not numbers:
        raise FormError("cities", WebErrorCode.FIELD_REQUIRED)
    plans = []
    for n in numbers:
        name = text(form, f"name_{n}", limit=60)
        tribune = text(form, f"tribune_{n}", limit=64)
        residents = tuple(u.strip() for u in text(form, f"residents_{n}", required=False, limit=20000)
                          .replace(";", ",").replace("\n", ",").split(",") if u.strip())
        plans.append(cmd.CityPlan(name=name, tribune=tribune, residents=residents))
    return tuple(plans)


# --- the actions -----------------------------------------------------------------------

Builder = Callable[[Form, str, GameState], cmd.Command]


def _hhmm(f: Form, name: str) -> str:
    when = clock_time(f, name)
    return f"{when:%H:%M}" if when else ""


def _numbers(f: Form, a: str, s: GameState) -> cmd.Command:
    city = text(f, "city")
    if flag(f, "draw"):
        numbers = drawn_numbers(s, city)
    else:
        try:
            numbers = tuple(int(n) for n in text(f, "numbers").replace(" ", "").split(",") if n)
        except ValueError as exc:
            raise FormError("numbers") from exc
    return cmd.NameMafiaNumbers(actor=a, city=city, numbers=numbers)


def _number_list(f: Form) -> tuple[int, ...]:
    try:
        return tuple(int(n) for n in text(f, "numbers").replace(" ", "").split(",") if n)
    except ValueError as exc:
        raise FormError("numbers") from exc


def _restoration_numbers(f: Form, a: str, s: GameState) -> cmd.Command:
    city = text(f, "city")
    numbers = drawn_restoration_numbers(s, city) if flag(f, "draw") else _number_list(f)
    return cmd.NameRestorationNumbers(actor=a, city=city, numbers=numbers)


def _seal_restoration(f: Form, a: str, s: GameState) -> cmd.Command:
    city = text(f, "city")
    order, salt = shuffled_living(s, city)
    return cmd.SealRestorationList(actor=a, city=city, order=order, salt=salt)


def _seal(f: Form, a: str, s: GameState) -> cmd.Command:
    lists, salt = shuffled_lists(s)
    return cmd.SealDeal(actor=a, lists=lists, salt=salt)


def _shorten(f: Form, a: str, s: GameState) -> cmd.Command:
    return cmd.ShortenDay(actor=a, day=integer(f, "day", 1, 999), end_at=must(moment(f, "end_at"), "end_at"),
                          next_start_at=must(moment(f, "next_start_at"), "next_start_at"))


def _schedule_vote(f: Form, a: str, s: GameState) -> cmd.Command:
    return cmd.ScheduleExecutionVote(
        actor=a, city=text(f, "city"), opens_at=must(moment(f, "opens_at"), "opens_at"),
        closes_at=must(moment(f, "closes_at"), "closes_at"),
        nominations_close_at=moment(f, "nominations_close_at", required=False))


def _kill(f: Form, a: str, s: GameState) -> cmd.Command:
    target = text(f, "target")
    return cmd.DeclareKill(actor=a, target=NO_KILL if target == NO_KILL else target, tour=flag(f, "tour"))


CITIZENS_CASES: dict[str, Builder] = {
    "send_relay": lambda f, a, s: hc.SendMafiaRelay(
        actor=a, to_city=text(f, "to_city"), kind=choice(f, "kind", ("message", "gift", "fish")),
        text=text(f, "text", required=False, limit=20000)),
    "sign_impeachment": lambda f, a, s: hc.SignImpeachment(
        actor=a, grievance=text(f, "grievance", required=False, limit=4000)),
    "no_confidence": lambda f, a, s: hc.ExpressNoConfidence(
        actor=a, target=choice(f, "target", ("arbiter", "consigliere")), text=text(f, "text", limit=20000)),
}
"""The citizens' and the mafia's side of the host-side rules (MAFIA-COMM-1..3, IMPEACH-1,
NOCONF-1/2). Every [HOST] decision is declared in the engine (``engine/decisions``) and its
posted form parsed from its command (``host_decision_forms.WithDeclared``, below)."""


ACTIONS: Mapping[str, Builder] = WithDeclared({
    "withdraw": lambda f, a, s: cmd.WithdrawSignUp(actor=a),
    "acknowledge": lambda f, a, s: cmd.AcknowledgeRole(actor=a),
    "secret": lambda f, a, s: cmd.CreateSecretInbox(actor=a, title=text(f, "title", limit=80),
                                                    members=names(f, "members"),
                                                    key=f"{_rng().getrandbits(64):016x}"),
    "appoint": lambda f, a, s: cmd.AppointHost(actor=a, office=text(f, "office"), user=text(f, "user")),
    "form_cities": lambda f, a, s: cmd.FormCities(actor=a, cities=city_rows(f)),
    "seal": _seal,
    "numbers": _numbers,
    "start": lambda f, a, s: cmd.StartGame(actor=a, first_day=day_of(f, "first_day")),
    "offer": lambda f, a, s: cmd.OfferCommissar(actor=a, city=text(f, "city"),
                                                draw=_rng().randrange(1 << 30)),
    "answer_offer": lambda f, a, s: cmd.AnswerCommissarOffer(
        actor=a, accept=choice(f, "accept", ("yes", "no")) == "yes"),
    "day_start": lambda f, a, s: cmd.SetDayStart(actor=a, day=integer(f, "day", 1, 999),
                                                 time=_hhmm(f, "time")),
    "long_day": lambda f, a, s: cmd.DeclareLongDay(actor=a, day=integer(f, "day", 1, 999),
                                                   length_days=integer(f, "length_days", 1, 30)),
    "shorten": _shorten,
    "disclose_mafioso": lambda f, a, s: cmd.ConfirmMafiosoDisclosure(actor=a, user=text(f, "user"),
                                                                     reason=text(f, "reason", limit=500)),
    "disclose_commissar": lambda f, a, s: cmd.ConfirmCommissarDisclosure(
        actor=a, city=text(f, "city"), reason=text(f, "reason", limit=500)),
    "schedule_vote": _schedule_vote,
    "nominate": lambda f, a, s: cmd.Nominate(actor=a, candidate=text(f, "candidate")),
    "proxy": lambda f, a, s: cmd.RequestProxyVote(actor=a, candidates=names(f, "candidates")),
    "observe": lambda f, a, s: cmd.RequestObservation(actor=a, city=text(f, "city")),
    "schedule_judge": lambda f, a, s: cmd.ScheduleJudgeElection(
        actor=a, city=text(f, "city"), opens_at=must(moment(f, "opens_at"), "opens_at"),
        closes_at=must(moment(f, "closes_at"), "closes_at")),
    "propose_judge": lambda f, a, s: cmd.ProposeJudge(actor=a, candidate=text(f, "candidate")),
    "answer_check": lambda f, a, s: cmd.AnswerCheck(
        actor=a, city=text(f, "city"), is_mafia=choice(f, "answer", ("mafia", "honest")) == "mafia"),
    "pardon": lambda f, a, s: cmd.VotePardon(actor=a, city=text(f, "city"),
                                             pardon=choice(f, "pardon", ("yes", "no")) == "yes"),
    "preset": lambda f, a, s: cmd.ChoosePardonPreset(actor=a, majority=text(f, "majority")),
    "petition": lambda f, a, s: cmd.FilePetition(actor=a),
    "confirm_petition": lambda f, a, s: cmd.ConfirmPetition(actor=a),
    "recuse": lambda f, a, s: cmd.Recuse(actor=a),
    "appoint_godfather": lambda f, a, s: cmd.AppointGodfather(actor=a, city=text(f, "city"),
                                                              godfather=text(f, "godfather")),
    "vote_godfather": lambda f, a, s: cmd.VoteGodfather(actor=a, candidate=text(f, "candidate")),
    "kill": _kill,
    "check": lambda f, a, s: cmd.CheckResident(actor=a, target=text(f, "target")),
    "ambush": lambda f, a, s: cmd.PlaceAmbush(actor=a, target=text(f, "target")),
    "withdraw_ambush": lambda f, a, s: cmd.WithdrawAmbush(actor=a),
    "suicide": lambda f, a, s: cmd.DeclareSuicide(actor=a),
    "withdraw_suicide": lambda f, a, s: cmd.WithdrawSuicide(actor=a),
    "demand_reelection": lambda f, a, s: cmd.DemandGodfatherReelection(actor=a),
    "decline_candidacy": lambda f, a, s: cmd.DeclineCandidacy(actor=a),
    "restore": lambda f, a, s: cmd.ProposeRestoration(
        actor=a, city=text(f, "city"), new_name=text(f, "new_name", limit=60),
        reason=text(f, "reason", limit=500), expelled=tuple(many(f, "expelled"))),
    "sign_restoration": lambda f, a, s: cmd.SignRestoration(actor=a, city=text(f, "city")),
    "seal_restoration": _seal_restoration,
    "restoration_numbers": _restoration_numbers,
    "file_case": lambda f, a, s: hc.FilePrivateCase(
        actor=a, accused=text(f, "accused", limit=64),
        charge=choice(f, "charge", ("insult", "slander", "moral_abuse")), text=text(f, "text", limit=4000)),
    "renew": lambda f, a, s: cmd.RenewInbox(actor=a, inbox=text(f, "inbox")),
    **CITIZENS_CASES,
})
