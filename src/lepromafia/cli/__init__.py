"""The `lepromafia` command."""
