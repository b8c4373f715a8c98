"""BFCL v3 multi-turn through gym-mcp: one entry turn by turn, then BFCL's verdict.

Plays multi_turn_miss_func_3 with BFCL's ground truth, prints each user turn and what the
server lists (the held-out functions appear at the turn BFCL reveals them), then plays it again
with one call dropped to show the failing turn BFCL's checker reports.

Needs the [bfcl] extra: pip install -e ".[bfcl]" && pip install --no-deps bfcl-eval==2026.3.23
Run: python examples/bfcl_multi_turn.py
"""

import gymnasium as gym

import gym_mcp
from gym_mcp.bfcl import entry, ground_truth, ground_truth_calls

ENTRY = "multi_turn_miss_func_3"
e = entry(ENTRY)
turns = [ground_truth_calls(t, e["involved_classes"]) for t in ground_truth(ENTRY)]

env = gym.make(gym_mcp.BFCL_ID, category="miss_func", entry=ENTRY)
obs, info = env.reset()
reward = 0.0
for calls in turns:
    print(f"turn {info['turn']}: {obs}")
    print(f"  tools listed: {len(info['tools'])}")
    if calls:  # an agent would send these one by one or together; each step may hold several calls
        result, *_ = env.step(calls)
        print(f"  -> {', '.join(c['name'] for c in calls)}: {result[:120]!r}")
    obs, reward, terminated, truncated, info = env.step("Done.")  # a reply ends the turn
print("reward:", reward, "verdict:", info["bfcl"])

# The same entry with the first call of the last non-empty turn dropped.
last = max(i for i, t in enumerate(turns) if t)
broken = [list(t) for t in turns]
broken[last] = broken[last][1:]
env.reset()
for calls in broken:
    if calls:
        env.step(calls)
    obs, reward, terminated, truncated, info = env.step("Done.")
print("with a call dropped in turn", last, "-> reward:", reward, "first failing turn:", info["first_failing_turn"])
env.close()
