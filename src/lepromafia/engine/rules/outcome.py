"""Victory per city and overall (WIN-1..5, CITY-7), and the end of the game (§9.4)."""

from __future__ import annotations

from .. import events as ev
from ..audience import PUBLIC
from ..progress import Progress
from ..state import Faction, GameState, Outcome, Stage
from . import court, host


def city_outcome(state: GameState, name: str) -> Outcome | None:
    """WIN-3 (AMB-2): a city is decided when one side is eliminated."""
    mafia = len(state.living_mafia(name))
    honest = len(state.living(name)) - mafia
    if state.settings.city_win_condition == "mafia_outnumbers" and mafia > honest > 0:
        return Outcome.MAFIA
    if mafia == 0 and honest == 0:
        return Outcome.DRAW
    if mafia == 0:
        return Outcome.HONEST
    if honest == 0:
        return Outcome.MAFIA
    return None


def overall(state: GameState) -> Outcome | None:
    """WIN-1, WIN-4, WIN-5: the result once it can no longer change, else None."""
    total = len(state.cities)
    decided = [c.decided for c in state.cities.values()]
    mafia = sum(1 for d in decided if d is Outcome.MAFIA)
    honest = sum(1 for d in decided if d is Outcome.HONEST)
    open_ = sum(1 for d in decided if d is None)
    if 2 * mafia > total:
        return Outcome.MAFIA
    if state.settings.even_split_result == "honest":
        return Outcome.HONEST if 2 * (mafia + open_) <= total else None
    if 2 * honest > total:
        return Outcome.HONEST
    if 2 * (mafia + open_) <= total and 2 * (honest + open_) <= total:
        return Outcome.DRAW
    return None


def winning_mafia(state: GameState) -> tuple[str, ...]:
    """WIN-2 (AMB-32): most living mafiosi; then the later last mafia death; ties shared."""
    names = list(state.cities)
    if state.settings.winning_mafia_scope == "mafia_won_cities":
        names = [n for n in names if state.cities[n].decided is Outcome.MAFIA]

    def key(name: str) -> tuple[int, int, float]:
        last = state.cities[name].last_mafia_death_at
        return (len(state.living_mafia(name)), 1 if last is None else 0,
                last.timestamp() if last else 0.0)

    if not names:
        return ()
    best = max(key(n) for n in names)
    return tuple(n for n in names if key(n) == best)


def settle(p: Progress, end: bool = True) -> None:
    """Decide cities, fix the overall result, end the game: after every death.

    ``end=False`` leaves the ending to the caller (the morning's Day Post comes first, D18)."""
    for name, city in p.state.cities.items():
        redealing = city.restoration is not None and city.restoration.began_day is not None \
            and not city.restoration.dealt  # RESTORE-3: the old factions no longer count
        if city.decided is None and not redealing:
            outcome = city_outcome(p.state, name)
            if outcome is not None:
                p.emit(ev.CityDecided, PUBLIC, city=name, outcome=outcome.value)
    court.refresh_court(p)  # INBOX-COURT-4: a dead judge or a decided city changes the Court
    s = p.state
    if s.result is None:
        result = overall(s)
        if result is not None:
            winners = winning_mafia(s) if result is Outcome.MAFIA else ()
            score = tuple((n, c.decided.value if c.decided else "playing") for n, c in s.cities.items())
            p.emit(ev.GameResultFixed, PUBLIC, result=result.value, winning_mafia=winners, score=score)
    if end and over(p.state):
        end_game(p)


def over(s: GameState) -> bool:
    """The result is fixed and no city plays on (WIN-4, ``continue_after_decided``)."""
    all_decided = all(c.decided is not None for c in s.cities.values())
    return s.stage is Stage.RUNNING and s.result is not None and (
        all_decided or not s.settings.continue_after_decided)


def end_game(p: Progress) -> None:
    """§9.4: factions, offices, the Consigliere, commissars and the sealed lists open."""
    s = p.state
    assert s.result is not None
    factions = tuple(
        (u, r.faction.value if r.faction else Faction.HONEST.value) for u, r in s.residents.items()
    )
    commissars = commissars_ever(s)
    host.open_sealed_at_game_end(p)  # COMM-APPT-6 notary records open with the game's end
    p.emit(
        ev.GameEnded,
        PUBLIC,
        result=s.result.value,
        factions=factions,
        consigliere=s.consigliere,
        commissars=commissars,
        deal_lists=tuple((n, tuple(users)) for n, users in s.deal.lists.items()),
        deal_salt=s.deal.salt,
        commitment=s.deal.commitment,
        restorations=tuple(
            ev.RestorationReveal(city=r.city, new_name=r.new_name, order=r.order, salt=r.salt,
                                 commitment=r.commitment, mafiosi=r.mafiosi,
                                 factions_before=r.factions_before)
            for r in s.restored
        ),
    )


def commissars_ever(s: GameState) -> tuple[tuple[str, str], ...]:
    """§9.4 (D13): every commissar who held office, in order of appointment — dead,
    disclosed and replaced ones included (each took office through a Commissar Line)."""
    lines = sorted((i for i in s.inboxes.values() if i.kind == "line" and i.subject and i.city),
                   key=lambda i: (i.opened_at is None, i.opened_at or s.created_at, i.id))
    return tuple(dict.fromkeys((i.city or "", i.subject or "") for i in lines))
