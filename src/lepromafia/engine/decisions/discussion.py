"""POST-1, POST-2: the Procurator, organizer of the posts, hides a public comment; the hiding
and its reason are public and logged (§9.1 p.4). Commenting itself is ``rules/seeds.py``."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..audience import PUBLIC
from ..commands import HideComment
from ..decision import AuditLine, host_decision
from ..errors import N_, ErrorCode, check
from ..events_host import HostDecision
from ..progress import Progress
from ..rules.common import require_procurator
from ..rules.host import reason_of
from ..state import GameState

_C = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_C)
class CommentHidden(HostDecision):
    """The Procurator hid a comment; its place shows "hidden by the Procurator: <reason>"."""

    comment: int


def _hidden(state: GameState, e: CommentHidden) -> GameState:
    d = state.discussion
    return replace(state, discussion=replace(d, hidden=d.hidden | {e.comment}))


@host_decision(
    "hide_comment", office="procurator", command=HideComment, event=CommentHidden,
    rule="POST-2", title=N_("Hide a comment"),
    explain=N_("Hide a comment under a post; its place says it was hidden and why."),
    evolve=_hidden, labels={"comment": N_("Comment"), "reason": N_("Reason")},
    audit=AuditLine("discussion", N_("Hid comment {comment}"), lambda e: {"comment": e.comment},
                    rule=lambda e: e.rule or "POST-2"),
    bespoke_form=True)
def hide_comment(p: Progress, c: HideComment) -> None:
    """POST-1, POST-2: the Procurator organizes the posts; the hiding and its reason are
    public and logged (§9.1 p.4)."""
    s = p.state
    require_procurator(s, c.actor)
    check(1 <= c.comment <= s.discussion.comments, ErrorCode.UNKNOWN_COMMENT)
    check(c.comment not in s.discussion.hidden, ErrorCode.COMMENT_ALREADY_HIDDEN)
    p.emit(CommentHidden, PUBLIC, host=c.actor, rule="POST-2", reason=reason_of(s, c.reason),
           comment=c.comment)
