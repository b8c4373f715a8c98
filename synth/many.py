"""Synthesis on several servers at once, one process per server while cores last.

Each server's tasks are synthesized exactly as `synthesize` makes them in one process (its own
settings, its own seed), so the tasks do not depend on how many processes ran them: the same
bytes for the same settings with one process or eight. Processes are spawned (not forked: the
parent holds gym-mcp's event-loop thread), and report each kept task back, so one progress bar
counts all servers' tasks as they come.
"""

from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any

from gym_mcp.synth.config import SynthConfig, SynthResult
from gym_mcp.synth.pipeline import synthesize

__all__ = ["synthesize_many"]

ProgressFn = Callable[[int, int], None]


def synthesize_many(
    jobs: Mapping[str, SynthConfig],
    *,
    processes: int | None = None,
    progress: ProgressFn | None = None,
) -> dict[str, SynthResult]:
    """Synthesize tasks for each server of ``jobs``, in parallel processes.

    Args:
        jobs: ``{server: settings}``: bundled server or composition names.
        processes: Processes at most (default: the cores this process may use); 1, or a single
            job, synthesizes here, in this process.
        progress: Called with (tasks kept, tasks wanted) over all servers as tasks are kept.

    Returns:
        ``{server: result}``, in the order of ``jobs``.
    """
    wanted = sum(c.n for c in jobs.values())
    kept: dict[str, int] = dict.fromkeys(jobs, 0)

    def report(server: str, done: int, _wanted: int = 0) -> None:
        kept[server] = done
        if progress is not None:
            progress(sum(kept.values()), wanted)

    workers = min(len(jobs), processes or len(os.sched_getaffinity(0)))
    if workers <= 1:
        return {s: synthesize(s, c, progress=functools.partial(report, s)) for s, c in jobs.items()}
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        updates: Any = manager.Queue()
        stop = threading.Event()

        def drain() -> None:
            while not stop.is_set():
                try:
                    server, done = updates.get(timeout=0.2)
                except queue.Empty:
                    continue
                report(server, done)

        watcher = threading.Thread(target=drain, name="gym-mcp-synth-progress", daemon=True)
        watcher.start()
        try:
            with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
                futures = {s: pool.submit(_one, s, c, updates) for s, c in jobs.items()}
                results = {s: f.result() for s, f in futures.items()}
        finally:
            stop.set()
            watcher.join()
    for server, result in results.items():
        report(server, len(result.tasks))
    return results


def _one(server: str, config: SynthConfig, updates: Any) -> SynthResult:
    """One server's synthesis, in a worker process, reporting each kept task to ``updates``."""
    return synthesize(server, config, progress=lambda done, _n: updates.put((server, done)))
