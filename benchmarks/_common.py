"""Helpers shared by the benchmark scripts: statistics, tables, result files, raw servers.

Speed targets are ratios against a baseline measured in the same run (the machine is noisy),
so every script measures its baseline and the thing under test in interleaved batches and
compares medians.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.types import CallToolResult

DEFAULT_OUT = Path("runs") / "bench"
"""Where result files go unless ``--out`` says otherwise (relative to the working directory)."""

SERVER_MODULE = "gym_mcp.servers.banking"
"""The bundled server every benchmark drives."""


# -- statistics -------------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    """Median of a non-empty sequence."""
    return float(statistics.median(values))


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of a non-empty sequence, by linear interpolation."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return float(ordered[0])
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (pos - low))


def summarize(seconds: Sequence[float]) -> dict[str, float]:
    """Median, p10 and p90 in milliseconds, and the sample count."""
    return {
        "median_ms": median(seconds) * 1e3,
        "p10_ms": quantile(seconds, 0.10) * 1e3,
        "p90_ms": quantile(seconds, 0.90) * 1e3,
        "n": float(len(seconds)),
    }


def timed(fn: Callable[[], Any], n: int) -> list[float]:
    """Wall times of ``n`` calls of ``fn``, in seconds."""
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def verdict(ok: bool) -> str:
    """``PASS`` or ``FAIL``."""
    return "PASS" if ok else "FAIL"


# -- output -----------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str | None = None) -> str:
    """A plain-text table; the first column is left-aligned, the others right-aligned."""
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        parts = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    out = []
    if title:
        out.append(title)
    out.append(line(cells[0]))
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(r) for r in cells[1:])
    return "\n".join(out)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if value != value:  # NaN
            return "-"
        if abs(value) >= 100:
            return f"{value:,.1f}"
        return f"{value:.3f}"
    return str(value)


def cpu_kind() -> str:
    """The vector extensions that change a CPU's float kernels: ``avx512+amx``, ``avx512``, ``avx2`` or ``other``."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return "other"
    if "avx512f" in flags:
        return "avx512+amx" if "amx_tile" in flags else "avx512"
    return "avx2" if "avx2" in flags else "other"


def save_figure(fig: Any, ax: Any, path: Path, title: str) -> None:
    """Title a bar chart of held-out success, add its legend, and save it as a PNG at ``path``."""
    import matplotlib.pyplot as plt

    ax.set_ylabel("held-out success (%)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def base_parser(description: str, *, repeats: int, quick_repeats: int) -> argparse.ArgumentParser:
    """The options every benchmark accepts: ``--repeats``, ``--quick``, ``--out``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help=f"measurement rounds (default {repeats}; {quick_repeats} with --quick)",
    )
    parser.add_argument("--quick", action="store_true", help="fewer, smaller rounds (a smoke run)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"directory of the JSON result (default {DEFAULT_OUT}/)"
    )
    return parser


def finish(out_dir: Path, name: str, started: float, **result: Any) -> int:
    """Write the result (with the seconds since ``started``), say where, and return exit status 0."""
    elapsed = time.perf_counter() - started
    path = write_result(out_dir, name, {**result, "elapsed_s": elapsed})
    print(f"\nwrote {path} ({elapsed:.0f} s)")
    return 0


def write_result(out_dir: Path, name: str, result: dict[str, Any]) -> Path:
    """Write a result as ``<out_dir>/<name>.json`` (with machine details) and return the path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"
    payload = {
        "benchmark": name,
        "created_unix": time.time(),
        "machine": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
        },
        **result,
    }
    path.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    return path


# -- raw servers and clients --------------------------------------------------------------------


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spawn_http_server(db_url: str, port: int, stderr_path: Path) -> subprocess.Popen[bytes]:
    """Start the banking server over streamable HTTP on 127.0.0.1:``port`` and wait until it listens.

    Raises:
        RuntimeError: The server exited or did not listen within 60 s.
    """
    command = [
        sys.executable,
        "-m",
        SERVER_MODULE,
        "--db",
        db_url,
        "--transport",
        "http",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with open(stderr_path, "ab") as err:
        proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True
        )
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"http server exited with status {proc.returncode}: {stderr_path.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.05)
    stop_process(proc)
    raise RuntimeError(f"http server did not listen on port {port} within 60 s")


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """Terminate a server process we started (by its pid), killing it if it lingers."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


class RawClient:
    """A plain `mcp.Client` kept open between calls, with no gym-mcp code in the call path.

    anyio requires a client's context to be entered and exited in one task, so an owner task
    holds it open until `close`. Start it on the loop that will make the calls.

    Args:
        target: What `mcp.Client` connects to (a server object, `StdioServerParameters`, a URL).
    """

    def __init__(self, target: Any) -> None:
        self.target = target
        self._client: Client | None = None
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Open the client (server handshake included)."""
        self._stop = asyncio.Event()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own(ready))
        await ready

    async def _own(self, ready: asyncio.Future[None]) -> None:
        try:
            async with Client(self.target) as client:
                self._client = client
                ready.set_result(None)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                raise
        finally:
            self._client = None

    async def call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """One raw ``tools/call``."""
        assert self._client is not None, "start() first"
        return await self._client.call_tool(name, arguments)

    async def close(self) -> None:
        """Close the client (a stdio server process exits with it)."""
        if self._stop is not None:
            self._stop.set()
        if self._owner is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._owner, 10)
        self._owner = None


def result_text(result: CallToolResult) -> str:
    """The text blocks of a tool result, joined as gym-mcp joins them."""
    return "\n".join(str(getattr(block, "text", "")) for block in result.content)


def evaluate_as_run(
    model: Any, tokenizer: Any, make_env: Callable[[], Any], tasks: Sequence[Any], config: dict[str, Any], **kw: Any
) -> Any:
    """`evaluate_model` with a training run's settings (``config``: its config.json); ``kw``: fmt, grammar, progress."""
    from gym_mcp.train.evaluation import evaluate_model

    return evaluate_model(
        model,
        tokenizer,
        make_env,
        list(tasks),
        batch_size=config["per_device_eval_batch_size"],
        max_new_tokens=config["max_completion_length"],
        distractors=None if config["distractor_tools"] < 0 else config["distractor_tools"],
        answer_tokens=config["max_answer_tokens"],
        **kw,
    )
