"""The live stream: one WebSocket per client at ``/ws``."""

from __future__ import annotations

from .endpoint import router

__all__ = ["router"]
