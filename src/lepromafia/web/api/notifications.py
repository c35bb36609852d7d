"""Notifications over JSON (issue 13): the in-app list and unread count, marking read,
the VAPID key and a browser's push subscription."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ..deps import Lang, RequireUser, WebDep
from .models import ERRORS, MAX_INT

router = APIRouter(tags=["notifications"], responses=ERRORS)


class NotificationOut(BaseModel):
    id: int
    game_id: str
    kind: str
    text: str
    unread: bool
    created_real: float


class CountOut(BaseModel):
    unread: int


class ReadBody(BaseModel):
    upto: int | None = Field(None, ge=0, le=MAX_INT)
    """Mark read up to this notification id (bounded: F1-1, the store's INTEGER)."""


class PushKeys(BaseModel):
    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)


class PushBody(BaseModel):
    endpoint: str = Field(max_length=1000)
    keys: PushKeys


class PushKeyOut(BaseModel):
    key: str


@router.get("/notifications")
async def list_notifications(web: WebDep, user: RequireUser, lang: Lang) -> list[NotificationOut]:
    """The viewer's notifications, newest first, in his language (the in-app text)."""
    assert web.notify is not None
    found = await web.notify.notifications(user.user_id, lang)
    return [NotificationOut(id=n.id, game_id=n.game_id, kind=n.kind, text=n.text, unread=n.unread,
                            created_real=n.created_real) for n in found]


@router.get("/notifications/count")
async def count(web: WebDep, user: RequireUser) -> CountOut:
    assert web.notify is not None
    return CountOut(unread=await web.notify.unread(user.user_id))


@router.post("/notifications/read", status_code=204)
async def mark_read(body: ReadBody, web: WebDep, user: RequireUser) -> None:
    assert web.notify is not None
    await web.notify.mark_read(user.user_id, body.upto)


@router.get("/push/key")
async def push_key(web: WebDep) -> PushKeyOut:
    """The VAPID public key (``applicationServerKey``)."""
    return PushKeyOut(key=web.settings.vapid_public_key())


@router.post("/push/subscriptions", status_code=204)
async def subscribe(body: PushBody, web: WebDep, user: RequireUser) -> None:
    assert web.notify is not None
    await web.notify.subscribe_push(user.user_id, body.endpoint, body.keys.p256dh, body.keys.auth)


@router.post("/push/unsubscribe", status_code=204)
async def unsubscribe(body: PushBody, web: WebDep, user: RequireUser) -> None:
    assert web.notify is not None
    await web.notify.unsubscribe_push(user.user_id, body.endpoint)
