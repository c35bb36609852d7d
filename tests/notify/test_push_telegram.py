"""Web Push and Telegram against local stand-ins on this machine: a push endpoint that
decrypts the dispatcher's RFC 8291 request with the subscription's keys (http_ece) and
checks its VAPID authorization, then answers 410 (the subscription is removed); a Bot
API stand-in that links a chat with the account page's one-time token and receives the
notification."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from typing import Any

import http_ece
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import FastAPI, Request, Response

from lepromafia.service.notify.channels import Outgoing, PushSender, TelegramSender, vapid_keys
from lepromafia.service.notify.service import NotifyService
from lepromafia.service.service import GameService
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore

from ..service.helpers import run, setup_game, small_cast, sqlite_config
from .helpers import free_port, tr


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class Server:
    def __init__(self, app: FastAPI) -> None:
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(5)


def test_web_push_is_encrypted_for_the_subscription_and_a_gone_one_is_removed(tmp_path) -> None:
    receiver = ec.generate_private_key(ec.SECP256R1())
    auth = os.urandom(16)
    public = receiver.public_key().public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.UncompressedPoint)
    got: list[dict[str, Any]] = []
    app = FastAPI()

    @app.post("/push/{sub}")
    async def endpoint(sub: str, request: Request) -> Response:
        body = await request.body()
        plain = http_ece.decrypt(body, private_key=receiver, auth_secret=auth, version="aes128gcm")
        got.append({"sub": sub, "data": json.loads(plain), "auth": request.headers.get("authorization", ""),
                    "topic": request.headers.get("topic")})
        return Response(status_code=201 if sub == "live" else 410)

    private, _public = vapid_keys(b"test-secret")
    sender = PushSender(private, "mailto:ops@notify.test")
    config = sqlite_config(tmp_path)

    async def scenario(port: int) -> list[dict[str, Any]]:
        await upgrade(config)
        svc = GameService(EventStore.open(config))
        store = NotifyStore(svc.store)
        from lepromafia.service.notify.channels import Gone

        for sub in ("live", "gone"):
            await store.add_push({"endpoint": f"http://127.0.0.1:{port}/push/{sub}", "user_id": "ana",
                                  "p256dh": b64(public), "auth": b64(auth), "created_real": 0.0})
        message = Outgoing(key="k1", address=f"http://127.0.0.1:{port}/push/live", subject="Lepromafia",
                           text="В игре «Т» для вас новое сообщение", link="http://x/notifications",
                           extra={"p256dh": b64(public), "auth": b64(auth)})
        await sender.send(message)
        try:
            await sender.send(Outgoing(**{**message.__dict__, "address": f"http://127.0.0.1:{port}/push/gone"}))
        except Gone:
            await store.drop_push(f"http://127.0.0.1:{port}/push/gone")
        left = await store.push_of(["ana"])
        await svc.store.close()
        return left

    with Server(app) as server:
        left = run(scenario(server.port))
    assert got[0]["data"] == {"title": "Lepromafia", "body": "В игре «Т» для вас новое сообщение",
                              "url": "http://x/notifications"}
    assert got[0]["auth"].startswith("vapid t=") and got[0]["topic"]
    assert [r["endpoint"].rsplit("/", 1)[1] for r in left] == ["live"], "the gone subscription is removed"


def test_telegram_link_with_a_one_time_token_and_a_message(tmp_path) -> None:
    sent: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    app = FastAPI()

    @app.post("/bot{token}/{method}")
    async def bot(token: str, method: str, request: Request) -> dict[str, Any]:
        if token != "T0KEN":
            return {"ok": False, "error_code": 401, "description": "Unauthorized"}
        body = await request.json()
        if method == "getUpdates":
            return {"ok": True, "result": [u for u in updates if u["update_id"] >= body.get("offset", 0)]}
        if method == "sendMessage":
            if str(body["chat_id"]) == "666":
                return {"ok": False, "error_code": 403, "description": "Forbidden: bot was blocked"}
            sent.append(body)
            return {"ok": True, "result": {"message_id": len(sent)}}
        return {"ok": False, "error_code": 404, "description": "Not Found"}

    config = sqlite_config(tmp_path)

    async def scenario(port: int) -> tuple[str | None, str | None]:
        from lepromafia.service.notify.channels import Permanent

        await upgrade(config)
        svc = GameService(EventStore.open(config))
        await svc.start(sweep=False)
        await setup_game(svc, "g", small_cast())
        store = NotifyStore(svc.store)
        sender = TelegramSender("T0KEN", f"http://127.0.0.1:{port}")
        service = NotifyService(store, svc.clock, tr, {"telegram": sender})
        token = await service.telegram_token("ana")
        updates.append({"update_id": 7, "message": {"text": "/start wrong", "chat": {"id": 41}}})
        updates.append({"update_id": 8, "message": {"text": f"/start {token}", "chat": {"id": 42}}})
        offset = await service.poll_telegram(0)
        assert offset == 9
        chat = (await service.profile("ana")).telegram_chat
        reused = await service.link_telegram(token, "43")  # one-time: the token is spent
        await sender.send(Outgoing(key="k", address="42", subject="s", text="В игре «Т» для вас новое сообщение",
                                   link="http://x/notifications"))
        try:
            await sender.send(Outgoing(key="k2", address="666", subject="s", text="t", link="l"))
        except Permanent:
            pass
        else:
            raise AssertionError("a blocked chat is a permanent failure")
        await svc.close()
        return chat, reused

    with Server(app) as server:
        chat, reused = run(scenario(server.port))
    assert chat == "42" and reused is None
    assert sent[-1] == {"chat_id": "42", "text": "В игре «Т» для вас новое сообщение\nhttp://x/notifications",
                        "disable_web_page_preview": True}
