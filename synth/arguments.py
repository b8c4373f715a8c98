"""Arguments for a call, drawn from the live state: `ArgumentFiller`.

A call's arguments come, in this order of preference, from a composition's bridge (a value an
earlier call of another part returned), from an earlier output of the chain (``that account``),
from the tool's samples, from the entity pools of the server's state (weighted by how much data
each entity holds; a bridge's target drawn among the same people), from the schema's enum, or a
default of the right type. An error message that names the id it wanted repairs a call once.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gym_mcp.servers.compositions import Bridge
from gym_mcp.synth.chain import dig
from gym_mcp.synth.graph import EntityPools, ToolSpec, shape
from gym_mcp.synth.render import noun
from gym_mcp.synth.values import MISSING, default_value, fits, leaves

__all__ = ["ArgumentFiller"]


class ArgumentFiller:
    """Fills a tool's arguments from the server's entity pools and the chain so far.

    Args:
        pools: The entities of the seed state.
        bridges: A composition's bridges into the tools (named as the agent sees them).
        optional_rate: Chance of passing an optional parameter's template segment.
    """

    def __init__(self, pools: EntityPools, bridges: Sequence[Bridge], optional_rate: float) -> None:
        self.pools = pools
        self.bridges = list(bridges)
        self.optional_rate = optional_rate

    def pool_value(self, spec: ToolSpec, param: str, rng: random.Random, affine: frozenset[Any] = frozenset()) -> Any:
        """A value from the parameter's pool; with ``affine`` ids, one whose row holds one of them.

        A bridge's target call is about the same people as its source: after the shop's order of
        CUS-1029, the bank account drawn is one of CUS-1029's (the parts are aligned on them).
        """
        key = spec.pool_of(param)
        pool = self.pools.candidates(key)
        types = spec.param_type(param)
        values = [v for v in pool if fits(v, types)]
        column = self.pools.column_for(key) if affine else None
        if column is not None:
            near = {
                row[column]
                for rows in self.pools.rows.values()
                for row in rows
                if row.get(column) is not None and any(v in affine for k, v in row.items() if k != column)
            }
            values = [v for v in values if v in near] or values
        if not values:
            return MISSING
        weights = [pool[v] for v in values]
        return rng.choices(values, weights=weights, k=1)[0]

    def fill(
        self, spec: ToolSpec, rng: random.Random, outputs: Sequence[Any], earlier: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, str]] | None:
        """Arguments for one call, and the parameters that refer to an earlier output.

        ``earlier`` maps the chain's earlier tools to their (decoded) outputs: a composition's
        bridge into this tool takes its parameter from there (an order's total as an amount).
        """
        args: dict[str, Any] = {}
        refs: dict[str, str] = {}
        affine: frozenset[Any] = frozenset()
        for bridge in self.bridges:
            if bridge.target == spec.name and bridge.source in earlier and bridge.param not in args:
                carried = dig(earlier[bridge.source], bridge.field)
                types = spec.param_type(bridge.param)
                if carried is not None and not fits(carried, types) and "array" in types:
                    carried = [carried]  # one recipient where a list of them is taken
                if carried is not None and (fits(carried, types) or isinstance(carried, list)):
                    args[bridge.param] = carried
                    refs[bridge.param] = bridge.phrase or f"that {noun(bridge.field.rsplit('.', 1)[-1])}"
                    affine = frozenset(v for v in leaves(earlier[bridge.source]) if shape(v))
        template = spec.intent or ""
        ids = [
            p
            for p in spec.required
            if not spec.samples.get(p) and shape(next(iter(self.pools.candidates(spec.pool_of(p))), None))
        ]
        if spec.inferred:
            joint = self._joint_inferred(spec, rng, outputs, args, refs)
        else:
            joint = self.pools.joint_row(ids, rng) if len(ids) >= 2 and rng.random() < 0.7 else {}
        # Optional parameters come in the template's [...] segments: a segment is all or nothing
        # (a time window needs its start and its end).
        chosen: set[str] = set()
        for segment in re.findall(r"\[([^\[\]]*)\]", template):
            names = re.findall(r"\{(\w+)\}", segment)
            if names and rng.random() < self.optional_rate:
                chosen.update(names)
        for param, schema in spec.properties.items():
            if param in args:
                continue
            if param in joint and fits(joint[param], spec.param_type(param)):
                args[param] = [joint[param]] if param in spec.lists else joint[param]
                continue
            required = param in spec.required
            if not required and param not in chosen:
                continue
            ref = self.ref(spec.pool_of(param), outputs) if rng.random() < 0.8 else MISSING
            if ref is not MISSING:
                args[param] = [ref] if param in spec.lists else ref
                refs[param] = f"that {noun(param)}"
                continue
            value: Any = MISSING
            if spec.samples.get(param):
                value = rng.choice(spec.samples[param])
            if value is MISSING:
                value = self.pool_value(spec, param, rng, affine)
            if value is MISSING and isinstance(schema.get("enum"), list):
                value = rng.choice(schema["enum"])
            if value is MISSING:
                value = default_value(spec.param_type(param), rng)
            if value is MISSING:
                if required:
                    return None
                continue
            # a parameter that takes a list of scalars gets a list of the one value drawn
            args[param] = [value] if param in spec.lists and not isinstance(value, list) else value
        return args, refs

    def _joint_inferred(
        self,
        spec: ToolSpec,
        rng: random.Random,
        outputs: Sequence[Any],
        args: Mapping[str, Any],
        refs: dict[str, str],
    ) -> dict[str, Any]:
        """An inferred tool's required parameters from one row of the state, earlier outputs first.

        ``update_task(requestId, taskId)`` gets a request and one of its own tasks: a value an
        earlier output holds is kept (``that request``) and the others are drawn from a row that
        agrees with it. Parameters filled here are skipped by `fill`'s own draws.
        """
        keys = {p: spec.pool_of(p) for p in spec.required if p not in args and not spec.samples.get(p)}
        keys = {p: k for p, k in keys.items() if self.pools.columns.get(k)}
        # as for the kit's ids, not always: a row's own owner is the one value a reassignment refuses
        if len(keys) < 2 or rng.random() >= 0.7:
            return {}
        fixed: dict[str, Any] = {}
        for param, key in keys.items():
            ref = self.ref(key, outputs) if rng.random() < 0.8 else MISSING
            if ref is not MISSING:
                fixed[param] = ref
        drawn = self.pools.joint_columns(keys, rng, fixed)
        for param in fixed:
            refs[param] = f"that {noun(param)}"
        return {**fixed, **drawn}

    def repair(self, args: dict[str, Any], refs: Mapping[str, str], error: str) -> dict[str, Any] | None:
        """New arguments when an error message names an id that fits one argument better.

        Servers written for models say what they need ("Only the organizer of EVT-1054,
        Lucia Mwangi (PER-1038), can cancel it"); an id of the same shape as an argument that
        the error mentions, and the call did not pass, replaces that argument.
        """
        mentioned = [m for m in re.findall(r"[A-Za-z]+[-_]?\d+", error) if shape(m)]
        passed = {str(v) for v in args.values()}
        for value in mentioned:
            if value in passed:
                continue
            for param, current in args.items():
                if param not in refs and shape(current) == shape(value):
                    return {**args, param: value}
        return None

    def ref(self, pool_name: str, outputs: Sequence[Any]) -> Any:
        """A value of a pool that an earlier output holds unambiguously (the only one of its shape)."""
        pool = self.pools.candidates(pool_name)
        pool_shapes = {shape(v) for v in list(pool)[:50]} - {None}
        if not pool_shapes:
            return MISSING
        for output in reversed(outputs):
            found = {v for v in leaves(output) if shape(v) in pool_shapes}
            if len(found) == 1:
                return found.pop()
        return MISSING
