"""Cold start of a bundled server: spawn to first tool result, over stdio.

Each sample starts ``python -m gym_mcp.servers.banking --db URL`` as a fresh process, opens an
MCP client session on its stdio, and calls ``get_balance(account_id="ACC-1001")``; the time from
spawn to that result is the cold start (what every new environment process, restart and
``gym-mcp serve`` pays). Measured in rotating rounds, against:

- ``floor``: a minimal MCP server with one tool (imports mcp and SQLAlchemy, nothing of gym-mcp):
  what any Python MCP server on these libraries pays;
- ``baseline``: the same bundled server from another revision of this repository
  (``--baseline-rev REV``, e.g. the commit before a change), checked out into a temporary
  folder laid out as the package installs (``servers/`` inside ``gym_mcp/``) and put first on
  ``PYTHONPATH``; omitted without the option.

It also counts the modules each server process imports (``-X importtime``), and reports the
ratios current / floor and current / baseline.

Run: ``python benchmarks/bench_coldstart.py [--baseline-rev REV] [--repeats N] [--quick] [--out DIR]``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import base_parser, median, summarize, table, write_result
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent

FLOOR_SERVER = '''
import sys
from mcp.server.mcpserver import MCPServer
from sqlalchemy import create_engine, text

engine = create_engine(sys.argv[1])
server = MCPServer("floor")


@server.tool()
def get_balance(account_id: str) -> str:
    """The balance of an account."""
    with engine.connect() as conn:
        return str(conn.execute(text("SELECT 1")).scalar())


server.run("stdio")
'''


def _installed_layout(rev: str, dest: Path) -> Path:
    """``rev``'s sources laid out as installed: gym_mcp/ with servers/, synth/, train/ inside."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    src = dest / "src"
    src.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    shutil.move(str(src / "gym_mcp"), str(dest / "gym_mcp"))
    for sub in ("servers", "synth", "train"):
        if (src / sub).is_dir():
            shutil.move(str(src / sub), str(dest / "gym_mcp" / sub))
    return dest


async def _first_result(params: StdioServerParameters) -> float:
    start = time.perf_counter()
    async with Client(params) as client:
        result = await client.call_tool("get_balance", {"account_id": "ACC-1001"})
        assert not result.is_error, result
    return time.perf_counter() - start


def _imports(command: list[str], env: dict[str, str], cwd: Path) -> int:
    """How many modules the server process imports before it serves (``-X importtime``, ``--help``)."""
    out = subprocess.run(
        [command[0], "-X", "importtime", *command[1:], "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )
    return sum(1 for line in out.stderr.splitlines() if line.startswith("import time:")) - 1


def main() -> None:
    parser = base_parser(__doc__.splitlines()[0], repeats=15, quick_repeats=4)
    parser.add_argument("--baseline-rev", default=None, help="a git revision whose bundled server is the baseline")
    args = parser.parse_args()
    repeats = args.repeats or (4 if args.quick else 15)
    work = Path(tempfile.mkdtemp(prefix="gym-mcp-coldstart-"))
    try:
        floor_py = work / "floor.py"
        floor_py.write_text(FLOOR_SERVER)
        # every process runs in the temporary folder: with ``-m`` the working directory comes first
        # on sys.path, and this repository's own gym_mcp/ must not shadow the baseline's
        base_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        sides: dict[str, tuple[list[str], dict[str, str]]] = {}
        db = f"sqlite:///{work}/current.db"
        sides["current"] = ([sys.executable, "-m", "gym_mcp.servers.banking", "--db", db], base_env)
        sides["floor"] = ([sys.executable, str(floor_py), f"sqlite:///{work}/floor.db"], base_env)
        if args.baseline_rev:
            layout = _installed_layout(args.baseline_rev, work / "baseline")
            env = {**base_env, "PYTHONPATH": str(layout)}
            sides["baseline"] = (
                [sys.executable, "-m", "gym_mcp.servers.banking", "--db", f"sqlite:///{work}/b.db"],
                env,
            )
        for command, env in sides.values():  # warm the OS caches and create the databases
            asyncio.run(_first_result(StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=work)))
        samples: dict[str, list[float]] = {name: [] for name in sides}
        names = list(sides)
        for r in range(repeats):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                command, env = sides[name]
                params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=work)
                samples[name].append(asyncio.run(_first_result(params)))
        modules = {name: _imports(command, env, work) for name, (command, env) in sides.items() if name != "floor"}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    stats = {name: summarize(s) for name, s in samples.items()}
    rows = [
        [name, stats[name]["median_ms"], stats[name]["p10_ms"], stats[name]["p90_ms"], modules.get(name, "")]
        for name in samples
    ]
    print(table(["server", "median ms", "p10 ms", "p90 ms", "modules"], rows, title="spawn to first tool result"))
    ratios = {"current / floor": median(samples["current"]) / median(samples["floor"])}
    if "baseline" in samples:
        ratios["current / baseline"] = median(samples["current"]) / median(samples["baseline"])
        ratios["baseline / floor"] = median(samples["baseline"]) / median(samples["floor"])
    print()
    print(table(["ratio", "value"], [[k, v] for k, v in ratios.items()]))
    path = write_result(
        args.out,
        "coldstart",
        {"repeats": repeats, "baseline_rev": args.baseline_rev, "stats": stats, "modules": modules, "ratios": ratios},
    )
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
