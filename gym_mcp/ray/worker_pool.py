"""Rollout workers on Ray: `WorkerPool` starts them, hands out remote environments, runs episodes.

`WorkerPool(n)` starts ``n`` `RolloutWorker` actors (on a local Ray instance it starts itself,
or on the cluster at ``address``). Then:

- ``pool.make(env_id, **kwargs)`` is a `RemoteEnv`: an environment on one of the workers, with
  the Gymnasium API, so an agent loop written for ``gym.make`` runs unchanged against it;
- ``pool.map(fn, jobs)`` runs ``fn(job)`` on the workers (one job at a time per worker) and
  yields the results in the order of ``jobs`` as they come in. The evaluation harness uses it to
  play episodes (policy and environment both on the worker).

A worker that dies (its process killed, its node lost) is reported in ``pool.lost``; ``map``
reruns the jobs it held on the other workers and starts a replacement, and a `RemoteEnv` on it
raises `WorkerLostError` until its next ``reset``, which moves it to a live worker.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from gym_mcp.errors import ConfigError, DependencyMissing, WorkerLostError
from gym_mcp.ray.handles import WorkerHandle
from gym_mcp.ray.remote import RemoteEnv
from gym_mcp.ray.worker import RolloutWorker

try:
    import ray
    from ray.exceptions import GetTimeoutError, RayActorError
except ImportError as exc:  # pragma: no cover - the [ray] extra is missing
    raise DependencyMissing("gym_mcp.ray needs Ray: pip install 'gym-mcp[ray]'", extra="ray") from exc

__all__ = ["WorkerPool", "connect"]

MAX_CONCURRENCY = 16
"""Most episodes one worker plays at once (``per_worker`` of `WorkerPool.map`), in threads."""

EPISODES = "episodes"
"""The actors' concurrency group that plays whole episodes."""

J = TypeVar("J")
R = TypeVar("R")


def connect(address: str | None = None, *, num_cpus: int | None = None) -> None:
    """Connect to Ray, once per process.

    Args:
        address: A cluster's address (``ray://HEAD:10001`` or ``HEAD:6379``; ``auto`` for the one
            ``ray start`` began on this machine). None starts a local instance. When this
            process is connected already, nothing happens. Ray's own servers listen on the
            node's address, not only on loopback (Ray maps 127.0.0.1 to the node's IP on
            purpose); Ray 2.60 guards them with a token it generates (``~/.ray/auth_token``).
        num_cpus: CPUs of a local instance (default: the machine's).
    """
    if ray.is_initialized():
        return
    if address is None or address == "local":
        ray.init(
            address="local",
            num_cpus=num_cpus,
            include_dashboard=False,
            configure_logging=False,
        )
    else:
        try:
            ray.init(address=address, configure_logging=False)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise ConfigError(f"cannot reach a Ray cluster at {address!r}: {exc}") from exc


