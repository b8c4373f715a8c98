"""Every "that <noun>" of a synthesized request has exactly one earlier mention that fits it.

The rule (`gym_mcp.synth.render`'s docstring) is checked here by an oracle of its own, from what
a reader has: the request's sentences, the reference calls' arguments, and the outputs the calls
return when replayed. A mention of the noun is an entity of that kind the request names (or
refers to) before, or one its sentence names, or every id of the reference's shape that an
earlier call returns whose sentence says the noun; a composition's bridge ("that total") fits
the declared field of each earlier output of the bridge's source tools.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from gym_mcp.env import MCPEnv
from gym_mcp.live import bundled_source
from gym_mcp.servers import BUNDLED
from gym_mcp.servers.compositions import COMPOSITIONS
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.synth.chain import dig
from gym_mcp.synth.graph import shape
from gym_mcp.synth.render import Said, anchors, format_value, is_anchored, noun
from gym_mcp.synth.values import decode, leaves
from gym_mcp.tasks import Task
from tests.synth.conftest import Seed0

N = 30  # tasks a server: the batches both checks below read (`seed0_tasks`), made once in this file


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))


def _head(kind: str) -> str:
    return kind.split()[-1]


def _says(sentence: str, kind: str) -> bool:
    return re.search(rf"\b{re.escape(_head(kind))}(?:s|es)?\b", sentence) is not None


def _request(task: Task) -> str:
    """The whole request with the values the reference calls take (a dialogue's goal says it)."""
    if task.variant in ("staged", "change_of_mind") and task.hidden_goal:
        return task.hidden_goal.removeprefix("You want this done: ")
    return task.instruction


def reference_problems(server: str, tasks: Iterable[Task]) -> tuple[list[str], int]:
    """The references that break the rule, and how many references there are.

    Returns:
        ``(one line per reference without exactly one fitting mention, references checked)``.
    """
    bridges = COMPOSITIONS[server].bridges if server in COMPOSITIONS and server not in BUNDLED else ()
    env = MCPEnv(bundled_source(server), max_steps=1_000_000)
    problems: list[str] = []
    checked = 0
    try:
        for task in tasks:
            calls = [dict(c) for c in task.reference_calls]
            if not calls:
                continue
            sentences = _request(task).rstrip(".").split(", then ")
            assert len(sentences) == len(calls), (task.id, _request(task))
            env.reset(options={"task": task})
            outputs: list[Any] = []
            for call in calls:
                obs = env.step({"name": call["name"], "arguments": call["arguments"]})[0]
                outputs.append(decode(obs))
            hidden = task.metadata.get("missing") or {}  # a missing_param task's "(ask me which ...)"
            for i, call in enumerate(calls):
                for param, value in call["arguments"].items():
                    if (i, param) == (hidden.get("call"), hidden.get("param")):
                        continue
                    found = _fitting(calls, sentences, outputs, bridges, i, param, value)
                    if found is None:
                        continue  # not a reference
                    checked += 1
                    if found != {format_value(value)}:
                        problems.append(
                            f"{task.id} step {i + 1} {param}={format_value(value)}: "
                            f"fits {sorted(found)}: {_request(task)}"
                        )
    finally:
        env.close()
    return problems, checked


def _fitting(
    calls: Sequence[dict[str, Any]],
    sentences: Sequence[str],
    outputs: Sequence[Any],
    bridges: Sequence[Any],
    i: int,
    param: str,
    value: Any,
) -> set[str] | None:
    """The values that fit argument ``param`` of call ``i`` if the request refers to it; else None."""
    sentence, text = sentences[i], format_value(value)
    for bridge in bridges:
        if bridge.target != calls[i]["name"] or bridge.param != param:
            continue
        phrase = bridge.phrase or f"that {noun(bridge.field.rsplit('.', 1)[-1])}"
        if phrase not in sentence or text in sentence:
            continue
        into = [b for b in bridges if b.target == bridge.target and b.param == param]
        return {
            format_value(carried)
            for j in range(i)
            for b in into
            if b.source == calls[j]["name"] and (carried := dig(outputs[j], b.field)) is not None
        }
    kind = noun(param)
    if shape(value) is None or f"that {kind}" not in sentence or text in sentence:
        return None
    found: set[str] = set()
    for j in range(i + 1):
        for other, named in calls[j]["arguments"].items():
            if (j == i and other == param) or _head(noun(other)) != _head(kind):
                continue
            if format_value(named) in sentences[j] or (j < i and f"that {noun(other)}" in sentences[j]):
                found.add(format_value(named))
        if j < i and _says(sentences[j], kind):
            found |= {format_value(v) for v in leaves(outputs[j]) if shape(v) == shape(value)}
    return found


@pytest.mark.parametrize("server", sorted(BUNDLED) + sorted(set(COMPOSITIONS) - set(BUNDLED)))
def test_every_reference_has_exactly_one_fitting_mention(server: str, seed0_tasks: Seed0) -> None:
    problems, _ = reference_problems(server, seed0_tasks(server, N))
    assert not problems, "\n".join(problems)


DOUBLED = re.compile(r"\b(\w+) that \1\b")  # "account that account number", "passport that passport"


@pytest.mark.parametrize("server", sorted(BUNDLED))
def test_no_synthesized_instruction_repeats_a_noun_around_that(server: str, seed0_tasks: Seed0) -> None:
    """A reference replaces the template's noun, never repeats it (`tests/synth/test_render_nouns.py`)."""
    tasks = seed0_tasks(server, N)
    assert len(tasks) == N
    doubled = {t.id: t.instruction for t in tasks if DOUBLED.search(t.instruction)}
    assert not doubled


@pytest.mark.parametrize("server", ["banking", "shop_bank"])
def test_dialogue_requests_refer_as_plainly(server: str) -> None:
    """A staged or change-of-mind request is checked whole, with the values the calls take."""
    tasks = synthesize(server, SynthConfig.dialogue(n=20, seed=0)).tasks
    problems, checked = reference_problems(server, tasks)
    assert checked and not problems, "\n".join(problems)


CARD = Said(
    "set_card_limit",
    "Set the daily limit of card CRD-1094 to $1000",
    (("card", "CRD-1094"),),
    {"card_id": "CRD-1094", "account_id": "ACC-1134", "daily_limit": 1000},
)
OPENED = Said(
    "open_account",
    "Open a new savings account for customer CUS-1031",
    (("customer", "CUS-1031"),),
    {"account_id": "ACC-1200", "customer_id": "CUS-1031"},
)
LISTED = Said(
    "list_accounts",
    "List the accounts of customer CUS-1031",
    (("customer", "CUS-1031"),),
    [{"account_id": "ACC-1040"}, {"account_id": "ACC-1041"}],
)


@pytest.mark.parametrize(
    ("earlier", "here", "value", "expected"),
    [
        ([CARD], [], "ACC-1134", set()),  # the card's sentence says nothing of its account
        ([OPENED], [], "ACC-1200", {"ACC-1200"}),  # "open a new account": that account is the new one
        ([CARD, OPENED], [], "ACC-1200", {"ACC-1200"}),
        ([LISTED], [], "ACC-1041", {"ACC-1040", "ACC-1041"}),  # two accounts listed: which one?
        ([OPENED], [("account", "ACC-1001")], "ACC-1200", {"ACC-1001", "ACC-1200"}),  # its sentence names another
        (
            [Said("deposit", "Deposit $5 into account ACC-1001", (("account", "ACC-1001"),), {})],
            [],
            "ACC-1001",
            {"ACC-1001"},
        ),
    ],
)
def test_a_reference_fits_what_the_request_names_and_what_a_named_kind_returned(
    earlier: list[Said], here: list[tuple[str, Any]], value: str, expected: set[str]
) -> None:
    assert anchors("account", {"ACC-9999"}, earlier, here) == expected
    assert is_anchored(value, "account", {"ACC-9999"}, earlier, here) == (expected == {value})


def test_a_bridge_fits_the_declared_field_of_each_earlier_source_output() -> None:
    order = Said("shop.get_order", "Show order ORD-1", (("order", "ORD-1"),), {"total": 45.2})
    checkout = Said("shop.checkout", "Check out cart CRT-1", (("cart", "CRT-1"),), {"total": 12.0})
    into = {"shop.get_order": "total", "shop.checkout": "total"}
    assert is_anchored(45.2, "total", (), [order], bridged=into)
    assert not is_anchored(45.2, "total", (), [order, checkout], bridged=into)  # two totals


def test_banking_seed_0_names_the_account_the_request_never_mentioned() -> None:
    """The issue's example: the card's account is named, not called "that account"."""
    tasks = synthesize("banking", SynthConfig(n=6, seed=0)).tasks
    assert tasks[0].instruction == (
        "Set the daily limit of card CRD-1094 to $1000, then find the customer matching 'Garcia', "
        "then show the deposit transactions of account ACC-1134."
    )
    # the card was locked: the payee's account number is named, not "that account number"
    assert "with account number ACC-1082 at" in tasks[2].instruction, tasks[2].instruction
    assert "then show the transactions of that account." in tasks[3].instruction  # "Freeze account ACC-1033"
