"""docs/rules-coverage.md (rule → tests) is generated from this suite and kept current."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_rules_coverage_document_is_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "rules_coverage_doc.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_enforce_and_host_rule_is_cited():
    text = (ROOT / "docs" / "rules-coverage.md").read_text(encoding="utf-8")
    assert "[ENFORCE] 263/263 cited" in text and "[HOST] 37/37 cited" in text
