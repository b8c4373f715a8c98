"""What a run reports: the before/after tables, where the time went, peak memory, the training plot."""

from __future__ import annotations

import json
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "breakdown_table",
    "peak_gpu_gb",
    "peak_rss_gb",
    "plot_run",
    "step_status",
    "summary_table",
    "timing_table",
    "unseen_tool_tasks",
]


def peak_rss_gb() -> float:
    """This process's peak resident memory so far, in GB (children excluded)."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(peak / (1e9 if sys.platform == "darwin" else 1e6), 2)


def peak_gpu_gb() -> float | None:
    """The most GPU memory torch's allocator held at once in this process, in GB; None without CUDA.

    What torch allocated (``max_memory_allocated``), not what the driver reserved: the figure a
    smaller card must hold.
    """
    import torch

    if not torch.cuda.is_available():
        return None
    return round(torch.cuda.max_memory_allocated() / 1e9, 2)


def timing_table(
    timings: dict[str, float],
    peak_rss: float | None = None,
    peak_gpu: float | None = None,
    rss_by_phase: dict[str, float] | None = None,
) -> str:
    """Where the run's time went, as Markdown (and the peak memory: resident, and GPU where there is one).

    Args:
        timings: Seconds per phase, in the order they ran.
        peak_rss: The run's peak resident memory, GB.
        peak_gpu: The run's peak GPU memory, GB (None without CUDA).
        rss_by_phase: The peak resident memory when each phase ended (GB): adds a column whose
            first value at the run's peak names the phase that set it.
    """
    total = sum(timings.values())
    by_phase = rss_by_phase or {}
    head = "| phase | seconds | share |" + (" peak RSS by its end (GB) |" if by_phase else "")
    lines = [head, "|---|---|---|" + ("---|" if by_phase else "")]
    for name, sec in timings.items():
        row = f"| {name} | {sec:.0f} | {100 * sec / max(total, 1e-9):.0f}% |"
        if by_phase:
            row += f" {by_phase[name]:.2f} |" if name in by_phase else " |"
        lines.append(row)
    lines.append(f"| total | {total:.0f} | 100% |" + (" |" if by_phase else ""))
    if peak_rss is not None:
        lines.append(f"peak RSS: {peak_rss:.2f} GB")
    if peak_gpu is not None:
        lines.append(f"peak GPU memory: {peak_gpu:.2f} GB")
    return "\n".join(lines)


def unseen_tool_tasks(train: Sequence[Any], held_out: Sequence[Any]) -> set[str]:
    """Ids of the held-out tasks that call a tool no train task calls."""
    trained = {str(c["name"]) for t in train for c in t.reference_calls}
    return {t.id for t in held_out if {str(c["name"]) for c in t.reference_calls} - trained}


def breakdown_table(
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    unseen_tools: Collection[str] = (),
    unseen_servers: Collection[str] = (),
) -> str:
    """Held-out success before and after, by server (when there are several), chain length and variant, as Markdown.

    Args:
        before: The base model's evaluation summary.
        after: The trained model's.
        unseen_tools: Ids of held-out tasks that call a tool no train task calls (see
            `unseen_tool_tasks`); when there are any, rows for seen and unseen tools are added.
        unseen_servers: Servers held out of training (``eval_servers``): their rows say so.
    """
    if not before or not after:
        return ""
    lines = ["| group | tasks | base solved | trained solved |", "|---|---|---|---|"]
    keys: list[tuple[str, Any]] = []
    if len({e.get("server") for e in after["episodes"]}) > 1:
        keys.append(("server", lambda e: e["server"] + (" (never trained)" if e["server"] in unseen_servers else "")))
    keys += [
        ("calls", lambda e: f"{e['reference_calls']}-call"),
        ("variant", lambda e: e.get("variant") or "complete"),
    ]
    if unseen_tools:
        keys.append(("tools", lambda e: "unseen in training" if e["task"] in unseen_tools else "all trained"))
    for title, key in keys:
        groups: dict[str, list[tuple[float, float]]] = {}
        for b, a in zip(before["episodes"], after["episodes"], strict=True):
            groups.setdefault(key(a), []).append((b["success"], a["success"]))
        for name in sorted(groups):
            rows = groups[name]
            base, trained = sum(r[0] for r in rows), sum(r[1] for r in rows)
            lines.append(f"| {title}: {name} | {len(rows)} | {base:.0f} | {trained:.0f} |")
    return "\n".join(lines)


def summary_table(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """The before/after table of held-out evaluations, as Markdown."""
    if not before or not after:
        return "(no held-out evaluation: eval_tasks is 0 or there are no test-split tasks)"

    def calls(row: dict[str, Any]) -> str:
        if row["calls_per_solved"] is None:
            return "n/a (none solved)"
        return f"{row['calls_per_solved']:.2f} (reference {row['reference_calls_per_solved']:.2f})"

    def ask(row: dict[str, Any]) -> str:
        asked = [e["asked"] for e in row["episodes"] if e.get("asked") is not None]
        return f"{sum(a == 1.0 for a in asked)}/{len(asked)}" if asked else "n/a"

    lines = [
        f"held-out tasks: {len(after['episodes'])}",
        "| model | success | mean reward | calls per solved task | invalid calls per episode "
        "| asked for the missing value |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in (("base", before), ("trained", after)):
        success, reward, invalid = 100 * row["success"], row["reward"], row["invalid_calls"]
        lines.append(f"| {name} | {success:.1f}% | {reward:.3f} | {calls(row)} | {invalid:.2f} | {ask(row)} |")
    lines.append(f"success change: {paired_change(before, after)}")
    return "\n".join(lines)


def paired_change(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The trained model's success minus the base model's, task by task, with its 95% interval.

    See `gym_mcp.evaluation.paired_difference`: ``+40.6 points (95% CI +28.1 to +53.1; 14 vs 1
    discordant, McNemar p=0.001)``; the plain difference when the two evaluations are not over
    the same tasks.
    """
    from gym_mcp.evaluation import paired_difference

    a = {e["task"]: [e["success"]] for e in before["episodes"]}
    b = {e["task"]: [e["success"]] for e in after["episodes"]}
    if set(a) != set(b) or not a or len(a) != len(before["episodes"]):
        return f"{100 * (after['success'] - before['success']):+.1f} points"
    return paired_difference(a, b).text()


