"""What a committed step causes: outbox rows, written in the step's own transaction.

Pure: the lane calls ``causes(…)`` for every accepted command and appends the rows to
the batch's ``GameWrite.outbox``. Events name their recipient (the nominated
candidate, the dead, the offered) and each is checked against the one audience filter
(``outbound.may_see``): nobody is told of an event he may not see. Reminders of a
deadline (the engine's ``DeadlineScheduled``) and notices whose recipients are whoever
holds a duty at that moment (a vote opens, checks open) are written without a recipient;
the dispatcher asks the engine's ``duties`` when they are due.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable
from datetime import datetime, timedelta
from typing import Any

from ...engine import events as ev
from ...engine.duties import duties
from ...engine.inboxes import Kind, readers_of
from ...engine.state import GameState
from ...store.projection import MEMBERSHIP_NEUTRAL, GameClock
from ..outbound import may_see
from ..posts import mentioned_in
from .kinds import HOST_SEATS, NotifyKind

Row = dict[str, Any]

HOUR = timedelta(hours=1)

MentionHook = Callable[[GameState, ev.MessagePosted], Iterable[str]]
MENTION_HOOKS: list[MentionHook] = [mentioned_in]
"""Who a message mentions (@name, ``service.posts``): each mentioned user who may read the
inbox gets a ``mentioned`` notification."""


class Causes:
    """Collects one step's outbox rows."""

    def __init__(self, game_id: str, clock: GameClock, followed: bool = True) -> None:
        self.game_id = game_id
        self.clock = clock
        self.rows: list[Row] = []
        self.followed = followed
        """Someone follows an inbox of the game: a message makes a followed-inbox notice."""

    def add(self, kind: NotifyKind, key: str, *, user: str | None = None, seq: int | None = None,
            due: datetime, expires: datetime | None = None, public: bool = True,
            **payload: Any) -> None:
        payload["public"] = public
        self.rows.append({
            "key": f"{self.game_id}:{kind.value}:{key}" + (f":{user}" if user else ""),
            "game_id": self.game_id, "user_id": user, "kind": kind.value, "seq": seq,
            "payload": json.dumps(payload, default=str, sort_keys=True),
            "due_real": self.clock.to_real(due),
            "expires_real": self.clock.to_real(expires) if expires else None,
            "status": "pending",
        })

    def tell(self, kind: NotifyKind, seq: int, event: ev.Event, users: Iterable[str | None],
             **payload: Any) -> None:
        """An event's notice to each named user who may see the event (§9)."""
        for user in dict.fromkeys(users):
            if user and may_see(event, user):
                self.add(kind, str(seq), user=user, seq=seq, due=event.at,
                         public=event.audience.public, **payload)


def causes(game_id: str, clock: GameClock, before: GameState | None, after: GameState,
           numbered: Iterable[tuple[int, ev.Event]], *, followed: bool = True) -> list[Row]:
    """The outbox rows of one accepted command's events. ``followed``: someone follows an
    inbox of the game; if nobody does, a message makes no followed-inbox notice (the rows
    ``only_followed`` would drop, not made: most games' chat, issue 17)."""
    out = Causes(game_id, clock, followed)
    steps = list(numbered)
    for seq, event in steps:
        _event(out, after, before, seq, event)
    if before is not None and steps and not all(isinstance(e, MEMBERSHIP_NEUTRAL) for _, e in steps):
        _host_duties(out, before, after, steps[-1])
    return out.rows


def _event(out: Causes, state: GameState, before: GameState | None, seq: int, e: ev.Event) -> None:
    if isinstance(e, ev.DeadlineScheduled):
        _reminders(out, e)
    elif isinstance(e, ev.VoteScheduled):
        out.add(NotifyKind.NOMINATIONS_CLOSE, f"{e.city}:{e.day}@{e.nominations_close_at.isoformat()}",
                due=e.nominations_close_at - HOUR, expires=e.nominations_close_at, city=e.city,
                at=e.nominations_close_at.isoformat())
    elif isinstance(e, ev.VotingOpened):
        closes = state.cities[e.city].vote_closes_at
        out.add(NotifyKind.VOTE_OPENS, f"{e.city}:{e.day}", seq=seq, due=e.at, expires=closes, city=e.city)
    elif isinstance(e, ev.ChecksOpened):
        out.add(NotifyKind.CHECKS_OPEN, str(e.night), seq=seq, due=e.at,
                expires=state.deadlines.get(f"checks_close:{e.night}"))
    elif isinstance(e, ev.PardonWindowOpened):
        out.add(NotifyKind.PARDON_OPEN, f"{e.city}:{e.day}", seq=seq, due=e.at, expires=e.closes_at,
                city=e.city)
    elif isinstance(e, ev.NominationMade):
        out.tell(NotifyKind.NOMINATED, seq, e, [e.candidate], city=e.city)
    elif isinstance(e, ev.MessagePosted):
        _message(out, state, seq, e)
    elif isinstance(e, ev.CheckAnswered):
        holder = (before or state).cities[e.city].commissar
        out.tell(NotifyKind.CHECK_ANSWERED, seq, e, [holder])
    elif isinstance(e, ev.CommissarOffered):
        out.tell(NotifyKind.COMMISSAR_OFFER, seq, e, [e.candidate])
    elif isinstance(e, ev.ResidentDied):
        out.tell(NotifyKind.DIED, seq, e, [e.user])
    elif isinstance(e, ev.SpiritsChosen):
        out.tell(NotifyKind.SPIRIT, seq, e, e.spirits, city=e.city)
    elif isinstance(e, ev.DayPostPublished):
        out.tell(NotifyKind.DAY_POST, seq, e, participants(state), day=e.day)
    elif isinstance(e, ev.GameEnded):
        out.tell(NotifyKind.GAME_ENDED, seq, e, participants(state))


