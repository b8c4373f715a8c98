"""Synthesis on third-party MCP servers nobody annotated for gym-mcp, wrapped unmodified.

Each server runs from a spec file with no ``[tools.hints]``: synthesis knows its tools only by
their names, descriptions, input schemas and MCP annotations, and its entities only from its
state (`gym_mcp.synth.infer`). For each: tasks asked, tasks kept, the share of kept tasks that
replay to reward 1.0 on an independent second replay through
``gym.make("gym_mcp/External-v0", spec=...)`` (reference calls, then a final answer, the default
reward), the volatile columns synthesis found (minted ids, clock stamps), tools used / offered,
the tools not used and why (skipped by inference, or unverifiable: never changed visible state),
and tasks kept per minute. Target: >= 95% replay to 1.0 and >= 30 kept on every server.

Servers (a missing one is reported as skipped, with the command that installs it):

- ``npm-filesystem``: ``@modelcontextprotocol/server-filesystem`` over a small folder;
- ``npm-memory``: ``@modelcontextprotocol/server-memory``, a knowledge graph in a JSON-lines
  file (``MEMORY_FILE_PATH``);
- ``pypi-git``: PyPI's ``mcp-server-git`` over a small repository (commit dates fixed by the
  spec's environment; the index and reflogs left out of fingerprints);
- ``npm-taskmanager``: ``@kazuph/mcp-taskmanager``, requests and their tasks in a JSON file;
- ``npm-memory-bank``: ``@allpepper/memory-bank-mcp``, a folder per project of markdown files;
- ``pypi-sqlite-records``: PyPI's ``sqlite-record-mcp``, CRUD over a SQLite file whose writes
  stamp rows with the clock.

The first three install with the test command (``npm install`` from package.json; ``pip install
-e ".[dev]"``). The others are for this benchmark only, pinned in ``benchmarks/servers/``:

    npm install --prefix benchmarks/servers --no-audit --no-fund
    python3 -m venv benchmarks/servers/.venv && \\
        benchmarks/servers/.venv/bin/pip install -r benchmarks/servers/requirements.txt

(``sqlite-record-mcp`` is written for ``mcp`` 1.x, which cannot share gym-mcp's venv: it runs
from a venv of its own.)

``--bundled NAME ...`` (or ``--bundled all``) measures bundled servers instead, each with its own
metadata and then with it stripped (what inference alone achieves against the kit's hand-written
intents), in the same columns. Results: ``<out>/any_server.{json,txt,png}`` and
``<out>/any_server_bundled.{json,txt,png}``.

Run: GYM_MCP_HOME=$(mktemp -d) .venv/bin/python benchmarks/bench_any_server.py --n 100 --out benchmarks/results
     GYM_MCP_HOME=$(mktemp -d) .venv/bin/python benchmarks/bench_any_server.py --bundled all --n 50 \\
         --out benchmarks/results
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


SERVERS_DIR = ROOT / "benchmarks" / "servers"
BENCH_BIN = SERVERS_DIR / "node_modules" / ".bin"
BENCH_PY = SERVERS_DIR / ".venv" / "bin" / "python"
NPM_INSTALL = "npm install --prefix benchmarks/servers --no-audit --no-fund"
PIP_INSTALL = (
    "python3 -m venv benchmarks/servers/.venv && "
    "benchmarks/servers/.venv/bin/pip install -r benchmarks/servers/requirements.txt"
)


def taskmanager_spec(folder: Path) -> Path:
    """npm's @kazuph/mcp-taskmanager: requests and their tasks in one JSON file (re-read on every call)."""
    plans = [
        (
            "Prepare the quarterly report",
            [("Collect figures", "Pull the sales figures"), ("Write summary", "One page")],
        ),
        ("Move the office", [("Book movers", "Three quotes"), ("Pack the archive", "Label every box")]),
        ("Launch the newsletter", [("Pick a name", "Short and clear"), ("Draft issue one", "Five stories")]),
        ("Hire a designer", [("Post the job", "On two boards"), ("Screen portfolios", "Shortlist five")]),
    ]
    requests, n = [], 0
    for i, (request, tasks) in enumerate(plans, 1):
        rows = []
        for title, description in tasks:
            n += 1
            done = n % 3 == 0
            rows.append(
                {
                    "id": f"task-{n}",
                    "title": title,
                    "description": description,
                    "done": done,
                    "approved": False,
                    "completedDetails": "finished" if done else "",
                }
            )
        requests.append(
            {
                "requestId": f"req-{i}",
                "originalRequest": request,
                "splitDetails": request,
                "tasks": rows,
                "completed": False,
            }
        )
    (folder / "tasks.json").write_text(json.dumps({"requests": requests}, indent=2))
    spec = folder / "taskmanager.toml"
    spec.write_text(
        f'name = "npm-taskmanager"\ncommand = ["{BENCH_BIN / "mcp-taskmanager"}"]\n\n'
        '[env]\nTASK_MANAGER_FILE_PATH = "{state}"\n\n[state]\nkind = "json"\npath = "tasks.json"\n'
    )
    return spec


