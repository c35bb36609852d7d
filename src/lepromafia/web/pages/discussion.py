"""Public discussion under the Recruitment Post and every Day Post (POST-1, POST-2).

Every post's comments sit under it, live (the posts region and the recruitment comments
re-fetch on a comment event, ``regions.py``), with a composer for whoever the engine lets comment and a hide
form with a reason for the Procurator. The engine answers who may comment.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from ...engine.commands import EditMessage
from ...engine.errors import CodedError
from ...engine.rules.posts import edit_refusal
from ...engine.rules.seeds import comment_refusal, posts
from ...engine.seeds import MAX_COMMENT
from ...service.accounts import AccountError
from ...service.discussion import hide_comment, post_comment
from ...service.posts import mentions_of, posts_of, resident_set
from ...service.posts import render as render_post
from ...service.views import InboxView
from ..api.games import scoped
from ..deps import CommandCsrfChecked, CurrentUser, Lang, RequireUser, WebDep
from ..errors import ErrorInfo, WebError, WebErrorCode, describe
from ..i18n import N_, error_message, translate
from .common import GameCtx, game_context, load_game, redirect, rendered_at
from .labels import inbox_label
from .render import render

router = APIRouter()


def anchor(post: str) -> str:
    return "comments-" + post.replace(":", "-")


async def discussion_context(web: Any, game: GameCtx, uid: str | None, lang: str) -> dict[str, Any]:
    """What ``partials/comments.html`` needs for every post of the game."""
    refusal = None
    if uid is not None:
        why = comment_refusal(game.state, uid, game.now)
        refusal = error_message(lang, why) if why else None
        if refusal is None:
            try:
                await web.accounts.check_not_banned(uid)
            except AccountError as exc:
                refusal = error_message(lang, exc)
    residents = resident_set(game.state)
    spoiler = translate(lang, "Spoiler")
    return {
        "comments": await web.queries.comments(game.id, uid, game=game.current),
        "comment_html": lambda text: Markup(render_post(text, residents, spoiler)),  # noqa: S704 - nh3-cleaned (posts.clean)
        "comment_refusal": refusal,
        "comment_max": MAX_COMMENT,
        "comment_anchor": anchor,
        "is_procurator": uid == game.state.procurator,
    }


async def _section(request: Request, web: Any, game: GameCtx, uid: str | None, lang: str, post: str,
                   error: ErrorInfo | None = None, draft: str = "") -> Response:
    ctx = await discussion_context(web, game, uid, lang)
    ctx.update(await game_context(web, request, game, uid, "", unread=False))
    ctx.update(user=uid, post_id=post, comment_error=error, comment_draft=draft)
    return rendered_at(render(request, "partials/comments.html", ctx, lang=lang), ctx)


@router.get("/games/{game_id}/posts/{post}/comments", include_in_schema=False)
async def comments_part(request: Request, game_id: str, post: str, web: WebDep, user: CurrentUser,
                        lang: Lang) -> Response:
    """The live region of one post's comments."""
    game = await load_game(web, game_id)
    if post not in posts(game.state):
        raise WebError(WebErrorCode.NOT_FOUND, what=post)
    return await _section(request, web, game, user.user_id if user else None, lang, post)


@router.post("/games/{game_id}/posts/{post}/comments", include_in_schema=False,
             dependencies=[CommandCsrfChecked])
async def comment(request: Request, game_id: str, post: str, web: WebDep, user: RequireUser,
                  lang: Lang) -> Response:
    """POST-1, POST-2: one comment; an error comes back next to the composer, text kept."""
    form = await request.form()
    body = str(form.get("text") or "")
    error = None
    try:
        command_id = scoped(user.user_id, str(form.get("command_id") or secrets.token_hex(8)))
        await post_comment(web.service, web.accounts, game_id, user.user_id, post, body, command_id)
    except CodedError as exc:
        error = describe(exc, lang)
    if request.headers.get("hx-request"):
        game = await load_game(web, game_id)
        return await _section(request, web, game, user.user_id, lang, post, error,
                              body if error else "")
    back = f"/games/{game_id}#{anchor(post)}"
    if error is not None:
        return redirect(back, error=error, draft=body, lang=lang)
    return redirect(back, ok=N_("Your comment is posted."), lang=lang)


@router.post("/games/{game_id}/comments/{number}/hide", include_in_schema=False,
             dependencies=[CommandCsrfChecked])