def _reminders(out: Causes, e: ev.DeadlineScheduled) -> None:
    kind, _, rest = e.key.partition(":")
    due = e.due_at
    mark = f"{e.key}@{due.isoformat()}"
    common: dict[str, Any] = {"deadline": e.key, "at": due.isoformat()}
    if kind == "vote_close":
        city = rest.rsplit(":", 1)[0]
        out.add(NotifyKind.VOTE_CLOSES_60, mark, due=due - HOUR, expires=due, city=city, **common)
        out.add(NotifyKind.VOTE_CLOSES_15, mark, due=due - timedelta(minutes=15), expires=due,
                city=city, **common)
    elif kind == "night_decisions":
        out.add(NotifyKind.NIGHT_DECISION_DUE, mark, due=due - HOUR, expires=due, **common)
    out.add(NotifyKind.HOST_DUTY_DUE, mark, due=due - HOUR, expires=due, **common)


def _message(out: Causes, state: GameState, seq: int, e: ev.MessagePosted) -> None:
    inbox = state.inboxes.get(e.inbox)
    if inbox is not None and inbox.kind == Kind.PERSONAL:
        out.tell(NotifyKind.PERSONAL_MESSAGE, seq, e,
                 [u for u in sorted(readers_of(state, inbox)) if u != e.author])
    elif inbox is not None and out.followed:
        # written only if someone follows the inbox as the message commits (``only_followed``);
        # its followers are found when it is due (they are the store's, not the state's),
        # each checked against the event's audience then
        out.add(NotifyKind.FOLLOWED_INBOX, str(seq), seq=seq, due=e.at, inbox=e.inbox,
                public=e.audience.public)
    for hook in MENTION_HOOKS:
        out.tell(NotifyKind.MENTIONED, seq, e, [u for u in hook(state, e) if u != e.author])


def asks_followers(rows: Iterable[Row]) -> bool:
    """Whether these rows hold a followed-inbox notice (``only_followed`` then reads who follows)."""
    return any(r["kind"] == NotifyKind.FOLLOWED_INBOX.value for r in rows)


def only_followed(rows: list[Row], followed: Collection[tuple[str, str]]) -> list[Row]:
    """The rows without the followed-inbox notices of inboxes nobody follows: ``followed``
    is the (game, inbox) pairs someone follows, read in the writing transaction, so a follow
    committed before the message is honoured. Most chat is in inboxes nobody follows, and
    each such row cost the dispatcher a claim and an expansion for nobody (issue 17)."""
    return [r for r in rows if r["kind"] != NotifyKind.FOLLOWED_INBOX.value
            or (followed and (r["game_id"], json.loads(r["payload"])["inbox"]) in followed)]


def _host_duties(out: Causes, before: GameState, after: GameState, last: tuple[int, ev.Event]) -> None:
    """A host duty that appears with this step (the engine's duties of host seats)."""
    seq, event = last
    for host in hosts(after):
        old = {duty_key(d) for d in duties(before, host, event.at) if d.seat in HOST_SEATS}
        for d in duties(after, host, event.at):
            key = duty_key(d)
            if d.seat in HOST_SEATS and d.required and key not in old:
                out.add(NotifyKind.HOST_DUTY, f"{seq}:{key}", user=host, seq=seq, due=event.at,
                        duty=d.kind.value)


def duty_key(d: Any) -> str:
    return hashlib.sha256(f"{d.kind.value}:{d.seat.value}:{d.args!r}".encode()).hexdigest()[:16]


def hosts(state: GameState) -> list[str]:
    """Every holder of a host seat: the Procurator, the Consigliere, the Arbiter, the Tribunes."""
    found = [state.procurator, state.consigliere, state.arbiter,
             *(c.tribune for c in state.cities.values())]
    return [u for u in dict.fromkeys(found) if u]


def participants(state: GameState) -> list[str]:
    """Everyone in the game: hosts, residents (the dead too), signed-up players."""
    return list(dict.fromkeys([*hosts(state), *state.residents, *getattr(state, "signups", ())]))
