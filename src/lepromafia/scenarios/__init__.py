"""Rule scenarios in YAML: load, run, check expectations (docs/scenarios.md)."""