def step_status(row: dict[str, Any]) -> dict[str, str]:
    """What the progress display shows beside a training step."""
    status = {"phase": str(row["phase"]), "loss": f"{row['loss']:.3f}"}
    if row["phase"] == "grpo":
        status.update(reward=f"{row['reward_mean']:.2f}", success=f"{row['success']:.2f}")
    return status


def plot_run(metrics_path: Path, png: Path, before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
    """Draw the run's metrics (SFT loss, GRPO reward, success and calls, held-out before/after) into ``png``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    rows = [json.loads(line) for line in metrics_path.read_text().splitlines() if line.strip()]
    fig, axes = plt.subplots(1, 4, figsize=(17, 3.6))
    sft = [r for r in rows if r["phase"] == "sft"]
    grpo = [r for r in rows if r["phase"] == "grpo"]
    axes[0].plot([r["step"] for r in sft], [r["loss"] for r in sft], marker=".")
    axes[0].set_title("SFT loss (model tokens)")
    axes[0].set_xlabel("step")
    axes[1].plot([r["step"] for r in grpo], [r["reward_mean"] for r in grpo], marker=".", label="reward")
    axes[1].plot([r["step"] for r in grpo], [r["success"] for r in grpo], marker=".", label="success")
    axes[1].set_title("GRPO groups: reward and success")
    axes[1].set_xlabel("step")
    axes[1].legend()
    episodes = [r for r in grpo if "calls" in r]  # step-level rows score one reply, not an episode's calls
    axes[2].plot([r["step"] for r in episodes], [r["calls"] for r in episodes], marker=".")
    axes[2].set_title("GRPO: calls per episode")
    axes[2].set_xlabel("step")
    if before and after:
        names = ["success", "reward"]
        xs = range(len(names))
        axes[3].bar([x - 0.2 for x in xs], [before[n] for n in names], width=0.4, label="base")
        axes[3].bar([x + 0.2 for x in xs], [after[n] for n in names], width=0.4, label="trained")
        axes[3].set_xticks(list(xs), names)
        axes[3].set_ylim(0, 1)
        axes[3].set_title(f"held-out tasks (n={len(after['episodes'])})")
        axes[3].legend()
    else:
        axes[3].axis("off")
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