class WorkerPool:
    """Rollout workers on Ray (see the module docstring).

    Args:
        workers: How many workers to start.
        address: The Ray cluster (see `connect`); None starts a local instance.
        warm: ``(env_id, kwargs)`` pairs each worker starts a server for at once.
        cpus_per_worker: CPUs Ray reserves for each worker (fractions let workers share a core);
            None: one each, or an equal share of the free CPUs when there are fewer than workers.
        replace: Start a new worker for each one that dies.
        max_reruns: How many times one job may be rerun after losing its worker.
        start_timeout: Seconds to wait for the workers to start.

    Raises:
        ConfigError: ``workers`` below 1, an unreachable cluster, or workers that could not be
            placed (too few free CPUs) within ``start_timeout``.
    """

    def __init__(
        self,
        workers: int = 2,
        *,
        address: str | None = None,
        warm: Iterable[tuple[str, Mapping[str, Any]]] = (),
        cpus_per_worker: float | None = None,
        replace: bool = True,
        max_reruns: int = 2,
        start_timeout: float = 120.0,
    ) -> None:
        if workers < 1:
            raise ConfigError(f"a worker pool needs at least 1 worker, got {workers}")
        connect(address)
        if cpus_per_worker is None:
            cpus_per_worker = min(1.0, ray.available_resources().get("CPU", 1.0) / workers)
        self.replace = replace
        self.max_reruns = max_reruns
        self.lost: list[dict[str, Any]] = []
        self._warm = [(env_id, dict(kwargs)) for env_id, kwargs in warm]
        # Environment calls run one at a time, in order, on the actor's own thread (the cheapest
        # round trip: a threaded actor costs ~1.5 ms more per call here); whole episodes (`map`)
        # run in a group of threads of their own, ``per_worker`` at a time.
        actor = ray.remote(concurrency_groups={EPISODES: MAX_CONCURRENCY})(RolloutWorker)
        self._actor_class = actor.options(num_cpus=cpus_per_worker)
        self._numbers = itertools.count()
        self._turn = itertools.count()
        self._lock = threading.Lock()
        self._workers = [self._start() for _ in range(workers)]
        try:
            infos = ray.get([w.actor.describe.remote() for w in self._workers], timeout=start_timeout)
        except ray.exceptions.GetTimeoutError:
            self.close()
            free = ray.available_resources().get("CPU", 0.0)
            raise ConfigError(
                f"Ray could not start {workers} workers of {cpus_per_worker} CPU each within {start_timeout:.0f} s "
                f"({free:g} CPUs free now): use fewer workers or a bigger cluster"
            ) from None
        for w, info in zip(self._workers, infos, strict=True):
            w.info = info

    def _start(self) -> WorkerHandle:
        index = next(self._numbers)
        return WorkerHandle(index, self._actor_class.remote(index, self._warm))

    @property
    def workers(self) -> list[dict[str, Any]]:
        """The live workers: index, pid and host of each."""
        return [dict(w.info) for w in self._workers if w.alive]

    def _live(self) -> list[WorkerHandle]:
        live = [w for w in self._workers if w.alive]
        if not live:
            raise WorkerLostError("every rollout worker has died and none could be replaced")
        return live

    def next_worker(self) -> WorkerHandle:
        """A live worker (round robin).

        Raises:
            WorkerLostError: Every worker has died and none could be replaced.
        """
        live = self._live()
        return live[next(self._turn) % len(live)]

    def worker_died(self, worker: WorkerHandle, exc: BaseException, jobs: Sequence[int] = ()) -> None:
        """Record that ``worker`` died (once) and start its replacement."""
        with self._lock:
            if not worker.alive:
                if jobs:
                    for record in self.lost:
                        if record["worker"] == worker.index:
                            record["rerun"].extend(jobs)
                return
            worker.alive = False
            self.lost.append({**worker.info, "worker": worker.index, "error": _first_line(exc), "rerun": list(jobs)})
            if self.replace:
                fresh = self._start()
                self._workers.append(fresh)
        if self.replace:
            try:
                fresh.info = ray.get(fresh.actor.describe.remote())
            except RayActorError as again:  # pragma: no cover - the cluster itself is failing
                self.worker_died(fresh, again)

    # -- remote environments -----------------------------------------------------------------------

    def make(self, env_id: str, *, perturb: Any = None, perturb_seed: int | None = None, **kwargs: Any) -> Any:
        """An environment on a worker (round robin), with the Gymnasium API: a `RemoteEnv`.

        Args:
            env_id: A registered environment id.
            perturb: A perturbation mix to wrap it in on the worker (see `gym_mcp.wrappers.mix`).
            perturb_seed: The mix's seed.
            **kwargs: ``gym.make`` options (tasks, reward, user, max_steps, ...); they travel to
                the worker, so they must pickle.
        """
        return RemoteEnv(self, env_id, dict(kwargs), perturb=perturb, perturb_seed=perturb_seed)

    # -- whole episodes ----------------------------------------------------------------------------

    def map(
        self,
        fn: Callable[[J], R],
        jobs: Sequence[J],
        *,
        progress: Callable[[int, int], None] | None = None,
        per_worker: int = 1,
    ) -> Iterator[R]:
        """Run ``fn(job)`` for every job on the workers; yield the results in the order of ``jobs``.

        Each worker runs ``per_worker`` jobs at a time (in threads). A job whose worker dies is
        rerun on another (at most ``max_reruns`` times) and the death is recorded in ``lost``;
        an exception ``fn`` raises is raised here. ``fn`` and the jobs travel to the workers:
        ``fn`` must be importable or picklable by cloudpickle.

        Raises:
            ConfigError: ``per_worker`` outside 1..MAX_CONCURRENCY.
            WorkerLostError: A job lost its worker more than ``max_reruns`` times, or every
                worker died.
        """
        if not 1 <= per_worker <= MAX_CONCURRENCY:
            raise ConfigError(f"per_worker must be 1..{MAX_CONCURRENCY}, got {per_worker}")
        queue: deque[int] = deque(range(len(jobs)))
        running: dict[Any, tuple[int, WorkerHandle]] = {}
        reruns: dict[int, int] = {}
        done: dict[int, R] = {}
        emitted = finished = 0
        fn_ref = ray.put(fn)
        try:
            while emitted < len(jobs):
                busy = Counter(id(w) for _, w in running.values())
                for worker in self._live():
                    for _ in range(per_worker - busy[id(worker)]):
                        if queue:
                            i = queue.popleft()
                            running[worker.actor.run.options(concurrency_group=EPISODES).remote(fn_ref, jobs[i])] = (
                                i,
                                worker,
                            )
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    i, worker = running.pop(ref)
                    try:
                        done[i] = ray.get(ref)
                    except RayActorError as exc:
                        reruns[i] = reruns.get(i, 0) + 1
                        if reruns[i] > self.max_reruns:
                            raise WorkerLostError(
                                f"job {i} lost its worker {reruns[i]} times; last: {_first_line(exc)}"
                            ) from exc
                        self.worker_died(worker, exc, [i])
                        queue.appendleft(i)
                        continue
                    finished += 1
                    if progress is not None:
                        progress(finished, len(jobs))
                while emitted in done:
                    yield done.pop(emitted)
                    emitted += 1
        finally:
            for ref in running:  # the caller stopped early or a job failed: drop the rest
                ray.cancel(ref, force=False)

    def close(self) -> None:
        """Stop the workers (their servers stop with them). The Ray instance stays up."""
        for worker in self._workers:
            if worker.alive:
                ray.kill(worker.actor)
                worker.alive = False

    def kill(self, index: int, *, timeout: float = 60.0) -> None:
        """Kill worker ``index`` now, as a crash would (for tests and drills); it is noticed when next used.

        ``ray.kill`` only asks: a call sent right after it can still reach the actor and be
        answered. This returns once the actor answers no more (a call fails with Ray's actor
        error), or after ``timeout`` seconds, so what is sent next meets a dead worker.
        """
        for worker in self._workers:
            if worker.index == index and worker.alive:
                ray.kill(worker.actor, no_restart=True)
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline:
                    try:
                        ray.get(worker.actor.held.remote(), timeout=max(deadline - time.monotonic(), 0.1))
                    except (RayActorError, GetTimeoutError):
                        return
                    time.sleep(0.05)
                return
        raise ConfigError(f"no live worker {index}; live: {[w.index for w in self._workers if w.alive]}")

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
