"""Spread a sweep's games over the cores (``concurrent.futures``) or a Dask cluster.

Games are sent in batches (one task plays several), results come back as plain dicts in
any order and are sorted back into the sweep's order. Nothing home-made: a process pool
here, ``dask.distributed.Client`` there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from .games import play_batch
from .sweep import Job

Progress = Callable[[int, int], None]
"""Called with (games done, games in all) as batches finish."""


def batches(jobs: list[Job], size: int) -> Iterator[list[Job]]:
    for start in range(0, len(jobs), size):
        yield jobs[start:start + size]


def batch_size(jobs: int, workers: int) -> int:
    """About eight tasks per worker: load stays even, overhead small."""
    return max(1, min(25, jobs // max(1, 8 * workers)))


def run_local(jobs: list[Job], workers: int | None = None,
              progress: Progress | None = None) -> list[dict[str, Any]]:
    """Play every job on ``workers`` processes (default: every core); 1 plays in this process."""
    workers = workers or os.cpu_count() or 1
    results: list[dict[str, Any]] = []
    if workers == 1:
        for batch in batches(jobs, 10):
            results.extend(play_batch(batch))
            if progress:
                progress(len(results), len(jobs))
        return _ordered(results)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(play_batch, b) for b in batches(jobs, batch_size(len(jobs), workers))]
        for future in as_completed(futures):
            results.extend(future.result())
            if progress:
                progress(len(results), len(jobs))
    return _ordered(results)


def run_dask(jobs: list[Job], address: str | None = None, workers: int | None = None,
             progress: Progress | None = None) -> list[dict[str, Any]]:
    """Play every job on a Dask cluster: the scheduler at ``address``, or a ``LocalCluster``
    of ``workers`` processes started (and stopped) here when no address is given."""
    from dask.distributed import Client, LocalCluster
    from dask.distributed import as_completed as dask_completed

    cluster = None
    if address is None:
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
            processes=True, dashboard_address=None)
    client = Client(address or cluster)  # type: ignore[no-untyped-call]
    try:
        width = max(1, len(client.scheduler_info().get("workers", {})))
        futures = [client.submit(play_batch, b, pure=False)
                   for b in batches(jobs, batch_size(len(jobs), width))]
        results: list[dict[str, Any]] = []
        for future in dask_completed(futures):  # type: ignore[no-untyped-call]
            results.extend(future.result())
            if progress:
                progress(len(results), len(jobs))
        return _ordered(results)
    finally:
        client.close()  # type: ignore[no-untyped-call]
        if cluster is not None:
            cluster.close()


def _ordered(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(results, key=lambda r: (r["label"] != "baseline", r["setting"], r["value"], r["index"]))
