"""Lepromafia: a multi-city online Mafia game platform."""
