"""Soak: stdio episodes under random SIGKILLs, then fuzzed actions; step() must never raise or lie.

Two phases over ``gym.make("gym_mcp/Banking-v0", transport="stdio")`` while a thread SIGKILLs
the server process at random moments (between calls, during calls, during restarts):

1. ``--episodes`` episodes (default 1,000) of random banking calls (reads, deposits,
   withdrawals, transfers, card locks; some refused by the bank's rules). After every reset the
   fingerprint must equal the seed's; after every episode the state must equal the state that
   the episode's successful calls alone produce (replayed on a fresh in-process server).
2. ``--fuzz`` fuzzed actions (default 20,000; the strategies of tests/fuzz.py: every action
   shape, non-JSON values, deep nesting, surrogates), each checked to return the five-tuple.

Counted: exceptions out of ``step()`` (target 0), hangs (a step longer than the call timeout
plus three restarts; target 0), episodes whose final state differs from their successful calls'
(target 0), inexact resets (target 0), and resets that raised because the server was killed
faster than it could start (allowed: reset may say so; the run resets again). RSS and open fds
of this process, and its child processes, before and after.

Run: ``python benchmarks/bench_soak.py [--episodes N] [--fuzz N] [--quick] [--out DIR]``.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, finish, table, verdict
from hypothesis import HealthCheck, Phase, given, settings

from gym_mcp import MCPEnv
from gym_mcp.errors import ServerCrashedError
from tests.chaos import Killer
from tests.fuzz import ACTION

DESCRIPTION = "Soak: stdio episodes under random SIGKILLs and fuzzed actions; step() never raises or lies."
CALL_TIMEOUT = 10.0
HANG_S = CALL_TIMEOUT + 3 * 15.0
"""A step longer than this is a hang (a call timeout plus three slow restarts)."""

ACCOUNTS = [f"ACC-{1001 + i}" for i in range(12)]
CARDS = [f"CRD-{1001 + i}" for i in range(8)]


def random_call(rng: random.Random) -> dict[str, Any]:
    """One banking call with plausible arguments (some refused by the bank: overdrafts, locked cards)."""
    kind = rng.choice(["get_balance", "deposit", "withdraw", "transfer_funds", "lock_card", "list_accounts"])
    amount = round(rng.choice([5, 20, 75, 150, 900, 25_000]) * rng.random() + 1, 2)
    if kind == "get_balance":
        return {"name": kind, "arguments": {"account_id": rng.choice(ACCOUNTS)}}
    if kind in ("deposit", "withdraw"):
        return {"name": kind, "arguments": {"account_id": rng.choice(ACCOUNTS), "amount": amount}}
    if kind == "transfer_funds":
        a, b = rng.sample(ACCOUNTS, 2)
        return {"name": kind, "arguments": {"from_account_id": a, "to_account_id": b, "amount": amount}}
    if kind == "lock_card":
        return {"name": kind, "arguments": {"card_id": rng.choice(CARDS)}}
    return {"name": kind, "arguments": {"customer_id": "CUS-1001"}}


def process_usage() -> dict[str, int]:
    """RSS (KiB) and open fds of this process, and the number of its child processes."""
    rss = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    children = 0
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[1] == me:
                        children += 1
            except (OSError, IndexError):
                pass
    return {"rss_kib": rss, "fds": len(os.listdir("/proc/self/fd")), "children": children}


class Tally:
    """What the soak counts."""

    def __init__(self) -> None:
        self.steps = 0
        self.exceptions: list[str] = []
        self.hangs = 0
        self.slowest_step_s = 0.0
        self.reset_raised = 0
        self.inexact_resets = 0
        self.state_mismatches = 0
        self.crashes = 0
        self.timeouts = 0
        self.restarts = 0
        self.rolled_back = 0
        self.truncated_server_down = 0

    def step(self, env: MCPEnv, action: Any) -> tuple[bool, dict[str, Any]]:
        """One step, timed and guarded; returns (episode over, info)."""
        self.steps += 1
        start = time.monotonic()
        try:
            obs, reward, terminated, truncated, info = env.step(action)
            if not (isinstance(obs, str) and isinstance(reward, float)):
                raise TypeError(f"step returned {type(obs).__name__} and {type(reward).__name__}")
        except Exception as exc:  # the soak's whole point: count, never stop
            self.exceptions.append(f"{type(exc).__name__}: {str(exc)[:200]}")
            return True, {}
        finally:
            took = time.monotonic() - start
            self.slowest_step_s = max(self.slowest_step_s, took)
            self.hangs += took > HANG_S
        return terminated or truncated, info

    def reset(self, env: MCPEnv, fingerprint: str) -> None:
        """Reset (again while the server is killed faster than it starts), then check it is exact."""
        for _ in range(50):
            try:
                env.reset(seed=0)
                break
            except ServerCrashedError:
                self.reset_raised += 1
        else:
            raise SystemExit("reset failed 50 times in a row")
        self.inexact_resets += env.state.fingerprint() != fingerprint

    def episode_end(self, info: dict[str, Any]) -> None:
        for key, attr in (("crashes", "crashes"), ("timeouts", "timeouts"), ("server_restarts", "restarts")):
            setattr(self, attr, getattr(self, attr) + int(info.get(key, 0)))
        self.rolled_back += int(info.get("rolled_back", 0))
        self.truncated_server_down += "server_down" in info.get("limits", [])


def replayed_fingerprint(replayer: MCPEnv, calls: list[Any]) -> str:
    """The fingerprint that ``calls`` alone give from seed 0, on an in-process server."""
    replayer.reset(seed=0)
    for call in calls:
        replayer.step({"name": call.name, "arguments": call.arguments})
    return replayer.state.fingerprint()


def soak_episodes(env: MCPEnv, tally: Tally, episodes: int, seed: int, fingerprint: str) -> None:
    rng = random.Random(seed)
    replayer = MCPEnv("banking", max_steps=10**6)
    try:
        for episode in range(1, episodes + 1):
            tally.reset(env, fingerprint)
            info: dict[str, Any] = {}
            for _ in range(rng.randint(3, 12)):
                over, info = tally.step(env, random_call(rng))
                if over:
                    break
            tally.episode_end(info)
            ok = [c for c in env.episode().calls if c.status == "ok"]
            if env.state.fingerprint() != replayed_fingerprint(replayer, ok):
                tally.state_mismatches += 1
            if episode % 100 == 0 or episode == episodes:
                print(
                    f"episodes {episode}/{episodes}: {tally.crashes} crashes, {tally.restarts} restarts, "
                    f"{len(tally.exceptions)} exceptions, {tally.state_mismatches} state mismatches",
                    flush=True,
                )
    finally:
        replayer.close()


def soak_fuzz(env: MCPEnv, tally: Tally, examples: int, fingerprint: str) -> None:
    done = [0]

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(action=ACTION)
    def fuzz(action: Any) -> None:
        over, _ = tally.step(env, action)
        if over:
            tally.reset(env, fingerprint)
        done[0] += 1
        if done[0] % 2_000 == 0:
            print(f"fuzzed actions {done[0]}/{examples}: {len(tally.exceptions)} exceptions", flush=True)

    tally.reset(env, fingerprint)
    fuzz()


def main() -> int:
    parser = base_parser(DESCRIPTION, repeats=1, quick_repeats=1)
    parser.add_argument("--episodes", type=int, default=1_000, help="stdio episodes under kills (default 1,000)")
    parser.add_argument("--fuzz", type=int, default=20_000, help="fuzzed actions (default 20,000)")
    parser.add_argument("--kill-every", type=float, nargs=2, default=(0.5, 6.0), metavar=("LOW", "HIGH"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.quick:
        args.episodes, args.fuzz = 60, 1_000
    started = time.perf_counter()
    env = MCPEnv("banking", transport="stdio", call_timeout=CALL_TIMEOUT, max_steps=10**6)
    tally = Tally()
    env.reset(seed=0)
    fingerprint = env.state.fingerprint()
    before = process_usage()
    killer = Killer(env, args.seed + 1, *args.kill_every)
    killer.start()
    try:
        soak_episodes(env, tally, args.episodes, args.seed, fingerprint)
        middle = process_usage()
        soak_fuzz(env, tally, args.fuzz, fingerprint)
    finally:
        killer.stop.set()
        killer.join()
    tally.reset(env, fingerprint)
    after = process_usage()
    env.close()

    mib = [u["rss_kib"] / 1024 for u in (before, middle, after)]
    targets = [
        ("exceptions out of step()", len(tally.exceptions), 0),
        (f"hangs (step > {HANG_S:.0f} s)", tally.hangs, 0),
        ("episodes whose state != their successful calls'", tally.state_mismatches, 0),
        ("inexact resets", tally.inexact_resets, 0),
    ]
    print()
    print(table(["target", "measured", "target", "verdict"], [(n, v, t, verdict(v == t)) for n, v, t in targets]))
    facts = [
        ("episodes", args.episodes),
        ("fuzzed actions", args.fuzz),
        ("steps", tally.steps),
        ("SIGKILLs sent", killer.kills),
        ("crashes reported", tally.crashes),
        ("server restarts", tally.restarts),
        ("calls rolled back after an error", tally.rolled_back),
        ("episodes truncated: server down", tally.truncated_server_down),
        ("resets that raised (killed while starting)", tally.reset_raised),
        ("slowest step (s)", round(tally.slowest_step_s, 2)),
        ("RSS before / after episodes / after fuzz (MiB)", "{:.0f} / {:.0f} / {:.0f}".format(*mib)),
        ("open fds before / after episodes / after fuzz", f"{before['fds']} / {middle['fds']} / {after['fds']}"),
        ("child processes before / after", f"{before['children']} / {after['children']}"),
    ]
    print()
    print(table(["fact", "value"], facts))
    for line in tally.exceptions[:10]:
        print("exception:", line)
    return finish(
        args.out,
        "soak",
        started,
        config=vars(args) | {"out": str(args.out)},
        targets={n: {"measured": v, "target": t, "verdict": verdict(v == t)} for n, v, t in targets},
        facts=dict(facts),
        usage={"before": before, "after_episodes": middle, "after_fuzz": after},
        exceptions=tally.exceptions,
    )


if __name__ == "__main__":
    raise SystemExit(main())
