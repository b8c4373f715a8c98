"""The driver's handles on rollout workers, and what a remote environment needs of their pool.

`WorkerHandle` is one `RolloutWorker` actor as the driver sees it (alive or lost). `Workers` is
the part of a pool a `RemoteEnv` uses: a live worker to hold it, and a way to report one that
died. `WorkerPool` is one; `RemoteEnv` depends on this protocol, not on the pool's module, so the
two modules do not import each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["WorkerHandle", "Workers"]


@dataclass
class WorkerHandle:
    """One rollout worker as the driver sees it.

    Attributes:
        index: Its number in the pool (replacements get new ones).
        actor: The Ray actor handle.
        info: What the worker said about itself (host, pid, ...).
        alive: False once it was seen dead.
    """

    index: int
    actor: Any
    info: dict[str, Any] = field(default_factory=dict)
    alive: bool = True


class Workers(Protocol):
    """What a `RemoteEnv` needs of its pool."""

    def next_worker(self) -> WorkerHandle:
        """A live worker (round robin)."""
        ...

    def worker_died(self, worker: WorkerHandle, exc: BaseException, jobs: Sequence[int] = ()) -> None:
        """Record that ``worker`` died (once) and start its replacement."""
        ...
