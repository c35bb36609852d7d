#!/usr/bin/env python3
"""Drop duplicate entries from .po catalogs, as a union merge leaves them (``*.po
merge=union`` in .gitattributes): the first translated copy of each msgid stays.

Usage: python tools/po_dedupe.py FILE.po ...   (``make i18n`` runs it first)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

KEY = re.compile(r'^(msgctxt "(?:[^"\\]|\\.)*"\n)?msgid "(?:[^"\\]|\\.)*"(?:\n"(?:[^"\\]|\\.)*")*', re.M)


def entries(text: str) -> list[str]:
    return [block for block in re.split(r"\n{2,}", text.strip("\n")) if block.strip()]


def key(block: str) -> str | None:
    body = "\n".join(line for line in block.splitlines() if not line.startswith("#"))
    found = KEY.search(body)
    return found.group(0) if found else None


def translated(block: str) -> bool:
    """Untranslated: the entry ends in an empty ``msgstr ""`` with no continuation lines."""
    return block.rstrip().splitlines()[-1] != 'msgstr ""'


def dedupe(text: str) -> str:
    kept: dict[str, int] = {}
    out: list[str] = []
    for block in entries(text):
        k = key(block)
        if k is None or k not in kept:
            if k is not None:
                kept[k] = len(out)
            out.append(block)
        elif translated(block) and not translated(out[kept[k]]):
            out[kept[k]] = block
    return "\n\n".join(out) + "\n"


def main(paths: list[str]) -> int:
    for name in paths:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        fixed = dedupe(text)
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
