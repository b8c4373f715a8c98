"""Evaluation reports: ``results.json``, a Markdown table and a PNG."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gym_mcp.evaluation.harness import EvalConfig, EvalResult

__all__ = ["fixed", "markdown", "robustness", "unscorable_note", "write_report"]


def unscorable_note(env_id: str, metrics: Mapping[str, Any]) -> str | None:
    """One line saying that some (or all) tasks of a run cannot be judged on state, or None.

    Args:
        env_id: The environment the tasks ran on.
        metrics: That run's metrics (one policy's, from `EvalResult.metrics`).

    Returns:
        The note, or None when every task could be scored.
    """
    unscorable = int(metrics.get("unscorable") or 0)
    if not unscorable:
        return None
    tasks = int(metrics["tasks"])
    if unscorable == tasks:
        scope = "so success cannot be judged on state"
    else:
        scope = f"so success cannot be judged on state for them and is over the other {tasks - unscorable} tasks"
    return (
        f"note: {unscorable} of {tasks} tasks on {env_id} have no expected_fingerprint and no reference calls "
        f"to replay for one, {scope}; give them reference calls (the environment replays them to record the "
        "fingerprint) or make tasks with `gym-mcp synth` (mean reward is the reward function's, not success)"
    )


def fixed(value: float, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals, never ``-0.000``: what rounds to zero prints as zero."""
    return f"{round(value, digits) + 0.0:.{digits}f}"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def write_report(result: EvalResult, out_dir: str | os.PathLike[str], config: EvalConfig) -> list[Path]:
    """Save ``results.json`` (every episode's trajectory and terms), ``results.md`` and ``results.png``.

    ``perturbations.png`` is added when some episodes were perturbed.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    rows = robustness(result)
    data = {
        "config": {"k": config.k, "seed": config.seed, "max_steps": config.max_steps},
        "metrics": result.metrics,
        **({"robustness": rows} if rows else {}),
        "episodes": result.episodes,
    }
    path = out / "results.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False, default=str) + "\n")
    files.append(path)
    md = out / "results.md"
    md.write_text(markdown(result, config))
    files.append(md)
    png = _plot(result, out / "results.png")
    if png is not None:
        files.append(png)
    if rows:
        png = _plot_robustness(rows, out / "perturbations.png")
        if png is not None:
            files.append(png)
    return files


def robustness(result: EvalResult) -> list[dict[str, Any]]:
    """Clean and perturbed success side by side, per perturbation family and kind.

    A perturbed policy ``"NAME [MIX]"`` is compared with ``"NAME"`` on the same episodes (the same
    environment, task and trial): each row holds the episodes whose draw included that family or
    kind, the clean policy's success on them, the perturbed one's, and the change in points.
    """
    clean: dict[tuple[str, str, str, int], bool | None] = {}
    for e in result.episodes:
        if "[" not in e["policy"]:
            clean[(e["policy"], e["env"], e["task_id"], e["trial"])] = e["success"]
    groups: dict[tuple[str, str, str, str], list[tuple[bool, bool]]] = {}
    for e in result.episodes:
        name, _, rest = e["policy"].partition(" [")
        if not rest or not e.get("perturbation_kinds"):
            continue
        paired = clean.get((name, e["env"], e["task_id"], e["trial"]))
        if paired is None or e["success"] is None:
            continue
        keys = [("all", "(every episode)")]
        keys += [("family", f) for f in e.get("perturbation_families", [])]
        keys += [("kind", k) for k in e["perturbation_kinds"]]
        for level, group in keys:
            groups.setdefault((e["policy"], e["env"], level, group), []).append((paired, bool(e["success"])))
    rows = []
    order = {"all": 0, "family": 1, "kind": 2}
    for (policy, env_id, level, group), pairs in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1], order[kv[0][2]], kv[0][3])
    ):
        n = len(pairs)
        before = sum(c for c, _ in pairs) / n
        after = sum(p for _, p in pairs) / n
        rows.append(
            {
                "policy": policy,
                "env": env_id,
                "level": level,
                "group": group,
                "episodes": n,
                "clean_success": round(before, 4),
                "perturbed_success": round(after, 4),
                "change_points": round(100 * (after - before), 1) + 0.0,  # never -0.0
            }
        )
    return rows


def markdown(result: EvalResult, config: EvalConfig) -> str:
    """The metrics as Markdown tables."""
    lines = [
        f"# gym-mcp eval (k={config.k}, seed={config.seed})",
        "",
        "| policy | env | episodes | success | pass^k | mean reward | calls/solved | excess calls | invalid "
        "| tool errors |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    notes: dict[str, str] = {}
    for policy, envs in result.metrics.items():
        for env_id, m in envs.items():
            passk = m["pass^k"][str(config.k)]
            per_solved = m["calls_per_solved_task"] if m["calls_per_solved_task"] is not None else "-"
            excess = m["excess_call_rate"] if m["excess_call_rate"] is not None else "-"
            lines.append(
                f"| {policy} | {env_id} | {m['episodes']} | {_percent(m['success_rate'])} | {_percent(passk)} "
                f"| {fixed(m['mean_reward'])} | {per_solved} | {excess} "
                f"| {m['invalid_call_rate']:.1%} | {m['tool_error_rate']:.1%} |"
            )
            note = unscorable_note(env_id, m)
            if note:
                notes.setdefault(env_id, note)
    if notes:
        lines += ["", *(f"> {note}" for note in notes.values())]
    lines += _breakdown(result, "by_difficulty", "By difficulty", "difficulty")
    if any(len(m["by_variant"]) > 1 for envs in result.metrics.values() for m in envs.values()):
        lines += _breakdown(result, "by_variant", "By variant (category)", "variant")
    dialogue = [(p, e, m) for p, envs in result.metrics.items() for e, m in envs.items() if "failures" in m]
    if dialogue:
        lines += [
            "",
            "## With a simulated user",
            "",
            "| policy | env | agent failures | user failures | success without user failures | ask rate "
            "| needless questions/episode | unconfirmed actions | user turns/episode |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for policy, env_id, m in dialogue:
            lines.append(
                f"| {policy} | {env_id} | {m['failures']['agent']} | {m['failures']['user']} "
                f"| {_percent(m['success_rate_excluding_user_failures'])} | {_percent(m['ask_rate'])} "
                f"| {m['needless_questions_per_episode']} | {_percent(m['unconfirmed_action_rate'])} "
                f"| {m['user_turns_per_episode']} |"
            )
    rows = robustness(result)
    if rows:
        lines += [
            "",
            "## Perturbations: clean vs perturbed, on the same episodes",
            "",
            "| policy | env | family / kind | episodes | clean success | perturbed success | change (points) |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            label = r["group"] if r["level"] != "kind" else f"· {r['group']}"
            lines.append(
                f"| {r['policy']} | {r['env']} | {label} | {r['episodes']} | {_percent(r['clean_success'])} "
                f"| {_percent(r['perturbed_success'])} | {r['change_points']:+.1f} |"
            )
    lines += ["", "## Mean reward terms", ""]
    for policy, envs in result.metrics.items():
        for env_id, m in envs.items():
            terms = ", ".join(f"{t} {v}" for t, v in m["mean_terms"].items())
            lines.append(f"- {policy} on {env_id}: {terms}")
    return "\n".join(lines) + "\n"


def _breakdown(result: EvalResult, key: str, title: str, label: str) -> list[str]:
    """A Markdown section: success and mean reward per group of one breakdown (``by_difficulty``, ...)."""
    lines = [
        "",
        f"## {title}",
        "",
        f"| policy | env | {label} | episodes | success | mean reward |",
        "|---|---|---|---|---|---|",
    ]
    for policy, envs in result.metrics.items():
        for env_id, m in envs.items():
            for group, b in m[key].items():
                lines.append(
                    f"| {policy} | {env_id} | {group} | {b['episodes']} | {_percent(b['success_rate'])} "
                    f"| {fixed(b['mean_reward'])} |"
                )
    return lines


def _plot(result: EvalResult, path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    envs_seen = list(dict.fromkeys(e for envs in result.metrics.values() for e in envs))
    if len(envs_seen) * len(result.metrics) > 12:  # many environments: one row each, a bar per policy
        return _plot_rows(result, envs_seen, path, plt)
    labels, success, reward = [], [], []
    for policy, envs in result.metrics.items():
        for env_id, m in envs.items():
            labels.append(f"{policy}\n{env_id.split('/')[-1]}")
            success.append(math.nan if m["success_rate"] is None else m["success_rate"])  # no bar: unscorable
            reward.append(m["mean_reward"])
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(labels)), 4))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], success, width=0.4, label="success rate", color="#4C72B0")
    ax.bar([x + 0.2 for x in xs], reward, width=0.4, label="mean reward", color="#55A868")
    ax.set_xticks(list(xs), labels, fontsize=8)
    ax.set_ylim(min(0.0, *reward) - 0.05, 1.05)
    ax.legend()
    ax.set_title("gym-mcp eval")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _plot_rows(result: EvalResult, env_ids: list[str], path: Path, plt: Any) -> Path:
    """Success rate per environment (rows) and policy (bars in a row): readable for a whole suite."""
    policies = list(result.metrics)
    height = 0.8 / len(policies)
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.32 * len(env_ids) * max(1, len(policies) / 2) + 1)))
    colors = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860"]
    for i, policy in enumerate(policies):
        rates = []
        for env_id in env_ids:
            m = result.metrics[policy].get(env_id)
            rates.append(math.nan if m is None or m["success_rate"] is None else m["success_rate"])
        ys = [y + (i - (len(policies) - 1) / 2) * height for y in range(len(env_ids))]
        bars = ax.barh(ys, rates, height=height, label=policy, color=colors[i % len(colors)])
        ax.bar_label(bars, labels=["" if math.isnan(r) else f"{r:.0%}" for r in rates], fontsize=6, padding=2)
    ax.set_yticks(list(range(len(env_ids))), [e.split("/")[-1] for e in env_ids], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.12)
    ax.set_xlabel("success rate")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(policies), fontsize=8, frameon=False)
    ax.set_title("gym-mcp eval", pad=22)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _plot_robustness(rows: list[dict[str, Any]], path: Path) -> Path | None:
    """Clean vs perturbed success, one pair of bars per family and kind (and per policy and env)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    several = len({(r["policy"], r["env"]) for r in rows}) > 1
    labels = [
        (f"{r['policy']} {r['env'].split('/')[-1]}: " if several else "")
        + (r["group"] if r["level"] != "kind" else f"  {r['group']}")
        + f" ({r['episodes']})"
        for r in rows
    ]
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.3 * len(rows) + 1.2)))
    ys = list(range(len(rows)))
    ax.barh([y - 0.2 for y in ys], [r["clean_success"] for r in rows], height=0.4, label="clean", color="#4C72B0")
    ax.barh(
        [y + 0.2 for y in ys], [r["perturbed_success"] for r in rows], height=0.4, label="perturbed", color="#C44E52"
    )
    ax.set_yticks(ys, labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("success rate (same episodes)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)
    ax.set_title("gym-mcp eval: clean vs perturbed, per family and kind", pad=22)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
