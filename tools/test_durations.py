"""Write tests/durations.json (seconds per test file) from a JUnit report, so `make test`
hands the longest files to the xdist workers first (tests/conftest.py).

    make test   # writes var/junit.xml
    .venv/bin/python tools/test_durations.py var/junit.xml

Only the order matters: figures from a loaded machine are as good as an idle one's.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "durations.json"


def main(junit: str) -> None:
    seconds: Counter[str] = Counter()
    for case in ET.parse(junit).iter("testcase"):  # noqa: S314 (our own test report)
        module = case.get("classname", "")
        path = "/".join(module.split(".")) + ".py"
        while path.count("/") and not Path(path).exists():  # a test class: drop its name
            path = path.rsplit("/", 1)[0] + ".py"
        seconds[path] += float(case.get("time") or 0)
    ordered = {path: round(s, 1) for path, s in seconds.most_common()}
    OUT.write_text(json.dumps(ordered, indent=1) + "\n")
    sys.stdout.write(f"{len(ordered)} test files, {sum(ordered.values()):.0f} s in all -> {OUT}\n")


if __name__ == "__main__":
    main(sys.argv[1])
