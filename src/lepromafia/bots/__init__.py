"""Automatic players: game set-up helpers, random legal agents, simulation."""
