"""Pages anyone may open: home, rules, register, log in/out, the language switch."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from ...service.accounts import AccountError
from ..api.accounts import client_ip
from ..deps import (
    LANG_COOKIE,
    SESSION_COOKIE,
    CsrfChecked,
    CurrentUser,
    Lang,
    WebDep,
    clear_session_cookie,
    set_session_cookie,
)
from ..errors import describe
from ..i18n import N_
from .common import clear_flash, flash_context, redirect, safe_next
from .render import render
from .rules import SECTIONS
from .views import day_posts, phase_key

router = APIRouter()


def page(request: Request, template: str, lang: str, user: Any, **context: Any) -> Response:
    ctx = {"user": user.user_id if user else None, **flash_context(request), **context}
    response = render(request, template, ctx, lang=lang, status=context.pop("status", 200))
    clear_flash(response, request)
    return response


@router.get("/", include_in_schema=False)
async def home(request: Request, web: WebDep, user: CurrentUser, lang: Lang) -> Response:
    games = []
    for summary in await web.queries.games():
        try:
            current = await web.queries.current(summary.game_id)
        except Exception:  # noqa: S112 - a broken game is the operator's business, not the home page's
            continue
        state = current.state
        posts = day_posts(await web.queries.events(current))
        last = posts[-1][1] if posts else None
        games.append({
            "id": summary.game_id, "title": state.title, "phase": phase_key(state), "day": state.day,
            "signups": len(state.signups), "cities": state.settings.city_count,
            "recruiting": phase_key(state) == "recruiting",
            "last_post": last,
        })
    return page(request, "pages/home.html", lang, user, games=games)


@router.get("/rules", include_in_schema=False)
async def rules(request: Request, user: CurrentUser, lang: Lang) -> Response:
    return page(request, "pages/rules.html", lang, user, sections=SECTIONS)


@router.get("/lang/{code}", include_in_schema=False)
async def switch_lang(code: str, next: str = "/") -> Response:
    response = RedirectResponse(safe_next(next), status_code=303)
    if code in ("ru", "en"):
        response.set_cookie(LANG_COOKIE, code, max_age=31536000, samesite="lax", path="/")
    return response


@router.get("/login", include_in_schema=False)
async def login_form(request: Request, user: CurrentUser, lang: Lang, next: str = "/") -> Response:
    return page(request, "pages/login.html", lang, user, next=safe_next(next), form={})


@router.post("/login", include_in_schema=False, dependencies=[CsrfChecked])
async def login(request: Request, web: WebDep, lang: Lang) -> Response:
    form = await request.form()
    login_name = str(form.get("login", ""))
    nxt = safe_next(str(form.get("next", "/")))
    try:
        session = await web.accounts.login(login_name, str(form.get("password", "")), client_ip(request))
    except AccountError as exc:
        return page(request, "pages/login.html", lang, None, next=nxt, form={"login": login_name},
                    error=describe(exc, lang), status=401)
    response = redirect(nxt, ok=N_("Welcome, {user}!"), ok_fields={"user": session.user.user_id}, lang=lang)
    set_session_cookie(response, session, web.settings)
    return response


@router.get("/register", include_in_schema=False)
async def register_form(request: Request, user: CurrentUser, lang: Lang) -> Response:
    return page(request, "pages/register.html", lang, user, form={})


@router.post("/register", include_in_schema=False, dependencies=[CsrfChecked])
async def register(request: Request, web: WebDep, lang: Lang) -> Response:
    form = await request.form()
    login_name = str(form.get("login", ""))
    password = str(form.get("password", ""))
    display_name = str(form.get("display_name", "")).strip() or None  # m6: any script, Cyrillic too
    try:
        await web.accounts.register(login_name, password, display_name, ip=client_ip(request))
        session = await web.accounts.login(login_name, password, client_ip(request))
    except AccountError as exc:
        return page(request, "pages/register.html", lang, None,
                    form={"login": login_name, "display_name": display_name or ""},
                    error=describe(exc, lang), status=422)
    response = redirect("/", ok=N_("Welcome, {user}!"), ok_fields={"user": session.user.display_name},
                        lang=lang)
    set_session_cookie(response, session, web.settings)
    return response


@router.post("/logout", include_in_schema=False, dependencies=[CsrfChecked])
async def logout(request: Request, web: WebDep, lang: Lang) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await web.accounts.logout(token)
    response = redirect("/", ok=N_("You are logged out."), lang=lang)
    clear_session_cookie(response, web.settings)
    return response

