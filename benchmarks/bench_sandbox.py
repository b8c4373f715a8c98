"""Cost of the bubblewrap sandboxes: launching a third-party server, and a call to it, with and without.

For each server (mcp-server-git from PyPI over a small repository, and the npm filesystem server
when node_modules has it), times ``ExternalSource.launch`` (private state copy, process start,
MCP handshake, tool list; its close is not timed) and the median of a few read-only tool calls
on the launched server (a "step"), with ``sandbox="none"``, ``"bwrap"`` (writes confined) and
``"bwrap-strict"`` (reads confined too) in interleaved rounds, and reports the medians and each
sandbox's ratio to no sandbox. There is no target: the figure is for the README (the sandbox is a choice of safety over
start-up time, and warm servers are reused across episodes, so it is paid once per server).

Run: ``python benchmarks/bench_sandbox.py [--repeats N] [--quick] [--out DIR]``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import base_parser, finish, median, summarize, table

from gym_mcp.live.sandbox import _probe, bwrap_available
from gym_mcp.live.sources import ExternalSource
from gym_mcp.state import DirectoryState
from gym_mcp.transport.runner import run_sync

DESCRIPTION = "Start-up and per-call cost of the bubblewrap sandboxes for third-party servers."
ROOT = Path(__file__).resolve().parent.parent
MODES = ("none", "bwrap", "bwrap-strict")
CALLS = 20  # tool calls timed per launch (their median is the launch's step time)


def git_repo(where: Path) -> Path:
    """A small git repository (three commits) as the template state."""
    import git

    repo_dir = where / "repo"
    repo = git.Repo.init(repo_dir)
    for i in range(3):
        (repo_dir / f"file{i}.txt").write_text(f"content {i}\n")
        repo.index.add([f"file{i}.txt"])
        repo.index.commit(f"commit {i}")
    return repo_dir


def sources(where: Path) -> dict[str, tuple[dict[str, ExternalSource], str, dict[str, str]]]:
    """The servers to time, each in every mode, with the read-only call to time as a step."""
    out: dict[str, tuple[dict[str, ExternalSource], str, dict[str, str]]] = {}
    repo = git_repo(where)
    git_sources = {
        mode: ExternalSource(
            "git",
            command=[sys.executable, "-m", "mcp_server_git", "--repository", "{state}"],
            state=DirectoryState(repo, ignore=[".git/logs/*"]),
            sandbox=mode,
        )
        for mode in MODES
    }
    out["mcp-server-git (PyPI)"] = (git_sources, "git_status", {"repo_path": "{state}"})
    fs = ROOT / "node_modules" / ".bin" / "mcp-server-filesystem"
    if fs.exists():
        folder = where / "files"
        folder.mkdir()
        (folder / "a.txt").write_text("a\n")
        fs_sources = {
            mode: ExternalSource("filesystem", command=[str(fs), "{state}"], state=DirectoryState(folder), sandbox=mode)
            for mode in MODES
        }
        out["server-filesystem (npm)"] = (fs_sources, "list_directory", {"path": "{state}"})
    return out


def time_launch(source: ExternalSource, tool: str, arguments: dict[str, str]) -> tuple[float, float]:
    """Seconds to launch the server and list its tools, and the median seconds of a call to ``tool``."""

    async def go() -> tuple[float, float]:
        start = time.perf_counter()
        live = await source.launch(call_timeout=30.0)
        took = time.perf_counter() - start
        try:
            where = str(live.state.location)
            args = {k: v.replace("{state}", where) for k, v in arguments.items()}
            calls = []
            for _ in range(CALLS):
                begin = time.perf_counter()
                result = await live.call_tool(tool, args)
                calls.append(time.perf_counter() - begin)
                if result.is_error:
                    raise RuntimeError(f"{tool} failed: {result}")
        finally:
            await live.close()
        return took, median(calls)

    return run_sync(go())


def main() -> int:
    parser = base_parser(DESCRIPTION, repeats=10, quick_repeats=3)
    args = parser.parse_args()
    if not bwrap_available():
        print(f"skipped: {_probe()}")
        return 0
    repeats = args.repeats or (3 if args.quick else 10)
    started = time.perf_counter()
    where = Path(tempfile.mkdtemp(prefix="gym-mcp-bench-sandbox-"))
    try:
        servers = sources(where)
        launches: dict[str, dict[str, list[float]]] = {name: {m: [] for m in MODES} for name in servers}
        steps: dict[str, dict[str, list[float]]] = {name: {m: [] for m in MODES} for name in servers}
        for modes, tool, arguments in servers.values():  # warm-up: imports and disk caches
            for source in modes.values():
                time_launch(source, tool, arguments)
        for round_ in range(repeats):
            for name, (modes, tool, arguments) in servers.items():
                shift = round_ % len(MODES)  # rotate the order, so no mode always goes first
                for mode in MODES[shift:] + MODES[:shift]:
                    took, step = time_launch(modes[mode], tool, arguments)
                    launches[name][mode].append(took)
                    steps[name][mode].append(step)
            print(f"round {round_ + 1}/{repeats} done", flush=True)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    rows = []
    result: dict[str, dict[str, object]] = {}
    for name in servers:
        launch = {m: median(launches[name][m]) for m in MODES}
        step = {m: median(steps[name][m]) for m in MODES}
        rows.append(
            (
                name,
                *(f"{launch[m] * 1000:.0f}" for m in MODES),
                f"{launch['bwrap'] / launch['none']:.2f}",
                f"{launch['bwrap-strict'] / launch['none']:.2f}",
                *(f"{step[m] * 1000:.2f}" for m in MODES),
                f"{step['bwrap'] / step['none']:.2f}",
                f"{step['bwrap-strict'] / step['none']:.2f}",
            )
        )
        result[name] = {
            "launch": {m: summarize(launches[name][m]) for m in MODES},
            "step": {m: summarize(steps[name][m]) for m in MODES},
            "added_ms": (launch["bwrap"] - launch["none"]) * 1000,
            "ratio": launch["bwrap"] / launch["none"],
            "strict_added_ms": (launch["bwrap-strict"] - launch["none"]) * 1000,
            "strict_ratio": launch["bwrap-strict"] / launch["none"],
            "step_ratio": step["bwrap"] / step["none"],
            "strict_step_ratio": step["bwrap-strict"] / step["none"],
        }
    print()
    print(
        table(
            [
                "server",
                "launch ms",
                "bwrap",
                "strict",
                "bwrap x",
                "strict x",
                "step ms",
                "bwrap",
                "strict",
                "bwrap x",
                "strict x",
            ],
            rows,
            title=f"median launch and median call ({CALLS} per launch): none / bwrap / bwrap-strict, ratios to none",
        )
    )
    return finish(args.out, "sandbox", started, config={"repeats": repeats, "calls": CALLS}, servers=result)


if __name__ == "__main__":
    raise SystemExit(main())
