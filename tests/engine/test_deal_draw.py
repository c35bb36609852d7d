"""The commit-reveal deal (issue 14, RANDOM-4 by lot): Pavel the Procurator, Kostya the
Consigliere and alice (a player adding entropy) commit; the server commits and reveals as
the reveals open; the positions come from every value over Kostya's sealed list."""

from __future__ import annotations

from datetime import timedelta

from lepromafia.engine import commands as cmd
from lepromafia.engine import events as ev
from lepromafia.engine.deal import draw_positions, entropy_seed, fallback_value, value_digest
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.state import Stage
from lepromafia.engine.visibility import visible_to

from .cast import CONSIGLIERE, PROCURATOR, Game

TOWN = {"Лепроград": "alice bob carol dave erin frank gina hugo ivan jane"}
VALUES = {PROCURATOR: "p-" + "1" * 40, CONSIGLIERE: "c-" + "2" * 40, "alice": "a-" + "3" * 40}
SERVER = "server-" + "9" * 50
PARTY = {PROCURATOR: "office:procurator", CONSIGLIERE: "office:consigliere", "alice": "alice"}


def formed(g: Game) -> Game:
    """Cities formed after recruitment (commitments may come before or after)."""
    residents = tuple(TOWN["Лепроград"].split())
    g.act(cmd.FormCities(actor=PROCURATOR, cities=(
        cmd.CityPlan(name="Лепроград", tribune="tanya", residents=residents),)))
    return g


def drawn_game() -> Game:
    g = Game(TOWN, settings={"deal_method": "commit_reveal", "deal_reveal_minutes": 30})
    g.recruit()
    for user, value in VALUES.items():
        g.act(cmd.CommitDealEntropy(actor=user, digest=value_digest(value)))
    return formed(g)


def sealed(g: Game) -> Game:
    order = TOWN["Лепроград"].split()
    g.act(cmd.SealDeal(actor=CONSIGLIERE, lists=(("Лепроград", tuple(order)),), salt="s" * 32))
    return g


def opened(g: Game) -> Game:
    g.act(cmd.OpenDealReveals(actor=PROCURATOR, server_digest=value_digest(SERVER)))
    g.act(cmd.RevealDealEntropy(actor="system", value=SERVER))
    return g


def expected_mafiosi(values: dict[str, str]) -> tuple[str, ...]:
    order = TOWN["Лепроград"].split()
    numbers = draw_positions(entropy_seed(values), "Лепроград", len(order), 2)
    return tuple(order[n - 1] for n in numbers)


def test_every_party_reveals_and_the_positions_follow_from_all_values() -> None:
    """RANDOM-4 by lot: the deal completes the moment the last party reveals."""
    g = opened(sealed(drawn_game()))
    for user, value in VALUES.items():
        g.act(cmd.RevealDealEntropy(actor=user, value=value))
    s = g.state
    assert s.stage is Stage.DEALT
    values = {PARTY[u]: v for u, v in VALUES.items()} | {"system": SERVER}
    dealt = g.events_of(ev.MafiaDealt)[0]
    assert sorted(dealt.mafiosi) == sorted(expected_mafiosi(values))
    assert not g.events_of(ev.DealEntropyReplaced)
    assert "deal_reveal:close" not in s.deadlines


def test_a_party_who_does_not_reveal_in_time_is_replaced_by_the_servers_value() -> None:
    """alice stays silent; at the close her value is derived from the server's, recorded."""
    g = opened(sealed(drawn_game()))
    for user in (PROCURATOR, CONSIGLIERE):
        g.act(cmd.RevealDealEntropy(actor=user, value=VALUES[user]))
    assert g.state.stage is Stage.SEALED, "the deal waits for alice until the window closes"
    g.table.advance(g.pregame + timedelta(minutes=30))
    replaced = g.events_of(ev.DealEntropyReplaced)
    assert [(r.party, r.value) for r in replaced] == [("alice", fallback_value(SERVER, "alice"))]
    assert all(r.audience.public for r in replaced), "the replacement is recorded for all to see"
    values = {PARTY[PROCURATOR]: VALUES[PROCURATOR], PARTY[CONSIGLIERE]: VALUES[CONSIGLIERE],
              "alice": fallback_value(SERVER, "alice"), "system": SERVER}
    assert g.state.stage is Stage.DEALT
    assert sorted(g.events_of(ev.MafiaDealt)[0].mafiosi) == sorted(expected_mafiosi(values))


