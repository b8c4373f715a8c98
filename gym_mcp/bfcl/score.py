"""Scoring a recorded trajectory exactly as BFCL scores it.

The record of an episode is BFCL's inference result for one entry: per turn, per step, the
list of ``{function name: raw JSON arguments}`` the agent sent. `score` applies the BFCL
runner's turn-count pre-check, decodes every step with BFCL's own decoder (skipping steps that
do not decode, as the runner does), runs BFCL's ``multi_turn_checker``, and then removes the
backend instances the checker left in BFCL's module-level cache.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gym_mcp.bfcl.data import category_of, ground_truth, require_bfcl

__all__ = ["Record", "Verdict", "score"]

Record = list[list[list[dict[str, str]]]]
"""Per turn, per step, the calls of that step as ``{name: JSON arguments}``."""


@dataclass(frozen=True)
class Verdict:
    """BFCL's verdict on one entry.

    Attributes:
        valid: The entry passes (reward 1).
        error_type: BFCL's error type, e.g. ``"multi_turn:instance_state_mismatch"``.
        error_message: BFCL's message.
        failing_turn: The first turn that failed (None when valid).
    """

    valid: bool
    error_type: str | None = None
    error_message: str | None = None
    failing_turn: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return dataclasses.asdict(self)


def decode(record: Sequence[Sequence[Sequence[Mapping[str, str]]]]) -> list[list[list[str]]]:
    """Every step decoded to BFCL call strings with BFCL's decoder; undecodable or empty steps dropped."""
    require_bfcl()
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import is_empty_execute_response
    from bfcl_eval.model_handler.utils import convert_to_function_call

    decoded: list[list[list[str]]] = []
    for turn in record:
        steps = []
        for step in turn:
            try:
                calls = convert_to_function_call([dict(c) for c in step])
            except Exception:  # the runner ignores a step it cannot decode
                continue
            if is_empty_execute_response(calls):
                continue
            steps.append(calls)
        decoded.append(steps)
    return decoded


def _failing_turn(result: Mapping[str, Any]) -> int | None:
    match = re.search(r"for turn (\d+)", str(result.get("error_message", "")))
    if match:
        return int(match.group(1))
    executed = result.get("execution_result")
    if isinstance(executed, list) and executed:
        return len(executed) - 1  # the checker stops at the turn that failed
    return None


def check_decoded(
    decoded: list[list[list[str]]], entry: Mapping[str, Any], truth: Sequence[Sequence[str]]
) -> dict[str, Any]:
    """BFCL's ``multi_turn_checker`` on decoded calls, with its instance cache cleared afterwards."""
    require_bfcl()
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    model_name = f"gym_mcp_{uuid.uuid4().hex}"
    test_entry = {k: entry[k] for k in ("id", "initial_config", "involved_classes")}
    try:
        return dict(
            multi_turn_checker(decoded, [list(t) for t in truth], test_entry, category_of(entry["id"]), model_name)
        )
    finally:
        cache = vars(multi_turn_utils)
        for key in [k for k in cache if k.startswith(model_name)]:
            cache.pop(key, None)


def score(entry: Mapping[str, Any], record: Record, truth: Sequence[Sequence[str]] | None = None) -> Verdict:
    """Score one entry's record as BFCL's evaluation runner does.

    Args:
        entry: The BFCL entry (``id``, ``initial_config``, ``involved_classes``).
        record: What the agent sent, per turn and step.
        truth: Ground truth per turn (default: BFCL's for this entry).

    Returns:
        The verdict; ``failing_turn`` says where it first went wrong.
    """
    truth = ground_truth(entry["id"]) if truth is None else truth
    if len(record) != len(truth):  # the runner's pre-check: the agent was force-quit
        return Verdict(
            False,
            "multi_turn:force_terminated",
            f"Model was force-terminated during inference phase. The length of the model result turns "
            f"({len(record)}) does not match the length of the ground truth turns ({len(truth)}).",
            max(0, len(record) - 1),
        )
    try:
        result = check_decoded(decode(record), entry, truth)
    except Exception as exc:  # BFCL's checker asserts on inconsistent instances
        return Verdict(False, "multi_turn:checker_error", f"{type(exc).__name__}: {exc}", None)
    if result.get("valid"):
        return Verdict(True)
    return Verdict(False, result.get("error_type"), result.get("error_message"), _failing_turn(result))
