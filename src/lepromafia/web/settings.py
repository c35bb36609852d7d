"""The one settings object of every command (``serve`` and the operator commands alike),
read from the environment with the prefix ``LEPROMAFIA_``: ``LEPROMAFIA_DATABASE_URL``,
``LEPROMAFIA_SECRET_KEY``, ``LEPROMAFIA_ENVIRONMENT=prod``, …

Precedence, highest first: values passed in code (command-line options), ``LEPROMAFIA_*``,
then the conventional ``DATABASE_URL`` / ``DATABASE_SCHEMA`` (accepted as aliases, as
hosting platforms set them), then the defaults. docs/deploy.md lists the ones that matter."""

from __future__ import annotations

import base64
import hashlib
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..store.database import DEFAULT_URL, DatabaseConfig

DEV_SECRET = "dev-secret-change-me"  # noqa: S105 - the refused-in-production default


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LEPROMAFIA_", extra="ignore", populate_by_name=True)

    environment: Literal["dev", "prod"] = "dev"
    database_url: str = Field(default=DEFAULT_URL, validation_alias=AliasChoices(
        "LEPROMAFIA_DATABASE_URL", "DATABASE_URL"))
    database_schema: str | None = Field(default=None, validation_alias=AliasChoices(
        "LEPROMAFIA_DATABASE_SCHEMA", "DATABASE_SCHEMA"))
    secret_key: SecretStr = SecretStr(DEV_SECRET)
    """Signs CSRF tokens. Refused at its default outside dev."""
    contact_key: SecretStr | None = None
    """A Fernet key for contact details at rest; in dev derived from the secret key."""
    demo: bool = False
    time_scale: float = 1.0
    """Game time runs this many times faster (the demo's accelerated game)."""
    session_ttl_hours: float = 14 * 24
    session_idle_hours: float = 48
    """A session unused this long expires, within the ``session_ttl_hours`` maximum."""
    login_max_failures: int = 5
    """Failed logins per login and address in the window; then 429."""
    login_max_failures_per_account: int = 10
    login_max_failures_per_ip: int = 30
    login_window_minutes: float = 15
    registrations_per_ip_per_hour: int = 20
    redis_url: str | None = None
    """Set when several workers serve the same games (pub/sub through Redis)."""
    max_body_bytes: int = 256 * 1024
    """A 20,000-character post in Cyrillic is ~120 KB form-encoded; emoji up to ~240 KB."""
    max_upload_bytes: int = 50 * 1024 * 1024
    """Sound Library media uploads only (the media store checks its own cap too)."""
    ws_buffer: int = 512
    """Events queued for one WebSocket before it is dropped with ``resync``."""
    cached_games: int = 128
    """Games whose events this process keeps in memory (the least recently read goes)."""
    warm_up: bool = True
    """After start-up, load the games in progress in the background (``service.warmup``)."""
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 64 * 1024
    cookie_secure: bool = False
    auto_migrate: bool = True
    sweep_interval: float = 1.0
    writer_lanes: int | None = Field(default=None, ge=1, le=64)
    """Writer lanes per worker, each committing its games' queued commands in one
    transaction (None: one, whose batches are the biggest; docs/deploy.md)."""
    allowed_origins: list[str] = []
    """Extra origins (``https://example.org``) allowed to open /ws besides the site itself."""
    base_url: str = "http://127.0.0.1:8000"
    """The site's address in links sent outside it (e-mail, push, Telegram)."""
    notify_dispatch: bool = True
    """Run the notification dispatcher in this process (docs/notifications.md)."""
    smtp_url: str | None = None
    mail_from: str = "Lepromafia <noreply@localhost>"
    telegram_token: SecretStr | None = None
    telegram_api: str = "https://api.telegram.org"
    vapid_secret: SecretStr | None = None
    """Seeds the Web Push VAPID key pair; in dev derived from the secret key."""
    vapid_subject: str = "mailto:admin@localhost"
    session_cache_seconds: float = 300.0
    """How long a resolved session is answered from memory (0: every request reads it).
    Logout and expiry drop it at once in this process and, through Redis, in the others; a
    worker whose Redis subscription was lost forgets every cached session when it is back.
    Only an eviction that failed to reach Redis leaves another worker accepting a
    logged-out session, for at most this long (docs/decisions/ops.md)."""
    gc_freeze: bool = True
    """Freeze the objects alive after start-up out of the garbage collector's scans
    (``gc.freeze``; docs/decisions/http.md), and each full collection's survivors out of
    the next ones' (``observability.FreezeSurvivors``)."""
    gc_thaw_hours: float = Field(default=6.0, gt=0)
    """How often the frozen survivors are thawed, so that one full collection frees the
    reference cycles that died among them (one long pause per period)."""
    log_format: Literal["json", "console"] = "json"
    """One JSON line per request and command (``console``: the same, readable)."""
    log_level: str = "info"
    metrics: bool = True
    """Serve Prometheus metrics at ``/metrics`` (restrict it at the proxy: docs/deploy.md)."""

    @model_validator(mode="after")
    def _refuse_dev_defaults_in_prod(self) -> Settings:
        if self.environment != "dev":
            if self.secret_key.get_secret_value() == DEV_SECRET or len(self.secret_key) < 16:
                raise ValueError("LEPROMAFIA_SECRET_KEY must be set (16+ characters) outside dev")
            if self.contact_key is None:
                raise ValueError("LEPROMAFIA_CONTACT_KEY (a Fernet key) must be set outside dev")
        if self.time_scale <= 0:
            raise ValueError("time_scale must be positive")
        return self

    @property
    def database(self) -> DatabaseConfig:
        return DatabaseConfig(self.database_url, self.database_schema or None)

    def fernet_key(self) -> bytes:
        if self.contact_key is not None:
            return self.contact_key.get_secret_value().encode()
        digest = hashlib.sha256(b"contacts:" + self.secret_key.get_secret_value().encode()).digest()
        return base64.urlsafe_b64encode(digest)

    def signing_key(self) -> bytes:
        return self.secret_key.get_secret_value().encode()

    def vapid_keys(self) -> tuple[str, str]:
        from ..service.notify.channels import vapid_keys

        seed = self.vapid_secret or self.secret_key
        return vapid_keys(seed.get_secret_value().encode())

    def vapid_public_key(self) -> str:
        return self.vapid_keys()[1]

WebSettings = Settings
"""The name the web layer has always used for it."""
