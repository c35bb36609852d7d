"""What each live region of the pages shows, declared as the event classes that change it.

A page's ``data-live-src`` region carries ``data-live-kinds="{{ live_kinds.<name> }}"``
(and, where it shows one inbox or one city, ``data-live-inbox``/``data-live-city``);
``static/js/live.js`` re-fetches a region only for an event it names, about its inbox or
city. A viewer's socket carries only the events he may see (``service.outbound``), so
an event refreshes only the regions of the viewers who see it. To show a new kind of
event in a region, add its class here.
"""

from __future__ import annotations

from ...engine import events as ev
from ...engine import events_host as hev
from ...engine.events import Event

PHASE: tuple[type[Event], ...] = (
    ev.GameCreated, ev.CitiesFormed, ev.DealSealed, ev.DealCompleted, ev.GameStarted, ev.DayStarted,
    ev.DayEndReached, ev.NightStarted, ev.CityDecided, ev.GameEnded,
)
DEADLINES: tuple[type[Event], ...] = (ev.DeadlineScheduled, ev.DeadlineFired, ev.DayShortened,
                                      ev.LongDayDeclared, ev.DayStartSet)
CITIES: tuple[type[Event], ...] = (
    ev.CitiesFormed, ev.DealCompleted, ev.MafiaNumbersNamed, ev.ResidentDied, ev.CityDecided,
    ev.JudgeElectionClosed, ev.JudgeRemoved, hev.TribuneReplaced, ev.RestorationCompleted,
    ev.CityRedealt,
)
VOTE: tuple[type[Event], ...] = (ev.VotingOpened, ev.VoteCast, ev.VotingClosed, ev.NoExecution,
                                 ev.MafiosoDisclosed, ev.ResidentDied, ev.VerdictReached)
INBOX: tuple[type[Event], ...] = (
    ev.MessagePosted, ev.InboxOpened, ev.InboxArchived, hev.InboxBanImposed, hev.InboxBanLifted,
    ev.MessageEdited, ev.VotingOpened, ev.VotingClosed, ev.PollingOpened, ev.ResidentDied,
    ev.VoteCountPublished, ev.PardonWindowOpened, ev.VerdictReached, ev.NoExecution,
)
VOTE_RECORD: tuple[type[Event], ...] = (
    ev.VoteCast, ev.VotingClosed, ev.VoteCountPublished, ev.MafiosoDisclosed, ev.PardonWindowOpened,
    ev.VerdictReached, ev.ResidentDied, ev.NoExecution, *DEADLINES,
)
"""A vote's log, its count and its deadline (EXEC-9, EXEC-18, COURT-4)."""

REGIONS: dict[str, tuple[type[Event], ...]] = {
    "phase": PHASE,
    "ending": (ev.GameEnded,),
    "posts": (ev.DayPostPublished, hev.ContestPublished, hev.SoundEntryPublished, ev.CommentPosted,
              hev.CommentHidden),
    "comments": (ev.CommentPosted, hev.CommentHidden),
    "clocks": DEADLINES,
    "cities": CITIES,
    "inbox": INBOX,
    "voting_inbox": INBOX + VOTE_RECORD,
    "vote_record": VOTE_RECORD,
    "inbox_list": (ev.MessagePosted, ev.InboxOpened, ev.InboxArchived, hev.InboxBanImposed,
                   hev.InboxBanLifted, ev.VoteCast),  # VoteCast: a voting inbox's keyword count
    "tally": VOTE,
    "role_actions": PHASE + VOTE + (
        ev.NominationMade, ev.KillDeclared, ev.NightDecisionFixed, ev.DecisionsClosed,
        ev.ChecksOpened, ev.ChecksClosed, ev.CheckRequested, ev.CheckAnswered, ev.CommissarOffered,
        ev.CommissarOfferAnswered, ev.CommissarOfferResolved, ev.CommissarAppointed,
        ev.AmbushPlaced, ev.AmbushWithdrawn, ev.AmbushRightGranted, ev.GodfatherElected,
        ev.GodfatherVoteCast, ev.GodfatherReelectionDemanded, ev.JudgeElectionScheduled,
        ev.JudgeVoteCast, ev.PollingOpened, ev.ProxyRequested, ev.SuicideDeclared,
        ev.SuicideWithdrawn, ev.PetitionFiled, ev.PetitionConfirmed, ev.PardonWindowOpened,
        ev.PardonVoteCast, ev.TourAnnounced, ev.RoleAcknowledged, ev.ObserverJoined,
    ),
}

REGIONS["observe"] = (ev.ResidentDied, ev.ObserverJoined, ev.CityDecided, ev.GameEnded)
"""The offer to observe another city (ROLE-OBS-1..3): gone at one's death (review m9)."""
REGIONS["today"] = REGIONS["role_actions"] + DEADLINES + (ev.DayPostPublished,)
REGIONS["unread"] = (ev.MessagePosted, ev.InboxOpened, ev.InboxArchived, ev.ResidentDied,
                     hev.InboxBanImposed, hev.InboxBanLifted)
"""The today panel (what the viewer must do now) and the unread badge in the game's menu."""


def _every_event() -> tuple[type[Event], ...]:
    classes = [c for module in (ev, hev) for c in vars(module).values()
               if isinstance(c, type) and issubclass(c, Event) and c is not Event]
    return tuple(c for c in classes if c not in CHATTER)


CHATTER: tuple[type[Event], ...] = (ev.MessagePosted, ev.VoteCast, ev.CommentPosted)
"""Events that never change a host's duties: a console's task list skips them."""

REGIONS["duties"] = _every_event()
"""A console's task list: any decision or deadline may add or remove a duty."""
REGIONS["tribune_city"] = (
    *VOTE, ev.NominationMade, ev.VoteScheduled, ev.ProxyRequested, ev.DayStarted, ev.CityDecided,
    ev.RestorationProposed, ev.RestorationSigned)
"""One city of the Tribune's console: its vote, nominations, proxies and restoration."""

LIVE_KINDS: dict[str, str] = {name: " ".join(sorted({c.__name__ for c in classes}))
                              for name, classes in REGIONS.items()}
"""Each region's ``data-live-kinds`` value."""