async def hide(request: Request, game_id: str, number: int, web: WebDep, user: RequireUser,
               lang: Lang) -> Response:
    """POST-2: the Procurator hides a comment, with a reason everybody reads in its place."""
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    back = f"/games/{game_id}#{re.sub(r'[^a-z0-9-]', '', form.get('anchor', '')) or 'recruitment'}"
    try:
        command_id = scoped(user.user_id, str(form.get("command_id") or secrets.token_hex(8)))
        await hide_comment(web.service, game_id, user.user_id, number, form.get("reason", ""),
                           command_id)
    except CodedError as exc:
        return redirect(back, error=describe(exc, lang), lang=lang)
    return redirect(back, ok=N_("The comment is hidden."), lang=lang)


# --- posts in the inboxes: rendered Markdown, mentions, edits ------------------------


async def thread(web: Any, game: GameCtx, found: InboxView, uid: str, lang: str) -> list[dict[str, Any]]:
    """An inbox's messages as ``partials/messages.html`` shows them: each version rendered
    once (``service.posts``), his own editable ones marked by the engine's answer, the ones
    that mention him marked for him."""
    s = game.state
    residents = resident_set(s)
    hosts = s.hosts()
    out = []
    for post in posts_of(found.messages, residents, translate(lang, "Spoiler")):
        mine = post.author == uid
        out.append({
            "seq": post.number, "author": post.author, "label": author_label(lang, post.author),
            "text": post.text, "html": Markup(post.html),  # noqa: S704 - nh3-cleaned (posts.clean)
            "at": datetime.fromisoformat(post.at), "host": post.author in hosts,
            "keyword": found.keywords_only, "mine": mine,
            "editable": mine and edit_refusal(s, found.inbox, post.number, uid, game.now) is None,
            "mentions_me": uid in post.mentions and not mine,
            "mentions": sorted(post.mentions),
            "edited_at": datetime.fromisoformat(post.edited_at) if post.edited_at else None,
            "versions": [{"html": Markup(v.html), "at": datetime.fromisoformat(v.at)}  # noqa: S704
                         for v in post.versions],
        })
    return out


def author_label(lang: str, author: str) -> str:
    """An author as readers see him: a user, or an office's or the notary's name."""
    if author == "consigliere":
        return translate(lang, "Consigliere")
    if author == "notary":  # INBOX-NOTARY-2: sealed content, its organizer unnamed
        return translate(lang, "Certified")
    if author.startswith("commissar:"):
        return translate(lang, "Commissar of {city}", city=author.partition(":")[2])
    return author


@router.post("/games/{game_id}/inboxes/{inbox_id:path}/messages/{number}/edit",
             include_in_schema=False, dependencies=[CommandCsrfChecked])
async def edit(request: Request, game_id: str, inbox_id: str, number: int, web: WebDep,
               user: RequireUser, lang: Lang) -> Response:
    """A new version of one's own message; the earlier ones stay readable beside it."""
    form = await request.form()
    body = str(form.get("text") or "")
    back = f"/games/{game_id}/inboxes/{inbox_id}#m{number}"
    action = f"/games/{game_id}/inboxes/{quote(inbox_id, safe='/')}/messages/{number}/edit"
    try:
        command_id = scoped(user.user_id, str(form.get("command_id") or secrets.token_hex(8)))
        await web.service.execute(game_id, EditMessage(actor=user.user_id, inbox=inbox_id,
                                                       number=number, text=body), command_id)
    except CodedError as exc:  # beside the edit form (live.js), the new text kept in it
        return redirect(back, error=describe(exc, lang, field="text"), form={"text": body},
                        action=action, lang=lang)
    return redirect(back, ok=N_("Your message is edited; the earlier version stays visible."),
                    lang=lang)


@router.get("/games/{game_id}/mentions", include_in_schema=False)
async def mentions_page(request: Request, game_id: str, web: WebDep, user: RequireUser,
                        lang: Lang) -> Response:
    """Every message that mentions the viewer (@login), in the inboxes he may read."""
    from .game import game_page  # the page frame lives beside the game page

    game = await load_game(web, game_id)
    found = await mentions_of(web.queries, game.current, user.user_id,
                              translate(lang, "Spoiler"))
    rows = [{"inbox": m.inbox, "label": inbox_label(lang, game.state, m.inbox, user.user_id),
             "seq": m.post.number, "author": author_label(lang, m.post.author),
             "at": datetime.fromisoformat(m.post.at), "html": Markup(m.post.html)}  # noqa: S704
            for m in found]
    return await game_page(request, web, user, lang, game, "mentions", "pages/mentions.html",
                           mentions=rows)
