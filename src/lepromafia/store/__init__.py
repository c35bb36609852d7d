"""The store layer (see docs/architecture.md)."""
