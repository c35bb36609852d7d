"""docs/ux-review-coverage.md stays true: every defect of the usability review (B1, M1–M12,
m1–m13) has a row, and every test a row names exists (a renamed or deleted test fails here)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ux-review-coverage.md"
IDS = ["B1", *(f"M{i}" for i in range(1, 13)), *(f"m{i}" for i in range(1, 14))]


def rows() -> dict[str, str]:
    found = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and cells[1] in IDS:
            found[cells[1]] = cells[3]
    return found


def test_every_review_item_has_a_row_with_a_test() -> None:
    found = rows()
    assert sorted(found, key=IDS.index) == IDS
    for item, evidence in found.items():
        assert "tests/" in evidence, f"{item} names no test"


def test_every_named_test_exists() -> None:
    named: set[tuple[str, str | None]] = set()
    for evidence in rows().values():
        current = None
        for path, test in re.findall(r"`(tests/[\w/]+\.py)?(?:::)?(test_\w+)?`", evidence):
            current = path or current
            if current:
                named.add((current, test or None))
    assert len(named) > 40
    for path, test in sorted(named, key=str):
        source = ROOT / path
        assert source.exists(), path
        if test:
            tree = ast.parse(source.read_text(encoding="utf-8"))
            names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            assert test in names, f"{path}::{test}"
