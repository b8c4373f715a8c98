"""Synthesis on third-party MCP servers nobody annotated for gym-mcp, wrapped unmodified.

Each server runs from a spec file with no ``[tools.hints]``: synthesis knows its tools only by
their names, descriptions, input schemas and MCP annotations, and its entities only from its
state (`gym_mcp.synth.infer`). For each: tasks asked, tasks kept, the share of kept tasks that
replay to reward 1.0 through ``gym.make("gym_mcp/External-v0", spec=...)`` (reference calls, then
a final answer, the default reward), tools used / offered, the tools skipped and why, and
verified tasks per minute.

Servers (npm ones installed by ``npm install`` from package.json; a missing one is reported and
skipped):

- ``npm-filesystem``: ``@modelcontextprotocol/server-filesystem`` over a small folder;
- ``npm-memory``: ``@modelcontextprotocol/server-memory``, a knowledge graph in a JSON-lines
  file (``MEMORY_FILE_PATH``);
- ``pypi-git``: PyPI's ``mcp-server-git`` over a small repository (commit dates fixed by the
  spec's environment; the index and reflogs left out of fingerprints).

``--bundled NAME ...`` measures bundled servers instead, each with its own metadata and then
with it stripped (what inference alone achieves against the kit's hand-written intents).

Run: .venv/bin/python benchmarks/bench_any_server.py [--n 100] [--servers npm-memory ...]
     .venv/bin/python benchmarks/bench_any_server.py --bundled banking crm --n 50
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import base_parser, table, write_result

import gym_mcp
from gym_mcp import load_tasks
from gym_mcp.errors import GymMCPError
from gym_mcp.synth import SynthConfig, synthesize, write_outputs

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "node_modules" / ".bin"


def filesystem_spec(folder: Path) -> Path:
    """The npm filesystem server over a folder with a few files."""
    ws = folder / "workspace"
    for rel, text in {
        "docs/readme.md": "# Project\n\nStatus: draft\n",
        "docs/changelog.md": "## 0.1\n- first release\n",
        "notes/plan.md": "Q3 plan\n",
        "notes/ideas.txt": "- a faster build\n",
        "todo.txt": "- write tests\n",
    }.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    spec = folder / "fs.toml"
    spec.write_text(
        f'name = "npm-filesystem"\ncommand = ["{BIN / "mcp-server-filesystem"}", "{{state}}"]\n'
        'cwd = "{state}"\n\n[state]\nkind = "directory"\npath = "workspace"\n'
    )
    return spec


def memory_spec(folder: Path) -> Path:
    """The npm knowledge-graph memory server over a JSON-lines graph of people and projects."""
    entities = [
        ("Alice Moreau", "person", ["works at Acme", "likes tea"]),
        ("Bob Tanaka", "person", ["manager"]),
        ("Acme", "company", ["founded 1990"]),
        ("Chloe Diaz", "person", ["designer"]),
        ("Dev Patel", "person", ["engineer"]),
        ("Globex", "company", ["rival of Acme"]),
        ("Eve Olsen", "person", ["intern"]),
        ("Frank Li", "person", ["accountant"]),
        ("Project Apollo", "project", ["due in March"]),
        ("Grace Kim", "person", ["sales lead"]),
    ]
    relations = [
        ("Alice Moreau", "Acme", "works_at"),
        ("Bob Tanaka", "Acme", "works_at"),
        ("Dev Patel", "Globex", "works_at"),
        ("Alice Moreau", "Project Apollo", "leads"),
    ]
    lines = [json.dumps({"type": "entity", "name": n, "entityType": t, "observations": o}) for n, t, o in entities]
    lines += [json.dumps({"type": "relation", "from": a, "to": b, "relationType": r}) for a, b, r in relations]
    (folder / "memory.jsonl").write_text("\n".join(lines) + "\n")
    spec = folder / "memory.toml"
    spec.write_text(
        f'name = "npm-memory"\ncommand = ["{BIN / "mcp-server-memory"}"]\n\n'
        '[env]\nMEMORY_FILE_PATH = "{state}"\n\n[state]\nkind = "json"\npath = "memory.jsonl"\n'
    )
    return spec


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.com",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.com",
    "GIT_AUTHOR_DATE": "2026-01-02T00:00:00",
    "GIT_COMMITTER_DATE": "2026-01-02T00:00:00",
}


def git_spec(folder: Path) -> Path:
    """PyPI's mcp-server-git over a repository with one commit, untracked and modified files."""
    import os
    import subprocess

    repo = folder / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        **GIT_ENV,
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (repo / "app.py").write_text("print('hello')\n")
    (repo / "README.md").write_text("# app\n")
    git("add", "app.py", "README.md")
    git("commit", "-q", "-m", "initial commit")
    for name in ("notes.md", "todo.txt", "setup.cfg", "cli.py", "docs.md", "CHANGES.md"):  # untracked
        (repo / name).write_text(f"{name}\n")
    (repo / "app.py").write_text("print('hello, world')\n")  # modified
    (repo / "README.md").write_text("# app\n\nA small app.\n")
    spec = folder / "git.json"
    spec.write_text(
        json.dumps(
            {
                "name": "pypi-git",
                "command": [sys.executable, "-m", "mcp_server_git", "--repository", "{state}"],
                "cwd": "{state}",
                "env": GIT_ENV,
                "state": {"kind": "directory", "path": "repo", "ignore": [".git/index", ".git/logs/*"]},
            }
        )
    )
    return spec


