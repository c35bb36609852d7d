"""`lepromafia keys show | rotate`: the tree-head signing keys (docs/verification.md)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Annotated

import typer

from ..service.transparency_keys import ROTATION_OVERLAP, KeyRing

keys_app = typer.Typer(no_args_is_help=True,
                       help="The Ed25519 keys that sign the verifiable log's tree heads.")


@keys_app.command("show")
def show() -> None:
    """Print the key set as the well-known URL publishes it."""
    print(json.dumps(KeyRing.from_env().published(), indent=2))


@keys_app.command("rotate")
def rotate(
    overlap: Annotated[int, typer.Option(
        min=0, help="seconds the old key stays valid, for workers to pick up the new one")]
    = int(ROTATION_OVERLAP.total_seconds()),
) -> None:
    """Make a new signing key, valid from now; retire the current one after the overlap and
    destroy its private half. Running servers sharing the key file switch by themselves."""
    retired, new = KeyRing.from_env().rotate(overlap=timedelta(seconds=overlap))
    assert retired.valid_until is not None
    print(f"retired {retired.key_id} (valid until {retired.valid_until.isoformat()})")
    print(f"current {new.key_id} (valid from {new.valid_from.isoformat() if new.valid_from else '-'})")
