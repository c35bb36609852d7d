"""Every event and command class by its name: what the codec stores and the API routes.

The classes written in the four modules (``events``, ``events_host``, ``commands``,
``commands_host``) and every host decision declared with ``@host_decision``
(``decision.EVENTS``, ``decision.COMMANDS``; a live view, so one declared later is found too).
"""

from __future__ import annotations

import inspect
import types
from collections import ChainMap
from typing import TypeVar

from . import commands, commands_host, events, events_host
from .commands import Command
from .decision import COMMANDS, EVENTS
from .events import Event

T = TypeVar("T")


def defined_in(module: types.ModuleType, base: type[T]) -> dict[str, type[T]]:
    """The subclasses of ``base`` a module defines itself (not the ones it imports)."""
    return {name: cls for name, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, base) and cls is not base and cls.__module__ == module.__name__}


EVENT_TYPES: ChainMap[str, type[Event]] = ChainMap(
    {**defined_in(events, Event), **defined_in(events_host, Event)}, EVENTS)
COMMAND_TYPES: ChainMap[str, type[Command]] = ChainMap(
    {**defined_in(commands, Command), **defined_in(commands_host, Command)}, COMMANDS)
