"""decide(state, command, ctx) -> events, or a RuleViolation. Pure.

The handler table maps each command type to the rule group that owns it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import commands as cmd
from . import commands_host as hc
from . import decisions  # noqa: F401 - declares the host decisions (decision.DECIDERS)
from .audience import PUBLIC
from .decision import DECIDERS
from .errors import N_, ErrorCode, RuleViolation
from .events import Event, GameCreated
from .evolve import evolve
from .progress import Context, Progress
from .rules import (
    ambush,
    archive,
    cases,
    citizens,
    commissar,
    court,
    deal_draw,
    disclosure,
    execution,
    host,
    judges,
    messaging,
    night,
    phases,
    posts,
    relay,
    restoration,
    seeds,
    setup,
    sound,
    verdicts,
)
from .settings import GameSettings
from .state import GameState

Handler = Callable[[Progress, Any], None]

HANDLERS: dict[type[cmd.Command], Handler] = {
    cmd.SignUp: setup.sign_up,
    cmd.WithdrawSignUp: setup.withdraw_sign_up,
    cmd.AppointHost: setup.appoint_host,
    cmd.FormCities: setup.form_cities,
    cmd.SealDeal: setup.seal_deal,
    cmd.NameMafiaNumbers: setup.name_mafia_numbers,
    cmd.CommitDealEntropy: deal_draw.commit,
    cmd.OpenDealReveals: deal_draw.open_reveals,
    cmd.RevealDealEntropy: deal_draw.reveal,
    cmd.AcknowledgeRole: setup.acknowledge_role,
    cmd.StartGame: setup.start_game,
    cmd.FireDeadline: phases.fire_deadline,
    cmd.SetDayStart: phases.set_day_start,
    cmd.DeclareLongDay: phases.declare_long_day,
    cmd.ShortenDay: phases.shorten_day,
    cmd.ScheduleExecutionVote: execution.schedule_vote,
    cmd.Nominate: execution.nominate,
    cmd.RequestProxyVote: execution.request_proxy,
    cmd.DeclareSuicide: citizens.declare_suicide,
    cmd.WithdrawSuicide: citizens.withdraw_suicide,
    cmd.RequestObservation: citizens.request_observation,
    cmd.PostMessage: messaging.post_message,
    cmd.EditMessage: posts.edit_message,
    cmd.CreateSecretInbox: messaging.create_secret_inbox,
    cmd.CloseSecretInbox: messaging.close_secret_inbox,
    cmd.RenewInbox: messaging.renew,
    cmd.OfferCommissar: host.offer_commissar,  # commissar.offer + the COMM-APPT-6 notary
    cmd.AnswerCommissarOffer: commissar.answer,
    cmd.CheckResident: commissar.check_resident,
    cmd.AnswerCheck: commissar.answer_check,
    cmd.VoteGodfather: night.vote_godfather,
    cmd.AppointGodfather: night.appoint_godfather,
    cmd.DemandGodfatherReelection: night.demand_reelection,
    cmd.DeclareKill: night.declare_kill,
    cmd.ScheduleJudgeElection: judges.schedule_election,
    cmd.ProposeJudge: judges.propose,
    cmd.DeclineCandidacy: judges.decline,
    cmd.RequestJudgeProxy: judges.request_proxy,
    cmd.FilePetition: judges.file_petition,
    cmd.ConfirmPetition: judges.confirm_petition,
    cmd.Recuse: judges.recuse,
    cmd.VotePardon: verdicts.vote_pardon,
    cmd.ChoosePardonPreset: court.choose_preset,
    cmd.PlaceAmbush: ambush.place,
    cmd.WithdrawAmbush: ambush.withdraw,
    cmd.ConfirmMafiosoDisclosure: disclosure.confirm_mafioso,
    cmd.ConfirmCommissarDisclosure: disclosure.confirm_commissar,
    cmd.ProposeRestoration: restoration.propose,
    cmd.SignRestoration: restoration.sign,
    cmd.SealRestorationList: restoration.seal_list,
    cmd.NameRestorationNumbers: restoration.name_numbers,
    cmd.GiveArchiveConsent: archive.give_consent,
    cmd.RequestArchive: archive.request,
    # the citizens' side of the host-side rules: sound requests, signatures, complaints,
    # private cases, evidence, mafia relays. Every [HOST] decision is declared with
    # @host_decision (engine/decisions) and decided through decision.DECIDERS.
    hc.RequestSound: sound.request_sound,
    hc.SignImpeachment: cases.sign_impeachment,
    hc.LinkEvidence: cases.link_evidence,
    hc.ExpressNoConfidence: cases.express_no_confidence,
    hc.FilePrivateCase: cases.file_private_case,
    hc.SendMafiaRelay: relay.send_relay,
    # community seed systems: public discussion, notary inboxes for anyone
    cmd.PostComment: seeds.post_comment,
    cmd.CreateNotaryInbox: seeds.create_notary,
    cmd.GrantNotaryAccess: seeds.grant_notary,
    cmd.PublishNotaryInbox: seeds.publish_notary,
}


def decide(state: GameState | None, command: cmd.Command, ctx: Context) -> list[Event]:
    """The events ``command`` causes in ``state`` at ``ctx.now``.

    :raises RuleViolation: the command breaks a rule; nothing happened.
    """
    return decide_and_evolve(state, command, ctx)[0]


def decide_and_evolve(
    state: GameState | None, command: cmd.Command, ctx: Context
) -> tuple[list[Event], GameState | None]:
    """``decide``, and the state after its events, which deciding has already folded.

    Saves callers that keep the state (``Table``) from evolving every event twice.
    """
    if isinstance(command, cmd.CreateGame):
        if state is not None:
            raise RuleViolation(ErrorCode.GAME_EXISTS)
        created = _create(command, ctx)
        return created.events, created.state
    if state is None:
        raise RuleViolation(ErrorCode.NO_GAME)
    handler = HANDLERS.get(type(command)) or DECIDERS.get(type(command))
    if handler is None:
        raise TypeError(f"unknown command {type(command).__name__}")
    progress = Progress(state, ctx)
    handler(progress, command)
    return progress.events, progress.state


def _create(command: cmd.CreateGame, ctx: Context) -> Progress:
    settings = GameSettings.from_mapping(command.settings)
    title = command.title.strip()
    if not 0 < len(title) <= setup.MAX_TITLE:
        raise RuleViolation(ErrorCode.INVALID_SETTINGS,
                            detail=N_("the title must be 1 to {limit} characters"), limit=setup.MAX_TITLE)
    first = GameCreated(at=ctx.now, audience=PUBLIC, title=title, procurator=command.actor,
                        settings=settings)
    progress = Progress(evolve(None, first), ctx)
    progress.events.append(first)
    setup.open_founding_inboxes(progress)
    return progress
