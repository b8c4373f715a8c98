"""The synthesis report: a text summary and, when matplotlib is installed, a PNG."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "TOOL_ERROR",
    "error_cause",
    "nondeterminism_lines",
    "report_text",
    "reset_check_lines",
    "tool_error_causes",
    "tool_error_lines",
    "write_plot",
]

TOOL_ERROR = "call failed (tool_error)"
"""The rejection of a candidate chain whose call the server answered with an error."""

_PREFIX = re.compile(r"^(?:Error(?: executing tool [\w.-]+)?:\s*)+")
_QUOTED = re.compile(r"(?<![\w<])(['\"])[^'\"\n]{1,120}\1(?!\w)")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b")
_ID = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d[A-Za-z0-9]*\b")
_NAMED_ID = re.compile(r"(?:\b[A-Z][^\s(),;:]*\s){1,3}\(<id>\)")
_MONEY = re.compile(r"\$\d[\d,]*(?:\.\d+)?")
_NUMBER = re.compile(r"(?<![\w<])[+-]?\d[\d,]*(?:\.\d+)?(?:[A-Za-z]\w*)?\b|\b[A-Za-z]+\d\w*\b")
_SYMBOL = re.compile(r"\b[A-Z]{2,5}\b")
_RUN = re.compile(r"(<\w+>)(?:,\s*(?:and\s+)?<\w+>)+")
_CLAUSE_END = re.compile(r"[;.](?:\s|$)")
_MAX_CAUSE = 90


def error_cause(message: str) -> str:
    """A short, normalized form of a tool's error message, so that like errors count together.

    The ``Error executing tool NAME:`` prefix goes; quoted text, dates, ids (``ACC-1001``,
    with a name before it in the form ``Ada Lee (PER-1001)``), amounts, numbers and short
    all-capital symbols become placeholders; only the first clause is kept, at most 90
    characters. E.g. ``Insufficient funds in ACC-1048: balance is $2.21 but ...`` becomes
    ``Insufficient funds in <id>: balance is $<n> but the amount is $<n>``.

    Args:
        message: The error text the call returned.

    Returns:
        The normalized cause (``"(no message)"`` for an empty one).
    """
    text = _PREFIX.sub("", " ".join(message.split()))
    text = _QUOTED.sub(lambda m: f"{m.group(1)}…{m.group(1)}", text)
    text = _DATE.sub("<date>", text)
    text = _ID.sub("<id>", text)
    text = _NAMED_ID.sub("<id>", text)
    text = _MONEY.sub("$<n>", text)
    text = _NUMBER.sub("<n>", text)
    text = _SYMBOL.sub("<sym>", text)
    text = _RUN.sub(r"\1, …", text)
    end = _CLAUSE_END.search(text)
    if end is not None:
        text = text[: end.start()]
    text = text.strip(" .;:,")
    if len(text) > _MAX_CAUSE:  # cut at a space, never inside a placeholder
        cut = text[: _MAX_CAUSE - 1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" .;:,(") + "…"
    return text or "(no message)"


def tool_error_causes(causes: Mapping[tuple[str, str], int], per_tool: int = 3) -> list[dict[str, Any]]:
    """Tool-error rejections grouped by tool, each tool's commonest causes first.

    Args:
        causes: Count of rejections by ``(tool name, error_cause(message))``.
        per_tool: How many causes to name per tool; the rest are counted in ``other``.

    Returns:
        One entry per tool, most rejections first (ties by name): ``{"tool", "count",
        "causes": [{"cause", "count"}, ...], "other"}``, where the causes' counts plus
        ``other`` make ``count``, and the tools' counts make every tool-error rejection.
    """
    by_tool: dict[str, Counter[str]] = {}
    for (tool, cause), count in causes.items():
        by_tool.setdefault(tool, Counter())[cause] += count
    out: list[dict[str, Any]] = []
    for tool, counter in by_tool.items():
        ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
        top = ranked[:per_tool]
        total = sum(counter.values())
        out.append(
            {
                "tool": tool,
                "count": total,
                "causes": [{"cause": cause, "count": count} for cause, count in top],
                "other": total - sum(count for _, count in top),
            }
        )
    out.sort(key=lambda entry: (-entry["count"], entry["tool"]))
    return out


def tool_error_lines(stats: Mapping[str, Any], tools: int | None = None) -> list[str]:
    """The lines that say which tools' errors rejected candidates, and why.

    Args:
        stats: A synthesis run's statistics (`SynthResult.stats`).
        tools: Name at most this many tools (None: all of them).

    Returns:
        A heading line and, per tool, its count and its commonest causes; no lines when no
        candidate was rejected for a tool error.
    """
    groups = stats.get("tool_error_causes") or []
    total = sum(int(g["count"]) for g in groups)
    if not total:
        return []
    shown = groups if tools is None else groups[:tools]
    rest = "" if len(shown) == len(groups) else f"; the {len(shown)} tools with most"
    lines = [f"rejected for tool errors: {total} of {stats['attempts']} candidate chains, by tool and cause{rest}:"]
    for group in shown:
        lines.append(f"  {group['tool']:<28} {group['count']}")
        lines += [f"    {c['count']:>5}  {c['cause']}" for c in group["causes"]]
        if group["other"]:
            lines.append(f"    {group['other']:>5}  (other causes)")
    return lines


def nondeterminism_lines(stats: Mapping[str, Any]) -> list[str]:
    """What replaying every task twice found, and the spec lines that declare it (none on a deterministic server).

    Args:
        stats: A synthesis run's statistics (`SynthResult.stats`).

    Returns:
        A sentence naming the parts two replays differed in and what was done (judged as
        volatile, or the tasks refused), then, when they were judged volatile, the ``[state]``
        block to paste into the server's spec file.
    """
    found = stats.get("nondeterministic") or {}
    volatile = found.get("volatile") or {}
    refused = found.get("tasks_refused", 0)
    server = stats.get("server", "?")
    if volatile:
        where = "; ".join(f"{group}: {', '.join(names)}" for group, names in volatile.items())
        return [
            f"{server}: two replays of the same calls reached different states in {found['tasks_marked']} "
            f"task(s), in {where}; these are left out of every task's fingerprint (metadata.volatile). "
            "Declare them in the server's spec file:",
            "[state]",
            *found.get("spec_lines", []),
        ]
    if refused:
        return [
            f"{server}: {refused} task(s) refused because two replays of the same calls reached different "
            "states (the rejections say where); SynthConfig(nondeterministic='volatile') keeps them with those "
            "parts left out"
        ]
    return []


def reset_check_lines(stats: Mapping[str, Any]) -> list[str]:
    """What the reset check found (`gym_mcp.synth.statecheck`); no lines when it did not run (bundled servers).

    Args:
        stats: A synthesis run's statistics (`SynthResult.stats`).

    Returns:
        One line: the reads that answered differently after a write and a reset than on a
        fresh start (and to set ``restart_on_reset = true``), or that the reset was checked.
    """
    found = stats.get("reset_check")
    return [f"reset check: {found['message']}"] if found else []


def _tool_rule_lines(stats: Mapping[str, Any]) -> list[str]:
    """The line naming the tools hidden from the agent and renamed for it (none without rules)."""
    hidden = stats.get("hidden_tools") or []
    renamed = stats.get("renamed_tools") or {}
    rules = ([f"hidden {', '.join(hidden)}"] if hidden else []) + (
        [f"renamed {', '.join(f'{old} -> {new}' for old, new in renamed.items())}"] if renamed else []
    )
    return [f"tools as the agent sees them: {'; '.join(rules)}"] if rules else []


def _inference_lines(stats: Mapping[str, Any]) -> list[str]:
    """Which tools without ``gym_mcp/*`` metadata were inferred, labelled by the LLM, or skipped, and why."""
    if "inferred_tools" not in stats:
        return []
    lines = [f"tools inferred (no gym_mcp metadata): {', '.join(stats['inferred_tools']) or 'none'}"]
    if "llm_labelled_tools" in stats:
        lines.append(f"tools labelled by the LLM (--llm): {', '.join(stats['llm_labelled_tools']) or 'none'}")
    lines += [f"tool skipped: {tool}: {why}" for tool, why in stats["skipped_tools"].items()]
    if stats.get("unverifiable_tools"):
        lines.append(
            f"unverifiable tools (never changed the state a judge sees): {', '.join(stats['unverifiable_tools'])}"
        )
    return lines


def report_text(stats: dict[str, Any]) -> str:
    """A plain-text report of a synthesis run."""
    lines = [
        f"server: {stats['server']}",
        f"tasks: {stats['tasks']} (from {stats['attempts']} candidate chains)",
        f"unique call sequences: {stats['unique_call_sequences']:.1%} of tasks with calls",
        f"tool coverage: {stats['tool_coverage']:.1%} of {stats['tools_total']} tools"
        + (f" (unused: {', '.join(stats['tools_unused'])})" if stats["tools_unused"] else ""),
        *_tool_rule_lines(stats),
        *_inference_lines(stats),
        f"by chain length: {stats['by_length']}",
        f"by variant: {stats['by_variant']}",
        f"by difficulty: {stats['by_difficulty']}",
        f"by split: {stats['by_split']} (held-out tools: {', '.join(stats['heldout_tools']) or 'none'})",
        f"tool graph: {stats['graph_edges']['explicit']} explicit, {stats['graph_edges']['implicit']} implicit edges",
        f"rejected candidates: {stats['rejections']}",
        *tool_error_lines(stats),
        f"calls repaired from the id an error message named: {stats['repaired_from_error_messages']}",
        f"instructions paraphrased by the LLM: {stats.get('paraphrased', 0)}",
        *nondeterminism_lines(stats),
        *reset_check_lines(stats),
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
