"""Start-up cost of the bubblewrap sandbox: launching a third-party server with and without it.

For each server (mcp-server-git from PyPI over a small repository, and the npm filesystem server
when node_modules has it), times ``ExternalSource.launch`` (private state copy, process start,
MCP handshake, tool list) and the close that follows, with ``sandbox="none"`` and
``sandbox="bwrap"`` in interleaved rounds, and reports the medians, the added milliseconds and the
ratio. There is no target: the figure is for the README (the sandbox is a choice of safety over
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

DESCRIPTION = "Start-up cost of the bubblewrap sandbox for third-party servers."
ROOT = Path(__file__).resolve().parent.parent


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


def sources(where: Path) -> dict[str, dict[str, ExternalSource]]:
    """The servers to time, each with and without the sandbox."""
    out: dict[str, dict[str, ExternalSource]] = {}
    repo = git_repo(where)
    out["mcp-server-git (PyPI)"] = {
        mode: ExternalSource(
            "git",
            command=[sys.executable, "-m", "mcp_server_git", "--repository", "{state}"],
            state=DirectoryState(repo, ignore=[".git/logs/*"]),
            sandbox=mode,
        )
        for mode in ("none", "bwrap")
    }
    fs = ROOT / "node_modules" / ".bin" / "mcp-server-filesystem"
    if fs.exists():
        folder = where / "files"
        folder.mkdir()
        (folder / "a.txt").write_text("a\n")
        out["server-filesystem (npm)"] = {
            mode: ExternalSource("filesystem", command=[str(fs), "{state}"], state=DirectoryState(folder), sandbox=mode)
            for mode in ("none", "bwrap")
        }
    return out


def time_launch(source: ExternalSource) -> float:
    """Seconds to launch the server and list its tools (its close is not timed)."""

    async def go() -> float:
        start = time.perf_counter()
        live = await source.launch(call_timeout=30.0)
        took = time.perf_counter() - start
        await live.close()
        return took

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
        samples: dict[str, dict[str, list[float]]] = {name: {"none": [], "bwrap": []} for name in servers}
        for modes in servers.values():  # warm-up: imports and disk caches
            for source in modes.values():
                time_launch(source)
        for round_ in range(repeats):
            for name, modes in servers.items():
                order = ("none", "bwrap") if round_ % 2 == 0 else ("bwrap", "none")
                for mode in order:
                    samples[name][mode].append(time_launch(modes[mode]))
            print(f"round {round_ + 1}/{repeats} done", flush=True)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    rows = []
    result: dict[str, dict[str, object]] = {}
    for name, by_mode in samples.items():
        plain, boxed = median(by_mode["none"]), median(by_mode["bwrap"])
        rows.append(
            (
                name,
                f"{plain * 1000:.0f}",
                f"{boxed * 1000:.0f}",
                f"{(boxed - plain) * 1000:+.0f}",
                f"{boxed / plain:.2f}",
            )
        )
        result[name] = {
            "none": summarize(by_mode["none"]),
            "bwrap": summarize(by_mode["bwrap"]),
            "added_ms": (boxed - plain) * 1000,
            "ratio": boxed / plain,
        }
    print()
    print(
        table(
            ["server", "launch ms", "in bwrap ms", "added ms", "ratio"],
            rows,
            title="median launch, no sandbox vs bwrap",
        )
    )
    return finish(args.out, "sandbox", started, config={"repeats": repeats}, servers=result)


if __name__ == "__main__":
    raise SystemExit(main())