def memory_bank_spec(folder: Path) -> Path:
    """npm's @allpepper/memory-bank-mcp: one folder a project, markdown files in each."""
    root = folder / "bank"
    for rel, text in {
        "apollo/projectbrief.md": "# Apollo\nA rocket telemetry dashboard.\n",
        "apollo/progress.md": "- ingest done\n- charts pending\n",
        "apollo/techContext.md": "Python, SQLite, Vue\n",
        "hermes/projectbrief.md": "# Hermes\nA courier tracking app.\n",
        "hermes/activeContext.md": "Working on the route planner.\n",
        "zephyr/projectbrief.md": "# Zephyr\nA weather station network.\n",
        "zephyr/decisions.md": "Use MQTT for sensors.\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    spec = folder / "memory_bank.toml"
    spec.write_text(
        f'name = "npm-memory-bank"\ncommand = ["{BENCH_BIN / "mcp-server-memory-bank"}"]\n\n'
        '[env]\nMEMORY_BANK_ROOT = "{state}"\n\n[state]\nkind = "directory"\npath = "bank"\n'
    )
    return spec


def sqlite_records_spec(folder: Path) -> Path:
    """PyPI's sqlite-record-mcp: CRUD over a ``records`` table in a SQLite file (writes stamp ``updated_at``)."""
    import sqlite3

    db = folder / "records.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE records (id INTEGER PRIMARY KEY AUTOINCREMENT, deviceSN TEXT NOT NULL, modelName TEXT NOT NULL,"
        " modelVersion TEXT, captureTime TEXT, imageUrl TEXT, status TEXT, error TEXT, orig_path TEXT,"
        " draw_path TEXT, updated_at TEXT)"
    )
    devices = ["SN-1001", "SN-1002", "SN-2040", "SN-3300", "SN-4712"]
    models = ["helmet-detector", "smoke-detector", "crack-finder"]
    statuses = ["ok", "alarm", "ignored"]
    for i in range(12):
        con.execute(
            "INSERT INTO records (deviceSN, modelName, modelVersion, captureTime, imageUrl, status, error,"
            " orig_path, draw_path, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                devices[i % 5],
                models[i % 3],
                f"v{1 + i % 2}.0",
                f"2026-03-{1 + i:02d} 08:00:00",
                f"https://img.example.com/{i}.jpg",
                statuses[i % 3],
                "",
                f"/orig/{i}.jpg",
                f"/draw/{i}.jpg",
                "2026-03-20 09:00:00",
            ),
        )
    con.commit()
    con.close()
    spec = folder / "records.toml"
    spec.write_text(
        f'name = "pypi-sqlite-records"\n'
        f'command = ["{BENCH_PY}", "-m", "sqlite_record_mcp_server", "--db", "{{state}}"]\n\n'
        '[state]\nkind = "sqlite"\npath = "records.db"\n'
    )
    return spec


