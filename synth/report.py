"""The synthesis report: a text summary and, when matplotlib is installed, a PNG."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["report_text", "write_plot"]


def report_text(stats: dict[str, Any]) -> str:
    """A plain-text report of a synthesis run."""
    lines = [
        f"server: {stats['server']}",
        f"tasks: {stats['tasks']} (from {stats['attempts']} candidate chains)",
        f"unique call sequences: {stats['unique_call_sequences']:.1%} of tasks with calls",
        f"tool coverage: {stats['tool_coverage']:.1%} of {stats['tools_total']} tools"
        + (f" (unused: {', '.join(stats['tools_unused'])})" if stats["tools_unused"] else ""),
        f"by chain length: {stats['by_length']}",
        f"by variant: {stats['by_variant']}",
        f"by difficulty: {stats['by_difficulty']}",
        f"by split: {stats['by_split']} (held-out tools: {', '.join(stats['heldout_tools']) or 'none'})",
        f"tool graph: {stats['graph_edges']['explicit']} explicit, {stats['graph_edges']['implicit']} implicit edges",
        f"rejected candidates: {stats['rejections']}",
        f"calls repaired from the id an error message named: {stats['repaired_from_error_messages']}",
        f"instructions paraphrased by the LLM: {stats.get('paraphrased', 0)}",
        f"time: {stats['seconds']['generate']}s generating, {stats['seconds']['replay']}s replay-verifying "
        f"({stats['replay_share']:.0%} of the run); {stats['verified_tasks_per_minute']} verified tasks/minute",
        "tool use:",
    ]
    lines += [f"  {name:<28} {count}" for name, count in stats["tools_used"].items()]
    return "\n".join(lines) + "\n"


def write_plot(stats: dict[str, Any], path: str | os.PathLike[str]) -> Path | None:
    """Bar charts of lengths, variants, tool use and rejections; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    panels = [
        ("chain length", {str(k): v for k, v in stats["by_length"].items()}),
        ("variant", stats["by_variant"]),
        ("tool use", stats["tools_used"]),
        ("rejected candidates", stats["rejections"]),
    ]
    for i, (ax, (title, data)) in enumerate(zip(axes.flat, panels, strict=True)):
        keys = list(data)
        if i < 2:  # short labels: vertical bars
            ax.bar(range(len(keys)), [data[k] for k in keys], color="#4C72B0")
            ax.set_xticks(range(len(keys)), keys)
        else:  # long labels: horizontal bars
            ax.barh(range(len(keys)), [data[k] for k in keys], color="#4C72B0" if i == 2 else "#C44E52")
            ax.set_yticks(range(len(keys)), keys, fontsize=7 if len(keys) > 12 else 9)
            ax.invert_yaxis()
        ax.set_title(title)
    fig.suptitle(
        f"{stats['server']}: {stats['tasks']} verified tasks, {stats['tool_coverage']:.0%} tool coverage, "
        f"{stats['unique_call_sequences']:.0%} unique call sequences"
    )
    fig.tight_layout()
    out = Path(path)
    tmp = out.with_name(out.name + ".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    tmp.replace(out)
    return out
