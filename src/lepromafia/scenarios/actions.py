"""Step actions -> engine commands, exactly as players and hosts issue them."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from ..engine import commands as cmd
from ..engine import commands_host as hc
from ..engine.seeds import RECRUITMENT_POST, day_post
from ..engine.state import NO_KILL, GameState
from .inbox_names import resolve
from .model import ScenarioError

TimeParser = Callable[[object], datetime]
Builder = Callable[[GameState, dict[str, Any], TimeParser], cmd.Command]


def _need(args: dict[str, Any], key: str, action: str, allowed: set[str]) -> Any:
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise ScenarioError(f"{action}: unknown key(s) {unknown}; allowed: {sorted(allowed)}")
    if key not in args:
        raise ScenarioError(f"{action}: '{key}' is required")
    return args[key]


def _target(value: Any) -> str:
    return NO_KILL if value in (None, "none", "nobody", NO_KILL) else str(value)


def _vote(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    by = _need(a, "by", "vote", {"by", "for", "text"})
    candidate = _need(a, "for", "vote", {"by", "for", "text"})
    return cmd.PostMessage(actor=str(by), inbox=resolve(s, f"voting {candidate}", str(by)),
                           text=str(a.get("text", "казнить")))


def _post(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "inbox", "text"}
    by = str(_need(a, "by", "post", keys))
    return cmd.PostMessage(actor=by, inbox=resolve(s, str(_need(a, "inbox", "post", keys)), by),
                           text=str(_need(a, "text", "post", keys)))


def _nominate(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "candidate"}
    return cmd.Nominate(actor=str(_need(a, "by", "nominate", keys)),
                        candidate=str(_need(a, "candidate", "nominate", keys)))


def _kill(tour: bool) -> Builder:
    action = "tour_kill" if tour else "kill"

    def build(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
        keys = {"by", "target"}
        return cmd.DeclareKill(actor=str(_need(a, "by", action, keys)),
                               target=_target(_need(a, "target", action, keys)), tour=tour)

    return build


def _check(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "target"}
    return cmd.CheckResident(actor=str(_need(a, "by", "check", keys)),
                             target=str(_need(a, "target", "check", keys)))


def _offer(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    """The Procurator's draw; ``to: X`` names the draw that lands on X among the pool."""
    keys = {"by", "city", "draw", "to"}
    name = str(_need(a, "city", "offer_commissar", keys))
    if ("draw" in a) == ("to" in a):
        raise ScenarioError("offer_commissar: give exactly one of 'draw' (a number) or 'to' (a resident)")
    draw: Any = a.get("draw")
    if "to" in a:
        city = s.cities.get(name)
        pool = [u for u in s.living(name) if u not in city.offers_made] if city else []
        if a["to"] not in pool:
            raise ScenarioError(f"offer_commissar: {a['to']!r} is not in {name}'s draw pool {pool}")
        draw = pool.index(a["to"])
    return cmd.OfferCommissar(actor=str(a.get("by", s.procurator)), city=name, draw=int(draw))


def _answer(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "accept"}
    accept = _need(a, "accept", "answer_offer", keys)
    if not isinstance(accept, bool):
        raise ScenarioError("answer_offer: 'accept' must be true or false")
    return cmd.AnswerCommissarOffer(actor=str(_need(a, "by", "answer_offer", keys)), accept=accept)


def _godfather_vote(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "candidate"}
    return cmd.VoteGodfather(actor=str(_need(a, "by", "godfather_vote", keys)),
                             candidate=str(_need(a, "candidate", "godfather_vote", keys)))


def _schedule_vote(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "city", "opens", "closes", "nominations_close"}
    name = str(_need(a, "city", "schedule_vote", keys))
    city = s.cities.get(name)
    actor = a.get("by", city.tribune if city else "?")
    nominations = a.get("nominations_close")
    return cmd.ScheduleExecutionVote(
        actor=str(actor), city=name, opens_at=t(_need(a, "opens", "schedule_vote", keys)),
        closes_at=t(_need(a, "closes", "schedule_vote", keys)),
        nominations_close_at=t(nominations) if nominations is not None else None,
    )


def _proxy(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "candidates"}
    candidates = _need(a, "candidates", "proxy", keys)
    if not isinstance(candidates, list):
        candidates = [candidates]
    return cmd.RequestProxyVote(actor=str(_need(a, "by", "proxy", keys)),
                                candidates=tuple(str(c) for c in candidates))


