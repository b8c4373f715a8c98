"""Play one episode of the banking environment by hand: the smallest gym-mcp program.

Run: python examples/quickstart.py
"""

import gymnasium as gym

import gym_mcp  # noqa: F401 - registers gym_mcp/Banking-v0 and friends

env = gym.make("gym_mcp/Banking-v0", transport="stdio")  # a live MCP server in a subprocess
obs, info = env.reset(seed=0)
print("instruction:", obs)
print("tools:", ", ".join(t["function"]["name"] for t in info["tools"]))

# A model would produce this text; structured dicts work too.
obs, reward, terminated, truncated, info = env.step(
    '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}</tool_call>'
)
print("tool result:", obs)

before = env.unwrapped.state.snapshot()
env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 10.0, "description": "demo"}})
print("what changed:\n" + env.unwrapped.state.diff(before, env.unwrapped.state.snapshot()).summary())

obs, reward, terminated, truncated, info = env.step("Your balance is shown above.")
print("terminated:", terminated, "reward:", reward, "calls:", info["num_calls"])

env.reset(seed=0)  # the deposit is gone: every episode starts from the same exact state
env.close()
