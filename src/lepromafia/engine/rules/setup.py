"""Recruitment, hosts, cities, the deal and the start (PLAYER, HOST, CITY, DIST, RANDOM, START)."""

from __future__ import annotations

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..deal import commitment, mafia_count, mafiosi_at
from ..errors import ErrorCode, RuleViolation, check
from ..inboxes import Kind
from ..progress import Progress
from ..state import Faction, GameState, Stage
from .common import open_inbox, require_city, require_procurator, schedule

MAX_TITLE = 200


def open_founding_inboxes(p: Progress) -> None:
    """START-0 steps 3 and 6: the Office, the Bar and the (empty) Police Station."""
    for kind in (Kind.OFFICE, Kind.BAR, Kind.POLICE):
        open_inbox(p, kind)


def sign_up(p: Progress, c: cmd.SignUp) -> None:
    s = p.state
    check(s.stage is Stage.RECRUITING, ErrorCode.WRONG_STAGE, "POST-1", stage=s.stage.value)
    check(c.actor not in s.hosts(), ErrorCode.HOST_CANNOT_PLAY, "HOST-1")
    check(c.actor not in s.signups, ErrorCode.ALREADY_SIGNED_UP, "PLAYER-7")
    check(c.accepted >= cmd.REQUIREMENTS, ErrorCode.REQUIREMENTS_NOT_ACCEPTED, "PLAYER-1")
    check(c.has_contact, ErrorCode.CONTACT_REQUIRED, "PLAYER-4")
    p.emit(ev.PlayerSignedUp, PUBLIC, user=c.actor)


def withdraw_sign_up(p: Progress, c: cmd.WithdrawSignUp) -> None:
    s = p.state
    check(s.stage is Stage.RECRUITING, ErrorCode.WRONG_STAGE, stage=s.stage.value)
    check(c.actor in s.signups, ErrorCode.NOT_SIGNED_UP, user=c.actor)
    p.emit(ev.SignUpWithdrawn, PUBLIC, user=c.actor)


def _offices_of(s: GameState, user: str) -> list[str]:
    held = []
    if user == s.procurator:
        held.append("procurator")
    if user == s.consigliere:
        held.append("consigliere")
    if user == s.arbiter:
        held.append("arbiter")
    return held


def combination_warnings(s: GameState, office: str, user: str) -> tuple[str, ...]:
    """HOST-2: combining offices is allowed with a warning when it merges secrets."""
    held = _offices_of(s, user) + (["tribune"] if user in s.tribunes() else [])
    if not held:
        return ()
    if s.settings.host_role_combination == "forbidden":
        raise RuleViolation(ErrorCode.OFFICE_TAKEN, "HOST-2")
    if office == "consigliere" or "consigliere" in held:
        return (f"{user} holds {', '.join(held)} and {office}: the Consigliere's secrets merge",)
    return (f"{user} holds {', '.join(held)} and {office}",)


def appoint_host(p: Progress, c: cmd.AppointHost) -> None:
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage in (Stage.RECRUITING, Stage.FORMED), ErrorCode.WRONG_STAGE, stage=s.stage.value)
    check(c.office in ("consigliere", "arbiter"), ErrorCode.UNKNOWN_OFFICE, "HOST-PROC-1")
    check(getattr(s, c.office) is None, ErrorCode.OFFICE_TAKEN)
    check(c.user not in s.signups and c.user not in s.residents, ErrorCode.HOST_CANNOT_PLAY, "HOST-1")
    warnings = combination_warnings(s, c.office, c.user)
    # HOST-CONS-5: only the Procurator (and later the mafia) may know the Consigliere.
    audience = only(s.procurator, c.user) if c.office == "consigliere" else PUBLIC
    p.emit(ev.HostAppointed, audience, office=c.office, user=c.user, warnings=warnings)


def form_cities(p: Progress, c: cmd.FormCities) -> None:
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is Stage.RECRUITING, ErrorCode.WRONG_STAGE, "CITY-3", stage=s.stage.value)
    check(len(c.cities) == s.settings.city_count, ErrorCode.CITY_COUNT_MISMATCH, "CITY-1",
          expected=s.settings.city_count)
    seen_names: set[str] = set()
    seen_users: set[str] = set()
    specs = []
    for plan in c.cities:
        name = plan.name.strip()
        check(0 < len(name) <= 60 and ":" not in name and "/" not in name,
              ErrorCode.CITY_NAME_INVALID, "CITY-8")
        check(name.casefold() not in seen_names, ErrorCode.CITY_NAME_TAKEN, "CITY-8", city=name)
        seen_names.add(name.casefold())
        check(bool(plan.tribune), ErrorCode.TRIBUNE_MISSING, "HOST-TRIB-1", city=name)
        check(plan.tribune not in s.signups, ErrorCode.HOST_CANNOT_PLAY, "HOST-1")
        for user in plan.residents:
            check(user in s.signups, ErrorCode.NOT_SIGNED_UP, "CITY-3", user=user)
            check(user not in seen_users, ErrorCode.PLAYER_ASSIGNED_TWICE, "CITY-3", user=user)
            seen_users.add(user)
        population = len(plan.residents)
        mafia = mafia_count(population, s.settings.mafia_share_percent, s.settings.mafia_rounding)
        check(population >= 2 and mafia < population, ErrorCode.CITY_TOO_SMALL, "CITY-2", city=name)
        specs.append(ev.CitySpec(name=name, tribune=plan.tribune, residents=plan.residents,
                                 mafia_count=mafia))
    for user in s.signups:
        check(user in seen_users, ErrorCode.PLAYER_NOT_ASSIGNED, "CITY-3", user=user)
    p.emit(ev.CitiesFormed, PUBLIC, cities=tuple(specs))
    for spec in specs:
        open_inbox(p, Kind.CITY, spec.name, city=spec.name)
        for user in spec.residents:
            open_inbox(p, Kind.PERSONAL, user, city=spec.name, subject=user)
        if s.settings.cemetery_scope == "per_city":
            open_inbox(p, Kind.CEMETERY, spec.name, city=spec.name)
    if s.settings.cemetery_scope == "global":
        open_inbox(p, Kind.CEMETERY)


