"""A custom agent loop over gym.make, driven by a local model with a trained LoRA adapter.

Run:
    python examples/agent_with_adapter.py --model runs/models/base --adapter runs/train-cpu/checkpoint \
        --env gym_mcp/Banking-v0 --tasks banking.jsonl --episodes 5
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp.local_model import LocalModel, render_prompt
from gym_mcp.tasks import load_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="local base model folder")
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
            reply = model.generate(render_prompt(info["messages"], info["tools"]), max_new_tokens=args.max_new_tokens)
            _, reward, terminated, truncated, info = env.step(reply)
            done = terminated or truncated
        solved += reward == 1.0
        print(f"{task.id}: reward {float(reward):.2f}, {info['num_calls']} calls, {info['invalid_calls']} invalid")
    env.close()
    print(f"solved {solved}/{len(tasks)}")


if __name__ == "__main__":
    main()