def _raw(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    """The escape hatch: any engine command by class name, fields as in commands.py."""
    args = dict(a)
    type_name = args.pop("type", None)
    cls = getattr(cmd, str(type_name), None) or getattr(hc, str(type_name), None)
    if not (isinstance(cls, type) and issubclass(cls, cmd.Command) and cls is not cmd.Command):
        raise ScenarioError(f"command: unknown type {type_name!r} (see engine/commands.py, commands_host.py)")
    args["actor"] = str(args.pop("by", args.get("actor", s.procurator)))
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(args) - names)
    if unknown:
        raise ScenarioError(f"command {type_name}: unknown field(s) {unknown}; fields: {sorted(names)}")
    for key, value in list(args.items()):
        args[key] = _convert(hints.get(key), value, t)
    try:
        command: cmd.Command = cls(**args)
    except TypeError as exc:
        raise ScenarioError(f"command {type_name}: {exc}") from None
    return command


def _convert(hint: Any, value: Any, t: TimeParser) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    inner = [h for h in typing.get_args(hint) if h is not type(None)]
    if origin in (typing.Union, types.UnionType) and inner:
        return _convert(inner[0], value, t)
    if hint is datetime:
        return t(value)
    if hint is date:
        return value if isinstance(value, date) else date.fromisoformat(str(value))
    if origin is tuple and isinstance(value, list):
        return tuple(_convert(inner[0] if inner else None, v, t) for v in value)
    if origin is frozenset and isinstance(value, list):
        return frozenset(value)
    return value


# --- judges, the Court, citizens' own acts, ambush, disclosures ---------------------------


