"""Evaluation: any policy on any environment and task set, scored like agent benchmarks.

- `harness`: `evaluate` (success, pass^k, reward terms, breakdowns), `EvalConfig`, `EvalResult`;
- `paired`: two arms on the same tasks, the difference with its 95% interval and the discordant
  pairs (`paired_difference`);
- `report`: ``results.json``, a Markdown table and a PNG (`write_report`), and the note for
  task sets that cannot be judged on state (`unscorable_note`).
"""

from __future__ import annotations

from gym_mcp.evaluation.harness import EvalConfig, EvalResult, evaluate, pass_hat_k
from gym_mcp.evaluation.paired import PairedDifference, mcnemar_exact, paired_difference
from gym_mcp.evaluation.report import markdown, unscorable_note, write_report

__all__ = [
    "EvalConfig",
    "EvalResult",
    "PairedDifference",
    "evaluate",
    "markdown",
    "mcnemar_exact",
    "paired_difference",
    "pass_hat_k",
    "unscorable_note",
    "write_report",
]
