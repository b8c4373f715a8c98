"""Rollouts on Ray: evaluation throughput with 1 and 2 Ray workers against local, and a remote step's cost.

Two measurements, each against its local baseline in the same run:

- **Evaluation throughput** (episodes/s of `gym_mcp.evaluation.evaluate`, synthesized banking
  tasks): local (one thread, then two) against a `WorkerPool` of 1 and of 2 workers. Two
  policies: the reference (no thinking time: the environment's own cost, where shipping each
  episode to a worker is pure overhead) and the reference with a fixed latency per action
  (``--think`` ms, as a remote LLM endpoint has), where workers overlap the waiting. Each setting
  runs ``--repeats`` times, interleaved; medians are reported. Starting the pool is timed apart.
- **Per-step overhead of a remote env**: ``env.step`` of one tool call on a `RemoteEnv` against
  the same call on a local env, interleaved batches; the difference is the Ray round trip.

Writes ``runs/bench/ray.json``. Run: ``python benchmarks/bench_ray.py [--repeats N] [--quick]``
(about 2 minutes; it starts and stops its own local Ray instance).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, finish, median, summarize, table, timed

from gym_mcp.policies import ReferencePolicy

ENV = "gym_mcp/Banking-v0"


class ThinkingReference(ReferencePolicy):
    """The reference policy, waiting ``think`` seconds before each action (an LLM call's latency)."""

    think = 0.0

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        time.sleep(self.think)
        return super().act(observation, info)


def _thinking(seconds: float) -> ThinkingReference:
    policy = ThinkingReference()
    policy.think = seconds
    return policy


def main() -> int:
    parser = base_parser(__doc__ or "", repeats=3, quick_repeats=1)
    parser.add_argument("--tasks", type=int, default=24, help="synthesized banking tasks (default 24)")
    parser.add_argument("--think", type=float, default=50.0, help="ms per action of the thinking policy (default 50)")
    args = parser.parse_args()
    repeats = args.repeats or (1 if args.quick else 3)
    started = time.perf_counter()

    import gymnasium as gym
    import ray

    from gym_mcp.evaluation import EvalConfig, evaluate
    from gym_mcp.ray import WorkerPool, connect
    from gym_mcp.synth import SynthConfig, synthesize, write_outputs

    tmp = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    tasks = tmp / "banking.jsonl"
    write_outputs(synthesize("banking", SynthConfig(n=8 if args.quick else args.tasks, seed=3)), tasks)
    runs = [(ENV, tasks)]
    policies = {
        "reference": {"reference": ReferencePolicy},
        f"reference + {args.think:g} ms/action": {"thinking": lambda: _thinking(args.think / 1e3)},
    }

    t0 = time.perf_counter()
    connect(num_cpus=2)
    ray_start = time.perf_counter() - t0
    pools: dict[int, WorkerPool] = {}
    pool_start: dict[int, float] = {}
    for n in (1, 2):
        t0 = time.perf_counter()
        pools[n] = WorkerPool(n, cpus_per_worker=1 / n, warm=[(ENV, {})])
        pool_start[n] = time.perf_counter() - t0

    settings = {
        "local, 1 thread": {"config": EvalConfig(concurrency=1)},
        "local, 2 threads": {"config": EvalConfig(concurrency=2)},
        "ray, 1 worker": {"config": EvalConfig(concurrency=1), "workers": pools[1]},
        "ray, 2 workers": {"config": EvalConfig(concurrency=1), "workers": pools[2]},
    }
    rates: dict[str, dict[str, list[float]]] = {p: {s: [] for s in settings} for p in policies}
    episodes: dict[str, int] = {}
    for label, policy in policies.items():
        evaluate(runs, policy, EvalConfig())  # warm this process's servers once
        for _ in range(repeats):
            for name, setting in settings.items():  # interleaved: drift hits every setting alike
                t0 = time.perf_counter()
                result = evaluate(runs, policy, setting["config"], workers=setting.get("workers"))
                rates[label][name].append(len(result.episodes) / (time.perf_counter() - t0))
                episodes[label] = len(result.episodes)

    # the Ray round trip of one step: a RemoteEnv against a local env, interleaved batches
    call = json.dumps({"name": "get_account", "arguments": {"account_id": "ACC-1001"}})
    local = gym.make(ENV, max_steps=10**6)
    remote = pools[1].make(ENV, max_steps=10**6)
    local.reset(seed=0)
    remote.reset(seed=0)
    local_steps: list[float] = []
    remote_steps: list[float] = []
    for _ in range(10 if args.quick else 40):
        local_steps += timed(lambda: local.step(call), 20)
        remote_steps += timed(lambda: remote.step(call), 20)
    local.close()
    remote.close()
    for pool in pools.values():
        pool.close()
    ray.shutdown()

    medians = {p: {s: median(v) for s, v in by.items()} for p, by in rates.items()}
    for label, by in medians.items():
        base = by["local, 1 thread"]
        print(
            table(
                ["setting", "episodes/s (median)", "x local, 1 thread"],
                [[s, rate, rate / base] for s, rate in by.items()],
                title=f"\n{label}: {episodes[label]} episodes per evaluation, {repeats} rounds",
            )
        )
    step = {"local": summarize(local_steps), "remote": summarize(remote_steps)}
    overhead = step["remote"]["median_ms"] - step["local"]["median_ms"]
    print(
        table(
            ["env.step of one call", "median ms", "p10 ms", "p90 ms"],
            [[k, v["median_ms"], v["p10_ms"], v["p90_ms"]] for k, v in step.items()],
            title="\nper-step cost",
        )
    )
    print(f"remote / local step: {step['remote']['median_ms'] / step['local']['median_ms']:.2f}x (+{overhead:.2f} ms)")
    pools_s = f"pool of 1 worker {pool_start[1]:.1f} s, of 2 {pool_start[2]:.1f} s"
    print(f"start: local Ray instance {ray_start:.1f} s; {pools_s}")
    return finish(
        args.out,
        "ray",
        started,
        repeats=repeats,
        episodes=episodes,
        episodes_per_s=medians,
        samples=rates,
        step=step,
        step_overhead_ms=overhead,
        start_s={"ray": ray_start, "pool_1": pool_start[1], "pool_2": pool_start[2]},
    )


if __name__ == "__main__":
    raise SystemExit(main())