def seal_deal(p: Progress, c: cmd.SealDeal) -> None:
    s = p.state
    check(s.consigliere is not None, ErrorCode.CONSIGLIERE_MISSING, "DIST-1")
    check(c.actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, "HOST-CONS-2")
    check(s.stage is Stage.FORMED, ErrorCode.DEAL_ALREADY_SEALED if s.stage in (
        Stage.SEALED, Stage.DEALT, Stage.RUNNING) else ErrorCode.WRONG_STAGE, "RANDOM-3",
        stage=s.stage.value)
    lists = dict(c.lists)
    check(len(lists) == len(c.lists) and set(lists) == set(s.cities), ErrorCode.DEAL_LIST_INVALID,
          "RANDOM-1", city="*")
    for name, order in lists.items():
        check(sorted(order) == sorted(s.cities[name].residents) and len(set(order)) == len(order),
              ErrorCode.DEAL_LIST_INVALID, "RANDOM-1", city=name)
    check(len(c.salt) >= 16, ErrorCode.DEAL_LIST_INVALID, "RANDOM-3", city="salt")
    ordered = tuple((name, tuple(lists[name])) for name in s.cities)
    consigliere = only(s.consigliere)
    open_inbox(p, Kind.NOTARY, "deal", subject=s.consigliere, title="RANDOM-2")
    p.emit(ev.DealListsRecorded, consigliere, lists=ordered, salt=c.salt)
    p.emit(ev.DealSealed, PUBLIC, commitment=commitment(dict(ordered), c.salt))


def name_mafia_numbers(p: Progress, c: cmd.NameMafiaNumbers) -> None:
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is Stage.SEALED, ErrorCode.DEAL_NOT_SEALED if s.stage is Stage.FORMED
          else ErrorCode.WRONG_STAGE, "RANDOM-4", stage=s.stage.value)
    city = require_city(s, c.city)
    check(c.city not in s.deal.numbers, ErrorCode.NUMBERS_ALREADY_NAMED, "RANDOM-4", city=c.city)
    check(s.settings.deal_method == "by_hand", ErrorCode.DEAL_BY_DRAW, "RANDOM-4")
    population = len(city.residents)
    valid = (
        len(c.numbers) == city.mafia_count
        and len(set(c.numbers)) == len(c.numbers)
        and all(1 <= n <= population for n in c.numbers)
    )
    check(valid, ErrorCode.NUMBERS_INVALID, "RANDOM-4", count=city.mafia_count, population=population)
    p.emit(ev.MafiaNumbersNamed, only(s.procurator, s.consigliere), city=c.city,
           numbers=tuple(sorted(c.numbers)))
    if set(p.state.deal.numbers) == set(s.cities):
        deal_factions(p)


def deal_factions(p: Progress) -> None:
    """RANDOM-4, DIST-2, DIST-5: positions become mafiosi; each learns only his own faction."""
    s = p.state
    for name, city in s.cities.items():
        mafiosi = mafiosi_at(s.deal.lists[name], s.deal.numbers[name])
        p.emit(ev.MafiaDealt, only(mafiosi, s.consigliere), city=name, mafiosi=mafiosi)
        open_inbox(p, Kind.MAFIA, name, city=name)
        honest = [u for u in city.residents if u not in mafiosi]
        p.emit(ev.HonestNoticeIssued, only(honest), city=name)
    counts = tuple((name, city.mafia_count) for name, city in s.cities.items())
    p.emit(ev.DealCompleted, PUBLIC, mafia_counts=counts)


def acknowledge_role(p: Progress, c: cmd.AcknowledgeRole) -> None:
    s = p.state
    resident = s.residents.get(c.actor)
    check(resident is not None, ErrorCode.NOT_RESIDENT)
    assert resident is not None
    check(resident.faction is not None, ErrorCode.DEAL_INCOMPLETE, "DIST-3")
    check(c.actor not in s.deal.acknowledged, ErrorCode.ALREADY_ACKNOWLEDGED, "DIST-3")
    is_mafia = resident.faction is Faction.MAFIA
    p.emit(ev.RoleAcknowledged, only(c.actor, s.consigliere if is_mafia else None), user=c.actor)
    if is_mafia and set(s.mafiosi(resident.city)) <= p.state.deal.acknowledged:
        p.emit(ev.MafiaAcknowledged, only(s.procurator, s.consigliere), city=resident.city)


def start_game(p: Progress, c: cmd.StartGame) -> None:
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is Stage.DEALT, ErrorCode.DEAL_INCOMPLETE if s.stage in (
        Stage.RECRUITING, Stage.FORMED, Stage.SEALED) else ErrorCode.WRONG_STAGE, "START-0",
        stage=s.stage.value)
    # DIST-3, DIST-4 (D22): only once the Consigliere could tell every city's mafia understood.
    waiting = [n for n in s.cities if not set(s.mafiosi(n)) <= s.deal.acknowledged]
    check(not waiting, ErrorCode.MAFIA_NOT_ACKNOWLEDGED, "DIST-3", count=len(waiting))
    p.emit(ev.GameStarted, PUBLIC, first_day=c.first_day)
    schedule(p, "day_start:1", p.state.plans[1].start_at)