# name: (the program that must exist, how the spec is made, the command that installs it)
SERVERS: dict[str, tuple[Path | None, Callable[[Path], Path], str]] = {
    "npm-filesystem": (BIN / "mcp-server-filesystem", filesystem_spec, "npm install"),
    "npm-memory": (BIN / "mcp-server-memory", memory_spec, "npm install"),
    "pypi-git": (None, git_spec, 'pip install -e ".[dev]"'),
    "npm-taskmanager": (BENCH_BIN / "mcp-taskmanager", taskmanager_spec, NPM_INSTALL),
    "npm-memory-bank": (BENCH_BIN / "mcp-server-memory-bank", memory_bank_spec, NPM_INSTALL),
    "pypi-sqlite-records": (BENCH_PY, sqlite_records_spec, PIP_INSTALL),
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


TARGET_SHARE = 0.95
TARGET_KEPT = 30
HEADERS = ["asked", "kept", "replay 1.0", "volatile found", "tools used", "tasks/min"]


def volatile_cell(stats: dict[str, Any]) -> str:
    """``records: captureTime, updated_at`` or ``-``."""
    found = stats.get("nondeterministic", {}).get("volatile") or {}
    return "; ".join(f"{group}: {', '.join(cols)}" for group, cols in sorted(found.items())) or "-"


def measure(
    run: Callable[[], Any], check: Callable[[Path], tuple[int, int]], n: int
) -> tuple[list[Any], dict[str, Any]]:
    """Synthesize, write the tasks, replay them independently: the row's cells and its JSON record."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        try:
            synth = run()
        except GymMCPError as exc:
            return [n, 0, "-", "-", "-", "-"], {"asked": n, "kept": 0, "error": str(exc)[:500]}
        wall = time.perf_counter() - t0
        path = Path(tmp) / "tasks.jsonl"
        write_outputs(synth, path)
        ok, total = check(path)
    s = synth.stats
    share = ok / max(1, total)
    cells = [
        n,
        total,
        f"{ok}/{total} ({share:.0%})",
        volatile_cell(s),
        f"{len(s['tools_used'])}/{s['tools_total']}",
        round(total / wall * 60, 1),
    ]
    record = {
        **s,
        "asked": n,
        "kept": total,
        "independent_reward_1": ok,
        "independent_share": round(share, 4),
        "meets_target": share >= TARGET_SHARE and total >= TARGET_KEPT,
        "tasks_per_minute": round(total / wall * 60, 1),
        "wall_seconds": round(wall, 2),
        "examples": [t.instruction for t in synth.tasks[:5]],
    }
    return cells, record


def bundled_replay(server: str) -> Callable[[Path], tuple[int, int]]:
    """Every task of a bundled server replayed through gym.make (reference calls, then an answer)."""

    def check(path: Path) -> tuple[int, int]:
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
        return ok, len(tasks)

    return check


def bundled_rows(servers: list[str], n: int, seed: int) -> tuple[list[list[Any]], dict[str, Any]]:
    """Each bundled server with its metadata (kit), then stripped (inferred): the same columns."""
    rows: list[list[Any]] = []
    out: dict[str, Any] = {}
    config = SynthConfig(n=n, seed=seed, heldout_tools=False)
    for server in servers:
        for label, run in (("kit", synthesize), ("inferred", stripped)):
            cells, record = measure(lambda run=run, server=server: run(server, config), bundled_replay(server), n)
            rows.append([server, label, *cells])
            out[f"{server}/{label}"] = record
        print(f"{server}: done", file=sys.stderr, flush=True)
    return rows, out


def independent_check(spec: Path) -> Callable[[Path], tuple[int, int]]:
    """Every task replayed through gym.make with the spec (reference calls, then a final answer)."""

    def check(path: Path) -> tuple[int, int]:
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

    return check


def plot(rows: list[list[Any]], records: dict[str, dict[str, Any]], path: Path, title: str) -> Path | None:
    """Kept tasks and the share replaying to 1.0, one bar pair per row (matplotlib, if installed)."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(records)
    kept = [records[k].get("kept", 0) for k in labels]
    share = [100 * records[k].get("independent_share", 0.0) for k in labels]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.45 * len(labels) + 2), 3.8))
    xs = range(len(labels))
    b1 = ax.bar([x - 0.2 for x in xs], kept, width=0.4, label="tasks kept", color="#4C72B0")
    b2 = ax.bar([x + 0.2 for x in xs], share, width=0.4, label="% replaying to 1.0", color="#55A868")
    ax.bar_label(b1, fontsize=6, padding=1)
    ax.bar_label(b2, labels=[f"{v:.0f}" for v in share], fontsize=6, padding=1)
    ax.axhline(TARGET_KEPT, color="#4C72B0", lw=0.6, ls=":")
    ax.axhline(100 * TARGET_SHARE, color="#55A868", lw=0.6, ls=":")
    ax.set_xticks(list(xs), labels, rotation=45, ha="right", fontsize=7)
    ax.set_ylim(0, 115)
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    ax.set_title(title, pad=20, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot_bundled(records: dict[str, dict[str, Any]], path: Path, n: int) -> Path | None:
    """Per bundled server: the share of its tools tasks use, kit metadata against inference alone.

    The title says how many runs kept every task asked and replayed all to 1.0 (kept and replay
    are the table's; the tools are where the two differ).
    """
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    servers = sorted({k.split("/")[0] for k in records})

    def tools(key: str) -> float:
        r = records.get(key, {})
        return 100 * len(r.get("tools_used", {})) / max(1, r.get("tools_total", 0))

    full = sum(r.get("kept") == n and r.get("independent_share") == 1.0 for r in records.values())
    fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(servers) + 2), 3.8))
    xs = range(len(servers))
    for offset, label, color in ((-0.2, "kit", "#4C72B0"), (0.2, "inferred", "#DD8452")):
        values = [tools(f"{s}/{label}") for s in servers]
        bars = ax.bar([x + offset for x in xs], values, width=0.4, label=f"{label}: % of tools used", color=color)
        ax.bar_label(bars, labels=[f"{v:.0f}" for v in values], fontsize=6, padding=1)
    ax.set_xticks(list(xs), servers, rotation=45, ha="right", fontsize=7)
    ax.set_ylim(0, 115)
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    ax.set_title(
        f"bundled servers, kit metadata vs stripped: {full} of {len(records)} runs kept {n}/{n}, all replaying to 1.0",
        pad=20,
        fontsize=9,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_table(out: Path, name: str, text: str) -> Path:
    """The printed table, also as ``<out>/<name>.txt``."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.txt"
    path.write_text(text + "\n")
    return path


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
        help="instead: bundled servers with their own metadata and then with it stripped (inference alone); "
        "'all' for every bundled server",
    )
    args = parser.parse_args(argv)
    n = args.n or (30 if args.quick else 100)
    if args.bundled == ["all"]:
        from gym_mcp.servers import BUNDLED

        args.bundled = sorted(BUNDLED)
    if args.bundled:
        rows, data = bundled_rows(args.bundled, n, args.seed)
        text = table(
            ["server", "metadata", *HEADERS],
            rows,
            title=f"bench_any_server --bundled: {n} tasks asked, seed {args.seed}; kit metadata vs stripped (inferred)",
        )
        print(text)
        print(f"wrote {write_table(args.out, 'any_server_bundled', text)}")
        print(f"wrote {write_result(args.out, 'any_server_bundled', {'n': n, 'seed': args.seed, 'servers': data})}")
        png = plot_bundled(data, args.out / "any_server_bundled.png", n)
        if png:
            print(f"wrote {png}")
        return 0
    rows = []
    result: dict[str, Any] = {"n": n, "seed": args.seed, "servers": {}, "skipped": {}, "gym_mcp": gym_mcp.__version__}
    for name in args.servers or list(SERVERS):
        binary, make_spec, install = SERVERS[name]
        if binary is not None and not binary.exists():
            print(f"{name}: skipped, {binary.name} is not installed (run `{install}`)", file=sys.stderr)
            result["skipped"][name] = f"not installed: run `{install}`"
            rows.append([name, n, "skipped", "-", "-", "-", "-", f"run `{install}`"])
            continue
        with tempfile.TemporaryDirectory() as tmp:
            spec = make_spec(Path(tmp))
            config = SynthConfig(n=n, seed=args.seed, heldout_tools=False)
            cells, record = measure(
                lambda spec=spec, config=config: synthesize(spec, config), independent_check(spec), n
            )
        notes = [f"{k}: {v}" for k, v in record.get("skipped_tools", {}).items()]
        notes += [f"{t}: never changed visible state (unverifiable)" for t in record.get("unverifiable_tools", [])]
        rows.append([name, *cells, "; ".join(notes) or "-"])
        result["servers"][name] = record
        print(f"{name}: done in {record.get('wall_seconds', '-')}s", file=sys.stderr, flush=True)
    text = table(
        ["server", *HEADERS, "tools not used (why)"],
        rows,
        title=f"bench_any_server: {n} tasks asked per server, seed {args.seed}, no spec hints; "
        f"target: >= {TARGET_SHARE:.0%} replay to 1.0 and >= {TARGET_KEPT} kept",
    )
    print(text)
    print(f"wrote {write_table(args.out, 'any_server', text)}")
    print(f"wrote {write_result(args.out, 'any_server', result)}")
    png = plot(rows, result["servers"], args.out / "any_server.png", f"third-party servers, no hints, n={n}")
    if png:
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
