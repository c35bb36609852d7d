"""Command handlers, one module per rule group. ``decide`` dispatches to them."""