SERVERS: dict[str, tuple[str, Callable[[Path], Path]]] = {
    "npm-filesystem": ("mcp-server-filesystem", filesystem_spec),
    "npm-memory": ("mcp-server-memory", memory_spec),
    "pypi-git": ("", git_spec),
}


def stripped(server: str, config: SynthConfig) -> Any:
    """Synthesize for a bundled server as if its tools had no ``gym_mcp/*`` metadata (inference alone)."""
    from unittest import mock

    from gym_mcp.synth import pipeline

    real = pipeline.tool_specs

    def bare(tools: Any, parts: Any = ()) -> Any:
        tools = [t.model_copy(update={"meta": None}) for t in tools]
        return real(tools, parts=parts)

    original = pipeline.infer_specs

    def infer(tools: Any, specs: Any, pools: Any) -> Any:
        return original([t.model_copy(update={"meta": None}) for t in tools], specs, pools)

    # the benchmark's own patch: the pipeline reads metadata in two places, both see none
    with mock.patch.object(pipeline, "tool_specs", bare), mock.patch.object(pipeline, "infer_specs", infer):
        return synthesize(server, config)


def bundled_rows(servers: list[str], n: int, seed: int) -> tuple[list[list[Any]], dict[str, Any]]:
    """Each bundled server with its metadata, then stripped: kept, replay 1.0, tools used."""
    rows: list[list[Any]] = []
    out: dict[str, Any] = {}
    for server in servers:
        cells: list[Any] = [server]
        for label, run in (("kit", synthesize), ("inferred", stripped)):
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                try:
                    synth = run(server, SynthConfig(n=n, seed=seed, heldout_tools=False))
                except GymMCPError as exc:
                    cells += ["0", "-", "-"]
                    out[f"{server}/{label}"] = {"error": str(exc)[:300]}
                    continue
                wall = time.perf_counter() - t0
                path = Path(tmp) / "tasks.jsonl"
                write_outputs(synth, path)
                tasks = load_tasks(path)
                env = gym.make(gym_mcp.env_id(server), tasks=str(path), max_steps=50)
                ok = 0
                try:
                    for task in tasks:
                        env.reset(options={"task_id": task.id})
                        for call in task.reference_calls:
                            env.step(dict(call))
                        ok += env.step("Done.")[1] == 1.0
                finally:
                    env.close()
                s = synth.stats
                cells += [len(tasks), f"{ok}/{len(tasks)}", f"{len(s['tools_used'])}/{s['tools_total']}"]
                out[f"{server}/{label}"] = {
                    "kept": len(tasks),
                    "reward_1": ok,
                    "tools_used": len(s["tools_used"]),
                    "tools_total": s["tools_total"],
                    "skipped_tools": s.get("skipped_tools", {}),
                    "tasks_per_minute": round(len(tasks) / wall * 60, 1),
                    "examples": [t.instruction for t in synth.tasks[:3]],
                }
        rows.append(cells)
        print(f"{server}: done", file=sys.stderr, flush=True)
    return rows, out


