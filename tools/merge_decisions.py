#!/usr/bin/env python3
"""Fold docs/decisions/<area>.md (written by parallel work) into docs/decisions.md."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TITLES = {
    "demo": "Terminal demo", "scenarios": "YAML scenarios", "scenarios2": "Scenarios for engine II",
    "sim": "Simulation and invariants", "sim2": "Simulation of engine II",
    "store-and-service": "Store and service", "hostrules": "Engine II: host-side rules",
    "webcore": "Web core", "webpages": "Web pages", "pages2": "Web pages (second pass)",
    "sound": "Sound Library and archives", "soundpages": "Sound Library and archive pages",
    "consoles": "Host consoles",
}


def main() -> int:
    folder = ROOT / "docs" / "decisions"
    target = ROOT / "docs" / "decisions.md"
    text = target.read_text(encoding="utf-8").rstrip("\n") + "\n"
    for path in sorted(folder.glob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        body = "\n".join(line for line in lines if not line.startswith("# ")).strip("\n")
        title = TITLES.get(path.stem, path.stem)
        text += f"\n## {title}\n\n{body}\n"
        path.unlink()
    target.write_text(text, encoding="utf-8")
    if not any(folder.iterdir()):
        folder.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
