"""Every console form of a declared host decision posts exactly the fields its command's
derived parser reads (``web/pages/host_decision_forms.build``): a form drawn by its own
template (``bespoke_form``) names each input as the declaration does — the field, the
``inputs`` name for it, a moment's ``_date``/``_time`` pair, a ``none_flag`` checkbox — so
the hand-written builders are gone and the recipe «add a host decision» holds for every
one (issue 9). A template that misspells an input, or a decision whose required field no
form posts, fails here.

Cast: none — the console templates and the engine's registry are read as they are.
"""

from __future__ import annotations

import re
from pathlib import Path

from lepromafia.engine.decision import DECISIONS
from lepromafia.web.pages.forms import ACTIONS
from lepromafia.web.pages.host_decision_forms import field_specs

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "lepromafia" / "web" / "templates"
FORM = re.compile(r'<form[^>]*action="/games/\{\{ game\.id \}\}/(do/\w+|sound/\w+)"(.*?)</form>', re.S)
ROUTES = {"sound/forward": "forward_sound_request", "sound/answer": "answer_sound_request"}
"""The Sound Library page posts to its own routes (they parse with the same ``build``)."""
PAGE_INPUTS = {"csrf_token", "command_id", "next"}


def posted_names(name: str) -> set[str]:
    """What a form of the decision ``name`` may post: each field's input (a moment as a day
    and a time), a ``none_flag`` checkbox."""
    out = set(PAGE_INPUTS)
    for spec, _hint, _optional in field_specs(DECISIONS[name]):
        out |= {spec.posted, f"{spec.posted}_date", f"{spec.posted}_time"}
        if spec.none_flag:
            out.add(spec.none_flag[0])
    return out


def forms() -> list[tuple[str, str, set[str]]]:
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        for target, body in FORM.findall(path.read_text()):
            name = ROUTES.get(target) or target.removeprefix("do/")
            if name in DECISIONS:
                names = set(re.findall(r'name="([a-z_]+)"', body))
                names |= {m for m in re.findall(r"(?:moment|date)_field\('([a-z_]+)'", body)}
                if target.startswith("sound/"):
                    names.discard("city")  # the page it returns to, not the command's
                found.append((path.name, name, names))
    return found


def test_every_bespoke_decision_form_posts_the_declared_fields() -> None:
    drawn = forms()
    bespoke = {d.name for d in DECISIONS.values() if d.bespoke_form}
    # publish_sound_entry: the Sound Library uploads the media first (service.media measures
    # it), then posts the entry; hide_comment: the comment thread's own form (POST-2).
    assert bespoke - {n for _p, n, _f in drawn} <= {"publish_sound_entry", "hide_comment", "reveal_record"}
    for page, name, names in drawn:
        unknown = names - posted_names(name)
        assert not unknown, (page, name, unknown)
        required = {s.posted for s, _h, _o in field_specs(DECISIONS[name]) if s.required and not s.none_flag}
        given = names | {n.removesuffix("_date").removesuffix("_time") for n in names}
        assert required <= given, (page, name, required - given)


def test_no_declared_decision_keeps_a_hand_written_builder() -> None:
    """``forms.ACTIONS`` builds a declared decision's command only from its declaration."""
    own = ACTIONS.own  # type: ignore[attr-defined]
    assert not set(own) & set(DECISIONS), sorted(set(own) & set(DECISIONS))


def test_after_the_game_the_procurator_opens_a_sealed_reason_from_its_generated_form() -> None:
    """IMPEACH-3, §9.4: the impeachment found insignificant seals its reason; while the game
    runs the Procurator's console offers no disclosure; once it has ended, his console's
    generated form «Sealed records» lists the record, a Tribune's does not, and the posted
    form opens it — after which nothing is left to offer.

    Cast: ``tests/engine/host/helpers.town`` — Лепроград, bob and carol sign, alice the
    mafioso is executed and the game ends."""
    from lepromafia.engine.commands_host import DecideImpeachment, SignImpeachment
    from lepromafia.web.pages.host_decision_forms import build, decision_forms

    from ..engine.cast import PROCURATOR, TRIBUNES
    from ..engine.host.helpers import execute, town

    g = town()
    g.to(2, "10:00")
    g.do(SignImpeachment(actor="bob"), 2, "11:00")
    g.do(SignImpeachment(actor="carol"), 2, "11:05")
    g.do(DecideImpeachment(actor=PROCURATOR, impeachment=1, outcome="insignificant",
                           reason="a typo in the schedule, fixed at once"), 2, "11:30")
    assert "reveal_record" not in {f.name for f in decision_forms(g.state, PROCURATOR, "procurator")}
    execute(g, "alice")
    offered = {f.name: f for f in decision_forms(g.state, PROCURATOR, "procurator")}
    (field,) = offered["reveal_record"].fields
    assert field.spec.kind == "select" and [o.value for o in field.options] == ["1"]
    assert "reveal_record" not in {f.name for f in decision_forms(g.state, TRIBUNES[0], "tribune")}
    command = build(DECISIONS["reveal_record"], {"record": "1"}, PROCURATOR)
    g.do(command, 3, "12:00")
    assert g.state.records.sealed[0].opened
    assert "reveal_record" not in {f.name for f in decision_forms(g.state, PROCURATOR, "procurator")}
