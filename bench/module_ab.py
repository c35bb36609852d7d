"""A/B of one module in process, for the micro-benchmarks (``broker_publish.py``,
``redis_relay.py``): an earlier version of it loaded beside this tree's, and the blocks'
figures printed with their ratio."""

from __future__ import annotations

import importlib.util
import statistics
import sys
from types import ModuleType


def load_earlier(path: str, package: str) -> ModuleType:
    """The file at ``path`` (e.g. ``git show 6c0972c:src/lepromafia/service/pubsub.py``
    saved) as a module of ``package``, so its relative imports resolve as they did there."""
    name = f"{package}._earlier_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def report(times: dict[str, list[float]], unit: str, blocks: str) -> None:
    """min / median / max per tree, and this ÷ before of the medians."""
    for name, got in times.items():
        print(f"{name}: {min(got):.1f} / {statistics.median(got):.1f} / {max(got):.1f} µs per {unit} "
              f"(min / median / max of {blocks})")
    if "before" in times:
        ratio = statistics.median(times["this"]) / statistics.median(times["before"])
        print(f"this ÷ before (medians): {ratio:.2f}")