def independent_check(spec: Path, path: Path) -> tuple[int, int]:
    """Replay every task through gym.make with its reference calls; count rewards of 1.0."""
    tasks = load_tasks(path)
    env = gym.make("gym_mcp/External-v0", spec=str(spec), tasks=str(path), max_steps=50)
    ok = 0
    try:
        for task in tasks:
            env.reset(options={"task_id": task.id})
            for call in task.reference_calls:
                env.step(dict(call))
            _, reward, *_ = env.step("Done.")
            ok += reward == 1.0
    finally:
        env.close()
    return ok, len(tasks)


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__ or "", repeats=1, quick_repeats=1)
    parser.add_argument("--n", type=int, default=None, help="tasks asked per server (default 100; 30 with --quick)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--servers", nargs="+", default=None, metavar="NAME", help=f"of: {', '.join(SERVERS)}")
    parser.add_argument(
        "--bundled",
        nargs="+",
        default=None,
        metavar="NAME",
        help="instead: bundled servers with their own metadata and then with it stripped (inference alone)",
    )
    args = parser.parse_args(argv)
    n = args.n or (30 if args.quick else 100)
    if args.bundled:
        rows, data = bundled_rows(args.bundled, n, args.seed)
        print(
            table(
                ["server", "kit: kept", "kit: reward 1.0", "kit: tools", "inferred: kept", "reward 1.0", "tools"],
                rows,
                title=f"bench_any_server --bundled: {n} tasks asked, seed {args.seed}, metadata kept / stripped",
            )
        )
        print(f"wrote {write_result(args.out, 'any_server_bundled', {'n': n, 'servers': data})}")
        return 0
    rows = []
    result: dict[str, Any] = {"n": n, "seed": args.seed, "servers": {}, "gym_mcp": gym_mcp.__version__}
    for name in args.servers or list(SERVERS):
        binary, make_spec = SERVERS[name]
        if binary and not (BIN / binary).exists():
            print(f"{name}: skipped, {binary} is not installed (run `npm install`)", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            spec = make_spec(Path(tmp))
            t0 = time.perf_counter()
            try:
                synth = synthesize(spec, SynthConfig(n=n, seed=args.seed, heldout_tools=False))
            except GymMCPError as exc:
                print(f"{name}: synthesis failed: {exc}", file=sys.stderr)
                rows.append([name, n, 0, "-", "-", "-", "-"])
                continue
            wall = time.perf_counter() - t0
            out = Path(tmp) / "tasks.jsonl"
            write_outputs(synth, out)
            ok, total = independent_check(spec, out)
            s = synth.stats
            used = len(s["tools_used"])
            rows.append(
                [
                    name,
                    n,
                    total,
                    f"{ok}/{total} ({ok / max(1, total):.0%})",
                    f"{used}/{s['tools_total']}",
                    round(total / wall * 60, 1),
                    "; ".join(f"{k}: {v}" for k, v in s.get("skipped_tools", {}).items()) or "-",
                ]
            )
            result["servers"][name] = {
                **s,
                "asked": n,
                "independent_reward_1": ok,
                "wall_seconds": round(wall, 2),
                "examples": [t.instruction for t in synth.tasks[:5]],
            }
            print(f"{name}: done in {wall:.1f}s", file=sys.stderr, flush=True)
    print(
        table(
            ["server", "asked", "kept", "replay reward 1.0", "tools used", "tasks/min", "skipped tools"],
            rows,
            title=f"bench_any_server: {n} tasks asked per server, seed {args.seed}, no spec hints",
        )
    )
    print(f"wrote {write_result(args.out, 'any_server', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
