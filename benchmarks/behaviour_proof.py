"""Digests of what a refactor must leave unchanged, to compare two commits.

For every bundled server: its ``tools/list`` (as any MCP client receives it over the protocol)
and the fingerprint of its seed state; for every composition: the seed fingerprint; for a few
servers: the bytes of the tasks synthesized for a fixed seed; for banking's tasks: the SFT
conversations the trainer learns (reference conversations and recovery conversations, messages
and tool lists). Run it at two commits and compare the JSON:

    .venv/bin/python benchmarks/behaviour_proof.py --out before.json
    ... change the code ...
    .venv/bin/python benchmarks/behaviour_proof.py --out after.json
    diff before.json after.json

``--dump DIR`` also writes every dumped text, for a diff that shows what changed.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import tempfile
from pathlib import Path

SYNTH = {"banking": 40, "email": 20, "filesystem": 20, "shop_bank": 20}
"""Servers whose synthesized tasks are compared, and how many tasks each."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


async def _tools_list(name: str) -> str:
    """The ``tools/list`` of a bundled server, over MCP from a real client (in-process transport)."""
    from mcp import Client

    from gym_mcp.servers import get_kit

    kit = get_kit(name)
    with tempfile.TemporaryDirectory() as tmp:
        if hasattr(kit, "seed_tree"):  # the folder server
            root = Path(tmp) / "ws"
            root.mkdir()
            server = kit.create_server(root)
        else:
            server = kit.create_server(f"sqlite:///{tmp}/db.sqlite")
        async with Client(server) as client:
            result = await client.list_tools()
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools]
    return json.dumps(tools, indent=1, sort_keys=True)


def _seed_fingerprint(name: str) -> str:
    """The fingerprint of a server's seed state (volatile columns aside), after a reset."""
    import gymnasium as gym

    from gym_mcp import env_id

    env = gym.make(env_id(name))
    try:
        env.reset(seed=0)
        return str(env.unwrapped.state.fingerprint())
    finally:
        env.close()


def _synth(name: str, n: int) -> str:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks

    result = synthesize(name, SynthConfig(n=n, seed=0))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tasks.jsonl"
        save_tasks(result.tasks, path)
        return path.read_text()


def _sft(tasks_jsonl: str) -> str:
    """The SFT conversations of the main job's recipe over ``tasks_jsonl`` (banking's tasks)."""
    import gymnasium as gym

    from gym_mcp.tasks import Task
    from gym_mcp.train.data import recovery_conversation, reference_conversation, schema_ordered

    env = gym.make("gym_mcp/Banking-v0", max_steps=20)
    try:
        _, info = env.unwrapped.reset()
        tasks = [schema_ordered(Task.from_dict(json.loads(line)), info["tools"]) for line in tasks_jsonl.splitlines()]
        out = []
        for task in tasks:
            out.append(reference_conversation(env, task, 3))
            recovery = recovery_conversation(env, task, 3, seed=0)
            if recovery is not None:
                out.append(recovery)
    finally:
        env.close()
    return json.dumps(out, indent=1, sort_keys=True, default=str)


def main(argv: list[str] | None = None) -> int:
    """Write the digests (and, with ``--dump``, the texts) of the current checkout."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default="behaviour.json", help="where to write the digests (JSON)")
    parser.add_argument("--dump", default=None, help="a folder to write every dumped text into")
    args = parser.parse_args(argv)

    import gym_mcp
    from gym_mcp.servers import BUNDLED
    from gym_mcp.servers.compositions import COMPOSITIONS

    del gym_mcp
    texts: dict[str, str] = {}
    for name in BUNDLED:
        texts[f"tools_list/{name}"] = asyncio.run(_tools_list(name))
        texts[f"seed_fingerprint/{name}"] = _seed_fingerprint(name)
        print(f"{name}: tools/list and seed state", file=sys.stderr, flush=True)
    for name in COMPOSITIONS:
        texts[f"seed_fingerprint/{name}"] = _seed_fingerprint(name)
    for name, n in SYNTH.items():
        texts[f"synth/{name}"] = _synth(name, n)
        print(f"{name}: {n} tasks synthesized", file=sys.stderr, flush=True)
    texts["sft/banking"] = _sft(texts["synth/banking"])
    print("banking: SFT conversations", file=sys.stderr, flush=True)
    digests = {key: _digest(text) for key, text in texts.items()}
    Path(args.out).write_text(json.dumps(digests, indent=1) + "\n")
    if args.dump:
        for key, text in texts.items():
            path = Path(args.dump) / f"{key}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    print(f"{len(digests)} digests -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