def _simple(action: str, cls: type[cmd.Command], fields: dict[str, str] | None = None,
            default_by: Callable[[GameState], str | None] | None = None) -> Builder:
    """A command whose fields are plain strings: ``fields`` maps scenario keys to fields."""
    fields = fields or {}

    def build(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
        keys = {"by", *fields}
        unknown = sorted(set(a) - keys)
        if unknown:
            raise ScenarioError(f"{action}: unknown key(s) {unknown}; allowed: {sorted(keys)}")
        by = a.get("by") or (default_by(s) if default_by else None)
        if by is None:
            raise ScenarioError(f"{action}: 'by' is required")
        values = {field: str(_need(a, key, action, keys)) for key, field in fields.items()}
        return cls(actor=str(by), **values)

    return build


def _procurator(s: GameState) -> str:
    return s.procurator


def _arbiter(s: GameState) -> str | None:
    return s.arbiter


def _judge_vote(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "for", "text"}
    by = str(_need(a, "by", "judge_vote", keys))
    candidate = str(_need(a, "for", "judge_vote", keys))
    return cmd.PostMessage(actor=by, inbox=resolve(s, f"polling {candidate}", by),
                           text=str(a.get("text", "Он — Ганди!")))


def _pardon_vote(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "city", "pardon"}
    pardon = _need(a, "pardon", "pardon_vote", keys)
    if not isinstance(pardon, bool):
        raise ScenarioError("pardon_vote: 'pardon' must be true or false")
    return cmd.VotePardon(actor=str(_need(a, "by", "pardon_vote", keys)),
                          city=str(_need(a, "city", "pardon_vote", keys)), pardon=pardon)


def _schedule_election(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "city", "opens", "closes"}
    return cmd.ScheduleJudgeElection(
        actor=str(a.get("by", s.arbiter)), city=str(_need(a, "city", "schedule_election", keys)),
        opens_at=t(_need(a, "opens", "schedule_election", keys)),
        closes_at=t(_need(a, "closes", "schedule_election", keys)),
    )


def _judge_proxy(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "candidate", "in_favour"}
    in_favour = _need(a, "in_favour", "judge_proxy", keys)
    if not isinstance(in_favour, bool):
        raise ScenarioError("judge_proxy: 'in_favour' must be true or false")
    return cmd.RequestJudgeProxy(actor=str(_need(a, "by", "judge_proxy", keys)),
                                 candidate=str(_need(a, "candidate", "judge_proxy", keys)),
                                 in_favour=in_favour)


def _impeach(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "grievance"}
    by = str(_need(a, "by", "impeach", keys))
    return hc.SignImpeachment(actor=by, grievance=str(a.get("grievance", "")))


def _post_name(value: Any) -> str:
    """'recruitment', 'day 3' or 'day:3' (POST-1, POST-2) as the engine names the post."""
    text = str(value).strip()
    if text == "recruitment":
        return RECRUITMENT_POST
    day = text.removeprefix("day").strip(" :")
    if not day.isdigit():
        raise ScenarioError(f"comment: post {value!r}; write 'recruitment' or 'day N'")
    return day_post(int(day))


def _comment(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "post", "text"}
    return cmd.PostComment(actor=str(_need(a, "by", "comment", keys)),
                           post=_post_name(_need(a, "post", "comment", keys)),
                           text=str(_need(a, "text", "comment", keys)))


def _hide_comment(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "comment", "reason"}
    return cmd.HideComment(actor=str(a.get("by", s.procurator)),
                           comment=int(_need(a, "comment", "hide_comment", keys)),
                           reason=str(_need(a, "reason", "hide_comment", keys)))


SCENARIO_SALT = "scenario-salt-0123456789abcdef"
"""A fixed salt (INBOX-NOTARY-2) so a scenario's digests are the same every run."""


def _notary(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "title", "content", "salt"}
    return cmd.CreateNotaryInbox(actor=str(_need(a, "by", "notary", keys)),
                                 title=str(_need(a, "title", "notary", keys)),
                                 content=str(_need(a, "content", "notary", keys)),
                                 salt=str(a.get("salt", SCENARIO_SALT)))


def _certificate(action: str, with_user: bool) -> Builder:
    """grant_notary / publish_notary: ``notary: N`` is the game's N-th notary inbox."""

    def build(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
        keys = {"by", "notary", "user"} if with_user else {"by", "notary"}
        by = str(_need(a, "by", action, keys))
        inbox = resolve(s, f"certificate {_need(a, 'notary', action, keys)}", by)
        if with_user:
            return cmd.GrantNotaryAccess(actor=by, inbox=inbox, user=str(_need(a, "user", action, keys)))
        return cmd.PublishNotaryInbox(actor=by, inbox=inbox)

    return build


def _relay(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "to", "kind", "text"}
    return hc.SendMafiaRelay(actor=str(_need(a, "by", "relay", keys)),
                             to_city=str(_need(a, "to", "relay", keys)),
                             kind=str(_need(a, "kind", "relay", keys)), text=str(a.get("text", "")))


def _review_relay(s: GameState, a: dict[str, Any], t: TimeParser) -> cmd.Command:
    keys = {"by", "relay", "approve", "reason"}
    approve = _need(a, "approve", "review_relay", keys)
    if not isinstance(approve, bool):
        raise ScenarioError("review_relay: 'approve' must be true or false")
    return hc.ReviewMafiaRelay(actor=str(a.get("by", s.consigliere)),
                               relay=int(_need(a, "relay", "review_relay", keys)), approve=approve,
                               reason=str(a.get("reason", "")))


ACTIONS: dict[str, Builder] = {
    "vote": _vote,
    "post": _post,
    "nominate": _nominate,
    "kill": _kill(tour=False),
    "tour_kill": _kill(tour=True),
    "check": _check,
    "offer_commissar": _offer,
    "answer_offer": _answer,
    "godfather_vote": _godfather_vote,
    "schedule_vote": _schedule_vote,
    "proxy": _proxy,
    "propose_judge": _simple("propose_judge", cmd.ProposeJudge, {"candidate": "candidate"}),
    "decline_candidacy": _simple("decline_candidacy", cmd.DeclineCandidacy),
    "judge_proxy": _judge_proxy,
    "judge_vote": _judge_vote,
    "schedule_election": _schedule_election,
    "pardon_vote": _pardon_vote,
    "petition": _simple("petition", cmd.FilePetition),
    "confirm_petition": _simple("confirm_petition", cmd.ConfirmPetition),
    "recuse": _simple("recuse", cmd.Recuse),
    "suicide": _simple("suicide", cmd.DeclareSuicide),
    "withdraw_suicide": _simple("withdraw_suicide", cmd.WithdrawSuicide),
    "observe": _simple("observe", cmd.RequestObservation, {"city": "city"}),
    "ambush": _simple("ambush", cmd.PlaceAmbush, {"target": "target"}),
    "withdraw_ambush": _simple("withdraw_ambush", cmd.WithdrawAmbush),
    "disclose_mafioso": _simple("disclose_mafioso", cmd.ConfirmMafiosoDisclosure,
                                {"user": "user", "reason": "reason"}, _procurator),
    "disclose_commissar": _simple("disclose_commissar", cmd.ConfirmCommissarDisclosure,
                                  {"city": "city", "reason": "reason"}, _procurator),
    "impeach": _impeach,
    "comment": _comment,
    "hide_comment": _hide_comment,
    "notary": _notary,
    "grant_notary": _certificate("grant_notary", with_user=True),
    "publish_notary": _certificate("publish_notary", with_user=False),
    "relay": _relay,
    "review_relay": _review_relay,
    "command": _raw,
}


def build(state: GameState, action: str, args: Any, parse_time: TimeParser) -> cmd.Command:
    if not isinstance(args, dict):
        raise ScenarioError(f"{action}: give a mapping, e.g. {action}: {{by: V1, ...}}")
    return ACTIONS[action](state, args, parse_time)
