"""Rollouts on Ray: workers that hold environments and play episodes on other processes and machines.

Needs the ``[ray]`` extra. A `WorkerPool` starts `RolloutWorker` actors (on a local Ray
instance, or on a cluster: ``WorkerPool(4, address="ray://HEAD:10001")``); ``pool.make(env_id,
...)`` is a `RemoteEnv` with the Gymnasium API, and ``pool.map(fn, jobs)`` plays episodes on the
workers and yields their results in order, rerunning those whose worker died::

    from gym_mcp.ray import WorkerPool

    with WorkerPool(2) as pool:
        env = pool.make("gym_mcp/Banking-v0", tasks="tasks.jsonl")
        obs, info = env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step('{"name": "list_accounts", "arguments": {}}')

``gym-mcp eval --ray [ADDRESS]`` and the trainer's ``rollout_workers`` use it.
"""

from gym_mcp.ray.remote import PendingStep, RemoteEnv
from gym_mcp.ray.worker import RolloutWorker
from gym_mcp.ray.worker_pool import WorkerPool, connect

__all__ = ["PendingStep", "RemoteEnv", "RolloutWorker", "WorkerPool", "connect"]
