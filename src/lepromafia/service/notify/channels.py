"""The external channels: e-mail (aiosmtplib), Telegram (Bot API over httpx), Web Push
(pywebpush with VAPID). Each ``send`` raises ``Transient`` (retried with backoff),
``Permanent`` (a bounce, a refusal: dead-lettered at once) or ``Gone`` (the address no
longer exists: a push subscription is removed). Every send carries the delivery's
idempotency key: the e-mail's Message-ID, the push message's Topic.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any, Protocol
from urllib.parse import unquote, urlparse

import aiosmtplib
import httpx


class Transient(Exception):
    """Try again later."""


class Permanent(Exception):
    """Retrying cannot help (a 5xx bounce, a refused chat)."""


class Gone(Exception):
    """The address is gone for good (an expired push subscription)."""


@dataclass(frozen=True)
class Outgoing:
    key: str
    """The idempotency key of this delivery (the same on every retry)."""
    address: str
    subject: str
    text: str
    link: str
    html: str = ""
    unsubscribe: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Sender(Protocol):
    name: str

    async def send(self, message: Outgoing) -> None: ...


def message_id(key: str) -> str:
    return f"<{hashlib.sha256(key.encode()).hexdigest()[:40]}@lepromafia>"


class EmailSender:
    """``LEPROMAFIA_SMTP_URL`` (smtp://host:port, smtps:// for TLS, user:password@ optional)
    and ``LEPROMAFIA_MAIL_FROM``."""

    name = "email"

    def __init__(self, url: str, sender: str, timeout: float = 20.0) -> None:
        parsed = urlparse(url)
        if parsed.scheme not in ("smtp", "smtps") or not parsed.hostname:
            raise ValueError(f"LEPROMAFIA_SMTP_URL must be smtp://host:port, not {url!r}")
        self.host = parsed.hostname
        self.port = parsed.port or (465 if parsed.scheme == "smtps" else 25)
        self.tls = parsed.scheme == "smtps"
        self.user = unquote(parsed.username) if parsed.username else None
        self.password = unquote(parsed.password) if parsed.password else None
        self.sender = sender
        self.timeout = timeout
        self._client: aiosmtplib.SMTP | None = None
        self._lock = asyncio.Lock()

    def build(self, m: Outgoing) -> EmailMessage:
        mail = EmailMessage()
        mail["From"] = self.sender
        mail["To"] = m.address
        mail["Subject"] = m.subject
        mail["Message-ID"] = message_id(m.key)
        mail["Auto-Submitted"] = "auto-generated"
        if m.unsubscribe:
            mail["List-Unsubscribe"] = f"<{m.unsubscribe}>"
            mail["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        mail.set_content(f"{m.text}\n\n{m.link}\n" + (f"\n{m.unsubscribe}\n" if m.unsubscribe else ""))
        if m.html:
            mail.add_alternative(m.html, subtype="html")
        return mail

    async def send(self, m: Outgoing) -> None:
        """One message over the sender's SMTP session, opened on first use and kept for the
        next ones (a batch of reminders is one connection, not one each). A session the
        server has closed meanwhile is reopened once; any refusal or failure ends it."""
        message = self.build(m)
        async with self._lock:
            for fresh in (self._client is None, True):
                try:
                    client = await self._session()
                    await client.send_message(message)
                    return
                except aiosmtplib.SMTPServerDisconnected as exc:
                    await self.close()
                    if fresh:
                        raise Transient(str(exc) or type(exc).__name__) from exc
                except aiosmtplib.SMTPRecipientsRefused as exc:
                    await self.close()
                    raise Permanent(str(exc)) from exc
                except aiosmtplib.SMTPResponseException as exc:
                    await self.close()
                    if 500 <= exc.code < 600:
                        raise Permanent(f"{exc.code} {exc.message}") from exc
                    raise Transient(f"{exc.code} {exc.message}") from exc
                except (TimeoutError, aiosmtplib.SMTPException, OSError) as exc:
                    await self.close()
                    raise Transient(str(exc) or type(exc).__name__) from exc

    async def _session(self) -> aiosmtplib.SMTP:
        if self._client is None or not self._client.is_connected:
            client = aiosmtplib.SMTP(hostname=self.host, port=self.port, use_tls=self.tls,
                                     timeout=self.timeout, start_tls=False if not self.tls else None)
            await client.connect()
            if self.user and self.password:
                await client.login(self.user, self.password)
            self._client = client
        return self._client

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and client.is_connected:
            try:
                await client.quit()
            except (TimeoutError, aiosmtplib.SMTPException, OSError):
                client.close()


class TelegramSender:
    """The Bot API's ``sendMessage`` at a configurable base URL (``LEPROMAFIA_TELEGRAM_API``,
    default the real one) with ``LEPROMAFIA_TELEGRAM_TOKEN``."""

    name = "telegram"

    def __init__(self, token: str, base_url: str = "https://api.telegram.org",
                 timeout: float = 20.0) -> None:
        self.token = token
        self.base = base_url.rstrip("/")
        self.timeout = timeout

    def _url(self, method: str) -> str:
        return f"{self.base}/bot{self.token}/{method}"

    async def call(self, method: str, **payload: Any) -> Any:
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as client:
                response = await client.post(self._url(method), json=payload)
        except httpx.HTTPError as exc:
            raise Transient(str(exc) or type(exc).__name__) from exc
        try:
            body = response.json()
        except ValueError as exc:
            raise Transient(f"HTTP {response.status_code}") from exc
        if body.get("ok"):
            return body.get("result")
        code = int(body.get("error_code") or response.status_code)
        text = f"{code} {body.get('description', '')}".strip()
        if code == 429 or code >= 500:
            raise Transient(text)
        raise Permanent(text)

    async def send(self, m: Outgoing) -> None:
        await self.call("sendMessage", chat_id=m.address, text=f"{m.text}\n{m.link}",
                        disable_web_page_preview=True)

    async def updates(self, offset: int) -> list[dict[str, Any]]:
        result = await self.call("getUpdates", offset=offset, timeout=0)
        return list(result or [])


def push_payload(m: Outgoing) -> str:
    """What a push carries to the service worker (``static/js/sw.js``): already the words
    a lock screen may show."""
    return json.dumps({"title": m.subject, "body": m.text, "url": m.link}, ensure_ascii=False)


class PushSender:
    """RFC 8030/8291 Web Push with VAPID (pywebpush); the subscription's keys travel in
    ``extra`` (p256dh, auth)."""

    name = "push"

    def __init__(self, private_key: str, subject: str, ttl: int = 12 * 3600) -> None:
        self.private_key = private_key
        self.subject = subject
        self.ttl = ttl

    async def send(self, m: Outgoing) -> None:
        from pywebpush import WebPushException, webpush

        info = {"endpoint": m.address, "keys": {"p256dh": m.extra["p256dh"], "auth": m.extra["auth"]}}
        data = push_payload(m)
        topic = base64.urlsafe_b64encode(hashlib.sha256(m.key.encode()).digest()[:24]).decode().rstrip("=")

        def post() -> Any:
            return webpush(info, data=data, vapid_private_key=self.private_key,
                           vapid_claims={"sub": self.subject}, ttl=self.ttl,
                           headers={"Topic": topic, "Urgency": "normal"}, timeout=20)
        try:
            await asyncio.to_thread(post)
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else 0
            if status in (404, 410):
                raise Gone(f"{status}") from exc
            if status == 429 or status >= 500 or status == 0:
                raise Transient(f"{status} {exc}") from exc
            raise Permanent(f"{status} {exc}") from exc
        except OSError as exc:
            raise Transient(str(exc)) from exc


def vapid_keys(seed: bytes) -> tuple[str, str]:
    """A VAPID key pair derived from a secret: (private key as base64url DER, the public
    key as the browser's applicationServerKey, base64url of the uncompressed point)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    scalar = int.from_bytes(hashlib.sha256(b"vapid:" + seed).digest(), "big") % (2**255) + 1
    key = ec.derive_private_key(scalar, ec.SECP256R1())
    der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    point = key.public_key().public_bytes(serialization.Encoding.X962,
                                          serialization.PublicFormat.UncompressedPoint)
    return _b64(der), _b64(point)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")