def test_a_wrong_reveal_is_refused_and_the_right_one_still_counts() -> None:
    g = opened(sealed(drawn_game()))
    g.reject(cmd.RevealDealEntropy(actor="alice", value="not what alice committed"), g.pregame,
             ErrorCode.ENTROPY_MISMATCH)
    g.act(cmd.RevealDealEntropy(actor="alice", value=VALUES["alice"]))
    g.reject(cmd.RevealDealEntropy(actor="alice", value=VALUES["alice"]), g.pregame,
             ErrorCode.ENTROPY_ALREADY_REVEALED)


def test_a_party_who_saw_the_others_cannot_join_or_change_his_value() -> None:
    """bob did not commit; after the Procurator and the server revealed he may neither
    commit nor reveal; a committed party cannot swap his value for a better one."""
    g = opened(sealed(drawn_game()))
    g.act(cmd.RevealDealEntropy(actor=PROCURATOR, value=VALUES[PROCURATOR]))
    g.reject(cmd.CommitDealEntropy(actor="bob", digest=value_digest("bob sees and picks")), g.pregame,
             ErrorCode.ENTROPY_CLOSED)
    g.reject(cmd.RevealDealEntropy(actor="bob", value="bob sees and picks"), g.pregame,
             ErrorCode.ENTROPY_NOT_A_PARTY)
    g.reject(cmd.RevealDealEntropy(actor=CONSIGLIERE, value="a better value"), g.pregame,
             ErrorCode.ENTROPY_MISMATCH)


def test_nobody_reveals_before_every_commitment_is_in() -> None:
    """The reveals open only when the Procurator closes the commitments, after the seal."""
    g = drawn_game()
    g.reject(cmd.RevealDealEntropy(actor="alice", value=VALUES["alice"]), g.pregame,
             ErrorCode.ENTROPY_REVEALS_NOT_OPEN)
    g.reject(cmd.OpenDealReveals(actor=PROCURATOR, server_digest=value_digest(SERVER)), g.pregame,
             ErrorCode.DEAL_NOT_SEALED)
    sealed(g)
    g.reject(cmd.OpenDealReveals(actor="alice", server_digest=value_digest(SERVER)), g.pregame,
             ErrorCode.NOT_PROCURATOR)
    g.reject(cmd.NameMafiaNumbers(actor=PROCURATOR, city="Лепроград", numbers=(1, 2)), g.pregame,
             ErrorCode.DEAL_BY_DRAW)


def test_the_procurator_and_the_consigliere_must_commit_before_the_reveals_open() -> None:
    g = Game(TOWN, settings={"deal_method": "commit_reveal"})
    g.recruit()
    g.act(cmd.CommitDealEntropy(actor=PROCURATOR, digest=value_digest("p")))
    g.reject(cmd.CommitDealEntropy(actor=PROCURATOR, digest=value_digest("again")), g.pregame,
             ErrorCode.ENTROPY_ALREADY_COMMITTED)
    g.reject(cmd.CommitDealEntropy(actor="bob", digest="not a digest"), g.pregame,
             ErrorCode.ENTROPY_DIGEST_INVALID)
    g.reject(cmd.CommitDealEntropy(actor="stranger", digest=value_digest("s")), g.pregame,
             ErrorCode.ENTROPY_NOT_A_PARTY)
    sealed(formed(g))
    g.reject(cmd.OpenDealReveals(actor=PROCURATOR, server_digest=value_digest(SERVER)), g.pregame,
             ErrorCode.ENTROPY_PARTIES_MISSING)


def test_the_consigliere_commits_under_his_office_and_is_never_named(  # HOST-CONS-5
) -> None:
    g = opened(sealed(drawn_game()))
    g.act(cmd.RevealDealEntropy(actor=CONSIGLIERE, value=VALUES[CONSIGLIERE]))
    for e in g.table.events:
        if isinstance(e, ev.DealEntropyCommitted | ev.DealEntropyRevealed | ev.DealRevealsOpened):
            assert CONSIGLIERE not in repr(e)
            assert visible_to(e, "bob")


def test_a_by_hand_game_has_no_draw() -> None:
    g = Game(TOWN)
    g.recruit()
    g.reject(cmd.CommitDealEntropy(actor=PROCURATOR, digest=value_digest("p")), g.pregame,
             ErrorCode.DEAL_BY_HAND)
