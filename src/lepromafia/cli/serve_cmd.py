"""`lepromafia serve`: the web platform on uvicorn (SQLite by default)."""

from __future__ import annotations

import os

import typer

DEMO_TIME_SCALE = 720.0
"""The demo's game runs 720 times faster: a game day in about two minutes."""


def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on"),
    port: int = typer.Option(8000, min=1, max=65535),
    demo: bool = typer.Option(False, "--demo", help="Create and run the demo games with bots"),
    time_scale: float = typer.Option(0.0, help="Game time speed-up (default 1; the demo 720)"),
) -> None:
    """Serve the web platform: pages, the JSON API (/docs) and the live WebSocket (/ws)."""
    import uvicorn

    from ..web.app import StartupHook, create_app
    from ..web.settings import WebSettings

    overrides: dict[str, object] = {}
    if demo:
        overrides["demo"] = True
        overrides["time_scale"] = time_scale or DEMO_TIME_SCALE
    elif time_scale:
        overrides["time_scale"] = time_scale
    if "LEPROMAFIA_DATABASE_URL" not in os.environ and os.environ.get("DATABASE_URL"):
        overrides["database_url"] = os.environ["DATABASE_URL"]
    settings = WebSettings(**overrides)  # type: ignore[arg-type]
    hooks: list[StartupHook] = []
    if settings.demo:
        from .demo_serve import start_demo

        hooks.append(start_demo)
    app = create_app(settings, startup_hooks=hooks)
    typer.echo(f"Lepromafia on http://{host}:{port}/  (API docs: /docs)")
    uvicorn.run(app, host=host, port=port, log_level="info")
