"""The synthesis report names the tool errors that rejected candidates: real runs on bundled servers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gym_mcp.servers import get_kit
from gym_mcp.synth import SynthConfig, synthesize, write_outputs
from gym_mcp.synth.report import TOOL_ERROR, error_cause, report_text

RAW_ID = re.compile(r"\b[A-Z]{2,}-\d+\b")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("server", ["shopping", "banking"])
def test_tool_error_rejections_are_counted_by_tool_and_cause(server: str, tmp_path: Path) -> None:
    result = synthesize(server, SynthConfig(n=20, seed=0))
    stats = result.stats
    rejected = stats["rejections"].get(TOOL_ERROR, 0)
    assert rejected > 0  # shopping and banking both refuse some drawn calls (a coupon on an empty cart, ...)
    groups = stats["tool_error_causes"]
    assert sum(g["count"] for g in groups) == rejected
    tools = set(get_kit(server).tools)
    counts = [g["count"] for g in groups]
    assert counts == sorted(counts, reverse=True)
    for group in groups:
        assert group["tool"] in tools
        assert 1 <= len(group["causes"]) <= 3
        assert sum(c["count"] for c in group["causes"]) + group["other"] == group["count"]
        assert [c["count"] for c in group["causes"]] == sorted((c["count"] for c in group["causes"]), reverse=True)
        for cause in group["causes"]:
            assert cause["cause"] and not cause["cause"].startswith("Error")
            assert not RAW_ID.search(cause["cause"]), cause  # ids are folded, so like errors count together
            assert len(cause["cause"]) <= 90

    # the text report (and so the file beside the tasks) says the same
    files = write_outputs(result, tmp_path / f"{server}.jsonl")
    text = files[1].read_text()
    assert text == report_text(stats)
    assert f"rejected for tool errors: {rejected} of {stats['attempts']} candidate chains" in text
    for group in groups:
        assert re.search(rf"^  {group['tool']} +{group['count']}$", text, re.MULTILINE), group["tool"]
        top = group["causes"][0]
        assert f"{top['count']:>5}  {top['cause']}" in text


def test_error_messages_fold_into_short_causes() -> None:
    cases = {
        "Error executing tool transfer_funds: Insufficient funds in ACC-1048: balance is $2.21 but the amount "
        "is $12.75. Use an amount of at most $2.21": "Insufficient funds in <id>: balance is $<n> but the amount is $<n>",
        "Error executing tool remove_coupon: CUS-1046's cart has no coupon applied.": "<id>'s cart has no coupon applied",
        "Error executing tool remove_attendee: Mateo Hughes (PER-1035) is not invited to EVT-1112; get_event "
        "lists its attendees.": "<id> is not invited to <id>",
        "Error executing tool apply_label: Mailbox MBX-1006 has no label 'Personal'; a label must exist": (
            "Mailbox <id> has no label '…'"
        ),
        "Error executing tool select_seat: Seat 10A on FLT-1010 is taken. Free economy seats: 10C, 11A": (
            "Seat <n> on <id> is taken"
        ),
        "": "(no message)",
    }
    for message, cause in cases.items():
        assert error_cause(message) == cause
    # the same refusal of two different entities is one cause
    a = error_cause(
        "Error executing tool cancel_return: RET-1005 is rejected; only a requested return can be cancelled."
    )
    b = error_cause(
        "Error executing tool cancel_return: RET-1003 is rejected; only a requested return can be cancelled."
    )
    assert a == b == "<id> is rejected"
    long = error_cause("Error: " + "word " * 40)
    assert len(long) <= 90 and long.endswith("…")
