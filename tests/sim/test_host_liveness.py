"""No game can get stuck (issue 10; review D7, D11): random sequences of host commands —
day changes (TIME-2..4), restorations (RESTORE-T2), sanctions (PLAYER-7), delegations
(HOST-TRIB-2), disclosures, the ambush order, contests, comments, notary inboxes — mixed
with the bots' play. Every state at rest of a running game has a pending deadline (the
liveness invariant in ``check_game``), every rejected host command changes nothing, and
every game ends with a result.

The in-CI size is a few seconds; ``make liveness-sweep`` runs the long version
(``LEPROMAFIA_SWEEP_EXAMPLES``)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lepromafia.bots.simulate import play
from lepromafia.engine.state import Stage

EXAMPLES = int(os.environ.get("LEPROMAFIA_SWEEP_EXAMPLES", "6"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), cities=st.integers(2, 4), population=st.sampled_from([6, 9, 12]),
       hosts=st.sampled_from([0.5, 0.9, 1.0]))
def test_host_commands_mixed_with_play_never_leave_a_game_stuck(seed, cities, population, hosts):
    report = play(seed, cities, population, hosts=hosts)
    assert report.violations == [], report.violations[:5]
    assert report.table.game.stage is Stage.FINISHED and report.result is not None


def test_the_hosts_calendar_moves_are_played_and_some_are_refused():
    """The property is not vacuous: over a few games the hosts shorten, lengthen and re-time
    days, and every attempt is checked (a refused one changes nothing: StepChecker)."""
    from collections import Counter

    kinds: Counter[str] = Counter()
    for seed in range(3):
        report = play(seed, 3, 9, hosts=1.0)
        kinds.update(type(e).__name__ for e in report.table.events)
        assert report.violations == []
    assert kinds["DayShortened"] and kinds["LongDayDeclared"] and kinds["SanctionRecorded"]
    assert kinds["TribuneDelegated"] and kinds["CommentPosted"] and kinds["NotarySealed"]


def test_the_host_event_kinds_are_played_and_each_has_a_visibility_rule():
    """Review issue 10: the host event kinds the visibility checks skipped are now played by
    the host bots (bots/hosts.py) and classified (ALLOWED or OPEN_EVENTS), so §9.2 is checked
    on each of them in every simulated game."""
    from collections import Counter

    from lepromafia.bots.invariants import ALLOWED, OPEN_EVENTS
    from lepromafia.engine import events_host as hev

    played = (
        hev.ContestPublished, hev.ContestResultsRecorded, hev.TribuneDelegated, hev.DelegationRevoked,
        hev.RecordSealed, hev.RecordOpened, hev.AmbushOrderSet, hev.SanctionRecorded,
        hev.ImpeachmentSigned, hev.ImpeachmentDemanded, hev.ImpeachmentDecided, hev.TribuneReplaced,
        hev.NoConfidenceExpressed, hev.NoConfidenceReceipt, hev.NoConfidenceAnswered,
        hev.NoConfidenceDecided, hev.PrivateCaseFiled, hev.PrivateCaseDecided, hev.InboxBanImposed,
        hev.InboxBanLifted, hev.EvidenceLinked, hev.CombinationAcknowledged, hev.SoundRequested,
        hev.SoundRequestForwarded, hev.SoundRequestAnswered, hev.SoundEntryPublished,
    )
    kinds: Counter[str] = Counter()
    for seed in range(4):
        report = play(seed, 5, 12, hosts=1.0)
        assert report.violations == [], report.violations[:3]
        kinds.update(type(e).__name__ for e in report.table.events)
    for kind in played:
        assert kinds[kind.__name__], kind.__name__
        assert kind in ALLOWED or kind in OPEN_EVENTS
