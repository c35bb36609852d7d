"""Strategy bots: players that reason from what their seat may see (issue 15).

``knowledge`` keeps the game's events and lets each seat read them only through
``engine.visibility.visible_to``; ``beliefs`` turns one seat's view into suspicions;
``players`` drives every seat of a game with those beliefs at a skill level per side.
"""

from .players import Skills, StrategyBots

__all__ = ["Skills", "StrategyBots"]
