"""Every kind of notification, in one table: who it is about, how secret, how it reads.

``secret`` kinds say outside the app only that something awaits in the game
(``EXTERNAL_SECRET``): never an inbox, a role, a target, a check answer or a person.
A kind whose cause is an event is also secret whenever that event is not public, so
the table can only make a notification stricter than the audience filter, never looser.
``duties`` names the engine duties that decide the recipients of a kind found when it
is due (``None``: the recipients are fixed when it is written). Texts are English
msgids (the catalogs translate them); ``{title}`` is the game's title.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ...engine.duties import DutyKind, Seat
from ...engine.errors import N_


class NotifyKind(StrEnum):
    VOTE_OPENS = "vote_opens"
    VOTE_CLOSES_60 = "vote_closes_60"
    VOTE_CLOSES_15 = "vote_closes_15"
    NOMINATIONS_CLOSE = "nominations_close"
    CHECKS_OPEN = "checks_open"
    NIGHT_DECISION_DUE = "night_decision_due"
    PARDON_OPEN = "pardon_open"
    HOST_DUTY = "host_duty"
    HOST_DUTY_DUE = "host_duty_due"
    NOMINATED = "nominated"
    MENTIONED = "mentioned"
    PERSONAL_MESSAGE = "personal_message"
    CHECK_ANSWERED = "check_answered"
    COMMISSAR_OFFER = "commissar_offer"
    DIED = "died"
    SPIRIT = "spirit"
    DAY_POST = "day_post"
    GAME_ENDED = "game_ended"
    INACTIVE = "inactive"
    FOLLOWED_INBOX = "followed_inbox"
    HOST_DUTY_OVERDUE = "host_duty_overdue"


class Channel(StrEnum):
    IN_APP = "in_app"
    EMAIL = "email"
    PUSH = "push"
    TELEGRAM = "telegram"


EXTERNAL = (Channel.EMAIL, Channel.PUSH, Channel.TELEGRAM)
HOST_SEATS = frozenset({Seat.PROCURATOR, Seat.CONSIGLIERE, Seat.ARBITER, Seat.TRIBUNE})

EXTERNAL_SECRET = N_("In the game «{title}» there is something new for you")
"""The only thing a secret notification says outside the app."""


@dataclass(frozen=True)
class KindSpec:
    kind: NotifyKind
    secret: bool
    label: str
    """What the preferences page calls it."""
    text: str
    """The in-app (and, if not secret, external) sentence."""
    duties: frozenset[DutyKind] | None = None
    quiet_exempt: bool = False
    """Sent even in quiet hours."""
    same_city: bool = True
    """A duty-found kind: only duties in the payload's city count."""
    required_only: bool = False
    """A duty-found kind: only people who still must act."""


_VOTE = frozenset({DutyKind.VOTE})
_NIGHT = frozenset({DutyKind.ORDER_KILL, DutyKind.DECLARE_KILL, DutyKind.ORDER_TOUR,
                    DutyKind.DECLARE_TOUR, DutyKind.VOTE_GODFATHER})
_HOST = frozenset(row for row in DutyKind)  # filtered to host seats by the expander

SPECS: dict[NotifyKind, KindSpec] = {
    s.kind: s
    for s in (
        KindSpec(NotifyKind.VOTE_OPENS, False, N_("The vote opens"),
                 N_("«{title}»: the execution vote in {city} is open."), _VOTE),
        KindSpec(NotifyKind.VOTE_CLOSES_60, False, N_("The vote closes in an hour"),
                 N_("«{title}»: the execution vote in {city} closes in 60 minutes."), _VOTE),
        KindSpec(NotifyKind.VOTE_CLOSES_15, False, N_("The vote closes in 15 minutes"),
                 N_("«{title}»: the execution vote in {city} closes in 15 minutes."), _VOTE,
                 quiet_exempt=True),
        KindSpec(NotifyKind.NOMINATIONS_CLOSE, False, N_("Nominations close in an hour"),
                 N_("«{title}»: nominations in {city} close in an hour."),
                 frozenset({DutyKind.NOMINATE})),
        KindSpec(NotifyKind.CHECKS_OPEN, True, N_("Checks open"),
                 N_("«{title}»: checks are open tonight."), frozenset({DutyKind.CHECK}),
                 same_city=False),
        KindSpec(NotifyKind.NIGHT_DECISION_DUE, True, N_("The night decision is due"),
                 N_("«{title}»: the night decision is due in an hour."), _NIGHT, same_city=False,
                 required_only=True),
        KindSpec(NotifyKind.PARDON_OPEN, True, N_("A pardon window is open"),
                 N_("«{title}»: a pardon window is open in {city}."), frozenset({DutyKind.VOTE_PARDON})),
        KindSpec(NotifyKind.HOST_DUTY, True, N_("A host duty awaits"),
                 N_("«{title}»: a host duty awaits you."), None),
        KindSpec(NotifyKind.HOST_DUTY_DUE, True, N_("A host duty is due"),
                 N_("«{title}»: a host duty is due in an hour."), _HOST, same_city=False),
        KindSpec(NotifyKind.NOMINATED, False, N_("You were nominated"),
                 N_("«{title}»: you were nominated for execution in {city}."), None),
        KindSpec(NotifyKind.MENTIONED, True, N_("Someone mentioned you"),
                 N_("«{title}»: someone mentioned you."), None),
        KindSpec(NotifyKind.PERSONAL_MESSAGE, True, N_("A message in your personal inbox"),
                 N_("«{title}»: a new message in your personal inbox."), None),
        KindSpec(NotifyKind.CHECK_ANSWERED, True, N_("Your check was answered"),
                 N_("«{title}»: your check has been answered."), None),
        KindSpec(NotifyKind.COMMISSAR_OFFER, True, N_("An offer awaits you"),
                 N_("«{title}»: an offer awaits your answer."), None),
        KindSpec(NotifyKind.DIED, False, N_("You died"),
                 N_("«{title}»: you are dead. The cemetery is open to you."), None),
        KindSpec(NotifyKind.SPIRIT, False, N_("You became a Spirit"),
                 N_("«{title}»: today you are a Spirit of {city}."), None),
        KindSpec(NotifyKind.DAY_POST, False, N_("The Day Post"),
                 N_("«{title}»: the Day Post of day {day} is out."), None),
        KindSpec(NotifyKind.GAME_ENDED, False, N_("The game ended"),
                 N_("«{title}»: the game has ended and the archive is open."), None),
        KindSpec(NotifyKind.INACTIVE, False, N_("You have not posted for a while"),
                 N_("«{title}»: you have posted nothing in your city for {hours} hours. "
                    "Your city is waiting for you."), None),
        KindSpec(NotifyKind.FOLLOWED_INBOX, True, N_("A message in an inbox you follow"),
                 N_("«{title}»: new messages in an inbox you follow."), None),
        KindSpec(NotifyKind.HOST_DUTY_OVERDUE, True, N_("A host duty is overdue"),
                 N_("«{title}»: a host duty is overdue."), None),
    )
}

NOT_VOTED = N_("You have not voted yet.")
