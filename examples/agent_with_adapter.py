"""A custom agent loop over gym.make, driven by a local model with a trained LoRA adapter.

Run (after `gym-mcp train`, which trains SmolLM2 and saves its adapter in runs/train/checkpoint):
    python examples/agent_with_adapter.py --model smollm2 --adapter runs/train/checkpoint \
        --env gym_mcp/Banking-v0 --tasks banking.jsonl --episodes 5

The prompt shows the task's tools plus a few others, as in training (`compact_tools`), rendered in
the format training used (the model's chat template when it renders tools, the compact prompt otherwise).
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp.policies.local import LocalModel
from gym_mcp.tasks import load_tasks
from gym_mcp.train.data import compact_tools


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2", help="base model: smollm2, a local folder or a .gguf file")
    parser.add_argument("--adapter", default=None, help="trained LoRA adapter folder (a training checkpoint)")
    parser.add_argument("--env", default="gym_mcp/Banking-v0")
    parser.add_argument("--tasks", required=True, help="task JSONL")
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    args = parser.parse_args()

    model = LocalModel(args.model, adapter=args.adapter)
    tasks = load_tasks(args.tasks)[: args.episodes]
    env = gym.make(args.env, tasks=args.tasks, max_steps=8)
    solved = 0
    for task in tasks:
        _, info = env.reset(options={"task_id": task.id})
        done, reward = False, 0.0
        while not done:
            # the agent loop is yours: here, prompt the model with the conversation and the tools
            tools = compact_tools(info["tools"], task, 3)
            reply = model.chat(info["messages"], tools, max_new_tokens=args.max_new_tokens)
            _, reward, terminated, truncated, info = env.step(reply)
            done = terminated or truncated
        solved += reward == 1.0
        print(f"{task.id}: reward {float(reward):.2f}, {info['num_calls']} calls, {info['invalid_calls']} invalid")
    env.close()
    print(f"solved {solved}/{len(tasks)}")


if __name__ == "__main__":
    main()
