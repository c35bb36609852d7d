"""The host decisions declared with ``@host_decision`` (``engine/decision.py``), a module per
subject. Each block holds a decision's command, event, decide and evolve rules, its form's
labels and choices and its audit line; nothing else in the engine or above lists it again.

A new subject is one more module here and one more name in ``MODULES``.
"""

from . import (
    cases,
    combination,
    contests,
    delegation,
    discussion,
    mafia_rules,
    relay,
    sanctions,
    sealed_records,
    sound_library,
)

MODULES = (combination, contests, delegation, mafia_rules, sanctions, sealed_records,
           sound_library, cases, relay, discussion)
