"""Dialogue tasks: the simulated user of a task, and the requests that need one.

A ``staged`` task's user makes its request in two parts; a ``confirmation`` task's agent must ask
before an irreversible action; a ``change_of_mind`` task's user first names another value, then
revises it when asked to confirm; a ``missing_param`` task's request leaves out a value the agent
must ask for. Each gets a `UserScenario`: its slots, its requests, what it must confirm, and the
reference dialogue the reference agent plays.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from gym_mcp.synth.chain import Chain
from gym_mcp.synth.graph import EntityPools, ToolSpec, shape
from gym_mcp.synth.render import format_value, noun, render, render_chain
from gym_mcp.synth.values import fits
from gym_mcp.tasks import Slot, Stage, UserScenario
from gym_mcp.tasks.dialogue import needs_confirmation

__all__ = ["confirm_calls", "confirm_text", "dialogue", "hide_param", "scenario"]


def confirm_calls(chain: Chain, by_name: Mapping[str, ToolSpec]) -> list[int]:
    """The calls of ``chain`` that the user must approve first (the tools' confirmation rules)."""
    return [
        i for i, call in enumerate(chain.calls) if needs_confirmation(by_name[call["name"]].confirm, call["arguments"])
    ]


def dialogue(
    chain: Chain, variant: str, rng: random.Random, by_name: Mapping[str, ToolSpec], pools: EntityPools
) -> tuple[UserScenario, str] | None:
    """The user of a ``staged``, ``confirmation`` or ``change_of_mind`` task; None when the chain does not fit.

    Returns:
        ``(the user, its goal)``.
    """
    sentences = list(chain.sentences)
    goal = f"You want this done: {render_chain(chain.sentences)}"
    if variant == "staged":
        # a split where a later call takes a value an earlier one returned (named or referred to)
        splits = [
            k
            for k in range(1, len(chain.calls))
            if any(
                format_value(chain.calls[i]["arguments"][p]) in out
                for i in range(k, len(chain.calls))
                for p in chain.carried_at(i)
                for out in chain.outputs[:k]
            )
        ]
        if not splits:
            return None
        k = rng.choice(splits)
        later = render_chain(sentences[k:])
        requests = [render_chain(sentences[:k]), "Now " + later[:1].lower() + later[1:]]
        return scenario(chain, by_name, requests, [k, len(chain.calls) - k]), goal
    confirm = confirm_calls(chain, by_name)
    if not confirm:
        return None
    if variant == "confirmation":
        return scenario(chain, by_name, [render_chain(sentences)], [len(chain.calls)]), goal
    # change_of_mind: the request states another value for one argument of an action to confirm
    options = []
    for i in confirm:
        spec = by_name[chain.calls[i]["name"]]
        for param, value in chain.calls[i]["arguments"].items():
            used_elsewhere = any(j != i and value in c["arguments"].values() for j, c in enumerate(chain.calls))
            # a value an earlier output gave is not the user's to change, even where it is named
            if param in chain.carried_at(i) or used_elsewhere or "{" + param + "}" not in (spec.intent or ""):
                continue
            others = [v for v in spec.samples.get(param, ()) if v != value and fits(v, spec.param_type(param))]
            if not others and shape(value):
                pool = pools.candidates(spec.pool_of(param))
                others = [v for v in pool if v != value and shape(v) == shape(value)][:20]
            if others:
                options.append((i, param, others))
    if not options:
        return None
    i, param, others = rng.choice(options)
    was = rng.choice(sorted(others, key=str))
    spec = by_name[chain.calls[i]["name"]]
    refs = {p: f"that {noun(p)}" for p in chain.call_refs[i]}
    old = render(spec.intent or "", {**chain.calls[i]["arguments"], param: was}, refs)
    if old is None:
        return None
    sentences[i] = old
    user = scenario(chain, by_name, [render_chain(sentences)], [len(chain.calls)], revise=(i, param, was))
    return user, goal


def scenario(
    chain: Chain,
    by_name: Mapping[str, ToolSpec],
    requests: list[str],
    sizes: list[int],
    *,
    missing: Mapping[str, Any] | None = None,
    revise: tuple[int, str, Any] | None = None,
) -> UserScenario:
    """The user: its slots, its requests, what it must confirm, and the reference dialogue."""
    slots = []
    for i, call in enumerate(chain.calls):
        for param, value in call["arguments"].items():
            if param in chain.call_refs[i]:
                continue  # from an earlier output, not from the user
            hidden = missing is not None and missing.get("call") == i and missing.get("param") == param
            was = revise[2] if revise is not None and revise[:2] == (i, param) else None
            slots.append(Slot(param=param, value=value, call=i, said=not hidden, was=was))
    confirm = confirm_calls(chain, by_name)
    turns: list[dict[str, Any]] = []
    start = 0
    for s, size in enumerate(sizes):
        for i in range(start, start + size):
            call = chain.calls[i]
            for slot in slots:
                if slot.call == i and not slot.said:
                    turns.append({"say": f"Which {noun(slot.param)} should I use?"})
            if i in confirm:
                spec = by_name[call["name"]]
                refs = {p: f"that {noun(p)}" for p in chain.call_refs[i]}
                for slot in slots:
                    if slot.call == i and slot.was is not None:
                        args = {**call["arguments"], slot.param: slot.was}
                        turns.append({"say": confirm_text(render(spec.intent or "", args, refs))})
                turns.append({"say": confirm_text(render(spec.intent or "", call["arguments"], refs))})
            turns.append({"name": call["name"], "arguments": call["arguments"]})
        start += size
        turns.append({"say": "All done." if s == len(sizes) - 1 else "Done. Anything else?"})
    return UserScenario(
        slots=tuple(slots),
        stages=tuple(Stage(request=r, calls=n) for r, n in zip(requests, sizes, strict=True)),
        confirm=tuple(confirm),
        turns=tuple(turns),
    )


def hide_param(
    chain: Chain, rng: random.Random, by_name: Mapping[str, ToolSpec]
) -> tuple[str, str, dict[str, Any]] | None:
    """The request with one required value left out (``missing_param``).

    Returns:
        ``(request, the user's goal, {"call": i, "param": name})``, or None when no value can be.
    """
    options = []
    for i, call in enumerate(chain.calls):
        spec = by_name[call["name"]]
        for param in spec.required:
            value = call["arguments"].get(param)
            slot = "{" + param + "}" in (spec.intent or "")
            if value is None or not slot or isinstance(value, bool):
                continue
            if not any(format_value(value) in out for out in chain.outputs[:i]):
                options.append((i, param))
    if not options:
        return None
    i, param = rng.choice(options)
    spec = by_name[chain.calls[i]["name"]]
    sentences = list(chain.sentences)
    ask = f"(ask me which {noun(param)})"
    redone = render(spec.intent or "", chain.calls[i]["arguments"], {param: ask})
    if redone is None:
        return None
    redone = redone.replace("$" + ask, ask).replace(f"'{ask}'", ask).replace(f'"{ask}"', ask)
    sentences[i] = redone
    value = chain.calls[i]["arguments"][param]
    goal = f"The {noun(param)} for step {i + 1} is {format_value(value)}."
    return render_chain(sentences), goal, {"call": i, "param": param}


def confirm_text(sentence: str | None) -> str:
    """How the reference agent asks the user to approve an action."""
    text = (sentence or "do this").rstrip(".")
    return f"I am about to {text[:1].lower()}{text[1:]}. Shall I go ahead?"
