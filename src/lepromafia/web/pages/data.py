"""The events the pages read besides the queries' projections, kept per game in memory and
read incrementally. Every use filters them with ``visible_to`` for the viewer."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import and_, select

from ...engine.events import Event
from ...service.service import GameService
from ...store import codec, schema

TYPES = (
    "DayPostPublished", "VotingClosed", "VotingOpened", "VerdictReached", "ResidentDied", "GameEnded",
    "CityDecided", "MafiaDealt", "CheckAnswered", "KillDeclared", "NightDecisionFixed", "AmbushPlaced",
    "DealListsRecorded", "DealSealed", "NominationMade", "ProxyRequested", "CommissarOffered",
    "CommissarOfferResolved", "CommissarAppointed", "PardonWindowOpened", "JudgeElectionClosed",
    "PetitionFiled", "GodfatherElected", "HostAppointed", "RoleAcknowledged",
    "NightStarted", "GodfatherVoteCast", "PardonVoteCast", "ObserverJoined", "SuicideDeclared",
    "RestorationListRecorded", "PrivateCaseFiled", "ContestPublished", "NoConfidenceExpressed",
    "CheckRequested", "GodfatherElectionFailed", "GodfatherReelectionDemanded", "AmbushesFixed",
)


@dataclass
class _Log:
    last_seq: int = 0
    events: list[tuple[int, Event]] = field(default_factory=list)


class PageEvents:
    def __init__(self) -> None:
        self._logs: dict[tuple[int, str], _Log] = {}

    async def read(self, service: GameService, game_id: str) -> list[tuple[int, Event]]:
        log = self._logs.setdefault((id(service), game_id), _Log())
        e = schema.events
        async with service.store.reading() as tx:
            rows = (await tx.conn.execute(
                select(e.c.seq, e.c.payload).where(and_(
                    e.c.game_id == game_id, e.c.seq > log.last_seq, e.c.type.in_(TYPES)))
                .order_by(e.c.seq))).all()
        for row in rows:
            if row.seq > log.last_seq:
                log.events.append((row.seq, codec.decode_event(codec.loads(row.payload))))
                log.last_seq = row.seq
        return log.events


PAGE_EVENTS = PageEvents()
