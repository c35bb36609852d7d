"""A whole lab run: play the sweep where asked, write the report, return its summary."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from .report import summarize, write
from .runner import Progress, run_dask, run_local
from .sweep import Sweep


def run(sweep: Sweep, out: Path, workers: int | None = None, dask: str | None = None,
        progress: Progress | None = None) -> tuple[dict[str, Any], Path]:
    """``dask``: None plays on local processes; "local" on a Dask ``LocalCluster``; any other
    text is a scheduler address (``tcp://host:8786``)."""
    jobs = sweep.jobs()
    started = time.perf_counter()
    if dask is None:
        width = workers or os.cpu_count() or 1
        records = run_local(jobs, width, progress)
        where = f"{width} local process{'es' if width > 1 else ''}"
    else:
        address = None if dask == "local" else dask
        records = run_dask(jobs, address, workers, progress)
        where = f"Dask ({dask})"
    played = len(records)
    base = [r for r in records if r["label"] == "baseline"]
    for copy in sweep.copies():
        records += [{**r, "label": copy.label, "setting": copy.setting, "value": copy.value} for r in base]
    summary = summarize(sweep, records, time.perf_counter() - started, where)
    summary["played"] = played
    return summary, write(out, summary, records)
